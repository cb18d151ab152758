"""The repository names the version a patch was written against when the patch does not
(issue 43, item 3): a stale patch without an ``index`` line.

A file patch whose index line names another blob than the file's is judged as a stale patch
(hunks.names_another_version: the judge's stale rules, salvage/judge.py's ``stale_refusal``,
then the rescue from that blob). Models mostly write no index line; the same patch, stale
the same way, was then placed by the reading "the model slipped on this file" alone: at a
copy of its lines in another function (its number and section text pointing at the place it
was written for, changed since), or over a change that claimed the file's end with lines
after it now. The repository's own versions are the evidence instead: a version the
repository holds (the index, HEAD, HEAD's recent history, within the budget of
git/versions.py and git/recent.py; never this tool's own recorded pre-images, which the
history log rules already read) that holds every hunk exactly where its numbers and claimed
edges say, and differs from the current file around a hunk the current file does not place
so, makes the stale reading one the evidence allows. The planner then plans the file patch
once more with the stale reading weighed (``apply_hunks(..., stale=True)``): the judge's
stale rules decide, and a refusal goes to the rescue, which merges from that version.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import PatchError, let_go
from ..change import HunkResult
from ..model import ADD, CONTEXT, FilePatch, Hunk
from ..place.edges import claimed_edges
from ..place.match import split_lines
from ..threeway import KnownVersions
from .hunks import apply_hunks

_AROUND = 3  # lines either side of a hunk compared between the version and the file


def stale_version(fp: FilePatch, placed: Sequence[HunkResult], ours: bytes, reverse: bool,
                  three_way: KnownVersions) -> str | None:
    """The label of a version the repository holds (not the history log's) in which every
    hunk sits exactly at its line number and claimed edges, and whose lines around a hunk
    ``ours`` places otherwise (``placed``) are not ``ours``'s lines around it: the stale
    reading from that version is then one the evidence allows. None when there is none."""
    assert fp.old_path is not None
    if reverse:
        return None  # the sides and edges below are read forward: -R is not weighed so
    if fp.edit is not None or (fp.blob_ids is not None and fp.blob_ids[0].strip("0")):
        return None  # an edit has no numbers; an index line says which version itself
    weak = [r for r in placed if placed_otherwise(fp, r, ours)]
    if not weak:
        return None
    current = split_lines(ours)
    for version in three_way.versions(fp, fp.old_path):
        if version.recorded or version.named or version.content == ours:
            continue
        lines = split_lines(version.content)
        try:
            _, there, _ = apply_hunks(fp, version.content, reverse)
        except PatchError as err:
            let_go(err)
            continue
        if not all(_exactly(fp.hunks[r.index - 1], r, len(lines)) for r in there):
            continue
        by_index = {r.index: r for r in there}
        if any(r.index in by_index and _differs_around(fp.hunks[r.index - 1], lines,
                                                       by_index[r.index], current, r)
               for r in weak):
            return version.label
    return None


def placed_otherwise(fp: FilePatch, result: HunkResult, ours: bytes) -> bool:
    """Was a hunk with context placed in ``ours`` other than exactly as it says? (A hunk
    with no context is weighed by its line numbers: place/numbers.py, rescue.py.)"""
    hunk = fp.hunks[result.index - 1]
    if result.hinted_line is None or not _has_context(hunk):
        return False
    return bool(result.offset or result.tolerances) or not _at_its_edges(
        hunk, result.applied_line - 1, _line_count(ours))


def _exactly(hunk: Hunk, result: HunkResult, length: int) -> bool:
    """Was the hunk placed in a version exactly as it says: at its line number, with no
    tolerance, at every file edge it claims?"""
    return (result.offset == 0 and not result.tolerances
            and _at_its_edges(hunk, result.applied_line - 1, length))


def _differs_around(hunk: Hunk, version: list[bytes], there: HunkResult,
                    current: list[bytes], here: HunkResult) -> bool:
    """Are the version's lines around the hunk (its old side and _AROUND lines either side)
    other than the current file's lines around the place it was found?"""
    size = sum(line.kind != ADD for line in hunk.lines)

    def around(lines: list[bytes], at: int) -> list[bytes]:
        return lines[max(at - 1 - _AROUND, 0):at - 1 + size + _AROUND]

    return around(version, there.applied_line) != around(current, here.applied_line)


def _at_its_edges(hunk: Hunk, start: int, length: int) -> bool:
    size = sum(line.kind != ADD for line in hunk.lines)
    return claimed_edges(hunk, hunk.lines).hold(start, size, length)


def _has_context(hunk: Hunk) -> bool:
    return any(line.kind == CONTEXT for line in hunk.lines)


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))
