"""fs/signals.py, the one mechanism that holds off Ctrl-C and SIGTERM, with real signals.

The applies that use it are tested end to end in tests/security/test_crash.py (a SIGINT at
every step of a write); these pin down each way a hold ends.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from holon_git.fs.signals import DROP, FORWARD, RAISE, HeldSignals, Interrupted, checkpoint


@pytest.fixture(autouse=True)
def handlers_restored() -> Iterator[None]:
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    yield
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    signal.signal(signal.SIGINT, before[0])
    signal.signal(signal.SIGTERM, before[1])


def interrupt() -> None:
    os.kill(os.getpid(), signal.SIGINT)  # delivered before kill() returns to Python code


def test_a_held_ctrl_c_waits_for_the_checkpoint() -> None:
    passed = []
    with pytest.raises(Interrupted) as raised, HeldSignals() as held:
        interrupt()
        passed.append("after the signal")
        held.checkpoint()
        passed.append("after the checkpoint")
    assert passed == ["after the signal"]
    assert raised.value.signum == signal.SIGINT and str(raised.value) == "SIGINT"


def test_drop_forgets_a_signal_no_checkpoint_acted_on() -> None:
    with HeldSignals(at_end=DROP):
        interrupt()
    checkpoint()  # no hold in force: nothing pending anywhere


def test_raise_raises_at_the_end_unless_the_block_failed() -> None:
    with pytest.raises(Interrupted), HeldSignals(at_end=RAISE):
        interrupt()
    with pytest.raises(ValueError), HeldSignals(at_end=RAISE):  # the block's own error wins
        interrupt()
        raise ValueError("the write failed")


def test_a_signal_acted_on_is_not_raised_again() -> None:
    with HeldSignals(at_end=RAISE) as held:
        interrupt()
        with pytest.raises(Interrupted):
            held.checkpoint()
        interrupt()  # during the undo: already answered
        held.checkpoint()


def test_forward_hands_the_signal_to_the_enclosing_hold() -> None:
    passed = []
    with HeldSignals() as outer:
        with HeldSignals(at_end=FORWARD):
            interrupt()
            passed.append("the commit point")  # passed completely
        assert outer.received == signal.SIGINT
        with pytest.raises(Interrupted):
            checkpoint()  # the outer hold (now the innermost) acts on it
        outer.checkpoint()  # once
    assert passed == ["the commit point"]


def test_forward_without_a_hold_raises_keyboard_interrupt_at_the_end() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    reached = []
    with pytest.raises(KeyboardInterrupt) as raised, HeldSignals(at_end=FORWARD):
        interrupt()
        reached.append("the commit point's end")
    assert reached == ["the commit point's end"]
    assert not isinstance(raised.value, Interrupted)


# the child sets SIGTERM's usual action itself: a test run started with SIGTERM ignored would
# pass that on to it
DEFAULT_SIGTERM = "signal.signal(signal.SIGTERM, signal.SIG_DFL)\n"


def test_sigterm_is_held_only_when_asked_and_still_ends_the_process() -> None:
    """A SIGTERM a checkpoint answered ends the process once the hold is over (after the
    undo); a hold without ``terminate`` leaves SIGTERM to its usual handler."""
    code = (
        "import os, signal, sys\n"
        f"{DEFAULT_SIGTERM}"
        "from holon_git.fs.signals import HeldSignals, Interrupted\n"
        "with HeldSignals(terminate=True) as held:\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    print('held', flush=True)\n"
        "    try:\n"
        "        held.checkpoint()\n"
        "    except Interrupted as exc:\n"
        "        print('undone after', exc, flush=True)\n"
        "print('not reached', flush=True)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == -signal.SIGTERM, done
    assert done.stdout.split("\n")[:2] == ["held", "undone after SIGTERM"]
    code = (f"import os, signal\n{DEFAULT_SIGTERM}from holon_git.fs.signals import HeldSignals\n"
            "with HeldSignals():\n    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    print('not reached', flush=True)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == -signal.SIGTERM and done.stdout == "", done


def test_outside_the_main_thread_a_hold_does_nothing() -> None:
    seen: list[object] = []

    def work() -> None:
        with HeldSignals(terminate=True, at_end=RAISE) as held:
            held.checkpoint()
            checkpoint()
            seen.append(held.received)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == [None]


def test_ctrl_c_while_a_large_apply_claims_its_directory_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A patch of many files stages them as they are planned, from a transaction taken
    before planning. A Ctrl-C that arrives just after that transaction claimed its
    directory under .git/holon-apply is an interrupt, and leaves the repository exactly
    as it was (no directory left for --recover). The signal is sent from inside the claim
    (a real SIGINT at that moment; the directory and the repository are real)."""
    from gitsupport import everything
    from repos.builders import make_repo

    from holon_git import apply_patch
    from holon_git.fs import journal

    files = {f"f{n:02}.txt": "one\ntwo\n" for n in range(20)}
    repo = make_repo(tmp_path / "r", files)
    patch = "".join(f"--- a/{name}\n+++ b/{name}\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
                    for name in files)
    before = everything(repo)
    take = journal.Liveness.take.__func__  # type: ignore[attr-defined]

    def take_then_interrupted(cls, git_dir: str, txid: str):
        claimed = take(cls, git_dir, txid)
        interrupt()
        return claimed

    monkeypatch.setattr(journal.Liveness, "take", classmethod(take_then_interrupted))
    with pytest.raises((KeyboardInterrupt, Interrupted)):
        apply_patch(patch, repo)
    assert everything(repo) == before
    assert not (repo / ".git" / "holon-apply").exists() or \
        list((repo / ".git" / "holon-apply").iterdir()) == []


def test_a_hold_entered_next_takes_over_what_the_enclosing_one_received() -> None:
    with HeldSignals() as outer:
        interrupt()  # before the inner hold: only the outer one records it
        with pytest.raises(Interrupted), HeldSignals(terminate=True, at_end=RAISE) as inner:
            inner.checkpoint()
        assert outer.received is None  # acted on once, by the inner hold
    with HeldSignals(terminate=True) as outer:
        os.kill(os.getpid(), signal.SIGTERM)
        with HeldSignals() as inner:  # holds SIGINT only: the SIGTERM is not its to take
            assert inner.received is None
        outer.received = None  # answered here; not ended by it


def test_ctrl_c_between_the_api_hold_and_the_write_hold_stops_the_apply(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 35, item 11: a Ctrl-C that lands after the API's hold began and before the
    working tree's write entered its own (here: as the write opens its transaction) was
    recorded by the API's hold, which has no checkpoint after it, and dropped: the apply
    completed and reported applied. It is an interrupt, and nothing is changed."""
    from gitsupport import everything
    from repos.builders import make_repo

    from holon_git import apply_patch
    from holon_git.targets.worktree import WorktreeTarget

    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\n"})
    before = everything(repo)
    opened = WorktreeTarget._transaction

    def opened_then_interrupted(self: WorktreeTarget, *args: Any, **kwargs: Any) -> Any:
        txn = opened(self, *args, **kwargs)
        interrupt()
        return txn

    monkeypatch.setattr(WorktreeTarget, "_transaction", opened_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        apply_patch("--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n", repo)
    assert everything(repo) == before


# A Ctrl-C sent the moment the process starts to import MODULE (a sitecustomize on PYTHONPATH
# puts a finder first on sys.meta_path that sends it).
SIGINT_AT_IMPORT = """
import os, signal, sys

class SigintAt:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ.get("HOLON_SIGINT_AT"):
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, SigintAt())
"""
SCRIPT = Path(sys.executable).with_name("git-holon-apply")


@pytest.mark.parametrize("module", ["holon_git.api", "holon_git.core.plan.plan", "click",
                                    "holon_git.request"])
@pytest.mark.parametrize("how", ["console script", "python -m"])
def test_ctrl_c_while_the_command_loads_is_a_clean_exit_130(tmp_path: Path, module: str,
                                                            how: str) -> None:
    """Issue 35, item 11: a Ctrl-C during `import holon_git` (or the command line's own
    imports) printed a KeyboardInterrupt traceback. It ends the command with 130 and the
    command line's message; nothing was done."""
    from clisupport import PATCH, holon_process
    from gitsupport import everything
    from repos.builders import make_repo

    if how == "console script" and not SCRIPT.is_file():
        pytest.skip("the console script is not installed beside this interpreter")
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\nthree\nfour\nfive\n"})
    before = everything(repo)
    (tmp_path / "fix.diff").write_text(PATCH)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(SIGINT_AT_IMPORT)
    path = os.pathsep.join(filter(None, [str(hooks), os.environ.get("PYTHONPATH")]))
    done = holon_process(repo, str(tmp_path / "fix.diff"),
                         env={"PYTHONPATH": path, "HOLON_SIGINT_AT": module},
                         command=[str(SCRIPT)] if how == "console script" else None)
    assert (done.returncode, done.stderr) == (130, "interrupted; nothing was changed\n")
    assert everything(repo) == before


def test_a_program_using_the_library_keeps_its_keyboard_interrupt(tmp_path: Path) -> None:
    """The clean exit is the command's: a program importing holon_git gets the
    KeyboardInterrupt Python raises, to handle as it will."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(SIGINT_AT_IMPORT)
    path = os.pathsep.join(filter(None, [str(hooks), os.environ.get("PYTHONPATH")]))
    code = ("try:\n    import holon_git\nexcept KeyboardInterrupt:\n    print('raised')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": path,
                                           "HOLON_SIGINT_AT": "holon_git.api"})
    assert (done.returncode, done.stdout, done.stderr) == (0, "raised\n", "")
