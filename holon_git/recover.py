"""--recover: put back what interrupted working-tree applies left half done.

Every unrecovered crash journal (fs/journal_dir.py) is read back and checked before the first
change (journal_invalid), then each path is restored to its old content, newest journal first;
a journal whose index or branch had already moved is left as applied. Then the temporary files
killed applies left in the working tree are removed (fs/leftovers.py). Recovery can itself be
interrupted and run again.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from collections.abc import Collection
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import PatchError
from .fs.journal import (
    COMMIT_POINT,
    PREIMAGES,
    Entry,
    Record,
    file_stat,
    read_linked,
    remove_base,
    remove_dir,
    sha256,
    temp_name,
)
from .fs.journal_check import SHA256, check_preimage_ranges, load_json
from .fs.journal_dir import JOURNAL_FILE, has_record, invalid, open_base, read_file, try_lock
from .fs.leftovers import remove_leftovers
from .fs.lock import is_ours, read_lock_file, remove_dead_lock
from .fs.tree import Missing, Tree, split
from .git.branches import is_branch_name
from .git.location import git_directories, locate

_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_SCRATCH = re.compile(r"\.holon-[0-9a-f]{12}")
_MARK_KEYS = {"index", "index_sha256", "ref", "commit", "scratch"}


def recover(repo: str | os.PathLike[str] = ".") -> dict[str, object]:
    """Undo what interrupted working-tree applies left half done, from their crash journals
    under .git/holon-apply/: every path back to its old content; then remove the temporary
    files killed applies left in the working tree. Returns what was done (journals,
    restored, removed, busy, completed, temporaries). Raises PatchError, touching nothing,
    when a path changed after the interrupted apply."""
    location = locate(os.fspath(repo))
    if location.git_dir is None:
        return Recovery().to_dict()
    try:
        if location.work_tree is None:
            done = Recovery()
        else:
            guarded = git_directories(location.git_dir, location.gitfile)
            done = recover_journals(location.git_dir, location.work_tree, guarded)
            done.temporaries = remove_leftovers(location.work_tree, guarded,
                                                location.git_dir)
        # last: a journal past its commit point puts its new index in place through its lock
        done.locks = [index + ".lock" for index in sorted(own_index(location.git_dir))
                      if remove_dead_lock(index)]
    except OSError as exc:
        raise PatchError("io_error", f"recovery failed: {exc.strerror or exc}",
                         hint="the filesystem refused a read or write; run 'git holon-apply "
                         "--recover' again once it is fixed (recovery can be repeated)") from exc
    return done.to_dict()


@dataclass
class Recovery:
    """What --recover did."""

    journals: list[str] = field(default_factory=list)  # recovered journal ids
    restored: list[str] = field(default_factory=list)  # paths given back their old content
    removed: list[str] = field(default_factory=list)  # paths the apply had created
    busy: list[str] = field(default_factory=list)  # journals of applies still running
    # journals whose index or branch had already moved: the apply went through, and the
    # working tree (all new) was left as it is
    completed: list[str] = field(default_factory=list)
    # temporary files killed applies left with no journal pointing to them (a one-file
    # apply, or a large patch staging while planning), removed (fs/leftovers.py)
    temporaries: list[str] = field(default_factory=list)
    # index locks a holon-git process that is gone left (fs/lock.py proves it), removed
    locks: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class _Loaded:
    """A journal locked and read back, checked, before --recover acts on any."""

    txid: str
    fd: int
    record: Record | None  # None: no journal.json (died before touching the tree)
    mark: dict[str, Any] | None = None  # its commit-point record, if any
    preimages: bytes = b""

    @property
    def order(self) -> tuple[float, str]:
        return (self.record.created if self.record else 0.0, self.txid)


def _load(fd: int, txid: str, git_dir: str) -> _Loaded:
    if not has_record(fd):
        return _Loaded(txid, fd, None)
    raw = read_file(fd, JOURNAL_FILE, txid)
    record = Record.from_json(raw or b"", txid)
    preimages = read_file(fd, PREIMAGES, txid)
    if preimages is None:
        if any(entry.before_sha is not None for entry in record.entries):
            raise invalid(txid, f"its {PREIMAGES} file is missing")
        preimages = b""
    check_preimage_ranges(record.entries, len(preimages), txid)
    raw_mark = read_file(fd, COMMIT_POINT, txid)
    mark = None if raw_mark is None else check_commit_point(raw_mark, txid, git_dir)
    return _Loaded(txid, fd, record, mark, preimages)


def _with_linked(tree: Tree, fd: int, record: Record, preimages: bytes) -> bytes:
    """The old contents kept by links, read and checked before anything changes, appended to
    the copied ones: each linked entry is then given the checksum and range a copied one has,
    so the restore treats both alike.

    A link is the old file itself. While its path still holds that very file, the apply never
    replaced it: there is nothing to restore, and an edit made there since (which the link
    shares) is the user's. Otherwise its content is copied back only if the link is that
    file's only name and still has the stat the journal names: a link in a forged journal to
    a file of this user's elsewhere has a name of its own, and is never copied out; one
    written to since the apply's commit no longer holds the old content. (A modified file
    replaced by an exchange of names keeps the old file under the entry's temporary name
    until it is unlinked: that name is the apply's own, and counted.)"""
    kept = [preimages]
    offset = len(preimages)
    for number, entry in enumerate(record.entries):
        if entry.before_stat is None:
            continue
        got = read_linked(fd, number)
        if got is not None:
            here = _lstat_or_none(tree, entry.path)
            untouched = here is not None and here.st_dev == got[1].st_dev \
                and here.st_ino == got[1].st_ino
            names = 1 + _at_temp_name(tree, record.txid, number, entry.path, got[1])
            if not untouched and (got[1].st_nlink != names
                                  or file_stat(got[1]) != entry.before_stat):
                got = None
        if got is None:
            raise invalid(record.txid, f"the saved old file of {entry.path!r} is missing, not "
                          "this user's, linked elsewhere too, or changed since it was saved",
                          path=entry.path)
        content = got[0]
        entry.before_sha = sha256(content)
        entry.offset, entry.size = offset, len(content)
        offset += len(content)
        kept.append(content)
    return b"".join(kept)


def _at_temp_name(tree: Tree, txid: str, number: int, path: str, st: os.stat_result) -> int:
    """1 if the entry's temporary name in its directory is the file ``st`` describes."""
    try:
        found = os.stat(temp_name(txid, number), dir_fd=tree.dir_fd(split(path)[0]),
                        follow_symlinks=False)
    except (OSError, Missing, PatchError):
        return 0
    return int(found.st_dev == st.st_dev and found.st_ino == st.st_ino)


def _lstat_or_none(tree: Tree, rel: str) -> os.stat_result | None:
    try:
        return tree.lstat(rel)
    except PatchError:
        return None


def _check_paths(tree: Tree, record: Record) -> None:
    """The disk-side path policy for every path a journal names, before anything changes:
    no symbolic link on the way, nothing in the git directory under another name."""
    for rel in [entry.path for entry in record.entries] + list(record.new_dirs):
        try:
            tree.lstat(rel)
        except PatchError as err:
            if err.code in ("path_escape", "symlink_in_path"):
                raise invalid(record.txid, f"it names {rel!r}: {err.message}", path=rel,
                              refused=err.code) from None


def recover_journals(git_dir: str, root: str, guarded: list[str] | None = None) -> Recovery:
    """Restore every path of every unrecovered journal to its old content, newest journal
    first, and remove the journals. Safe to run again if it is itself interrupted. Every
    journal is read back and checked before the first change (journal_invalid)."""
    result = Recovery()
    base_fd = open_base(git_dir)
    if base_fd is None:
        return result
    guarded = guarded if guarded is not None else [git_dir]
    locked: list[_Loaded] = []
    try:
        for txid in sorted(os.listdir(base_fd)):
            fd = try_lock(base_fd, txid)
            if fd is None:
                result.busy.append(txid)
                continue
            locked.append(_Loaded(txid, fd, None))  # closed below, whatever happens next
            locked[-1] = _load(fd, txid, git_dir)
        with Tree(root, guarded) as tree:
            for loaded in locked:
                if loaded.record is not None:
                    _check_paths(tree, loaded.record)
                    loaded.preimages = _with_linked(tree, loaded.fd, loaded.record,
                                                    loaded.preimages)
        for loaded in sorted(locked, key=lambda item: item.order, reverse=True):
            if loaded.record is not None:
                if _past_commit_point(loaded.mark, git_dir):
                    result.completed.append(loaded.txid)
                else:
                    with Tree(root, guarded) as tree:
                        _restore(tree, loaded.record, loaded.preimages, result)
                    result.journals.append(loaded.txid)
                os.unlink(JOURNAL_FILE, dir_fd=loaded.fd)
            remove_dir(base_fd, loaded.txid)
    finally:
        for loaded in locked:
            os.close(loaded.fd)
        os.close(base_fd)
    remove_base(git_dir)
    return result


def _past_commit_point(mark: dict[str, Any] | None, git_dir: str) -> bool:
    """True if the apply's index or branch update went through (see mark_commit_point);
    ``mark`` was checked to name this repository's index, a branch and a commit id."""
    if mark is None:
        return False
    try:
        with open(mark["index"], "rb") as fh:
            if sha256(fh.read()) == mark["index_sha256"]:
                return True
    except OSError:
        pass
    if mark.get("ref") and mark.get("commit"):
        done = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "--verify", "-q",
                               mark["ref"]], capture_output=True, text=True, check=False)
        if done.stdout.strip() == mark["commit"]:
            _finish_index(mark)
            return True
    return False


def _finish_index(mark: dict) -> None:
    """The branch moved but the process died before the new index replaced the old one:
    put the new index (in the lock file or the scratch file) in place and unlock."""
    index, lock, scratch = mark["index"], mark["index"] + ".lock", mark.get("scratch")

    def holds_new(path: str) -> bool:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return False
        try:
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
        except OSError:
            return False
        finally:
            os.close(fd)
        return sha256(b"".join(chunks)) == mark["index_sha256"]

    if holds_new(lock):
        os.replace(lock, index)
    elif scratch and holds_new(scratch) and _our_lock(lock):
        os.replace(scratch, lock)
        os.replace(lock, index)


def _current(tree: Tree, entry: Entry, new_dirs: Collection[str] = ()) -> str | None:
    """What is at the entry's path: "old" (its old content), "new" (what the transaction
    staged for it), "other", or None for nothing, which includes a file on the way (a type
    change made it a file again) and a directory where the transaction had yet to add its
    file or had made one in place of a removed file."""
    try:
        got = tree.read(entry.path)
    except PatchError as err:
        if err.code == "already_exists" or (err.code == "not_a_regular_file" and (
                entry.before_sha is None or entry.path in new_dirs)):
            return None
        raise
    if got is None:
        return None
    content, st = got
    if entry.after_stat is not None and entry.holds_new(None, st):
        return "new"  # the staged file itself, renamed into place: no need to hash it
    digest = sha256(content)
    if digest == entry.before_sha:
        return "old"
    return "new" if entry.holds_new(digest, st) else "other"


def _remove_temps(tree: Tree, path: str, txid: str, number: int) -> None:
    """Remove an entry's temporary files: in its directory, or in one above it when it was
    staged there (its directory was a removed file)."""
    parent = split(path)[0]
    while True:
        try:
            fd = tree.dir_fd(parent)
        except (Missing, PatchError):
            fd = None
        if fd is not None:
            for leftover in (temp_name(txid, number), temp_name(txid, number, "r")):
                with suppress(FileNotFoundError):
                    os.unlink(leftover, dir_fd=fd)
        if not parent:
            return
        parent = split(parent)[0]


def _restore(tree: Tree, record: Record, preimages: bytes, result: Recovery) -> None:
    # First make sure every path holds something this transaction put there: its old
    # content, its new content, or nothing. Anything else is someone's later edit.
    conflicts = []
    for entry in record.entries:
        try:
            now = _current(tree, entry, record.new_dirs)
        except PatchError:
            now = "other"
        if now not in (None, "old", "new"):
            conflicts.append(entry.path)
    if conflicts:
        raise PatchError(
            "stale_file",
            f"cannot recover journal {record.txid}: {', '.join(map(repr, conflicts[:5]))} "
            "changed after the interrupted apply",
            hint="move those edits aside (or commit them), then run "
            "'git holon-apply --recover' again",
            path=conflicts[0], details={"journal": record.txid, "paths": conflicts},
        )
    touched: set[str] = set()
    # In three passes, so a file and a directory may trade places (git's type changes):
    # what the transaction added goes first, then the directories it made, then old contents
    # come back.
    for number, entry in enumerate(record.entries):
        _remove_temps(tree, entry.path, record.txid, number)
        if entry.before_sha is None and _current(tree, entry) is not None:
            parent, name = split(entry.path)
            os.unlink(name, dir_fd=tree.dir_fd(parent))
            result.removed.append(entry.path)
            touched.add(parent)
    for rel in sorted(record.new_dirs, key=lambda d: d.count("/"), reverse=True):
        up, name = split(rel)
        with suppress(OSError, Missing, PatchError):
            os.rmdir(name, dir_fd=tree.dir_fd(up))
            tree.forget(rel)
    for number, entry in enumerate(record.entries):
        if entry.before_sha is None or _current(tree, entry) == "old":
            continue
        old = preimages[entry.offset:entry.offset + entry.size]
        if sha256(old) != entry.before_sha:
            raise PatchError("io_error", f"journal {record.txid} is damaged: the saved "
                             f"content of {entry.path!r} does not match its checksum",
                             path=entry.path)
        parent, name = split(entry.path)
        temp = temp_name(record.txid, number, "r")
        tree.write_new(parent, temp, old, entry.perm)
        fd = tree.dir_fd(parent)
        os.rename(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
        result.restored.append(entry.path)
        touched.add(parent)
    for rel in touched:
        with suppress(OSError, Missing, PatchError):
            os.fsync(tree.dir_fd(rel))


def _our_lock(path: str) -> bool:
    """A lock file as holon-git leaves it while it holds the lock (fs/lock.py)."""
    read = read_lock_file(path)
    return read is not None and stat.S_ISREG(read[0].st_mode) and is_ours(read[1])


def own_index(git_dir: str) -> set[str]:
    """The index files this repository may have: its own, and GIT_INDEX_FILE's."""
    found = {os.path.realpath(os.path.join(git_dir, "index"))}
    if os.environ.get("GIT_INDEX_FILE"):
        found.add(os.path.realpath(os.environ["GIT_INDEX_FILE"]))
    return found


def check_commit_point(raw: bytes, txid: str, git_dir: str) -> dict[str, Any]:
    """commit-point.json's content, checked: this repository's index (and a scratch file
    beside it), a branch name and a commit id; raises journal_invalid."""
    mark = load_json(raw, txid, "commit-point.json")
    if set(mark) != _MARK_KEYS:
        raise invalid(txid, "commit-point.json does not have the fields holon-git writes")
    index, scratch = mark["index"], mark["scratch"]
    if not isinstance(index, str) or os.path.realpath(index) not in own_index(git_dir):
        raise invalid(txid, "its commit point names an index that is not this repository's",
                      index=str(index)[:200])
    if not (isinstance(mark["index_sha256"], str) and SHA256.fullmatch(mark["index_sha256"])):
        raise invalid(txid, "its commit point's index checksum is malformed")
    if scratch is not None and not (
            isinstance(scratch, str) and scratch.startswith(index)
            and _SCRATCH.fullmatch(scratch[len(index):])):
        raise invalid(txid, "its commit point names a scratch file that is not beside the "
                      "index", scratch=str(scratch)[:200])
    ref, commit = mark["ref"], mark["commit"]
    if ref is not None and not (isinstance(ref, str) and is_branch_name(ref)):
        raise invalid(txid, "its commit point names something other than a branch",
                      ref=str(ref)[:200])
    if commit is not None and not (isinstance(commit, str) and _OBJECT_ID.fullmatch(commit)):
        raise invalid(txid, "its commit point's commit id is malformed")
    return mark
