"""Repositories whose git directory sits inside the working tree under another name.

Each layout lives in a sentinel directory (as sandbox.py's) and says where its git directory
is, relative to the working tree, and the environment a user runs git with:

* ``dotfiles``: ``git init --bare .cfg`` used as ``git --git-dir=.cfg --work-tree=.``;
* ``core_worktree``: the same bare ``.cfg`` with core.bare=false and core.worktree=.., used
  with GIT_DIR alone;
* ``separate``: ``git init --separate-git-dir=gitstore .`` (a ``.git`` file points to it);
* ``linked``: a linked worktree whose common directory (the repository it was added from,
  ``shared``) was moved inside it and repaired;
* ``gitfile``: GIT_DIR names a file (``.gitlink``) that says ``gitdir: gitstore``.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from repos.builders import git, git_env, snapshot_all

FILES = {"f.txt": "one\ntwo\nthree\n"}


@dataclass
class Layout:
    name: str
    sentinel: Path
    tree: Path  # the working tree
    git_dir: str  # the git directory (or common directory) relative to the tree
    env: dict[str, str] = field(default_factory=dict)  # GIT_DIR and friends, as a user sets

    def state(self) -> dict[str, tuple]:
        """Everything under the sentinel but unreferenced objects (a refused --cached may
        leave a blob it wrote while planning, as git apply --cached can)."""
        return {rel: v for rel, v in snapshot_all(self.sentinel).items()
                if "/objects/" not in f"/{rel}"}

    def run(self, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess:
        """`git holon-apply ARGS` in the working tree, with the layout's environment."""
        return subprocess.run(["git", "holon-apply", *args], cwd=self.tree, input=input,
                              capture_output=True, env=git_env(self.env), timeout=120)


def _commit_all(tree: Path, env: dict[str, str]) -> None:
    for rel, content in FILES.items():
        (tree / rel).write_text(content)
    git(tree, "add", *FILES, env=env)
    git(tree, "commit", "-q", "-m", "initial", env=env)


def dotfiles(sentinel: Path) -> Layout:
    tree = sentinel / "home"
    tree.mkdir(parents=True)
    git(tree, "init", "-q", "--bare", "-b", "main", ".cfg")
    env = {"GIT_DIR": str(tree / ".cfg"), "GIT_WORK_TREE": str(tree)}
    _commit_all(tree, env)
    return Layout("dotfiles", sentinel, tree, ".cfg", env)


def core_worktree(sentinel: Path) -> Layout:
    layout = dotfiles(sentinel)
    git(layout.tree, "config", "core.bare", "false", env=layout.env)
    git(layout.tree, "config", "core.worktree", "..", env=layout.env)
    layout.env = {"GIT_DIR": str(layout.tree / ".cfg")}
    layout.name = "core_worktree"
    return layout


def separate(sentinel: Path) -> Layout:
    tree = sentinel / "proj"
    tree.mkdir(parents=True)
    git(tree, "init", "-q", "-b", "main", "--separate-git-dir=gitstore", ".")
    _commit_all(tree, {})
    return Layout("separate", sentinel, tree, "gitstore")


def linked(sentinel: Path) -> Layout:
    seed = sentinel / "seed"
    seed.mkdir(parents=True)
    git(seed, "init", "-q", "-b", "main")
    _commit_all(seed, {})
    git(sentinel, "clone", "-q", "--bare", str(seed), "shared")
    git(sentinel, "--git-dir=shared", "worktree", "add", "-q", "-b", "work", "W", "main")
    os.rename(sentinel / "shared", sentinel / "W" / "shared")
    git(sentinel, "--git-dir=W/shared", "worktree", "repair", "W")
    return Layout("linked", sentinel, sentinel / "W", "shared")


def gitfile(sentinel: Path) -> Layout:
    layout = separate(sentinel)
    (layout.tree / ".gitlink").write_text("gitdir: gitstore\n")
    (layout.tree / ".git").unlink()
    layout.env = {"GIT_DIR": str(layout.tree / ".gitlink"), "GIT_WORK_TREE": str(layout.tree)}
    layout.name = "gitfile"
    return layout


LAYOUTS = {"dotfiles": dotfiles, "core_worktree": core_worktree, "separate": separate,
           "linked": linked, "gitfile": gitfile}
