"""The three-way rescue's pure half: what a target supplies, and reading a merge's conflicts.

When a file patch's old side is nowhere in the current text, the plan tries the file's other
known versions (the patch's own ``index`` blob, the index, HEAD, this tool's recent
pre-images): the first version the whole file patch plans against cleanly is the base, and
the current text (ours) is merged with base + patch (theirs). The target supplies the
versions and the merge (libgit2, in git/versions.py); nothing here touches git.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple, Protocol

from ..errors import PatchError
from .model import FilePatch
from .place.match import MAX_REGION, show_line, split_lines


class Version(NamedTuple):
    """Another known version of a file: a candidate base for the merge. (A named tuple:
    immutable like a frozen dataclass, and made without one's start-up cost.)"""

    label: str  # "HEAD", "index", "patch index line <id>", "blob <id> recorded <time>"
    content: bytes
    blob: str | None = None  # its blob id, when known
    recorded: bool = False  # a pre-image of this tool's own apply (the history log)
    named: bool = False  # the blob the patch's own index line names: the base, by its word
    # the index and HEAD versions this one also is (the same blob, given once: versions.py)
    also: tuple[str, ...] = ()


class Merged(NamedTuple):
    clean: bool
    content: bytes  # with conflict markers of ``marker_size`` when not clean


class KnownVersions(Protocol):
    """What a target gives the plan for the rescue."""

    def versions(self, fp: FilePatch, path: str) -> Iterable[Version]:
        """The file's other versions, in the order they are tried (lazily)."""
        ...

    def merge(self, base: bytes, ours: bytes, theirs: bytes, marker_size: int) -> Merged:
        """A three-way text merge of whole files (libgit2's, as `git merge-file`)."""
        ...

    def recorded(self, path: str) -> bool:
        """Has this tool recorded a pre-image of the path (the history log)?"""
        ...

    def records_applies(self) -> bool:
        """Does the target record each of its applies in the history log (so that a patch
        the log has no record of was not applied by this tool through it)?"""
        ...

    def applied(self, path: str, patch: str, after: str = "") -> bool:
        """Has this tool recorded applying the file patches whose digest is ``patch``
        (plan/resend.py) to the path (the history log), writing content whose sha256 is
        ``after`` (when given)?"""
        ...


_RUN = re.compile(rb"^([<=>|])\1*", re.M)


def marker_size_for(*texts: bytes) -> int:
    """Conflict markers longer than any run of '<', '=', '>' or '|' that starts a line of the
    inputs, so a marker can never be mistaken for content."""
    longest = max((len(m.group(0)) for text in texts for m in _RUN.finditer(text)), default=0)
    return max(7, longest + 1)


class Conflict:
    """One conflicting region of a merge. (A plain slotted class: no dataclass start-up.)"""

    __slots__ = ("ours_start", "ours_count", "theirs")

    def __init__(self, ours_start: int, ours_count: int, theirs: list[bytes]) -> None:
        self.ours_start = ours_start  # 0-based line of the current file where it starts
        self.ours_count = ours_count
        self.theirs = theirs  # the patch's lines for the region

    def __repr__(self) -> str:
        return f"Conflict({self.ours_start!r}, {self.ours_count!r}, {self.theirs!r})"


def conflicts(merged: bytes, marker_size: int) -> list[Conflict]:
    """The conflicting regions of a merge written in libgit2's default (merge) style."""
    opening, middle, closing = (ch * marker_size for ch in (b"<", b"=", b">"))

    def is_marker(line: bytes, marker: bytes) -> bool:
        return line.startswith(marker) and line[marker_size:marker_size + 1] in (
            b"", b" ", b"\r", b"\n")

    found: list[Conflict] = []
    ours_at = 0
    state = "common"
    current: Conflict | None = None
    for line in split_lines(merged):
        if state == "common":
            if is_marker(line, opening):
                current, state = Conflict(ours_at, 0, []), "ours"
            else:
                ours_at += 1
        elif state == "ours":
            assert current is not None
            if is_marker(line, middle):
                state = "theirs"
            else:
                current.ours_count += 1
                ours_at += 1
        elif is_marker(line, closing):
            assert current is not None
            found.append(current)
            state = "common"
        else:
            assert current is not None
            current.theirs.append(line)
    return found


def conflict_error(found: Sequence[Conflict], ours: bytes, label: str,
                   patch_lines: Iterable[bytes] = ()) -> PatchError:
    """merge_conflict, showing the first conflicting region of the current file (numbered,
    with two lines around it) and the patch's lines for it: only those the caller can read,
    lines of the patch (``patch_lines``) or of the current file. The rest come from the base,
    which the caller may have no way to read (another version of the file): they are left
    out and counted (``base_lines_not_shown``)."""
    lines = split_lines(ours)
    readable = {line.rstrip(b"\r\n") for line in (*lines, *patch_lines)}
    first = found[0]
    shown = [show_line(t) for t in first.theirs[:MAX_REGION] if t.rstrip(b"\r\n") in readable]
    hidden = len(first.theirs[:MAX_REGION]) - len(shown)
    lo = max(first.ours_start - 2, 0)
    hi = min(first.ours_start + first.ours_count + 2, len(lines), lo + MAX_REGION)
    region = [{"line": i + 1, "text": show_line(lines[i])} for i in range(lo, hi)]
    span = (f"line {first.ours_start + 1}" if first.ours_count <= 1 else
            f"lines {first.ours_start + 1}-{first.ours_start + first.ours_count}")
    if first.ours_count == 0:
        span = f"the place before line {first.ours_start + 1}"
    return PatchError(
        "merge_conflict",
        f"the patch was written against another version of the file ({label}); its edit "
        f"conflicts with how the file changed since, at {span} of the current file",
        details={"base": label, "conflicts": len(found), "nearest_line": lo + 1,
                 "region": region,
                 "patch_lines": shown, **({"base_lines_not_shown": hidden} if hidden else {})},
    )
