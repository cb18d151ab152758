"""An envelope hunk's '@@ <text>' line as a tie-breaker, as Codex uses it.

Codex writes `@@ def b():` above a hunk to say where it goes: it seeks a line matching the
text, then takes the first copy of the hunk's old lines after it. Here the text only decides
between copies that already match: when the old lines occur more than once, the first copy
after the one line of the file that matches the text wins. A text that matches no line or
several, or no copy after it, decides nothing, and the hunk stays ambiguous.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import PatchError
from .match import Candidate, RunningFile

_HINT = ("the hunk's old lines occur more than once and its '@@ {text}' line did not decide "
         "which copy ({why}); add surrounding context lines until they are unique")


def _body(line: bytes) -> str:
    return line.rstrip(b"\r\n").decode("utf-8", "surrogateescape")


def anchor_lines(current: Sequence[bytes], text: str) -> list[int]:
    """The lines (0-based) matching ``text``: exactly (apart from the line ending), else with
    leading and trailing blanks ignored, as Codex's search does."""
    bodies = [_body(line) for line in current]
    exact = [i for i, body in enumerate(bodies) if body == text]
    if exact:
        return exact
    wanted = text.strip()
    return [i for i, body in enumerate(bodies) if body.strip() == wanted]


def copy_after_anchor(current: Sequence[bytes], candidates: Sequence[Candidate], text: str,
                      ambiguous: PatchError) -> tuple[Candidate, int]:
    """(the first candidate after the one line matching ``text``, that line), or raise
    ``ambiguous`` with a hint that says why the text did not decide."""
    lines = anchor_lines(current, text)
    after = []
    if len(lines) == 1:
        after = [c for c in candidates if c.start > lines[0]]
    if after:
        return min(after, key=lambda c: c.start), lines[0]
    if not lines:
        why = "no line of the file matches it"
    elif len(lines) > 1:
        why = f"{len(lines)} lines of the file match it"
    else:
        why = f"no copy follows line {lines[0] + 1}, which matches it"
    ambiguous.hint = _HINT.format(text=text, why=why)
    ambiguous.details["anchor"] = {"text": text, "lines": [i + 1 for i in lines[:50]]}
    raise ambiguous


def refuse_copy_before_anchor(current: Sequence[bytes], copy: Candidate, size: int,
                              text: str) -> None:
    """A hunk whose old lines occur once, wholly before the first line matching ``text``:
    the '@@' line says the hunk comes after that line, and no copy is there. Codex refuses it
    (it seeks the old lines only after the line); so does holon-git, rather than edit a copy
    the patch did not name. A copy that reaches the line (the hunk's context may start with
    it) is not before it; a text that matches no line says nothing."""
    lines = anchor_lines(current, text)
    if not lines or copy.start + size > lines[0]:
        return
    where = f"line {lines[0] + 1}" if len(lines) == 1 else f"lines {lines[0] + 1}, ..."
    raise PatchError(
        "context_not_found",
        f"the hunk's old lines occur only at line {copy.start + 1}, before {where}, which "
        f"matches its '@@ {text}' line: no copy follows it",
        hint=f"the '@@ {text}' line says the hunk comes after line {lines[0] + 1}, but its old "
        "lines are only before it: fix the '@@' line or copy the context from the lines after "
        "it",
        details={"anchor": {"text": text, "lines": [i + 1 for i in lines[:50]]},
                 "candidate_lines": [copy.start + 1]})


def claim_after_anchor(running: RunningFile, new: Sequence[bytes], old_starts: Sequence[int],
                       text: str) -> list[int]:
    """Where the hunk claims its new side goes: the first copy of it after the one line
    matching ``text``, unless a copy of its old side comes first (the hunk is not applied
    there yet); nothing when the text does not name one line."""
    lines = anchor_lines(running.lines(), text)
    if len(lines) != 1:
        return []
    after = [c.start for c in running.search(new).candidates if c.start > lines[0]]
    if not after:
        return []
    first_old = min((start for start in old_starts if start > lines[0]), default=None)
    return [min(after)] if first_old is None or min(after) <= first_old else []
