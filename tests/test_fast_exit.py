"""The command's process ends as soon as the command is over (holon_git/fast_exit.py).

Run as the command, the process skips the interpreter's teardown, but loses nothing: the
whole output (also block-buffered, through a pipe), the exit status, the atexit callbacks,
a thread still at work. ``cli.main(argv)`` called with arguments keeps SystemExit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from repos.builders import git_env

MANY = 300


def _env(**extra: str) -> dict[str, str]:
    env = git_env(extra)
    env.pop("PYTHONUNBUFFERED", None)  # stdout into a pipe is then block-buffered
    return env


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {f"f{i}.txt": f"line {i}\n" for i in range(MANY)}


def _patch(tmp_path: Path) -> Path:
    patch = tmp_path / "many.diff"
    patch.write_text("".join(f"--- a/f{i}.txt\n+++ b/f{i}.txt\n@@ -1 +1 @@\n-line {i}\n"
                             f"+LINE {i}\n" for i in range(MANY)))
    return patch


@pytest.mark.slow
def test_the_whole_receipt_comes_out_through_a_pipe(repo: Path, tmp_path: Path):
    patch = _patch(tmp_path)
    done = subprocess.run([sys.executable, "-m", "holon_git", "--json", str(patch)], cwd=repo,
                          capture_output=True, env=_env())
    assert done.returncode == 0, done.stderr
    receipt = json.loads(done.stdout)  # more than a pipe's buffer, all of it
    assert receipt["status"] == "applied" and len(receipt["files"]) == MANY
    again = subprocess.run([sys.executable, "-m", "holon_git", "--json", str(patch)], cwd=repo,
                           capture_output=True, env=_env())
    assert again.returncode == 1
    assert json.loads(again.stdout)["error"]["code"] == "already_applied"
    assert b"error: already_applied:" in again.stderr
    usage = subprocess.run([sys.executable, "-m", "holon_git", "--no-such-option"], cwd=repo,
                           capture_output=True, env=_env())
    assert usage.returncode == 2 and b"No such option" in usage.stderr


def test_atexit_callbacks_still_run(repo: Path, tmp_path: Path):
    """With GIT_CONFIG_NOSYSTEM, opening the repository through libgit2 makes a scratch
    directory that an atexit callback removes."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    done = subprocess.run([sys.executable, "-m", "holon_git", "--cached", "-q",
                           str(_patch(tmp_path))], cwd=repo, capture_output=True,
                          env=_env(TMPDIR=str(scratch), GIT_CONFIG_NOSYSTEM="1"))
    assert done.returncode == 0, done.stderr
    assert os.listdir(scratch) == []


TEARDOWN = """\
import atexit, sys
from pathlib import Path
marks = Path(sys.argv[1])

class Torn:
    def __del__(self):
        (marks / "torn down").touch()

sys.modules["__main__"].torn = Torn()  # freed only by the interpreter's teardown
atexit.register(lambda: (marks / "atexit").touch())
from holon_git.cli import main
sys.argv = ["holon-apply", "-q", sys.argv[2]]
if {call!r} == "argv":
    try:
        main(sys.argv[1:])
    except SystemExit as exc:
        (marks / f"SystemExit {{exc.code}}").touch()
else:
    main()
(marks / "after main").touch()
"""


@pytest.mark.slow
@pytest.mark.parametrize("call", ["command", "argv"])
def test_the_command_skips_the_teardown_and_main_with_arguments_does_not(
        repo: Path, tmp_path: Path, call: str):
    marks = tmp_path / "marks"
    marks.mkdir()
    done = subprocess.run([sys.executable, "-c", TEARDOWN.format(call=call), str(marks),
                           str(_patch(tmp_path))], cwd=repo, capture_output=True, env=_env())
    assert done.returncode == 0, done.stderr
    if call == "command":
        assert sorted(os.listdir(marks)) == ["atexit"]
    else:
        assert sorted(os.listdir(marks)) == ["SystemExit 0", "after main", "atexit",
                                             "torn down"]


THREAD = """\
import sys, threading, time
from pathlib import Path
mark = Path(sys.argv[1])

def late():  # still at work when the apply is over
    while Path(f"f{MANY - 1}.txt").read_text().startswith("line"):
        time.sleep(0.01)
    time.sleep(0.2)
    mark.write_text("done")

threading.Thread(target=late).start()
from holon_git.cli import main
sys.argv = ["holon-apply", "-q", sys.argv[2]]
main()
"""


@pytest.mark.slow
def test_a_thread_still_running_is_waited_for(repo: Path, tmp_path: Path):
    mark = tmp_path / "mark"
    done = subprocess.run([sys.executable, "-c", THREAD.replace("MANY", str(MANY)), str(mark),
                           str(_patch(tmp_path))],
                          cwd=repo, capture_output=True, env=_env())
    assert done.returncode == 0, done.stderr
    assert mark.read_text() == "done"
