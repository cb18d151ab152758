"""Running `git holon-apply` in a test: the one helper every CLI test uses.

``holon(cwd, *args)`` runs the whole command line in this process through click's
``CliRunner`` (fast: no interpreter start-up, no import of pygit2 per call), handler and exit
status included: it calls ``holon_git.cli.run`` exactly as the console script's ``main`` does.
``holon_process(cwd, *args)`` starts a real process, for what only a process shows: signals,
the exit status the shell sees, start-up, what gets imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest
from click.testing import CliRunner
from repos.builders import git_env

from holon_git.cli import run


@dataclass(frozen=True)
class Ran:
    """What a run printed and how it ended (the fields of a CompletedProcess, decoded)."""

    returncode: int
    stdout: str
    stderr: str
    stdout_bytes: bytes = b""


class _CommandLine:
    """What CliRunner invokes: the whole command line, the one error handler included."""

    name = "holon-apply"

    def main(self, args: Sequence[str], prog_name: str | None = None, **_: object) -> NoReturn:
        sys.exit(run(list(args)))


def holon(cwd: Path | str, *args: str, stdin: str | bytes | None = None,
          env: Mapping[str, str] | None = None) -> Ran:
    """`git holon-apply ARGS` run in ``cwd``, in this process."""
    before = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner(catch_exceptions=False).invoke(
            _CommandLine(), list(args), input=stdin, env=env)  # type: ignore[arg-type]
    finally:
        os.chdir(before)
    return Ran(result.exit_code, result.stdout_bytes.decode("utf-8", "replace"),
               result.stderr_bytes.decode("utf-8", "replace"), result.stdout_bytes)


def holon_process(cwd: Path | str, *args: str, stdin: str | bytes | None = None,
                  env: Mapping[str, str] | None = None,
                  command: Sequence[str] | None = None, timeout: float = 120) -> Ran:
    """`git holon-apply ARGS` run in ``cwd`` as a new process (``python -m holon_git``, or
    ``command``), with the fixtures' git environment plus ``env``."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run([*(command or [sys.executable, "-m", "holon_git"]), *args], cwd=cwd,
                          input=data, capture_output=True, env=git_env(env), timeout=timeout,
                          stdin=None if data is not None else subprocess.DEVNULL)
    return Ran(done.returncode, done.stdout.decode("utf-8", "replace"),
               done.stderr.decode("utf-8", "replace"), done.stdout)


def report_lines(text: str) -> list[str]:
    """The lines of what the command line printed, each refusal or hint that report.py broke
    after its clauses (the later ones indented two spaces) joined into one line again."""
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith("  ") and out and out[-1].startswith(("error: ", "hint: ")):
            out[-1] += " " + line[2:]
        else:
            out.append(line)
    return out


# The CLI tests' common patch, to line 3 of the shared `repo` fixture's f.txt (conftest.py).
PATCH = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n four\n"


@pytest.fixture
def patch_file(tmp_path: Path) -> Path:
    """PATCH, in a file."""
    path = tmp_path / "fix.diff"
    path.write_text(PATCH)
    return path
