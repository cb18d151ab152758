"""The last rung ``context_indent``: the whole old side, found with whitespace ignored, when
only context lines away from the change differ from the file's, by being indented deeper (a
model indents the context it copies like the code it adds). The judge (judge.py) checks the
lines at the place it proposes."""

from __future__ import annotations

from ...model import ADD, CONTEXT, HunkLine
from .reading import Attempt, Reading, new_side, old_side


def readings(attempt: Attempt) -> list[Reading]:
    """The whole old side, found with whitespace ignored (judge._deeper_lines)."""
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
                    "the file's", old_side(body), indented=True)]
