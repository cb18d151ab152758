"""Turning patch bytes into numbered lines, and taking a patch out of a markdown fence."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

from ..core.model import Diagnostic

# A fence opens or closes only at column 0: a hunk line never starts with a backtick or tilde,
# so a fence inside a patched markdown file (" ```python" as context) is never mistaken for one.
_FENCE = re.compile(rb"^(`{3,}|~{3,})[ \t]*([\w+.-]*)[ \t]*\r?\n?$")
_HEADER = re.compile(rb"^(diff --git |--- |\*\*\* Begin Patch)")


class Lines:
    """Patch lines (each keeping its line ending) and their 1-based line numbers in the input."""

    __slots__ = ("items", "numbers", "fence_mark", "closed")

    def __init__(self, items: list[bytes], numbers: Sequence[int], fence_mark: bool = True,
                 closed: bool = False) -> None:
        self.items = items
        self.numbers = numbers  # a range until fences are taken out: no int object per line
        self.fence_mark = fence_mark  # whether any line may open a markdown fence
        # the lines end where a markdown fence closed: the text that held them was not cut
        self.closed = closed

    def __len__(self) -> int:
        return len(self.items)


def split_lines(data: bytes) -> Lines:
    items = io.BytesIO(data).readlines()  # splits at b"\n" only, keeping it, in C
    return Lines(items, range(1, len(items) + 1), _has_fence_mark(data))


def header_text(line: bytes) -> bytes:
    """A header line without its line ending (CRLF patches carry '\\r' on headers too)."""
    return line.rstrip(b"\r\n")


def _has_fence_mark(data: bytes) -> bool:
    """Whether any line starts with ``` or ~~~: one search in C instead of a regex per line."""
    return b"\n```" in data or b"\n~~~" in data or data.startswith((b"```", b"~~~"))


def unfence(lines: Lines) -> tuple[Lines, list[Diagnostic]]:
    """If the patch sits inside markdown fences, return the fenced parts that hold a patch.

    Fences are only looked for when one opens before the first patch header; otherwise the
    input is a bare patch and is returned unchanged.
    """
    items = lines.items
    if not lines.fence_mark:
        return lines, []
    first_fence = next((i for i, line in enumerate(items) if _FENCE.match(line)), None)
    if first_fence is None:
        return lines, []
    first_header = next((i for i, line in enumerate(items) if _HEADER.match(line)), None)
    if first_header is None or first_header < first_fence:
        return lines, []
    kept: list[int] = []
    closed = False
    i = first_fence
    while i < len(items):
        opener = _FENCE.match(items[i])
        if not opener:
            i += 1
            continue
        mark = opener.group(1)
        close = i + 1
        while close < len(items):
            m = _FENCE.match(items[close])
            if m and m.group(1)[0] == mark[0] and len(m.group(1)) >= len(mark) and not m.group(2):
                break
            close += 1
        block = range(i + 1, close)
        if any(_HEADER.match(items[j]) for j in block):
            kept.extend(block)
            closed = close < len(items)
        i = close + 1
    if not kept:
        return lines, []
    note = Diagnostic(
        "markdown_fence",
        "the patch was inside a markdown code fence; text outside the fence was ignored",
        lines.numbers[first_fence],
    )
    return Lines([items[j] for j in kept], [lines.numbers[j] for j in kept],
                 closed=closed), [note]
