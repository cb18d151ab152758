"""Checks on a whole parsed patch, shared by every input format."""

from __future__ import annotations

from ..errors import PatchError
from ..model import FilePatch
from ..paths import collision_key


def check_duplicates(files: list[FilePatch]) -> None:
    """Each normalized path may appear in one file patch only (as old or new path)."""
    seen: dict[str, int] = {}
    keys: dict[str, tuple[str, FilePatch]] = {}
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
            other = keys.get(collision_key(path))
            if other is not None and other[1] is not fp:
                raise PatchError(
                    "duplicate_file_patch",
                    f"{other[0]!r} and {path!r} differ only by case or Unicode form: on macOS "
                    "and Windows they are the same file",
                    patch_line=fp.patch_line, path=path,
                )
            keys[collision_key(path)] = (path, fp)
