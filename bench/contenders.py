"""The tools the benchmark compares, as commands (holon-git, pygit2 and the plain-Python
floor; git apply and GNU patch are called by name), and the resets between their runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import floor
from inputs import git
from measure import Cell

PYGIT2_APPLY = """\
import sys, pygit2
repo = pygit2.Repository(sys.argv[1])
diff = pygit2.Diff.parse_diff(open(sys.argv[2], "rb").read())
where = {"worktree": pygit2.enums.ApplyLocation.WORKDIR,
         "index": pygit2.enums.ApplyLocation.INDEX}[sys.argv[3]]
if sys.argv[4] == "check":
    sys.exit(0 if repo.applies(diff, where) else 1)
repo.apply(diff, where)
"""


def holon_argv() -> list[str]:
    script = Path(sys.executable).with_name("holon-apply")
    return [str(script)] if script.exists() else [sys.executable, "-m", "holon_git"]


def holon_flags() -> set[str]:
    """The options `holon-apply apply` has in this checkout (the git targets may not exist)."""
    out = subprocess.run([*holon_argv(), "apply", "--help"], capture_output=True, text=True,
                         check=False).stdout
    return {word.strip(",") for word in out.split() if word.startswith("--")}


def compile_holon() -> None:
    """Byte-compile holon_git as pip does for a regular install: an editable install under
    PYTHONDONTWRITEBYTECODE would otherwise compile every module at every start."""
    import compileall

    import holon_git

    compileall.compile_dir(os.path.dirname(holon_git.__file__), quiet=1)


def have_pygit2() -> bool:
    return subprocess.run([sys.executable, "-c", "import pygit2"],
                          capture_output=True, check=False).returncode == 0


def pygit2_argv(repo: Path, patch: Path, where: str, mode: str = "apply") -> list[str]:
    return [sys.executable, "-c", PYGIT2_APPLY, str(repo), str(patch), where, mode]


def floor_argv(patch: Path | str) -> list[str]:
    """bench/floor.py as a command (the same interpreter, no site packages of note)."""
    return [sys.executable, str(Path(floor.__file__).resolve()), str(patch)]


def skipped(reason: str) -> Cell:
    return Cell(note=reason)


NOT_AVAILABLE = "skipped (target not available)"


def settle() -> None:
    """Write the reset files' data to disk before a timed run. A repository being patched
    was written long ago; files rewritten a moment before cost every tool about 0.4 s more
    on the large patch (their blocks are allocated and written back while it runs), which
    hid most of the difference between the tools."""
    os.sync()


def clean_checkout(repo: Path, commit: str) -> None:
    git(repo, "reset", "-q", "--hard", commit)
    git(repo, "clean", "-qfdx")
    settle()


def tree_of_worktree(repo: Path) -> str:
    git(repo, "add", "-A")
    return git(repo, "write-tree").strip()
