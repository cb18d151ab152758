"""A crash journal read back is input like any other: it is checked before --recover acts.

Anyone who can write to ``.git`` can leave a journal there, and --recover writes, deletes and
renames what it names; so a journal must be exactly what holon-git writes (journal.py), or
it is refused as ``journal_invalid`` before anything changes. Its paths are held to the
patch path policy (paths.normalize: relative, no '..', no '.git'); the disk-side half (no
symbolic link on the way, not into the git directory under another name) is the tree walk's
(fsops.Tree), checked for every path before the first change. The commit-point record may
name only this repository's own index, its lock and a scratch file beside it, a branch and
a commit id.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from ..errors import PatchError
from ..paths import normalize

TXID = re.compile(r"\d+-\d+-[0-9a-f]{8}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_SCRATCH = re.compile(r"\.holon-[0-9a-f]{12}")
_RECORD_KEYS = {"version", "txid", "entries", "new_dirs", "root", "pid", "created"}
_ENTRY_KEYS = {"path", "before_sha", "after_sha", "perm", "offset", "size"}
_MARK_KEYS = {"index", "index_sha256", "ref", "commit", "scratch"}


def invalid(txid: str, why: str, **details: Any) -> PatchError:
    return PatchError("journal_invalid", f"the crash journal {txid} cannot be trusted: {why}",
                      details={"journal": txid, **details})


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _load(raw: bytes, txid: str, name: str) -> dict[str, Any]:
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


def check_record(raw: bytes, txid: str, version: int) -> dict[str, Any]:
    """journal.json's content, checked field by field; raises journal_invalid."""
    data = _load(raw, txid, "journal.json")
    if set(data) != _RECORD_KEYS:
        raise invalid(txid, "journal.json does not have the fields holon-git writes",
                      fields=sorted(map(str, data))[:20])
    if data["version"] != version:
        raise invalid(txid, f"unknown journal version {data['version']!r}")
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
        if not isinstance(entry, dict) or set(entry) != _ENTRY_KEYS:
            raise invalid(txid, "an entry does not have the fields holon-git writes")
        path = _path(txid, entry["path"])
        if path in seen:
            raise invalid(txid, f"it names {path!r} twice", path=path)
        seen.add(path)
        before, after = entry["before_sha"], entry["after_sha"]
        for sha in (before, after):
            if sha is not None and not (isinstance(sha, str) and _SHA256.fullmatch(sha)):
                raise invalid(txid, f"the checksums of {path!r} are malformed", path=path)
        if before is None and after is None:
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


def own_index(git_dir: str) -> set[str]:
    """The index files this repository may have: its own, and GIT_INDEX_FILE's."""
    found = {os.path.realpath(os.path.join(git_dir, "index"))}
    if os.environ.get("GIT_INDEX_FILE"):
        found.add(os.path.realpath(os.environ["GIT_INDEX_FILE"]))
    return found


def check_commit_point(raw: bytes, txid: str, git_dir: str) -> dict[str, Any]:
    """commit-point.json's content, checked: this repository's index (and a scratch file
    beside it), a branch name and a commit id; raises journal_invalid."""
    import pygit2

    mark = _load(raw, txid, "commit-point.json")
    if set(mark) != _MARK_KEYS:
        raise invalid(txid, "commit-point.json does not have the fields holon-git writes")
    index, scratch = mark["index"], mark["scratch"]
    if not isinstance(index, str) or os.path.realpath(index) not in own_index(git_dir):
        raise invalid(txid, "its commit point names an index that is not this repository's",
                      index=str(index)[:200])
    if not (isinstance(mark["index_sha256"], str) and _SHA256.fullmatch(mark["index_sha256"])):
        raise invalid(txid, "its commit point's index checksum is malformed")
    if scratch is not None and not (
            isinstance(scratch, str) and scratch.startswith(index)
            and _SCRATCH.fullmatch(scratch[len(index):])):
        raise invalid(txid, "its commit point names a scratch file that is not beside the "
                      "index", scratch=str(scratch)[:200])
    ref, commit = mark["ref"], mark["commit"]
    if ref is not None and not (isinstance(ref, str) and ref.startswith("refs/heads/")
                                and pygit2.reference_is_valid_name(ref)):
        raise invalid(txid, "its commit point names something other than a branch",
                      ref=str(ref)[:200])
    if commit is not None and not (isinstance(commit, str) and _OBJECT_ID.fullmatch(commit)):
        raise invalid(txid, "its commit point's commit id is malformed")
    return mark
