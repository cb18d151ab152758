"""A crash journal read back is input like any other: it is checked before --recover acts.

Anyone who can write to ``.git`` can leave a journal there, and --recover writes, deletes and
renames what it names; so a journal must be exactly what holon-git writes (journal.py), or
it is refused as ``journal_invalid`` before anything changes. Its paths are held to the
patch path policy (paths.normalize: relative, no '..', no '.git'); the disk-side half (no
symbolic link on the way, not into the git directory under another name) is the tree walk's
(fs/tree.py), checked for every path before the first change. The commit-point record may
name only this repository's own index, its lock and a scratch file beside it, a branch and
a commit id (checked by holon_git/recover.py, which knows git's rules for branch names).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.paths import normalize
from ..errors import PatchError
from .journal_dir import invalid

TXID = re.compile(r"\d+-\d+-[0-9a-f]{8}")
SHA256 = re.compile(r"[0-9a-f]{64}")
_RECORD_KEYS = {"version", "txid", "entries", "new_dirs", "root", "pid", "created"}
_ENTRY_KEYS = {1: {"path", "before_sha", "after_sha", "perm", "offset", "size"}}
_ENTRY_KEYS[2] = _ENTRY_KEYS[1] | {"after_stat"}
_ENTRY_KEYS[3] = _ENTRY_KEYS[2] | {"before_stat"}


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def load_json(raw: bytes, txid: str, name: str) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: absurdly nested JSON
        raise invalid(txid, f"{name} is not JSON") from None
    if not isinstance(data, dict):
        raise invalid(txid, f"{name} is not a JSON object")
    return data


def _path(txid: str, value: object) -> str:
    if not isinstance(value, str):
        raise invalid(txid, f"a path is {type(value).__name__}, not a string")
    try:
        clean = normalize(value)
    except PatchError as err:
        raise invalid(txid, f"it names {value[:200]!r}: {err.message}", path=value[:200],
                      refused=err.code) from None
    if clean != value:
        raise invalid(txid, f"it names {value[:200]!r}, which is not in normal form",
                      path=value[:200])
    return clean


def _file_stat(value: object) -> bool:
    """None, or [inode, size, modification time in ns] (journal.file_stat)."""
    return value is None or (isinstance(value, list) and len(value) == 3
                             and all(_int(n) and 0 <= n < 1 << 64 for n in value))


def check_record(raw: bytes, txid: str, versions: tuple[int, ...]) -> dict[str, Any]:
    """journal.json's content, checked field by field; raises journal_invalid. Entries of
    versions 1 and 2 are given the fields they lack (``after_stat``, ``before_stat``) as
    None."""
    data = load_json(raw, txid, "journal.json")
    if set(data) != _RECORD_KEYS:
        raise invalid(txid, "journal.json does not have the fields holon-git writes",
                      fields=sorted(map(str, data))[:20])
    version = data["version"]
    if not _int(version) or version not in versions:
        raise invalid(txid, f"unknown journal version {version!r}")
    if data["txid"] != txid or not TXID.fullmatch(txid):
        raise invalid(txid, "journal.json names another journal")
    if not isinstance(data["root"], str) or not _int(data["pid"]) \
            or not isinstance(data["created"], int | float) or isinstance(data["created"], bool):
        raise invalid(txid, "journal.json's root, pid or creation time is malformed")
    entries, new_dirs = data["entries"], data["new_dirs"]
    if not isinstance(entries, list) or not isinstance(new_dirs, list):
        raise invalid(txid, "its entries or new directories are not lists")
    seen: set[str] = set()
    for entry in entries:
        if not isinstance(entry, dict) or set(entry) != _ENTRY_KEYS[version]:
            raise invalid(txid, "an entry does not have the fields holon-git writes")
        entry.setdefault("after_stat", None)
        entry.setdefault("before_stat", None)
        path = _path(txid, entry["path"])
        if path in seen:
            raise invalid(txid, f"it names {path!r} twice", path=path)
        seen.add(path)
        before, after = entry["before_sha"], entry["after_sha"]
        for sha in (before, after):
            if sha is not None and not (isinstance(sha, str) and SHA256.fullmatch(sha)):
                raise invalid(txid, f"the checksums of {path!r} are malformed", path=path)
        stat, linked = entry["after_stat"], entry["before_stat"]
        if not _file_stat(stat):
            raise invalid(txid, f"the staged file of {path!r} is malformed", path=path)
        if not _file_stat(linked):
            raise invalid(txid, f"the saved old file of {path!r} is malformed", path=path)
        if after is not None and stat is not None:
            raise invalid(txid, f"the new content of {path!r} is proven twice", path=path)
        if before is not None and linked is not None:
            raise invalid(txid, f"the old content of {path!r} is saved twice", path=path)
        if before is None and linked is None and after is None and stat is None:
            raise invalid(txid, f"{path!r} is neither old nor new", path=path)
        perm, offset, size = entry["perm"], entry["offset"], entry["size"]
        if perm is not None and not (_int(perm) and 0 <= perm <= 0o7777):
            raise invalid(txid, f"the permissions of {path!r} are malformed", path=path)
        if not (_int(offset) and _int(size) and offset >= 0 and size >= 0):
            raise invalid(txid, f"the saved content of {path!r} is out of range", path=path)
    for rel in new_dirs:
        _path(txid, rel)
    return data


def check_preimage_ranges(entries: list[Any], size: int, txid: str) -> None:
    """Every saved old content lies inside the preimages file (``size`` bytes)."""
    for entry in entries:
        if entry.before_sha is not None and entry.offset + entry.size > size:
            raise invalid(txid, f"the saved content of {entry.path!r} lies beyond the end of "
                          "its preimages file", path=entry.path)
