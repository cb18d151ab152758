"""Opening a repository with pygit2 the way git would, and the git facts targets need.

git honours environment variables libgit2 ignores: GIT_DIR/GIT_WORK_TREE (found by location.locate),
GIT_INDEX_FILE, and GIT_CONFIG_GLOBAL/GIT_CONFIG_SYSTEM/GIT_CONFIG_NOSYSTEM. The config ones
are mapped onto libgit2's search paths while the repository loads its configuration; the
process-wide settings are restored right after.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any

from ..errors import PatchError
from ..quoting import quote_path
from .libgit2 import pygit2
from .location import locate

_TRUE = ("1", "true", "yes", "on")


def path_bytes(path: str) -> bytes:
    """A path held as text (decoded with surrogateescape) as the bytes it names."""
    return path.encode("utf-8", "surrogateescape")


def git_error(exc: Exception, doing: str) -> PatchError:
    return PatchError("git_error", f"{doing}: {exc}")


_scratch: list[str] = []


def _scratch_dir() -> str:
    """A private directory for search-path stand-ins, removed when the process exits."""
    if not _scratch:
        # only when GIT_CONFIG_* is set; a plain apply need not load these
        import atexit
        import shutil
        import tempfile

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
    import tempfile

    holder = tempfile.mkdtemp(dir=base)
    os.symlink(config_file, os.path.join(holder, file_name))
    return holder


@contextmanager
def _git_config_environment() -> Any:
    env = os.environ
    levels = pygit2.enums.ConfigLevel
    wanted: dict[Any, str] = {}
    if env.get("GIT_CONFIG_NOSYSTEM", "").lower() in _TRUE:
        wanted[levels.SYSTEM] = _search_dir_for(None, "gitconfig")
    elif env.get("GIT_CONFIG_SYSTEM"):
        wanted[levels.SYSTEM] = _search_dir_for(env["GIT_CONFIG_SYSTEM"], "gitconfig")
    if env.get("GIT_CONFIG_GLOBAL"):
        wanted[levels.GLOBAL] = _search_dir_for(env["GIT_CONFIG_GLOBAL"], ".gitconfig")
        wanted[levels.XDG] = _search_dir_for(None, "config")
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
        return pygit2.Repository(git_dir, pygit2.enums.RepositoryOpenFlag.NO_SEARCH)


class GitRepo:
    """An opened repository and where its parts are."""

    __slots__ = ("repo", "git_dir", "work_tree", "index_path", "gitfile")

    def __init__(self, repo: pygit2.Repository, git_dir: str, work_tree: str | None,
                 index_path: str, gitfile: str | None = None) -> None:
        self.repo = repo
        self.git_dir = git_dir
        self.work_tree = work_tree  # None for a bare repository
        self.index_path = index_path
        self.gitfile = gitfile  # the file that pointed to git_dir, if any

    def config_bool(self, name: str, default: bool) -> bool:
        try:
            return self.repo.config.get_bool(name)
        except (KeyError, pygit2.GitError, ValueError):
            return default

    def config_str(self, name: str) -> str | None:
        """The value of ``name``; a value that is not UTF-8 (pygit2 decodes strictly) is
        refused naming the key, never a traceback."""
        try:
            value = self.repo.config[name]
        except (KeyError, pygit2.GitError):
            return None
        except UnicodeDecodeError:
            raise PatchError("config_unreadable", f"the git configuration value of {name} is "
                             "not UTF-8", details={"key": name}) from None
        return value if isinstance(value, str) else None

    def config_all(self, name: str) -> list[str] | None:
        """Every value of ``name`` libgit2 reads; None when one is not UTF-8 (pygit2
        decodes strictly: the caller reads them as bytes another way)."""
        try:
            return list(self.repo.config.get_multivar(name))
        except (KeyError, pygit2.GitError):
            return []
        except UnicodeDecodeError:
            return None

    # -- attributes and line-ending conversion (working tree <-> blob) -------------------------
    # The path goes to libgit2 as the bytes it names (pygit2 would encode text as strict
    # UTF-8, and a path that is not UTF-8 would raise UnicodeEncodeError).
    def _filters(self, path: str, mode: Any) -> Any:
        try:
            return self.repo.load_filter_list(path_bytes(path), mode)
        except pygit2.GitError as exc:
            raise git_error(exc, f"loading the filters of {quote_path(path)}") from exc

    def to_blob(self, path: str, worktree_bytes: bytes) -> bytes:
        """What ``git add`` would store for these working-tree bytes (clean: CRLF -> LF...)."""
        filters = self._filters(path, pygit2.enums.FilterMode.TO_ODB)
        return filters.apply_to_buffer(worktree_bytes) if filters is not None else \
            worktree_bytes

    def to_worktree(self, path: str, blob_bytes: bytes) -> bytes:
        """What a checkout would write for this blob (smudge: LF -> CRLF...)."""
        filters = self._filters(path, pygit2.enums.FilterMode.TO_WORKTREE)
        return filters.apply_to_buffer(blob_bytes) if filters is not None else blob_bytes

    def refuse_unsupported_filters(self, path: str) -> None:
        """libgit2 runs the crlf and ident filters only; refuse what it would silently skip."""
        for name in ("filter", "working-tree-encoding"):
            try:
                value = self.repo.get_attr(path_bytes(path), name)
            except pygit2.GitError as exc:
                raise git_error(exc, f"reading the attributes of {quote_path(path)}") from exc
            if isinstance(value, str):
                raise PatchError("unsupported_filter", f"{quote_path(path)} has the attribute "
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
# (git's numbers, as pygit2.enums.FileMode has them: BLOB, BLOB_EXECUTABLE, LINK, COMMIT, TREE)
BLOB, EXEC, LINK, GITLINK, TREE = 0o100644, 0o100755, 0o120000, 0o160000, 0o040000


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
