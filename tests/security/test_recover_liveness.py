"""--recover proves an apply alive by a lock it holds, not by its pid (issue 28, item 10).

The attacks: `--recover` run in another pid namespace (a container beside the host, or the
other way round) asked `kill(pid, 0)` about the pid in a live apply's temporary file names,
found no such process in its own namespace, and removed the staged files under the running
apply; and a pid over 2^31 in a leftover's name crashed it (OverflowError) every time. Now an
apply holds its id's directory in the journal directory flock'd from before it stages its
first file (journal.Liveness), and a temporary file is a leftover only if that lock can be
taken; the pid in the name is never read.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from repos.builders import git_env, snapshot

from holon_git import apply_patch
from holon_git.recover import recover

PATCH = "--- a/d/f.txt\n+++ b/d/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"


def temporaries(repo: Path) -> list[str]:
    return sorted(str(p.relative_to(repo)) for p in repo.rglob(".holon-*.tmp")
                  if ".git" not in p.parts)


def paused_apply(repo: Path) -> int:
    """Fork an apply that stops itself (SIGSTOP) at its first rename: its new content is
    staged in a temporary file, not yet in place."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            from holon_git.fs import tree as fstree

            fstree._PAYS_OFF_AFTER = 10**9  # replace by rename, not by an exchange
            real = os.rename

            def rename(*args, **kwargs):
                os.rename = real
                os.kill(os.getpid(), signal.SIGSTOP)
                return real(*args, **kwargs)

            os.rename = rename
            apply_patch(PATCH, repo)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status)
    return pid


def recover_in_new_pid_namespace(repo: Path) -> dict:
    code = ("import json, sys; from holon_git.recover import recover; "
            "print(json.dumps(recover(sys.argv[1])))")
    done = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c",
                           code, str(repo)], capture_output=True, text=True, env=git_env())
    if done.returncode != 0 and "unshare" in done.stderr:
        pytest.skip(f"no pid namespace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def repo_files() -> dict[str, str]:
    """What the shared `repo` fixture commits here."""
    return {"d/f.txt": "one\ntwo\n"}


def test_a_recovery_in_another_pid_namespace_leaves_a_live_apply_alone(repo: Path):
    pid = paused_apply(repo)
    try:
        staged = temporaries(repo)
        assert len(staged) == 1
        done = recover_in_new_pid_namespace(repo)  # where the apply's pid names nothing
        assert done["temporaries"] == [] and len(done["busy"]) == 1
        assert temporaries(repo) == staged
    finally:
        os.kill(pid, signal.SIGCONT)
        os.waitpid(pid, 0)
    assert (repo / "d" / "f.txt").read_text() == "one\nTWO\n"
    assert temporaries(repo) == [] and not (repo / ".git" / "holon-apply").exists()


def test_a_killed_apply_is_recovered_from_any_namespace(repo: Path):
    pid = paused_apply(repo)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    staged = temporaries(repo)
    assert len(staged) == 1
    done = recover_in_new_pid_namespace(repo)
    assert done["temporaries"] == staged and done["busy"] == []
    assert temporaries(repo) == [] and (repo / "d" / "f.txt").read_text() == "one\ntwo\n"


def test_huge_pids_in_names_neither_crash_nor_decide(repo: Path):
    """A pid past 2^31 (or any number) in a name: a leftover when no lock holds its id, left
    alone while one does."""
    from holon_git.fs.journal import Liveness

    dead = ".holon-1795450889-99999999999999999999-a522225d-0.tmp"
    live_id = "1795450889-98765432109876543210-b522225d"
    held = Liveness.take(str(repo / ".git"), live_id)
    assert held is not None
    alive = f".holon-{live_id}-3.tmp"
    for name in (dead, alive):
        (repo / "d" / name).write_text("staged\n")
    before = snapshot(repo)
    done = recover(repo)
    assert done["temporaries"] == [f"d/{dead}"] and done["busy"] == [live_id]
    assert (repo / "d" / alive).exists()
    held.release()
    assert recover(repo)["temporaries"] == [f"d/{alive}"]
    assert len(snapshot(repo)) == len(before) - 2
