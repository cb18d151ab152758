"""Reading protected-path patterns: git config ``holon.protect`` (multi-valued, from any
config file and from ``git -c``) and the ``.holon/protect`` file as committed (at HEAD; for
--ref at HEAD and the branch, or the --base it starts from, their rules adding up), with
core.ignorecase. Matching is pure and lives in holon_git.core.policy.

The working-tree target must not pay for loading pygit2 on every apply, so it first looks
for any sign of a policy (a .holon/protect file in the working tree, 'holon'/'include' in a
config file, or a .holon/protect in HEAD's tree, read without pygit2: committed.py) and opens
the repository with pygit2 only then. The committed file holds also when the working tree
lacks it (a sparse checkout, a local deletion). A config file holding an include is read by
git itself (config_patterns): libgit2 does not evaluate every include git does.
"""

from __future__ import annotations

import os
import time
from contextlib import suppress
from functools import lru_cache
from typing import Any

from ..core.policy import PROTECT_FILE, Protection, protect_file_patterns
from .committed import head_holds
from .config import command_line_bool, command_line_includes, command_line_values, git_values
from .libgit2 import pygit2


def command_line_patterns() -> list[str]:
    """holon.protect from ``git -c`` (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT), which
    libgit2 does not read."""
    if "GIT_CONFIG_PARAMETERS" not in os.environ and "GIT_CONFIG_COUNT" not in os.environ:
        return []
    return [value for value in command_line_values("holon.protect") if value]


def repo_protection(git: Any, tree_id: Any, *more_trees: Any) -> Protection:
    """Patterns from ``git`` (a GitRepo) config, the command line and the protect file in
    tree ``tree_id`` (and in each of ``more_trees``: their rules add up); compared without
    case when core.ignorecase says so."""
    patterns = config_patterns(git)
    for tree in dict.fromkeys(t for t in (tree_id, *more_trees) if t is not None):
        try:
            obj = git.repo[tree][PROTECT_FILE]
        except (KeyError, pygit2.GitError):
            obj = None
        if obj is not None and isinstance(obj, pygit2.Blob):
            patterns.extend(protect_file_patterns(obj.data))
    ignore_case = command_line_bool("core.ignorecase")
    if ignore_case is None:
        ignore_case = git.config_bool("core.ignorecase", False)
    return Protection(patterns, ignore_case)


def config_patterns(git: Any) -> list[str]:
    """holon.protect from every configuration git reads for ``git`` (a GitRepo), as git
    reads it. A config file (or ``git -c``) holding an include: git itself is asked
    (config.git_values: every include and includeIf as git evaluates them, which libgit2
    does not: ``hasconfig:``, a relative include of a GIT_CONFIG_GLOBAL file of any name; a
    config git cannot read refuses the apply). Files that only mention 'holon': libgit2
    reads them as git would, without starting a process (git again for a value that is not
    UTF-8, read as bytes). Neither: only ``git -c``'s own values can set it."""
    from_command_line = command_line_patterns()  # a malformed variable is refused first
    holon, include = _config_signs(git.git_dir)
    if include or command_line_includes():
        return [value for value in git_values(git.git_dir, "holon.protect") if value]
    if not holon:
        return from_command_line
    from_files = git.config_all("holon.protect")
    if from_files is None:  # a value that is not UTF-8
        return [value for value in git_values(git.git_dir, "holon.protect") if value]
    return from_files + from_command_line


_ENV = ("GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME", "HOME", "GIT_CONFIG_NOSYSTEM",
        "GIT_CONFIG_SYSTEM")


def _config_files(git_dir: str) -> list[str]:
    return _config_files_for(git_dir, tuple(os.environ.get(name) for name in _ENV))


@lru_cache(maxsize=64)
def _config_files_for(git_dir: str, env_values: tuple[str | None, ...]) -> list[str]:
    env = dict(zip(_ENV, env_values, strict=True))
    home = os.path.expanduser("~")
    files = [os.path.join(git_dir, "config"), os.path.join(git_dir, "config.worktree")]
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as fh:
            common = os.path.join(git_dir, fh.read().strip())
        files += [os.path.join(common, "config"), os.path.join(common, "config.worktree")]
    except OSError:
        pass
    if env.get("GIT_CONFIG_GLOBAL"):
        files.append(env["GIT_CONFIG_GLOBAL"])  # type: ignore[arg-type]
    else:
        xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        files += [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")]
    if (env.get("GIT_CONFIG_NOSYSTEM") or "").lower() not in ("1", "true", "yes", "on"):
        files.append(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    return files


_SETTLED_NS = 2_000_000_000  # a config file older than this cannot change unseen (mtime)
Signs = tuple[bool, bool]  # does any config file mention 'holon'; does any hold an include
_answers: dict[tuple[object, ...], Signs] = {}  # config files' identities -> their signs


def _config_may_protect(git_dir: str) -> bool:
    """Whether any config file might set holon.protect (or include one that does)."""
    return any(_config_signs(git_dir))


def _config_signs(git_dir: str) -> Signs:
    """Whether any config file mentions 'holon', and whether any mentions an include. Agents
    apply many patches from one process, so the answer is remembered for as long as every
    config file keeps its identity and is old enough for its mtime to show a change."""
    paths = _config_files(git_dir)
    identities: list[object] = [git_dir]
    now = time.time_ns()
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            identities.append(None)
            continue
        if now - st.st_mtime_ns < _SETTLED_NS or now - st.st_ctime_ns < _SETTLED_NS:
            identities = []  # just written: a change within the same timestamp tick
            break
        identities.append((path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                           st.st_ctime_ns))
    key = tuple(identities)
    if key and key in _answers:
        return _answers[key]
    signs = [_signs(path) for path in paths]
    answer = (any(holon for holon, _ in signs), any(include for _, include in signs))
    if key:
        if len(_answers) > 64:
            _answers.clear()
        _answers[key] = answer
    return answer


def _signs(path: str) -> Signs:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False, False
    chunks = []
    try:  # plain reads, not open(): this runs on every apply
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    except OSError:
        return False, False
    finally:
        os.close(fd)
    text = b"".join(chunks).lower()
    return b"holon" in text, b"include" in text


def worktree_protection(root: str, git_dir: str | None) -> Protection:
    """Protection for the working-tree target rooted at ``root`` (none outside a
    repository)."""
    if git_dir is None:
        return Protection()
    if not (os.path.lexists(os.path.join(root, PROTECT_FILE)) or _config_may_protect(git_dir)
            or command_line_patterns() or command_line_includes()
            or head_holds(git_dir, PROTECT_FILE) is not False):
        return Protection()
    return head_protection(root)


def head_protection(root: str) -> Protection:
    """git config holon.protect (files and command line) and .holon/protect as committed
    at HEAD."""
    from .branches import tree_of  # the repository is opened only when a policy may exist
    from .repository import open_repository

    git = open_repository(root)
    try:
        head = git.repo.head.target
    except (pygit2.GitError, KeyError):  # unborn HEAD: nothing committed yet
        head = None
    return repo_protection(git, tree_of(git.repo, head))


def protected_paths_holding(root: str, blob: str) -> list[str]:
    """The protected paths (HEAD's policy, head_protection) whose blob at HEAD or in the
    index is ``blob``: -R of a deletion (targets/saved.py) never writes their content under
    another name."""
    from .repository import open_repository

    return paths_holding(open_repository(root), head_protection(root), blob)


def paths_holding(git: Any, protection: Protection, blob: str) -> list[str]:
    """The paths ``protection`` protects whose blob at HEAD or in the index of ``git`` (a
    GitRepo) is ``blob``."""
    return protected_among(holders(git, protection).get(blob, []), protection)


def protected_among(paths: list[str], protection: Protection) -> list[str]:
    """Those of ``paths`` that ``protection`` protects."""
    from ..core.policy import check_protected_path
    from ..errors import PatchError

    protected = []
    for path in dict.fromkeys(paths):
        try:
            check_protected_path(path, protection)
        except PatchError:
            protected.append(path)
    return protected


def holders(git: Any, protection: Protection) -> dict[str, list[str]]:
    """Blob id -> the paths holding it at HEAD or in the index of ``git`` (a GitRepo), for
    asking which blobs are protected content (``paths_holding``); one walk, matched against
    the rules only for the blobs asked about. With no pattern but the policy file's own, only
    that file's blob at HEAD is looked up."""
    from .stage import load_index

    try:
        head = git.repo.head.peel(pygit2.Tree)
    except (pygit2.GitError, KeyError, ValueError):  # unborn HEAD: nothing committed
        head = None
    found: dict[str, list[str]] = {}
    if head is not None and not protection.patterns:  # only the policy file is protected
        with suppress(KeyError):
            found.setdefault(str(head[PROTECT_FILE].id), []).append(PROTECT_FILE)
    elif head is not None:
        trees = [(head, "")]
        while trees:  # iterative: a deep tree raises no RecursionError
            tree, prefix = trees.pop()
            for entry in tree:
                if entry.type_str == "tree":
                    trees.append((git.repo[entry.id], f"{prefix}{entry.name}/"))
                else:
                    found.setdefault(str(entry.id), []).append(f"{prefix}{entry.name}")
    if git.work_tree is not None:
        for entry in load_index(git.index_path):
            found.setdefault(str(entry.id), []).append(entry.path)
    return found
