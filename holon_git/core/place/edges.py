"""git's edge rule (apply.c's match_beginning and match_end), written once.

A hunk whose context runs out at the file's start or end claims that edge: it claims the start
when its old side starts at line 0, or at line 1 with context; it claims the end when it is tied
to it (an envelope's '*** End of File'), or when it has context and its last line is not
context. A hunk with no context at all (diff -U0) claims no edge: git cannot tell it from one in
the middle either. The plan uses the claims twice: a copy away from a claimed edge is weaker
evidence (the rescue may look for a version that places the hunk at the edge: ``away_from``),
and a claimed edge is a place where a re-sent hunk's new side may sit.

The rule protects insertions: a re-sent insertion at the top of a file has nothing else to
refuse it. A hunk whose removed lines occur once in the file is placed by them wherever the
file's edges now are (an agent's own lines above a hunk at line 1 moved it down, and a merge
from the version where it sat at line 1 would conflict with those lines for nothing). A patch
whose ``index`` line names another version than the file's is the exception: there the judge
(salvage/judge.py's stale_refusal) refuses a change that ended the file, with lines after it
now, whatever anchors it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from ..model import ADD, CONTEXT, KIND_OF_PREFIX, REMOVE, Hunk, HunkLine, PackedLines
from .match import RunningFile


class Edges(NamedTuple):
    """The file edges a hunk claims."""

    start: bool
    end: bool

    def places(self, length: int, size: int) -> list[int]:
        """Where ``size`` lines sit at the claimed edges of a file of ``length`` lines (the
        end first, then the start)."""
        return [at for at, claimed in ((length - size, self.end), (0, self.start)) if claimed]

    def hold(self, start: int, size: int, length: int) -> bool:
        """Do ``size`` lines at ``start`` of a file of ``length`` lines sit at every claimed
        edge?"""
        return (not self.end or start + size == length) and (not self.start or start == 0)


def claimed_edges(hunk: Hunk, lines: Sequence[HunkLine]) -> Edges:
    """The edges ``hunk`` claims, its body being ``lines`` (as the plan reads it: perhaps
    without its trailing blank lines, or with the file's last line as context)."""
    kinds = _edge_kinds(lines)
    if kinds is None:
        return Edges(False, False)
    last, has_context = kinds
    return Edges(start=hunk.old_start == 0 or (hunk.old_start == 1 and has_context),
                 end=hunk.anchor_end or (has_context and last != CONTEXT))


def _edge_kinds(lines: Sequence[HunkLine]) -> tuple[str, bool] | None:
    """(last line's kind, whether any line is context) of a hunk body; None when empty."""
    if isinstance(lines, PackedLines):
        packed = lines.packed
        if not packed:
            return None
        body = packed[:-1] if packed.endswith(b"\n") else packed
        cut = body.rfind(b"\n")
        has_context = packed.startswith(b" ") or b"\n " in packed
        return KIND_OF_PREFIX[body[cut + 1 : cut + 2]], has_context
    if not lines:
        return None
    return lines[-1].kind, any(line.kind == CONTEXT for line in lines)


def away_from(hunk: Hunk, lines: Sequence[HunkLine], running: RunningFile, start: int,
              size: int, level: int) -> bool:
    """Is the copy of the hunk's old side (``size`` lines at ``start`` of the running file,
    found at ``level``) away from a file edge the hunk claims, where the claim binds: it does
    not for a hunk anchored by removed lines that occur once in the file."""
    return off_claimed_edge(hunk, lines, start, size, lambda: running.length,
                            lambda removed: len(running.matches(removed, level).some(2)))


def off_claimed_edge(hunk: Hunk, lines: Sequence[HunkLine], start: int, size: int,
                     length: Callable[[], int], copies: Callable[[list[bytes]], int]) -> bool:
    """away_from, for any kind of running file: ``length()`` is its lines, ``copies(lines)``
    the copies of ``lines`` in it (two at most are asked for); both are asked only for a
    hunk that claims an edge."""
    edges = claimed_edges(hunk, lines)
    if not (edges.start or edges.end) or edges.hold(start, size, length()):
        return False
    removed = _removed_block(lines)
    return not removed or copies(removed) != 1


def _removed_block(lines: Sequence[HunkLine]) -> list[bytes]:
    """The old side from the hunk's first removed line to its last (context between them
    included); [] for a hunk that removes nothing."""
    old = [line for line in lines if line.kind != ADD]
    marks = [i for i, line in enumerate(old) if line.kind == REMOVE]
    return [line.text for line in old[marks[0] : marks[-1] + 1]] if marks else []
