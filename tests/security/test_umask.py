"""The executable mode is computed without touching the process's umask (issue 28, item 13).

The attack: reading the umask with os.umask() means setting it (to 022) and back. In the MCP
server, applies run in worker threads: a file another thread creates between the two calls
gets the temporary mask — with a user's umask of 077, a secret written 0644 instead of 0600.
Now the mask is read from /proc/self/status (Linux), and elsewhere once at start-up.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
import time
from pathlib import Path

import pytest
from repos.builders import make_repo

from holon_git import apply_patch
from holon_git.fs import umask
from holon_git.fs.transaction import _executable_perm

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the umask is read from /proc/self/status on Linux")


@pytest.fixture
def strict_umask():
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.slow
@linux_only
def test_files_other_threads_create_keep_the_users_mask(tmp_path: Path, strict_umask: None):
    stop = threading.Event()
    looser: list[int] = []
    created = [0]

    def create_files() -> None:
        while not stop.is_set():
            path = tmp_path / f"secret{created[0] % 32}"
            fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o666)
            mode = stat.S_IMODE(os.fstat(fd).st_mode)
            os.close(fd)
            path.unlink()
            if mode != 0o600:
                looser.append(mode)
            created[0] += 1

    thread = threading.Thread(target=create_files)
    thread.start()
    try:
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            assert _executable_perm() == 0o700
    finally:
        stop.set()
        thread.join()
    assert created[0] > 0 and looser == []


@linux_only
def test_an_apply_never_sets_the_umask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Beside the race above: an apply that creates an executable file reads the mask
    (0o027 here: rwxr-x---) and never calls os.umask."""
    repo = make_repo(tmp_path / "r", {"README": "r\n"})
    patch = ("diff --git a/run.sh b/run.sh\nnew file mode 100755\n--- /dev/null\n"
             "+++ b/run.sh\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo hi\n")
    calls: list[int] = []
    real = os.umask
    old = real(0o027)
    try:
        monkeypatch.setattr(os, "umask", lambda mask: calls.append(mask) or real(mask))
        assert apply_patch(patch, repo).ok
    finally:
        monkeypatch.undo()
        os.umask(old)
    assert calls == []
    assert stat.S_IMODE((repo / "run.sh").stat().st_mode) == 0o750


def test_the_mask_read_is_the_processs(strict_umask: None):
    assert umask.current() == 0o077
    umask.settle()
    assert umask.current() == 0o077
