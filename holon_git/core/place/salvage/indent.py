"""The last rung ``context_indent``: the whole old side, found with whitespace ignored, when
only context lines away from the change differ from the file's, by being indented deeper (a
model indents the context it copies like the code it adds)."""

from __future__ import annotations

from ...model import ADD, CONTEXT, HunkLine
from ..match import KEYS
from .reading import PLACING, Attempt, Reading, Unplaced, new_side, old_side, quote


def readings(attempt: Attempt) -> list[Reading]:
    """The whole old side, found with whitespace ignored; see ``_check``."""
    if not attempt.core:
        return []
    body = attempt.body

    def rebuild(start: int) -> tuple[int, list[HunkLine]]:
        out, at = [], start
        for line in body:
            if line.kind == CONTEXT:
                line = HunkLine(CONTEXT, attempt.file.lines[at])
            out.append(line)
            at += line.kind != ADD
        return start, out

    return [Reading(old_side(body), new_side(body), rebuild,
                    "with the file's indentation for its context lines indented deeper than "
                    "the file's", old_side(body),
                    forgiven=lambda start: f"its context lines {quote(_check(attempt, start))} "
                    "are indented deeper than the file's")]


def _check(attempt: Attempt, start: int) -> list[bytes]:
    """At the one place the old side matches with whitespace ignored: every removed line,
    and every context line next to a change, equal to the file's; the other context lines
    equal too, or indented deeper. Returns the deeper ones; raises Unplaced otherwise."""
    body = attempt.body
    deeper, at, key = [], start, KEYS[PLACING - 1]
    for j, line in enumerate(body):
        if line.kind == ADD:
            continue
        have = attempt.file.lines[at]
        at += 1
        if key(line.text) == key(have):
            continue
        beside = any(0 <= k < len(body) and body[k].kind != CONTEXT for k in (j - 1, j + 1))
        if line.kind == CONTEXT and not beside and _deeper(line.text, have):
            deeper.append(line.text)
            continue
        raise Unplaced("context_indent forgives only deeper context away from a change, "
                       f"and line {at} {_which(line.kind, beside)}", [at])
    return deeper


def _which(kind: str, beside: bool) -> str:
    """Which of context_indent's conditions a line that differs from the file's broke."""
    if kind != CONTEXT:
        return "is a removed line"
    return "is next to a change" if beside else "is not indented deeper than the file's"


def _deeper(patch_line: bytes, file_line: bytes) -> bool:
    """Is the patch's line the file's line indented further (its indentation the file's with
    more after it, the rest the same)?"""
    ours, theirs = patch_line.rstrip(b"\r\n"), file_line.rstrip(b"\r\n")
    ours_text, theirs_text = ours.lstrip(b" \t"), theirs.lstrip(b" \t")
    ours_indent = ours[: len(ours) - len(ours_text)]
    theirs_indent = theirs[: len(theirs) - len(theirs_text)]
    return (ours_text.rstrip() == theirs_text.rstrip() and len(ours_indent) > len(theirs_indent)
            and ours_indent.startswith(theirs_indent))
