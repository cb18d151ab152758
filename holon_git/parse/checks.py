"""Checks on a whole parsed patch, shared by every input format."""

from __future__ import annotations

from ..errors import PatchError
from ..model import FilePatch


def check_duplicates(files: list[FilePatch]) -> None:
    """Each normalized path may appear in one file patch only (as old or new path)."""
    seen: dict[str, int] = {}
    for fp in files:
        for path in fp.paths:
            if path in seen:
                raise PatchError(
                    "duplicate_file_patch",
                    f"{path!r} appears in two file patches (lines {seen[path]} and "
                    f"{fp.patch_line})",
                    patch_line=fp.patch_line, path=path,
                )
            seen[path] = fp.patch_line
