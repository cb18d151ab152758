"""The history log's lock is a writer's (issue 42, item 11).

The appends' lock was the flock of the git directory (and of the log file): flock needs only
an open file, so any reader of `.git` could take it, and every apply then waited 30 s, exited
0 and dropped its entry (no -R of that deletion, no re-send guard), silently. The lock is now
a file only those who may write the git directory can open; the wait is LOCK_WAIT (2 s); and
the receipt says when the log was not written (``history_not_written``).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from clisupport import PATCH, holon
from gitsupport import applied
from repos.builders import git

from holon_git.git import history

OTHER = 54321  # a uid that is not the test process's: a reader of the repository
# the reader's process: its user and group both OTHER (root's group would read as root's)
AS_OTHER: dict[str, Any] = {"user": OTHER, "group": OTHER, "extra_groups": []}
MODIFY = "--- a/f.txt\n+++ b/f.txt\n@@ -1,5 +1,5 @@\n one\n two\n-three\n+THREE\n four\n five\n"

# run as OTHER: take every lock a reader can, say which, and hold them until killed
READER = r"""
import fcntl, os, sys
git_dir = sys.argv[1]
held, took = [], []
for name, flags in (("", os.O_RDONLY | os.O_DIRECTORY), ("holon-apply-history", os.O_RDONLY),
                    ("holon-apply-history.flock", os.O_RDONLY),
                    ("holon-apply-history.flock", os.O_WRONLY)):
    try:
        fd = os.open(os.path.join(git_dir, name) if name else git_dir, flags)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        continue
    held.append(fd)
    took.append(name or "git directory")
print(",".join(took), flush=True)
sys.stdin.read()
"""


def _log(repo: Path) -> list[str]:
    path = repo / ".git" / history.LOG_NAME
    return path.read_text().splitlines() if path.exists() else []


def _lock_path(repo: Path) -> Path:
    return repo / ".git" / history.LOCK_NAME


def _readable_by_others(tmp_path: Path) -> None:
    """Let another user walk down to the repository (pytest's folders are private)."""
    for folder in [tmp_path, *tmp_path.parents]:
        mode = folder.stat().st_mode
        if not mode & stat.S_IXOTH:
            os.chmod(folder, stat.S_IMODE(mode) | stat.S_IXOTH | stat.S_IROTH)


def _interpreter_for_others() -> str:
    """A Python another user may run (this one may live in a private home)."""
    for candidate in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        try:
            subprocess.run([candidate, "-I", "-c", "pass"], check=True, capture_output=True,
                           **AS_OTHER)
        except (OSError, subprocess.CalledProcessError):
            continue
        return candidate
    pytest.skip("no Python interpreter another user may run")


@pytest.mark.skipif(os.geteuid() != 0, reason="running a reader as another user takes root")
def test_a_reader_of_the_git_directory_cannot_hold_the_log_off(repo: Path, tmp_path: Path):
    python = _interpreter_for_others()
    _readable_by_others(tmp_path)
    applied(repo, MODIFY)  # the lock file exists, as the writer made it
    git(repo, "checkout", "--", "f.txt")
    assert stat.S_IMODE(_lock_path(repo).stat().st_mode) & 0o077 == 0
    reader = subprocess.Popen([python, "-I", "-c", READER, str(repo / ".git")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              **AS_OTHER)
    try:
        took = reader.stdout.readline().strip()  # type: ignore[union-attr]
        assert "git directory" in took and "flock" not in took, took
        before = len(_log(repo))
        started = time.monotonic()
        receipt = applied(repo, MODIFY)
        assert time.monotonic() - started < history.LOCK_WAIT
        assert receipt.history_not_written is None
        assert len(_log(repo)) == before + 1  # the entry is there: the re-send guard holds
    finally:
        reader.kill()
        reader.wait()


def test_the_lock_file_is_open_only_to_writers_of_the_git_directory(repo: Path):
    applied(repo, MODIFY)
    assert stat.S_IMODE(_lock_path(repo).stat().st_mode) & 0o077 == 0
    git(repo, "checkout", "--", "f.txt")
    _lock_path(repo).unlink()
    os.chmod(repo / ".git", 0o775)  # a group that may write the directory may lock it too
    applied(repo, MODIFY)
    assert stat.S_IMODE(_lock_path(repo).stat().st_mode) == 0o660  # whatever the umask


def test_a_lock_file_readers_could_open_is_replaced(repo: Path):
    _lock_path(repo).write_text("")
    os.chmod(_lock_path(repo), 0o644)
    planted = _lock_path(repo).stat().st_ino
    applied(repo, MODIFY)
    assert _lock_path(repo).stat().st_ino != planted
    assert stat.S_IMODE(_lock_path(repo).stat().st_mode) & 0o077 == 0
    assert len(_log(repo)) == 1


def _holding_the_lock(repo: Path) -> int:
    """The lock, taken as another writer's apply takes it (and kept, as a stopped one)."""
    import fcntl

    fd = os.open(_lock_path(repo), os.O_WRONLY | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def test_the_receipt_says_when_the_log_was_not_written(repo: Path,
                                                       monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(history, "LOCK_WAIT", 0.05)
    fd = _holding_the_lock(repo)
    try:
        receipt = applied(repo, MODIFY)
        assert receipt.history_not_written is not None
        assert "held the history log's lock" in receipt.history_not_written
        assert receipt.to_dict()["history_not_written"] == receipt.history_not_written
        assert _log(repo) == []
        git(repo, "checkout", "--", "f.txt")
        index = applied(repo, MODIFY, target="both")  # --index records history too
        assert index.history_not_written is not None
        git(repo, "reset", "-q", "--hard")
        patch = repo.parent / "p.diff"
        patch.write_text(PATCH)
        ran = holon(repo, str(patch))
        assert ran.returncode == 0
        assert "note: the history log was not written: another process held" in ran.stdout \
            + ran.stderr
    finally:
        os.close(fd)
    git(repo, "reset", "-q", "--hard")
    assert applied(repo, MODIFY).history_not_written is None
    assert len(_log(repo)) == 1


def test_the_wait_is_short():
    assert history.LOCK_WAIT <= 2.0
