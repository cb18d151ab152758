"""Path policy: which repository-relative paths a patch may name. Pure; never touches disk.

The disk-side half (symbolic links on the way to a file) lives in the targets, which walk the
path one component at a time.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

from ..errors import PatchError

MAX_COMPONENT_BYTES = 255
MAX_PATH_BYTES = 4096

# Code points HFS+ ignores when comparing names (git's is_hfs_dotgit list), so ".g\u200cit"
# would open .git on macOS.
_IGNORABLE = frozenset(
    [chr(c) for c in range(0x200C, 0x2010)]
    + [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x206A, 0x2070)]
    + ["\ufeff"]
)


def is_dot_git(component: str) -> bool:
    """True for any spelling that a common filesystem would resolve to ``.git``."""
    name = component if component.isascii() else "".join(
        ch for ch in component if ch not in _IGNORABLE)
    name = name.split(":", 1)[0]  # NTFS alternate data streams: ".git::$INDEX_ALLOCATION"
    name = name.rstrip(" .").casefold()  # NTFS drops trailing dots and spaces
    return name in (".git", "git~1")


def collision_key(path: str) -> str:
    """Paths with the same key are one file on a case-insensitive or normalizing filesystem
    (macOS, Windows): compared without case, Unicode form or ignorable code points."""
    name = "".join(ch for ch in path if ch not in _IGNORABLE)
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


# git allows a control character (a tab, a newline) or a backslash in a path; holon-git
# applies no such path, but --stat, --numstat and --summary, which only list a patch, list it
# as git does (quoted), instead of refusing a patch git would list (cli.py)
_CONTROL_CHARACTERS_LISTED: ContextVar[bool] = ContextVar("control_characters_listed",
                                                          default=False)


@contextmanager
def listing_only() -> Iterator[None]:
    """Within: a path may hold control characters and backslashes, as for a listing that
    writes nothing; every other rule of ``normalize`` holds as ever."""
    token = _CONTROL_CHARACTERS_LISTED.set(True)
    try:
        yield
    finally:
        _CONTROL_CHARACTERS_LISTED.reset(token)


def normalize(path: str) -> str:
    """Return the canonical form of a repository-relative path, or raise a coded error."""
    if not _CONTROL_CHARACTERS_LISTED.get():
        refusal = listed_only_refusal(path)
        if refusal is not None:
            raise refusal
    return _normalized(path)


def listed_only_refusal(path: str) -> PatchError | None:
    """The refusal of a path git takes and holon-git only lists (a control character, a
    backslash), or None."""
    # isprintable() is False for every control character: scan only when it says so
    bad = None if path.isprintable() else next(
        (ch for ch in path if ord(ch) < 32 or ord(ch) == 127), None)
    if bad is not None:
        return PatchError("invalid_path", f"path {path!r} contains control character {bad!r}")
    if "\\" in path:
        return PatchError("invalid_path", f"path {path!r} contains a backslash")
    return None


def _as_bytes_name(path: str) -> str:
    """The text a patch path holds for the bytes ``path`` names. A path is bytes, held as
    text decoded with surrogateescape; text from elsewhere (JSON, the library) may spell the
    same bytes as escapes ("caf\\udcc3\\udca9.txt" for "café.txt"), which the file system
    opens as that very file: re-decoded here, so the protection check compares what is
    opened. A lone surrogate that names no byte is refused."""
    try:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raise PatchError("invalid_path", f"path {path!r} holds a lone surrogate that names "
                         "no byte") from None


@lru_cache(maxsize=4096)  # a file patch names its path up to six times
def _normalized(path: str) -> str:
    if not path.isascii():
        path = _as_bytes_name(path)
    if not path:
        raise PatchError("invalid_path", "empty path")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":" and path[0].isalpha()):
        raise PatchError("path_escape", f"absolute path {path!r}")
    if path.endswith("/"):
        raise PatchError("invalid_path", f"path {path!r} names a directory, not a file")
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if not parts:
        raise PatchError("invalid_path", f"path {path!r} names no file")
    for part in parts:
        if part == "..":
            raise PatchError("path_escape", f"path {path!r} contains '..'")
        if is_dot_git(part):
            raise PatchError("path_escape", f"path {path!r} is inside a .git directory")
        if len(part.encode("utf-8", "surrogateescape")) > MAX_COMPONENT_BYTES:
            raise PatchError("invalid_path", f"a component of {path[:80]!r}... is too long")
    if parts[0].startswith("~"):
        raise PatchError("path_escape", f"path {path!r} starts with '~' (a home directory)")
    clean = "/".join(parts)
    if len(clean.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
        raise PatchError("invalid_path", f"path {clean[:80]!r}... is too long")
    return clean
