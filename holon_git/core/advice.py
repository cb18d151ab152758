"""Refusals made specific: once a hunk is refused, say what most likely went wrong and how to
fix it, from what the refusal's details and the file show.

- ``ambiguous_context``: how to pick a copy (the header's line number), and a line beside
  each copy to tell them apart;
- ``context_not_found`` whose hunk elides lines with ``...``: a hunk lists every line;
- ``context_not_found`` whose nearest copy differs first only in indentation: say so, and
  where the text itself first differs;
- ``content_mismatch`` of a deletion: the first line that differs.

Only ever called on a refusal, so nothing here costs an apply that succeeds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..errors import PatchError
from .model import FilePatch, Hunk, sides
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
    return err


def _pick_a_copy(err: PatchError, hunk: Hunk, old: list[bytes],
                 current: Sequence[bytes]) -> None:
    """Each copy with the line before it (or, where those are all alike, the line after it),
    and how the header's line number picks one."""
    lines = err.details["candidate_lines"][:SHOWN_COPIES]
    copies = []
    for line in lines:
        start = line - 1
        # a copy inside lines an earlier hunk added is numbered in the file as that hunk
        # left it, which may run past the file on disk: shown without its neighbours
        before = current[start - 1] if 0 < start <= len(current) else None
        after = current[start + len(old)] if 0 <= start + len(old) < len(current) else None
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
