"""Edits by their text (``str_replace`` edits, SEARCH/REPLACE blocks) turned into line hunks
against the content they apply to, so that they go through the same placement as any hunk.

An edit's old text is sought exactly, as a substring (it may start and end inside a line),
and counted: found as many times as the edit asks (once, unless ``replace_all`` or an expected
count), each occurrence becomes a hunk over the whole lines it covers, with one line of the
file's own context on each side and its line number fixed, so the ladder finds it exactly
there. Found a wrong number of times, the edit is refused, naming the lines. Not found, the
edit keeps its whole-line reading (the hunk the parser built from its text) and goes down the
ladder as a hunk's old side does (tolerances, judge, rescue, last rungs); when its new text is
in the file instead, the hunk is rebuilt from the lines holding it, so that the hunk rules
(applied.py) say ``already_applied``. Nothing here reads a file: the caller hands the content.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace
from itertools import accumulate

from ...errors import PatchError
from ..model import FilePatch, Hunk, TextEdit, line_hunk, text_lines

# occurrences listed in a refusal (the count itself is always exact)
_LISTED = 20


class _Text:
    """The content, its lines, and where each line starts (a line found by bisection: an
    edit replacing every one of many copies costs no scan per copy)."""

    def __init__(self, content: bytes) -> None:
        self.content = content
        self.lines = text_lines(content)
        self.starts = [0, *accumulate(map(len, self.lines))]

    def line_of(self, offset: int) -> int:
        """The 0-based line holding byte ``offset``."""
        return bisect_right(self.starts, offset) - 1

    def offset_of(self, line: int) -> int:
        return self.starts[line]


def resolved(fp: FilePatch, content: bytes) -> FilePatch:
    """``fp`` with each edit hunk turned into line hunks against ``content``; ``fp`` itself
    when it has none (every diff)."""
    if not any(hunk.edit is not None for hunk in fp.hunks):
        return fp
    text = _Text(content)
    hunks: list[Hunk] = []
    for hunk in fp.hunks:
        hunks.extend([hunk] if hunk.edit is None else _resolve(hunk, hunk.edit, text))
    return replace(fp, hunks=hunks)


def _resolve(hunk: Hunk, edit: TextEdit, text: _Text) -> list[Hunk]:
    content = text.content
    if edit.insert_after is not None:
        return [_insertion(hunk, edit, text.lines)]
    if not edit.old:
        raise PatchError("invalid_edit", f"edit {edit.index}: the old text is empty and the "
                         "file exists; an empty old text only creates a file",
                         hint="copy the text to replace into old_str (or SEARCH), or create "
                         "a file that does not exist yet", details={"edit": edit.index})
    starts = _occurrences(content, edit.old)
    if not starts:
        return [_not_found(hunk, edit, text)]
    wanted = edit.count
    if wanted == 1 and len(starts) > 1 and edit.line_hint is not None:
        # Roo Code's :start_line: names the copy meant, when one starts on that line
        hinted = [start for start in starts if text.line_of(start) + 1 == edit.line_hint]
        starts = hinted if len(hinted) == 1 else starts
    if wanted is not None and len(starts) != wanted:
        raise _wrong_count(edit, text, starts)
    return [_covering(text, first, last, edit, group)
            for first, last, group in _groups(text, starts, len(edit.old))]


def _occurrences(content: bytes, text: bytes) -> list[int]:
    """Where ``text`` starts in ``content``, each occurrence after the one before it ends (as
    str.replace counts them)."""
    starts = []
    at = content.find(text)
    while at != -1:
        starts.append(at)
        at = content.find(text, at + len(text))
    return starts


def _groups(text: _Text, starts: list[int], size: int) -> list[tuple[int, int, list[int]]]:
    """The occurrences by the lines they cover: (first line, line after the last, the
    occurrences' offsets); occurrences that share a line, or whose lines touch or lie one
    line apart, in one group (their hunks' context lines would overlap the other's)."""
    groups: list[tuple[int, int, list[int]]] = []
    for start in starts:
        first = text.line_of(start)
        last = min(max(text.line_of(start + size - 1) + 1, first + 1), len(text.lines))
        if groups and first <= groups[-1][1] + 1:
            top, end, members = groups[-1]
            members.append(start)
            groups[-1] = (top, max(last, end), members)
        else:
            groups.append((first, last, [start]))
    return groups


def _covering(text: _Text, first: int, last: int, edit: TextEdit, group: list[int]) -> Hunk:
    """The hunk over lines ``first``..``last`` (0-based, end excluded) with each occurrence
    of the group replaced, and one line of context on each side."""
    content = text.content
    pieces, at = [], text.offset_of(first)
    for start in group:
        pieces += [content[at:start], edit.new]
        at = start + len(edit.old)
    pieces.append(content[at:text.offset_of(last)])
    return _with_context(text.lines, first, last, b"".join(pieces))


def _with_context(lines: list[bytes], first: int, last: int, new_region: bytes) -> Hunk:
    """The line hunk turning lines ``first``..``last`` into ``new_region``, with the lines
    next to them as context, its line number fixed to ``first``."""
    before = lines[max(first - 1, 0):first]
    after = lines[last:last + 1]
    old = [*before, *lines[first:last], *after]
    new_lines = text_lines(new_region)
    if after and new_lines and not new_lines[-1].endswith(b"\n"):
        # the replacement joined its last line with the next one: they are one line now
        new = [*before, *new_lines[:-1], new_lines[-1] + after[0]]
    else:
        new = [*before, *new_lines, *after]
    at_end = last + len(after) == len(lines)
    old_no_newline = at_end and bool(old) and not old[-1].endswith(b"\n")
    new_no_newline = (at_end and bool(new) and not new[-1].endswith(b"\n")) or (
        not new and old_no_newline)
    return line_hunk(old, new, old_start=first - len(before) + 1,
                     old_no_newline=old_no_newline, new_no_newline=new_no_newline)


def _insertion(hunk: Hunk, edit: TextEdit, lines: list[bytes]) -> Hunk:
    """The text editor tool's ``insert``: the new text as lines after line ``insert_after``
    (0: before the first), with the line before (or after) it as context."""
    after = edit.insert_after
    assert after is not None
    if after > len(lines):
        raise PatchError("context_not_found", f"edit {edit.index}: insert_line {after} is past "
                         f"the end of the file, which has {len(lines)} lines",
                         hint="re-read the file and give insert_line as a line number it has "
                         "(0 inserts before the first line)",
                         details={"edit": edit.index, "lines": len(lines)})
    text = edit.new if edit.new.endswith(b"\n") or not edit.new else edit.new + b"\n"
    if not lines:
        return replace(hunk, edit=None)  # an empty file: the lines are all it will hold
    if after == 0:
        return _with_context(lines, 0, 0, text)
    previous = lines[after - 1]
    joined = previous if previous.endswith(b"\n") else previous + b"\n"
    return _with_context(lines, after - 1, after, joined + text)


def _not_found(hunk: Hunk, edit: TextEdit, text: _Text) -> Hunk:
    """The old text is not in the file exactly. When the new text is, once, the hunk is the
    lines that hold it as they were with the old text (so the hunk rules see a change that is
    in already); else the whole-line reading goes down the ladder, at the edit's line hint."""
    if edit.new and edit.old not in edit.new:
        there = _occurrences(text.content, edit.new)
        if len(there) == 1:
            (first, last, _), = _groups(text, there, len(edit.new))
            begin = text.offset_of(first)
            region = text.content[begin:text.offset_of(last)]
            offset = there[0] - begin
            was = region[:offset] + edit.old + region[offset + len(edit.new):]
            return _with_context(text.lines, first, last, was).reversed()
    if edit.line_hint is not None:
        return replace(hunk, old_start=edit.line_hint, new_start=edit.line_hint)
    return hunk


def _wrong_count(edit: TextEdit, text: _Text, starts: list[int]) -> PatchError:
    at = [text.line_of(start) + 1 for start in starts]
    listed = ", ".join(map(str, at[:_LISTED])) + (", ..." if len(at) > _LISTED else "")
    asked = ("once" if edit.count == 1 else f"{edit.count} times")
    return PatchError(
        "ambiguous_context", f"edit {edit.index}: the old text occurs {len(starts)} times (at "
        f"lines {listed}); the edit asks for it {asked}",
        hint="add lines around the old text until it occurs only where it is meant, or set "
        "replace_all (or expected_replacements to the count) to replace every copy",
        details={"edit": edit.index, "occurrences": len(starts), "candidate_lines": at[:50],
                 "expected": edit.count})
