"""What a commit is about to record, read through the git command line (as hooks run it).

git sets GIT_INDEX_FILE for hooks (a temporary index during `git commit -a` or
`git commit PATH`); running git itself honours that, and every other GIT_* variable, for free.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

from ..errors import PatchError
from ..policy import Protection


def run_git(repo: str, *args: str, input: bytes | None = None) -> bytes:
    """git's stdout; a failure is a coded error carrying git's own message."""
    try:
        done = subprocess.run(["git", *args], cwd=repo, input=input, capture_output=True,
                              check=False)
    except OSError as exc:
        raise PatchError("not_a_repository", f"cannot run git: {exc.strerror}",
                         hint="install git and make sure it is on PATH") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed"
        code = "not_a_repository" if "not a git repository" in message else "git_error"
        if code == "not_a_repository":
            raise PatchError(code, message.splitlines()[0])
        raise PatchError(code, message, hint="git itself refused; its message above says why",
                         details={"git": list(args)})
    return done.stdout


def top_level(repo: str = ".") -> str:
    """The working tree's root directory."""
    out = run_git(repo, "rev-parse", "--show-toplevel").decode("utf-8", "surrogateescape")
    if not out.strip():
        raise PatchError("not_a_repository", f"{os.path.abspath(repo)} has no working tree")
    return out.rstrip("\n")


@dataclass(frozen=True)
class StagedChange:
    status: str  # git's letter: A added, M modified, D deleted, T type change
    path: str


def staged_changes(root: str) -> list[StagedChange]:
    """Every path the index changes relative to HEAD (everything, before the first commit).

    Renames are listed as a deletion and an addition, so both names are seen.
    """
    out = run_git(root, "diff", "--cached", "--name-status", "--no-renames", "-z",
                  "--no-ext-diff", "--ignore-submodules=none")
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    return [StagedChange(status[:1], path) for status, path in zip(fields[0::2], fields[1::2],
                                                                    strict=False) if path]


def read_staged(root: str, path: str) -> bytes:
    """The content of ``path`` as staged in the index."""
    return run_git(root, "cat-file", "blob", f":{path}")


def hooks_dir(root: str) -> str:
    """Where git looks for hooks here (core.hooksPath honoured), as an absolute path."""
    out = run_git(root, "rev-parse", "--git-path", "hooks").decode("utf-8", "surrogateescape")
    return os.path.abspath(os.path.join(root, out.rstrip("\n")))


def protection(root: str) -> Protection:
    """The protected paths the apply policy uses here: git config holon.protect and
    .holon/protect as committed at HEAD, with core.ignorecase (holon_git.targets.protect)."""
    from .protect import head_protection

    return head_protection(root)
