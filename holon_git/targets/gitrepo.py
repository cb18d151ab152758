"""Opening a repository with pygit2 the way git would, and the git facts targets need.

git honours environment variables libgit2 ignores: GIT_DIR/GIT_WORK_TREE (found by repo.locate),
GIT_INDEX_FILE, and GIT_CONFIG_GLOBAL/GIT_CONFIG_SYSTEM/GIT_CONFIG_NOSYSTEM. The config ones
are mapped onto libgit2's search paths while the repository loads its configuration; the
process-wide settings are restored right after.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pygit2
from pygit2.enums import ConfigLevel, FileMode, FilterMode, RepositoryOpenFlag

from ..errors import PatchError
from .repo import locate

_TRUE = ("1", "true", "yes", "on")


def git_error(exc: Exception, doing: str) -> PatchError:
    return PatchError("git_error", f"{doing}: {exc}")


def write_blob(repo: pygit2.Repository, content: bytes) -> pygit2.Oid:
    """The blob id of ``content``, written to the object database unless it is there already.

    libgit2 creates a blob through a write stream: it compresses the whole content into a
    temporary file and only then finds that the object exists (and throws the file away).
    Hashing first, as git does, makes a content the repository already has cost a hash and a
    look-up. (git would also refresh the existing object's mtime, which only matters to a
    `git gc` pruning that same object, unreachable and weeks old, during this apply.)
    """
    oid = pygit2.hash(content)
    if repo.odb.exists(oid):
        return oid
    return repo.create_blob(content)


def require_objects(repo: pygit2.Repository, ids: Any) -> None:
    """Refuse if an object this apply wrote (or found unreferenced and reused) is gone.

    Until the index or the branch names them, new objects are unreachable, and a concurrent
    `git gc --prune=now` deletes unreachable objects whatever their age. Checked after the
    new index is written under its lock and before it (or the branch) moves: an index or a
    branch naming a pruned object would be a damaged repository. (A gc between this check
    and the rename remains possible: git documents that window for --prune=now.)"""
    try:
        odb = repo.odb
        missing = [str(oid) for oid in dict.fromkeys(ids) if oid is not None
                   and not odb.exists(oid)]
    except (pygit2.GitError, OSError) as exc:
        raise git_error(exc, "checking the objects this apply wrote") from exc
    if missing:
        raise PatchError(
            "git_error", f"{len(missing)} object(s) this apply wrote were removed before the "
            f"index or branch could name them ({missing[0]}): a concurrent "
            "'git gc --prune=now'?", details={"missing": missing[:20]},
            hint="nothing was changed; apply again once the garbage collection has finished")


_scratch: list[str] = []


def _scratch_dir() -> str:
    """A private directory for search-path stand-ins, removed when the process exits."""
    if not _scratch:
        path = tempfile.mkdtemp(prefix="holon-git-")
        _scratch.append(path)
        atexit.register(shutil.rmtree, path, True)
    return _scratch[0]


def _search_dir_for(config_file: str | None, file_name: str) -> str:
    """A directory whose ``file_name`` is ``config_file`` (or absent when None)."""
    base = _scratch_dir()
    if config_file is None or not os.path.isfile(config_file):
        empty = os.path.join(base, "none")
        os.makedirs(empty, exist_ok=True)
        return empty
    config_file = os.path.abspath(config_file)
    if os.path.basename(config_file) == file_name:
        return os.path.dirname(config_file)
    holder = tempfile.mkdtemp(dir=base)
    os.symlink(config_file, os.path.join(holder, file_name))
    return holder


@contextmanager
def _git_config_environment() -> Any:
    env = os.environ
    wanted: dict[ConfigLevel, str] = {}
    if env.get("GIT_CONFIG_NOSYSTEM", "").lower() in _TRUE:
        wanted[ConfigLevel.SYSTEM] = _search_dir_for(None, "gitconfig")
    elif env.get("GIT_CONFIG_SYSTEM"):
        wanted[ConfigLevel.SYSTEM] = _search_dir_for(env["GIT_CONFIG_SYSTEM"], "gitconfig")
    if env.get("GIT_CONFIG_GLOBAL"):
        wanted[ConfigLevel.GLOBAL] = _search_dir_for(env["GIT_CONFIG_GLOBAL"], ".gitconfig")
        wanted[ConfigLevel.XDG] = _search_dir_for(None, "config")
    paths = pygit2.settings.search_path
    saved = {level: paths[level] for level in wanted}
    try:
        for level, path in wanted.items():
            paths[level] = path
        yield
    finally:
        for level, path in saved.items():
            paths[level] = path


@contextmanager
def _ownership_checked_already() -> Any:
    """libgit2 has its own ownership check, which knows nothing of ``git -c safe.directory``
    nor of git's trust in an explicit GIT_DIR; holon-git applied git's rule when it located
    the repository (ownership.py), so libgit2's is switched off while it opens it."""
    settings = pygit2.settings
    try:
        before = settings.owner_validation
    except (AttributeError, pygit2.GitError):
        yield
        return
    settings.owner_validation = False
    try:
        yield
    finally:
        settings.owner_validation = before


def open_git_dir(git_dir: str) -> pygit2.Repository:
    """The repository at ``git_dir`` (already located and checked), without a search."""
    with _ownership_checked_already():
        return pygit2.Repository(git_dir, RepositoryOpenFlag.NO_SEARCH)


@dataclass
class GitRepo:
    repo: pygit2.Repository
    git_dir: str
    work_tree: str | None  # None for a bare repository
    index_path: str
    gitfile: str | None = None  # the file that pointed to git_dir, if any

    def config_bool(self, name: str, default: bool) -> bool:
        try:
            return self.repo.config.get_bool(name)
        except (KeyError, pygit2.GitError, ValueError):
            return default

    def config_str(self, name: str) -> str | None:
        try:
            value = self.repo.config[name]
        except (KeyError, pygit2.GitError):
            return None
        return value if isinstance(value, str) else None

    def config_all(self, name: str) -> list[str]:
        try:
            return list(self.repo.config.get_multivar(name))
        except (KeyError, pygit2.GitError):
            return []

    # -- attributes and line-ending conversion (working tree <-> blob) -------------------------
    def _filters(self, path: str, mode: FilterMode) -> Any:
        try:
            return self.repo.load_filter_list(path, mode)
        except pygit2.GitError as exc:
            raise git_error(exc, f"loading the filters of {path!r}") from exc

    def to_blob(self, path: str, worktree_bytes: bytes) -> bytes:
        """What ``git add`` would store for these working-tree bytes (clean: CRLF -> LF...)."""
        filters = self._filters(path, FilterMode.TO_ODB)
        return filters.apply_to_buffer(worktree_bytes) if filters is not None else \
            worktree_bytes

    def to_worktree(self, path: str, blob_bytes: bytes) -> bytes:
        """What a checkout would write for this blob (smudge: LF -> CRLF...)."""
        filters = self._filters(path, FilterMode.TO_WORKTREE)
        return filters.apply_to_buffer(blob_bytes) if filters is not None else blob_bytes

    def refuse_unsupported_filters(self, path: str) -> None:
        """libgit2 runs the crlf and ident filters only; refuse what it would silently skip."""
        for name in ("filter", "working-tree-encoding"):
            try:
                value = self.repo.get_attr(path, name)
            except pygit2.GitError as exc:
                raise git_error(exc, f"reading the attributes of {path!r}") from exc
            if isinstance(value, str):
                raise PatchError("unsupported_filter", f"{path!r} has the attribute "
                                 f"{name}={value}, which holon-git cannot apply", path=path)


def open_repository(start: str) -> GitRepo:
    location = locate(start)
    if location.git_dir is None:
        raise PatchError("not_a_repository", f"{os.path.abspath(start)} is not in a git "
                         "repository")
    explicit_tree = os.environ.get("GIT_WORK_TREE")
    try:
        with _git_config_environment():
            repo = open_git_dir(location.git_dir)
            if location.work_tree is not None and (explicit_tree or not repo.is_bare):
                current = os.path.realpath(repo.workdir) if repo.workdir else None
                if current != os.path.realpath(location.work_tree):
                    repo.workdir = location.work_tree
            repo.config  # noqa: B018 -- load the configuration under the search paths above
    except pygit2.GitError as exc:
        raise PatchError("not_a_repository", f"cannot open {location.git_dir}: {exc}") from exc
    work_tree = location.work_tree if repo.workdir else None
    index_env = os.environ.get("GIT_INDEX_FILE")
    index_path = os.path.abspath(index_env) if index_env else os.path.join(repo.path, "index")
    return GitRepo(repo, os.path.abspath(repo.path), work_tree, index_path,
                   location.gitfile)


# Index/tree entry modes holon-git patches, and the ones it refuses.
BLOB, EXEC, LINK, GITLINK, TREE = (int(FileMode.BLOB), int(FileMode.BLOB_EXECUTABLE),
                                   int(FileMode.LINK), int(FileMode.COMMIT), int(FileMode.TREE))


def refuse_special(path: str, mode: int, inside: bool = False) -> None:
    """Symbolic links and submodules are not files holon-git edits."""
    where = f"{path!r} is" if not inside else f"a directory on the way to it, {path!r}, is"
    if mode == LINK:
        raise PatchError("symlink_in_path", f"{where} a symbolic link in the index/tree",
                         path=path)
    if mode == GITLINK:
        raise PatchError("not_a_regular_file", f"{where} a submodule (gitlink)", path=path,
                         hint="change the submodule in its own repository")
    if mode not in (BLOB, EXEC):
        raise PatchError("not_a_regular_file", f"{where} not a regular file (mode {mode:o})",
                         path=path)
