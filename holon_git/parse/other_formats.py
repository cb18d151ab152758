"""Recognizing the diff formats holon-git does not read (context, normal, ed), to name them
in a refusal and never to skip one of their hunks as prose."""

from __future__ import annotations

import re

from .text import header_text

UNIFIED_HINT = "make a unified diff (diff -u, or git diff)"
# A colored diff is not read through its color codes: a file's line may hold the same bytes,
# and a patch is applied byte for byte, so what to strip would be a guess
COLOR_HINT = ("the patch was written with color (git diff --color, or color.ui=always to a "
              "file): make it again with --no-color")
# compiled by re on first use, not at import: these are rare and start-up counts
_CONTEXT_HUNK = rb"^\*\*\* \d+(,\d+)? \*\*\*\*\r?$"
_NORMAL_COMMAND = rb"^\d+(,\d+)?[acd]\d+(,\d+)?\r?$"
_ED_COMMAND = rb"^\d+(,\d+)?[acd]\r?$"
CONTEXT, NORMAL, ED = "a context diff (diff -c)", "a normal diff (diff without -u)", \
    "an ed script (diff -e)"


def other_format_hunk(line: bytes, following: bytes) -> str | None:
    """The format whose hunk starts at ``line`` (and the line after it), if another's."""
    if line == b"***************" and re.match(_CONTEXT_HUNK, following):
        return CONTEXT
    if following.startswith((b"< ", b"> ")) and re.match(_NORMAL_COMMAND, line):
        return NORMAL
    return None


def other_format_of(items: list[bytes]) -> str | None:
    """Which other diff format a patch with no unified file patch seems to be."""
    head = [header_text(line) for line in items[:200]]
    if b"***************" in head and any(re.match(_CONTEXT_HUNK, line) for line in head):
        return CONTEXT
    if any(line.startswith((b"< ", b"> ")) for line in head) and any(
            re.match(_NORMAL_COMMAND, line) for line in head):
        return NORMAL
    if head and re.match(_ED_COMMAND, head[0]):
        return ED
    return None
