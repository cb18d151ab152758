"""A large multi-file working-tree apply, and ways to stop it at any step.

``Scenario`` builds a repository and a patch that modifies, adds (in new directories),
deletes (emptying directories), renames and keeps the exec bit, and knows the tree before and
after. ``step_hook`` counts the OS calls an apply makes and runs an action before the Nth,
which is how the tests kill (SIGKILL), interrupt (SIGINT) or fail (OSError) every step.
"""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from repos.builders import git_state, make_repo, snapshot

from holon_git import apply_patch
from holon_git.fs import tree as fstree
from holon_git.recover import recover

LONG = os.environ.get("HOLON_LONG_TESTS") == "1"

# Every call through which an apply (or a recovery) changes the disk, plus open: killing
# before each of them stops the process at every distinct point of its work.
STEP_CALLS = ("open", "write", "fsync", "rename", "replace", "unlink", "mkdir", "rmdir",
              "fchmod", "link")


def body(i: int, lines: int = 12) -> str:
    return "".join(f"file {i} line {j}\n" for j in range(lines))


@dataclass
class Scenario:
    template: Path
    patch: bytes
    old: dict
    new: dict
    git: dict

    @classmethod
    def make(cls, tmp_path: Path, files: int = 8, lines: int = 12) -> Scenario:
        contents = {f"d{i % 3}/f{i}.txt": body(i, lines) for i in range(files)}
        contents["gone/only.txt"] = body(999, lines)
        contents["tool.sh"] = "#!/bin/sh\necho 1\n"
        template = make_repo(tmp_path / "template", contents, executable={"tool.sh"})
        parts = []
        for i in range(files):
            path = f"d{i % 3}/f{i}.txt"
            if i % 5 == 4:
                parts.append(f"diff --git a/{path} b/moved/m{i}.txt\nsimilarity index 90%\n"
                             f"rename from {path}\nrename to moved/m{i}.txt\n"
                             f"--- a/{path}\n+++ b/moved/m{i}.txt\n"
                             f"@@ -1,2 +1,2 @@\n-file {i} line 0\n+FILE {i} LINE 0\n"
                             f" file {i} line 1\n")
            elif i % 7 == 6:
                parts.append(f"--- a/{path}\n+++ /dev/null\n@@ -1,{lines} +0,0 @@\n"
                             + "".join(f"-{line}\n" for line in body(i, lines).splitlines()))
            else:
                parts.append(f"--- a/{path}\n+++ b/{path}\n@@ -2,3 +2,3 @@\n"
                             f" file {i} line 1\n-file {i} line 2\n+changed {i}\n"
                             f" file {i} line 3\n")
            if i % 4 == 0:
                parts.append(f"--- /dev/null\n+++ b/new/n{i}/added.txt\n@@ -0,0 +1,2 @@\n"
                             f"+new {i}\n+more\n")
        parts.append(f"--- a/gone/only.txt\n+++ /dev/null\n@@ -1,{lines} +0,0 @@\n"
                     + "".join(f"-{line}\n" for line in body(999, lines).splitlines()))
        parts.append("--- a/tool.sh\n+++ b/tool.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo 1\n"
                     "+echo 2\n")
        patch = "".join(parts).encode()
        old, state = snapshot(template), git_state(template)
        probe = tmp_path / "probe"
        shutil.copytree(template, probe, symlinks=True)
        receipt = apply_patch(patch, probe)
        assert receipt.ok, receipt.error
        new = snapshot(probe)
        shutil.rmtree(probe)
        return cls(template, patch, old, new, state)

    def fresh(self, where: Path) -> Path:
        return fresh_copy(self.template, where)


def fresh_copy(template: Path, where: Path) -> Path:
    """``where`` made an exact copy of the repository ``template`` (whatever was there)."""
    if where.exists():
        shutil.rmtree(where)
    shutil.copytree(template, where, symlinks=True)
    return where


def killed_child(repo: Path, patch: bytes, at: int, job: str = "apply",
                 how: str = "rename") -> bool:
    """Fork; the child runs the apply (or a recovery) and SIGKILLs itself just before its
    ``at``-th OS step call. True if it was killed, False if it finished first."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            replace_by(how)
            step_hook(None, at, lambda name: os.kill(os.getpid(), signal.SIGKILL))
            if job == "apply":
                apply_patch(patch, repo)
            else:
                recover(repo)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


def replace_by(how: str, monkeypatch: pytest.MonkeyPatch | None = None) -> None:
    """Make the applies that follow replace a modified file by an exchange of names and an
    unlink ("exchange", what a process that replaced many files does) or by a rename over it
    ("rename", a process's first few files)."""
    setting = {"_PAYS_OFF_AFTER": 0 if how == "exchange" else 10**9, "_renameat2": None,
               "_unavailable": False}
    for name, value in setting.items():
        if monkeypatch is None:
            setattr(fstree, name, value)
        else:
            monkeypatch.setattr(fstree, name, value)


def step_hook(monkeypatch: pytest.MonkeyPatch | None, at: int,
              action: Callable[[str], None]) -> list[int]:
    """Wrap the os step calls and fstree.exchange (renameat2 through ctypes, out of os's
    reach); before call number ``at`` (1-based) run ``action(name)``. Returns the call
    counter (one-element list). Without monkeypatch, patches directly (for a forked child
    that never restores)."""
    counter = [0]
    for module, name in [*((os, n) for n in STEP_CALLS), (fstree, "exchange")]:
        real = getattr(module, name)

        def wrapper(*args, _real=real, _name=name, **kwargs):
            counter[0] += 1
            if counter[0] == at:
                action(_name)
            return _real(*args, **kwargs)

        if monkeypatch is None:
            setattr(module, name, wrapper)
        else:
            monkeypatch.setattr(module, name, wrapper)
    return counter


def without_temporaries(tree: dict) -> dict:
    """A snapshot without the temporary files an apply stages new contents in."""
    return {path: entry for path, entry in tree.items()
            if not (os.path.basename(path).startswith(".holon-") and path.endswith(".tmp"))}


def journal_dir(repo: Path) -> Path:
    return repo / ".git" / "holon-apply"
