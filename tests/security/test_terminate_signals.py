"""SIGTERM and SIGHUP while an apply holds a lock, and the locks killed applies leave (issue
42, item 6).

A SIGTERM or SIGHUP while an `--index`/`--cached`/`--commit`/`--ref` apply planned ended the
process where it stood: `.git/index.lock` stayed, every later apply and git command refused
the index, and `--recover` said "Nothing to recover." They now unwind as Ctrl-C does from
before the lock is taken (the lock released, nothing changed) and the process still ends by
the signal; and `--recover` removes an index lock a holon-git process that is gone left (its
lock file names the process, its start time and the boot: a live holder, a process id used
again, git's own lock and an older holon-git's empty lock are left alone).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import everything
from repos.builders import git, lock_files

from holon_git.fs.lock import IndexLock
from holon_git.recover import recover

MODIFY = "--- a/f.txt\n+++ b/f.txt\n@@ -1,5 +1,5 @@\n one\n two\n-three\n+THREE\n four\n five\n"

# the command line, run in a process that stops while planning (the target open, its lock
# taken) until the test signals it: a file says it got there
PLANNING = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
from holon_git import api
from holon_git.cli import main
planned = api.plan_patch

def plan_slowly(*args, **kwargs):
    open(os.environ["PLANNING"], "w").close()
    time.sleep(60)
    return planned(*args, **kwargs)

api.plan_patch = plan_slowly
main(sys.argv[1:])
"""

TARGETS = {"index": ["--index"], "cached": ["--cached"], "commit": ["--commit", "-m", "m"],
           "ref": ["--ref", "main", "-m", "m"]}


def _signalled_while_planning(repo: Path, tmp_path: Path, options: list[str],
                              signum: int) -> subprocess.CompletedProcess[str]:
    patch, planning = tmp_path / "p.diff", tmp_path / "planning"
    patch.write_text(MODIFY)
    child = subprocess.Popen([sys.executable, "-c", PLANNING, *options, str(patch)], cwd=repo,
                             env={**os.environ, "PLANNING": str(planning)},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not planning.exists():
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the apply never started planning"
            time.sleep(0.01)
        assert lock_files(repo) == ["index.lock"]  # the lock is held while it plans
        child.send_signal(signum)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return subprocess.CompletedProcess(child.args, child.returncode, out, err)


def _check_signalled(repo: Path, tmp_path: Path, target: str, signum: int) -> None:
    before = everything(repo), git(repo, "for-each-ref")
    done = _signalled_while_planning(repo, tmp_path, TARGETS[target], signum)
    assert done.returncode == -signum, done  # it still ends by the signal, as asked
    assert "Traceback" not in done.stderr
    assert lock_files(repo) == []
    assert (everything(repo), git(repo, "for-each-ref")) == before


def test_sigterm_while_an_index_apply_plans_leaves_no_lock(repo: Path, tmp_path: Path):
    _check_signalled(repo, tmp_path, "index", signal.SIGTERM)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
@pytest.mark.parametrize("target", list(TARGETS))
def test_sigterm_or_sighup_while_any_locking_apply_plans(repo: Path, tmp_path: Path,
                                                         target: str, signum: int):
    _check_signalled(repo, tmp_path, target, signum)


def test_an_ignored_sighup_stays_ignored(repo: Path, tmp_path: Path):
    """nohup's SIG_IGN is the caller's choice: the apply goes on and completes."""
    patch = tmp_path / "p.diff"
    patch.write_text(MODIFY)
    code = ("import signal, sys\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
            "import os\nfrom holon_git.cli import main\n"
            "os.kill(os.getpid(), signal.SIGHUP)\nmain(sys.argv[1:])\n")
    done = subprocess.run([sys.executable, "-c", code, "--index", str(patch)], cwd=repo,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done
    assert (repo / "f.txt").read_text().splitlines()[2] == "THREE"


# --recover and the locks killed applies left

KILLED_WHILE_LOCKED = """
import os, signal, sys
from holon_git.fs.lock import IndexLock
IndexLock(sys.argv[1])
os.kill(os.getpid(), signal.SIGKILL)
"""


def _left_by_a_killed_apply(repo: Path) -> None:
    done = subprocess.run([sys.executable, "-c", KILLED_WHILE_LOCKED, str(repo / ".git" /
                                                                          "index")])
    assert done.returncode == -signal.SIGKILL
    assert lock_files(repo) == ["index.lock"]


def test_recover_removes_the_lock_a_killed_apply_left(repo: Path):
    before = everything(repo)
    _left_by_a_killed_apply(repo)
    assert holon(repo, "--index", str(repo / "none.diff")).returncode != 0  # index_locked
    ran = holon(repo, "--recover")
    assert ran.returncode == 0
    assert ran.stdout.startswith("Removed 1 lock(s) that killed applies left: ")
    assert "Nothing to recover." not in ran.stdout
    assert lock_files(repo) == []
    assert everything(repo) == before
    assert recover(repo)["locks"] == []  # once


def _mark(pid: int, started: str) -> bytes:
    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    return f"holon-apply lock {pid} {started} {boot}\n".encode()


def _started(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_recover_leaves_a_live_holders_lock_and_takes_a_reused_pids(repo: Path):
    lock = repo / ".git" / "index.lock"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock.write_bytes(_mark(sleeper.pid, _started(sleeper.pid)))
        assert recover(repo)["locks"] == [] and lock.exists()  # its holder is alive
        lock.write_bytes(_mark(sleeper.pid, str(int(_started(sleeper.pid)) - 1)))
        assert recover(repo)["locks"] == [str(lock)]  # that process is gone: the pid reused
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.parametrize("content", [b"", b"DIRC\x00\x00\x00\x02", b"holon-apply lock 1 x\n",
                                     b"holon-apply lock 0 1 ab\n"],
                         ids=["empty", "git", "malformed", "pid0"])
def test_recover_leaves_a_lock_it_cannot_prove_was_left_by_a_dead_holon_git(repo: Path,
                                                                            content: bytes):
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(content)
    assert recover(repo)["locks"] == []
    assert lock.read_bytes() == content


def test_a_held_lock_says_who_holds_it(repo: Path):
    held = IndexLock(str(repo / ".git" / "index"))
    try:
        content = (repo / ".git" / "index.lock").read_bytes()
        assert content.startswith(f"holon-apply lock {os.getpid()} ".encode())
        assert recover(repo)["locks"] == []  # this process is alive
    finally:
        held.release()
    assert lock_files(repo) == []


# the scope itself (fs/signals.py), in a process of its own: it ends the process
SCOPE = """
import os, signal, sys
signal.signal(signal.SIGTERM, signal.SIG_DFL)
from holon_git.fs.signals import DROP, FORWARD, HeldSignals, Interrupted, TerminateAsInterrupt
case = sys.argv[1]
with TerminateAsInterrupt():
    if case == "plain":
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            print("not reached", flush=True)
        finally:
            print("unwound", flush=True)  # the lock released here
    elif case == "held":
        try:
            with HeldSignals(at_end=FORWARD):
                os.kill(os.getpid(), signal.SIGTERM)
                print("commit point passed whole", flush=True)
        finally:
            print("unwound", flush=True)
    elif case == "dropped":
        with HeldSignals(at_end=DROP):
            os.kill(os.getpid(), signal.SIGTERM)
            print("write completed", flush=True)
        print("reported", flush=True)
print("after the scope: not reached", flush=True)
"""


@pytest.mark.parametrize(("case", "printed"), [
    ("plain", ["unwound"]),
    ("held", ["commit point passed whole", "unwound"]),
    ("dropped", ["write completed", "reported"]),
])
def test_terminate_as_interrupt_unwinds_then_ends_the_process(case: str, printed: list[str]):
    done = subprocess.run([sys.executable, "-c", SCOPE, case], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == -signal.SIGTERM, done
    assert done.stdout.splitlines() == printed
    assert "Traceback" not in done.stderr
