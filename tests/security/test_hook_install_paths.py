"""install-hooks from an environment whose folder name is not UTF-8 (issue 42, item 14).

The hook names the command it calls by its absolute path; from a folder named with other
bytes that path came with surrogate escapes and writing the hook ended in a traceback, with
nothing installed. The hook now holds the path's own bytes, and the commit it guards runs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from repos.builders import git, git_env

from holon_git.errors import PatchError
from holon_git.hooks.install import install_hooks


@pytest.fixture
def environment(tmp_path: Path) -> bytes:
    """This environment's git-holon-apply, copied into a folder whose name is not UTF-8 (the
    copy's first line still runs this interpreter): its path, as bytes."""
    folder = os.path.join(os.fsencode(tmp_path), b"env-\xff\xfe")
    os.mkdir(folder)
    command = os.path.join(folder, b"git-holon-apply")
    shutil.copy2(os.path.join(os.path.dirname(sys.executable), "git-holon-apply"),
                 os.fsdecode(command))
    return command


def test_install_hooks_from_a_folder_whose_name_is_not_utf8(repo: Path, environment: bytes):
    run = subprocess.run([environment, "install-hooks"], cwd=repo, env=git_env(),
                         capture_output=True)
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    assert b"Traceback" not in run.stderr
    hook = (repo / ".git" / "hooks" / "pre-commit").read_bytes()
    assert b"INSTALLED='" + environment + b"'\n" in hook  # the folder's own bytes
    # the commit the hook guards runs that command: a protected path is refused through it
    git(repo, "config", "holon.protect", "f.txt")
    (repo / "f.txt").write_text("changed\n")
    git(repo, "add", "f.txt")
    commit = subprocess.run(["git", "commit", "-q", "-m", "change"], cwd=repo, env=git_env(),
                            capture_output=True)
    assert commit.returncode != 0
    assert b"protected_path" in commit.stderr
    again = subprocess.run([environment, "install-hooks"], cwd=repo, env=git_env(),
                           capture_output=True)
    assert again.returncode == 0 and b"unchanged: " in again.stdout, again.stderr


def test_a_command_no_byte_stands_for_is_a_usage_error(repo: Path):
    with pytest.raises(PatchError) as refused:
        install_hooks(str(repo), command="/opt/env-\ud800/git-holon-apply")
    assert refused.value.code == "usage_error"
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
