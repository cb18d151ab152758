"""The versions the three-way rescue merges a later edit of a file from: an edit by its text
after other edits of the same file (core/plan/edits.py) was written, as agents write them,
against the file with those edits made; so each of the target's versions of the file is
offered with the earlier edits replayed on it (a version they do not apply to is left out).
Everything else the rescue asks is the target's own answer."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ...errors import PatchError
from ..model import FilePatch
from ..threeway import KnownVersions, Merged, Version
from .hunks import apply_hunks


class ReplayedVersions:
    """``versions`` with ``earlier`` (the file's edits before this one, in order) replayed."""

    def __init__(self, versions: KnownVersions, earlier: tuple[FilePatch, ...],
                 reverse: bool) -> None:
        self.inner = versions
        self.earlier = earlier
        self.reverse = reverse

    def versions(self, fp: FilePatch, path: str) -> Iterable[Version]:
        return self._replayed(fp, path)

    def _replayed(self, fp: FilePatch, path: str) -> Iterator[Version]:
        numbers = ", ".join(str(edit.edit) for edit in self.earlier)
        for version in self.inner.versions(self.earlier[0], path):
            content = version.content
            try:
                for edit in self.earlier:
                    content = apply_hunks(edit, content, self.reverse)[0]
            except PatchError:
                continue  # the earlier edits were not written against this version
            yield Version(f"{version.label} with edit{'s' if len(self.earlier) > 1 else ''} "
                          f"{numbers}", content)

    def merge(self, base: bytes, ours: bytes, theirs: bytes, marker_size: int) -> Merged:
        return self.inner.merge(base, ours, theirs, marker_size)

    def recorded(self, path: str) -> bool:
        return self.inner.recorded(path)

    def records_applies(self) -> bool:
        return self.inner.records_applies()

    def applied(self, path: str, patch: str, after: str = "") -> bool:
        return self.inner.applied(path, patch, after)
