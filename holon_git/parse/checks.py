"""Checks on a whole parsed patch, shared by every input format.

Several file patches may name one path: they apply in order, each to what the ones before it
left (holon_git.core.sequence). What can never apply in that order, whatever the repository holds,
is refused here: adding a path an earlier file patch created, or changing a path an earlier
one deleted or renamed away.
"""

from __future__ import annotations

from collections import Counter

from ..core.model import FileKind, FilePatch
from ..core.paths import collision_key
from ..errors import PatchError

_CREATED, _GONE, _UNKNOWN = "created", "gone", "unknown"


def check_duplicates(files: list[FilePatch]) -> None:
    """Paths that are one file on macOS and Windows must be spelled one way, and a path's
    file patches must be able to apply one after the other."""
    _check_spellings(files)
    _check_sequence(files)


def _check_spellings(files: list[FilePatch]) -> None:
    """Two spellings of one file (case, Unicode form) are refused, unless a file patch renames
    one into the other (a case-only rename), which may then be followed by patches of it."""
    first: dict[str, tuple[str, FilePatch]] = {}  # key -> the first spelling and its patch
    joined: dict[str, str] = {}  # spelling -> spelling it was renamed from (case-only)
    for fp in files:
        if fp.kind is FileKind.RENAME and fp.old_path and fp.new_path \
                and collision_key(fp.old_path) == collision_key(fp.new_path):
            joined.setdefault(fp.new_path, fp.old_path)
        for path in fp.paths:
            other = first.setdefault(collision_key(path), (path, fp))
            if _root(joined, path) != _root(joined, other[0]):
                raise PatchError(
                    "duplicate_file_patch",
                    f"{other[0]!r} and {path!r} differ only by case or Unicode form: on macOS "
                    "and Windows they are the same file",
                    patch_line=fp.patch_line, path=path,
                )


def _root(joined: dict[str, str], path: str) -> str:
    seen = {path}
    while path in joined and joined[path] not in seen:
        path = joined[path]
        seen.add(path)
    return path


def _check_sequence(files: list[FilePatch]) -> None:
    """Follow what each file patch leaves at each path it names, as far as the patch alone
    tells: a path an earlier file patch created exists, one it deleted or renamed away does
    not. A rename onto a path that a later file patch renames away (a swap, as git diff -M -B
    writes it) replaces it, and that later rename takes the replaced file."""
    named = [path for fp in files for path in fp.paths]
    if len(named) == len(set(named)):
        return  # every path in one file patch: nothing to sequence
    renamed_later = Counter(fp.old_path for fp in files
                            if fp.kind is FileKind.RENAME and fp.old_path is not None)
    state: dict[str, tuple[str, FilePatch]] = {}
    replaced: Counter[str] = Counter()  # paths whose earlier file waits for its rename
    for fp in files:
        if fp.kind is FileKind.RENAME and fp.old_path is not None:
            renamed_later[fp.old_path] -= 1
        source = fp.old_path if fp.kind is not FileKind.ADD else None
        if source is not None:
            _refuse_if_gone(state, source, fp)
        if fp.kind in (FileKind.ADD, FileKind.RENAME):
            _create(state, replaced, renamed_later, fp)
        if source is not None and fp.kind in (FileKind.DELETE, FileKind.RENAME):
            if fp.kind is FileKind.RENAME and replaced[source]:
                replaced[source] -= 1  # the replaced file moves on; the new one stays
            elif fp.kind is FileKind.RENAME and state.get(source, ("", fp))[0] == _UNKNOWN:
                pass  # replaced or not, the repository decides
            else:
                state[source] = (_GONE, fp)
        if fp.kind is FileKind.MODIFY and source is not None:
            state.setdefault(source, (_CREATED, fp))


def _refuse_if_gone(state: dict[str, tuple[str, FilePatch]], path: str, fp: FilePatch) -> None:
    known = state.get(path)
    if known is not None and known[0] == _GONE:
        how = "deleted" if known[1].kind is FileKind.DELETE else "renamed away"
        raise PatchError(
            "duplicate_file_patch",
            f"{path!r} was {how} by the file patch at line {known[1].patch_line}; the file "
            f"patch at line {fp.patch_line} cannot change it afterwards",
            patch_line=fp.patch_line, path=path,
            details={"earlier_file_patch": known[1].patch_line},
        )


def _create(state: dict[str, tuple[str, FilePatch]], replaced: Counter[str],
            renamed_later: Counter[str], fp: FilePatch) -> None:
    path = fp.path
    known = state.get(path)
    if renamed_later[path] > 0:
        # the path's present file is renamed away later: it is replaced here, if it exists
        if known is not None and known[0] == _CREATED:
            replaced[path] += 1
        state[path] = (_CREATED if known is not None and known[0] != _UNKNOWN else _UNKNOWN, fp)
        return
    if known is not None and known[0] == _CREATED:
        raise PatchError(
            "duplicate_file_patch",
            f"{path!r} already exists after the file patch at line {known[1].patch_line}; the "
            f"file patch at line {fp.patch_line} cannot {fp.kind.value} it again",
            patch_line=fp.patch_line, path=path,
            details={"earlier_file_patch": known[1].patch_line},
        )
    state[path] = (_CREATED, fp)
