"""Refusals made specific: once a hunk is refused, say what most likely went wrong and how to
fix it, from what the refusal's details and the file show.

- ``ambiguous_context``: how to pick a copy (the header's line number), and a line beside
  each copy to tell them apart;
- ``context_not_found`` whose hunk elides lines with ``...``: a hunk lists every line;
- ``context_not_found`` whose nearest copy differs first only in indentation: say so, and
  where the text itself first differs;
- ``context_not_found``: the hunk's lines that occur nowhere in the file (invented, not
  copied from it), and the longest run of its lines the file has, where it has it;
- ``content_mismatch`` of a deletion: the first line that differs.

Only ever called on a refusal, so nothing here costs an apply that succeeds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..errors import PatchError
from .model import ADD, REMOVE, FilePatch, Hunk, sides
from .place.match import show_line

SHOWN_COPIES = 10  # copies of an ambiguous hunk described in the message
_CLIP = 60  # characters of a quoted line in a message
_COMMENT = re.compile(r"^(#+|//+|/\*+|\*+|--|;+|<!--|%|\")\s*")
_COMMENT_END = re.compile(r"\s*(\*/|-->)$")
_ELLIPSIS = ("...", "\u2026", "[...]", "(...)")


def _blanks(line: bytes) -> bytes:
    return b" ".join(line.split())


def _quoted(line: bytes | str) -> str:
    text = show_line(line) if isinstance(line, bytes) else line
    return repr(text if len(text) <= _CLIP else text[: _CLIP - 3] + "...")


def advise(err: PatchError, fp: FilePatch, current: Sequence[bytes]) -> PatchError:
    """``err`` (a refusal of one of ``fp``'s hunks against the file's lines ``current``)
    with a more specific message, hint and details where one applies; returns ``err``."""
    if err.hunk is None or not 0 < err.hunk <= len(fp.hunks):
        return err
    hunk = fp.hunks[err.hunk - 1]
    old, _ = sides(hunk.lines)
    if err.code == "ambiguous_context" and "candidate_lines" in err.details:
        _pick_a_copy(err, hunk, old, current)
    elif err.code == "context_not_found" and "nearest_line" in err.details \
            and not _elided(err, old, current):
        _indentation_only(err, old, current)
        _not_in_the_file(err, hunk, old, current)
    return err


def _pick_a_copy(err: PatchError, hunk: Hunk, old: list[bytes],
                 current: Sequence[bytes]) -> None:
    """Each copy with the line before it (or, where those are all alike, the line after it),
    and how the header's line number picks one."""
    lines = err.details["candidate_lines"][:SHOWN_COPIES]
    if any(not 0 < line <= len(current) - len(old) + 1 for line in lines):
        # a copy in lines the patch's earlier hunks added is numbered in the file as they
        # left it, not in ``current``: its neighbours are not there to show
        return
    copies = []
    for line in lines:
        start = line - 1
        before = current[start - 1] if start > 0 else None
        after = current[start + len(old)] if start + len(old) < len(current) else None
        copies.append({"line": line,
                       "before": None if before is None else show_line(before),
                       "after": None if after is None else show_line(after)})
    err.details["copies"] = copies
    side = "before" if len({c["before"] for c in copies}) == len(copies) else "after"
    edge = "the start of the file" if side == "before" else "the end of the file"
    told = [f"line {c['line']} {'after' if side == 'before' else 'before'} "
            f"{edge if c[side] is None else _quoted(c[side])}" for c in copies]
    err.message += f"; the copies: {', '.join(told)}"
    count = f",{len(old)}" if len(old) != 1 else ""
    header = f"@@ -{lines[0]}{count} ... @@"
    if hunk.old_start is None:
        err.message += (f"; a line number in the hunk header ({header}) picks the copy at that "
                        "line; in an envelope, an '@@ <text>' line naming a line just before "
                        "the copy meant picks it")
    else:
        err.message += (f"; setting the hunk header's old line number to one of these lines "
                        f"({header}) picks that copy")


def _elision(text: bytes) -> str | None:
    """The line, when it reads as a stand-in for lines left out ('...', '# ...',
    '// ... existing code ...'), else None."""
    line = text.decode("utf-8", "replace").strip()
    rest = _COMMENT_END.sub("", _COMMENT.sub("", line)).strip()
    commented = rest != line
    if rest.startswith(_ELLIPSIS) or (commented and rest.endswith(_ELLIPSIS[:2])):
        return line
    return None


def _elided(err: PatchError, old: list[bytes], current: Sequence[bytes]) -> bool:
    """A line of the hunk's old side that stands for lines left out and is not in the file.
    The nearest match and its first difference are then beside the point (the lines around
    the elision are apart in the file): the message says where each part is instead."""
    present = {_blanks(line) for line in current}
    for index, text in enumerate(old):
        line = _elision(text)
        if line is not None and _blanks(text) not in present:
            parts = [_where(label, part, current) for label, part in
                     (("before", old[:index]), ("after", old[index + 1:])) if part]
            err.message = (err.message.split("; nearest match", 1)[0]
                           + f"; the hunk's line {_quoted(line)} is not in the file: it seems "
                           "to stand for lines left out" + "".join(f"; {p}" for p in parts))
            err.details.pop("first_difference", None)
            err.hint = ("a hunk lists every line of the region it changes: replace "
                        f"{_quoted(line)} with the lines it stands for, copied exactly from the "
                        "file, or split the hunk in two around them")
            err.details["elided_line"] = line
            return True
    return False


def _where(label: str, part: list[bytes], current: Sequence[bytes]) -> str:
    """Where the hunk's lines before (or after) an elision are in the file, whitespace
    aside: 'the lines before it are at line 3'."""
    wanted = [_blanks(line) for line in part]
    lines = [_blanks(line) for line in current]
    found = [start + 1 for start in range(len(lines) - len(wanted) + 1)
             if lines[start:start + len(wanted)] == wanted]
    if not found:
        return f"the lines {label} it are not in the file as one run"
    at = ", ".join(str(n) for n in found[:SHOWN_COPIES])
    return f"the lines {label} it are at line{'s' if len(found) > 1 else ''} {at}"


def _indentation_only(err: PatchError, old: list[bytes], current: Sequence[bytes]) -> None:
    """The nearest copy's first difference is only in indentation: say so, and where the
    text itself first differs (the whitespace level compares lines without their blanks)."""
    difference = err.details.get("first_difference")
    if not difference or difference.get("found") is None:
        return
    start = err.details["nearest_line"] - 1
    window = list(current[start : start + len(old)])
    first = next((j for j, (a, b) in enumerate(zip(old, window, strict=False)) if a != b), None)
    if first is None or _blanks(old[first]) != _blanks(window[first]):
        return
    line = start + first + 1
    content = next((j for j in range(len(old))
                    if j >= len(window) or _blanks(old[j]) != _blanks(window[j])), None)
    err.message += f"; line {line} differs only in its indentation"
    if content is None:
        err.hint = ("the hunk's lines differ from the file's only in indentation; copy each "
                    "line's leading whitespace exactly from the file (tabs as tabs)")
        return
    at = start + content + 1
    found = window[content] if content < len(window) else None
    err.message += (f", and ignoring whitespace the first difference is at line {at}: expected "
                    f"{_quoted(old[content])}, found "
                    + ("the end of the file" if found is None else _quoted(found)))
    err.details["first_text_difference"] = {
        "line": at, "expected": show_line(old[content]),
        "found": None if found is None else show_line(found)}
    err.hint = ("the hunk's indentation differs from the file's, and so does its text at line "
                f"{at}: copy the context and removed lines exactly from the file, leading "
                "whitespace included")


def _patch_lines(hunk: Hunk) -> list[int]:
    """The patch line of each of the hunk's old-side lines (a no-newline marker takes a line
    after the last line of the side it marks)."""
    lines = list(hunk.lines)
    marked = set()
    if hunk.old_no_newline:
        marked.add(max((j for j, line in enumerate(lines) if line.kind != ADD), default=-1))
    if hunk.new_no_newline:
        marked.add(max((j for j, line in enumerate(lines) if line.kind != REMOVE), default=-1))
    out, number = [], hunk.patch_line + 1
    for j, line in enumerate(lines):
        if line.kind != ADD:
            out.append(number)
        number += 1 + (j in marked)
    return out


def _not_in_the_file(err: PatchError, hunk: Hunk, old: list[bytes],
                     current: Sequence[bytes]) -> None:
    """Name the hunk's old lines that occur nowhere in the file, whitespace ignored (the model
    wrote them from memory), and the longest run of its old lines that the file has, one
    after the other (the best partial place), so that the next try copies the rest from
    there."""
    if not old or not current:
        return
    numbers = _patch_lines(hunk)
    present: dict[bytes, list[int]] = {}
    for at, line in enumerate(current):
        places = present.setdefault(_blanks(line), [])
        if len(places) < _RUN_PLACES:
            places.append(at)
    absent = [j for j, line in enumerate(old) if _blanks(line) not in present]
    if absent:
        err.details["absent_lines"] = [{"patch_line": numbers[j], "text": show_line(old[j])}
                                       for j in absent[:_RUN_PLACES]]
        shown = ", ".join(_quoted(old[j]) for j in absent[:3])
        more = f" and {len(absent) - 3} more" if len(absent) > 3 else ""
        err.message += (f"; {len(absent)} of its lines occur{'s' if len(absent) == 1 else ''} "
                        f"nowhere in the file (patch line{'s' if len(absent) > 1 else ''} "
                        f"{', '.join(str(numbers[j]) for j in absent[:10])}: {shown}{more})")
    run = _longest_run(old, present)
    if run is None:
        return
    first, at, size = run
    if size == len(old):
        return
    err.details["partial_match"] = {"patch_lines": [numbers[first], numbers[first + size - 1]],
                                    "file_lines": [at + 1, at + size]}
    err.message += (f"; its longest run of lines the file has is patch line"
                    f"{'s' if size > 1 else ''} {numbers[first]}"
                    f"{f'-{numbers[first + size - 1]}' if size > 1 else ''}, at line"
                    f"{'s' if size > 1 else ''} {at + 1}{f'-{at + size}' if size > 1 else ''}"
                    " of the file")
    if absent:
        # "written from memory" and "the file changed since" look alike here: the hint
        # names neither, only what to send next
        err.hint = ("the hunk's lines that are nowhere in the file are not its text as it is "
                    "now (written from memory, or the file changed since): re-read the file "
                    "and re-emit the hunk with its context copied exactly from it around "
                    f"line {at + 1}, where its other lines are")


_RUN_PLACES = 200  # places of one line followed when looking for the longest run


def _longest_run(old: list[bytes], present: dict[bytes, list[int]]
                 ) -> tuple[int, int, int] | None:
    """(first old line, first file line, length) of the longest run of the old lines that
    the file has one after the other, whitespace ignored, when there is one such run and it
    says where it is (``enough`` of place/salvage/reading.py: two non-blank lines, or a
    distinctive one)."""
    from .place.salvage.reading import enough

    ends: dict[int, int] = {}  # file line -> length of the run ending there, for the last line
    runs: list[tuple[int, int, int]] = []
    for j, line in enumerate(old):
        here = {}
        for at in present.get(_blanks(line), ()):
            here[at] = ends.get(at - 1, 0) + 1
        for at, size in ends.items():
            if here.get(at + 1) is None:  # the run ending at ``at`` ends there
                runs.append((j - size, at - size + 1, size))
        ends = here
    runs.extend((len(old) - size, at - size + 1, size) for at, size in ends.items())
    if not runs:
        return None
    longest = max(size for _, _, size in runs)
    best = [run for run in runs if run[2] == longest]
    first, _, size = best[0]
    if len(best) > 1 or not enough(old[first : first + size]):
        return None
    return best[0]


def deletion_mismatch(path: str, old: Sequence[bytes], current: Sequence[bytes],
                      details: dict[str, Any]) -> PatchError:
    """A deletion whose listed lines are not the file's, naming the first that differs."""
    first = next((j for j in range(max(len(old), len(current)))
                  if j >= len(old) or j >= len(current) or _blanks(old[j]) != _blanks(current[j])
                  ), None)
    message = (f"cannot delete {path!r}: the patch lists {len(old)} line(s), the file has "
               f"{len(current)}, and they differ")
    if first is not None:
        expected = show_line(old[first]) if first < len(old) else None
        found = show_line(current[first]) if first < len(current) else None
        details["first_difference"] = {"line": first + 1, "expected": expected, "found": found}
        if expected is None:
            message += f"; the file has more lines: line {first + 1} is {_quoted(found or '')}"
        elif found is None:
            message += (f"; the file ends before the patch's line {first + 1}, "
                        f"{_quoted(expected)}")
        else:
            message += (f"; first difference at line {first + 1}: expected {_quoted(expected)}, "
                        f"found {_quoted(found)}")
    return PatchError("content_mismatch", message, details=details)
