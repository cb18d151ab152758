"""Hard kills, Ctrl-C and the crash journal of working-tree applies.

The guarantee: after the apply process dies at any point, the working tree is all old or all
new, or an unrecovered journal under .git/holon-apply/ is left, plain applies refuse, and
``git holon-apply --recover`` makes it all old. HOLON_LONG_TESTS=1 runs the long versions
(bigger patch, hundreds of random kills); the counts are printed with -s.
"""

from __future__ import annotations

import errno
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from crashkit import (
    LONG,
    Scenario,
    fresh_copy,
    journal_dir,
    killed_child,
    replace_by,
    step_hook,
    without_temporaries,
)
from repos.builders import git, git_state, make_repo, snapshot

from holon_git import apply_patch, check_patch
from holon_git.fs import journal, transaction
from holon_git.fs import journal_dir as journals
from holon_git.recover import recover


def run_cli(repo: Path, *args: str, patch: bytes | None = None,
            ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "holon_git", *args], cwd=repo, input=patch,
                          capture_output=True, timeout=120)


def start_cli(repo: Path, patch: bytes, *, stderr: int) -> subprocess.Popen[bytes]:
    """The command applying ``patch`` from stdin, still running when this returns."""
    proc = subprocess.Popen([sys.executable, "-m", "holon_git", "-q", "-"], cwd=repo,
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stderr)
    assert proc.stdin is not None
    proc.stdin.write(patch)
    proc.stdin.close()
    return proc


def settle(sc: Scenario, repo: Path, *, use_cli: bool = False) -> str:
    """Classify what a killed apply left and recover it; returns 'old', 'new' or 'journal'.
    Fails the test on anything inconsistent."""
    assert git_state(repo) == sc.git, "git's HEAD, refs or index changed"
    now = snapshot(repo)
    if not journals.pending(str(repo / ".git")):
        # A large patch stages files while it is planned, before the journal exists: a kill
        # then leaves the old tree and temporary files, which --recover removes.
        kept = without_temporaries(now)
        assert kept in (sc.old, sc.new), "killed apply left a half-changed tree and no journal"
        if kept != now:
            assert kept == sc.old and recover(repo)["temporaries"]
            assert snapshot(repo) == kept
            return "staged"
        return "old" if now == sc.old else "new"
    refused = apply_patch(sc.patch, repo)
    assert refused.error is not None and refused.error.code == "unrecovered_journal"
    assert check_patch(sc.patch, repo).error.code == "unrecovered_journal"  # type: ignore
    assert snapshot(repo) == now
    if use_cli:
        done = run_cli(repo, "--recover")
        assert done.returncode == 0 and b"Recovered 1 " in done.stdout, done
    else:
        assert len(recover(repo)["journals"]) == 1  # type: ignore[arg-type]
    assert snapshot(repo) == sc.old, "recovery did not restore the old tree"
    assert git_state(repo) == sc.git
    assert not journal_dir(repo).exists()
    return "journal"


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    files = 40 if LONG else 5
    return Scenario.make(tmp_path_factory.mktemp("crash"), files=files)


HOW = pytest.mark.parametrize("how", ["rename", "exchange"])


@pytest.mark.slow
@HOW
def test_sigkill_at_every_step_of_a_multi_file_apply(scenario: Scenario, tmp_path: Path,
                                                     how: str):
    outcomes: dict[str, int] = {}
    at = 0
    while True:
        at += 1
        repo = scenario.fresh(tmp_path / "r")
        if not killed_child(repo, scenario.patch, at, how=how):
            assert snapshot(repo) == scenario.new and not journal_dir(repo).exists()
            break
        kind = settle(scenario, repo, use_cli=at % 25 == 0)
        outcomes[kind] = outcomes.get(kind, 0) + 1
    print(f"\nkill points tried: {at - 1}; outcomes {outcomes}; inconsistent: 0")
    assert outcomes.get("journal", 0) > 10  # the kills did land inside the write phase
    assert at > 30


@pytest.mark.slow
def test_sigkill_while_a_large_patch_is_staged_during_planning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A patch of many files stages its files while it is planned, before any journal: a
    kill then leaves the old tree and temporary files, which --recover removes; a kill later
    is recovered from the journal as usual. Every third step, to keep the run short."""
    monkeypatch.setattr(transaction, "_BATCH", 2000)  # megabytes for real; these are small
    sc = Scenario.make(tmp_path / "big", files=24)
    outcomes: dict[str, int] = {}
    at = 0
    while True:
        at += 3 if outcomes.get("staged", 0) < 20 else 11
        repo = sc.fresh(tmp_path / "r")
        if not killed_child(repo, sc.patch, at):
            assert snapshot(repo) == sc.new and not journal_dir(repo).exists()
            break
        kind = settle(sc, repo)
        outcomes[kind] = outcomes.get(kind, 0) + 1
    print(f"\nkill points tried: {sum(outcomes.values())}; outcomes {outcomes}")
    assert outcomes.get("staged", 0) > 3 and outcomes.get("journal", 0) > 3


@pytest.mark.slow
@pytest.mark.parametrize("patch", [
    b"--- a/d0/f0.txt\n+++ b/d0/f0.txt\n@@ -2,2 +2,2 @@\n file 0 line 1\n-file 0 line 2\n"
    b"+changed\n",
    b"--- /dev/null\n+++ b/d0/added.txt\n@@ -0,0 +1 @@\n+new\n",
], ids=["modify", "add"])
@HOW
def test_sigkill_at_every_step_of_a_one_file_apply(tmp_path: Path, patch: bytes, how: str):
    """One file modified or added in an existing directory: one rename, atomic by itself,
    so no journal is written, and a kill leaves the old or the new file, at most beside a
    temporary file, which --recover removes. (A deletion may prune a directory afterwards:
    it keeps the journal, and the multi-file tests above cover it.)"""
    template = make_repo(tmp_path / "t", {"d0/f0.txt": "file 0 line 0\nfile 0 line 1\n"
                                          "file 0 line 2\n", "d1/f1.txt": "file 1 line 0\n"
                                          "file 1 line 1\n"})
    old, state = snapshot(template), git_state(template)
    probe = tmp_path / "probe"
    shutil.copytree(template, probe, symlinks=True)
    assert apply_patch(patch, probe).ok
    new = snapshot(probe)
    at, outcomes = 0, set()
    while True:
        at += 1
        repo = fresh_copy(template, tmp_path / "r")
        finished = not killed_child(repo, patch, at, how=how)
        # no journal: at most the apply's claim on its id, an empty directory (Liveness)
        assert not list(journal_dir(repo).glob("*/*"))
        assert git_state(repo) == state
        now = without_temporaries(snapshot(repo))
        assert now in (old, new), f"kill before step {at} left a half-changed tree"
        outcomes.add("old" if now == old else "new")
        if now != snapshot(repo):
            outcomes.add("leftover")
            done = recover(repo)  # the killed process is gone: its temporary file goes too
            assert done["temporaries"] and snapshot(repo) == now
        if finished:
            assert snapshot(repo) == new
            break
    assert outcomes == {"old", "new", "leftover"} and at > 3


@pytest.mark.slow
def test_sigkill_during_recovery_then_recover_again(scenario: Scenario, tmp_path: Path):
    """A recovery is itself restartable: kill it at every step, then recover once more."""
    # a kill point that leaves a journal with some files already new
    at, seed = 1, None
    while seed is None:
        repo = scenario.fresh(tmp_path / "seed")
        assert killed_child(repo, scenario.patch, at)
        if journals.pending(str(repo / ".git")) and snapshot(repo) != scenario.old:
            seed = at
        at += 1
    calls = []
    tried = 0
    while True:
        tried += 1 if LONG else 2
        repo = scenario.fresh(tmp_path / "r")
        assert killed_child(repo, scenario.patch, seed)
        if not killed_child(repo, b"", tried, job="recover"):
            break
        assert settle(scenario, repo) in ("journal", "old")
        calls.append(tried)
    assert snapshot(repo) == scenario.old and not journal_dir(repo).exists()
    print(f"\nrecovery kill points tried: {len(calls)}")
    assert len(calls) > 5 and seed is not None


@pytest.mark.slow
def test_random_sigkill_of_the_cli(tmp_path: Path):
    """SIGKILL the real command at random moments of a large apply."""
    files, runs = (300, 400) if LONG else (60, 6)
    sc = Scenario.make(tmp_path / "big", files=files, lines=40)
    repo = sc.fresh(tmp_path / "r")
    start = time.perf_counter()
    assert run_cli(repo, "-q", "-", patch=sc.patch).returncode == 0
    duration = time.perf_counter() - start
    rng = random.Random(1234)
    outcomes: dict[str, int] = {}
    for _ in range(runs):
        repo = sc.fresh(tmp_path / "r")
        proc = start_cli(repo, sc.patch, stderr=subprocess.DEVNULL)
        # most of a run is interpreter start-up; aim the kills at its second half
        time.sleep(rng.uniform(duration * 0.4, duration * 1.05))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kind = settle(sc, repo)
        outcomes[kind] = outcomes.get(kind, 0) + 1
    print(f"\nrandom SIGKILLs: {runs} ({duration * 1000:.0f} ms per apply); outcomes "
          f"{outcomes}; inconsistent: 0")


@pytest.mark.slow
@HOW
def test_sigint_at_every_step_rolls_back(scenario: Scenario, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch, how: str):
    """Ctrl-C delivered before any step: the apply stops at its next safe point and undoes,
    leaving the old tree, no journal and no lock; or, past the commit point, completes."""
    at, outcomes = 0, {"old": 0, "new": 0}
    while True:
        at += 1 if LONG else 3
        repo = scenario.fresh(tmp_path / "r")
        with monkeypatch.context() as patched:
            replace_by(how, patched)
            counter = step_hook(patched, at, lambda name: os.kill(os.getpid(), signal.SIGINT))
            try:
                receipt = apply_patch(scenario.patch, repo)
                interrupted = False
            except KeyboardInterrupt:
                interrupted = True
        assert not journal_dir(repo).exists(), f"journal left after SIGINT at step {at}"
        assert git_state(repo) == scenario.git
        if interrupted:
            assert snapshot(repo) == scenario.old, f"SIGINT at step {at} left a changed tree"
            outcomes["old"] += 1
        else:
            assert receipt.ok and snapshot(repo) == scenario.new
            outcomes["new"] += 1
            if counter[0] < at:
                break
    print(f"\nSIGINT points tried: {sum(outcomes.values())}; outcomes {outcomes}")
    assert outcomes["old"] > 20


@pytest.mark.slow
def test_sigint_to_the_cli(tmp_path: Path):
    """Ctrl-C at a random moment of a real apply: exit 0 (too late to stop it) or 130, all old
    or all new, never a traceback. The patch comes through a named pipe (as from
    ``git holon-apply <(...)``): once the test's end of it is open, the command is reading its
    patch, inside ``main`` with its Ctrl-C handling in place, however slow the start-up was
    (a Ctrl-C during Python's own start-up is the interpreter's to report)."""
    sc = Scenario.make(tmp_path / "big", files=60, lines=40)
    repo = sc.fresh(tmp_path / "r")
    start = time.perf_counter()
    assert run_cli(repo, "--version").returncode == 0
    startup = time.perf_counter() - start
    start = time.perf_counter()
    assert run_cli(repo, "-q", "-", patch=sc.patch).returncode == 0
    work = max(time.perf_counter() - start - startup, 0.01)  # the apply after start-up
    fifo = tmp_path / "patch.fifo"
    os.mkfifo(fifo)
    rng = random.Random(99)
    codes = set()
    for _ in range(40 if LONG else 4):
        repo = sc.fresh(tmp_path / "r")
        proc = subprocess.Popen([sys.executable, "-m", "holon_git", "-q", str(fifo)], cwd=repo,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        with open(opened_by(proc, fifo), "wb") as pipe:  # the command has opened it: ready
            pipe.write(sc.patch)
        time.sleep(rng.uniform(0, work * 1.1))
        proc.send_signal(signal.SIGINT)
        assert proc.stderr is not None
        err = proc.stderr.read()
        proc.wait()
        assert b"Traceback" not in err, err
        codes.add(proc.returncode)
        assert proc.returncode in (0, 130), (proc.returncode, err)
        assert snapshot(repo) in (sc.old, sc.new)
        assert not journal_dir(repo).exists()
        if b"nothing was changed" in err:
            assert snapshot(repo) == sc.old
        if b"interrupted after the patch was applied" in err or proc.returncode == 0:
            assert snapshot(repo) == sc.new
    print(f"\nSIGINTs after start-up: exit statuses {sorted(codes)}")
    assert codes


def opened_by(proc: subprocess.Popen[bytes], fifo: Path, timeout: float = 120) -> int:
    """``fifo`` opened for writing (blocking) once ``proc`` has opened it for reading; the test
    fails instead of hanging if the process ends or times out first."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO while no one reads it
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else proc.returncode
        assert time.monotonic() < deadline, "the command never opened its patch"
        time.sleep(0.001)
    os.set_blocking(fd, True)
    return fd


def test_recover_with_nothing_to_do(scenario: Scenario, tmp_path: Path):
    repo = scenario.fresh(tmp_path / "r")
    done = run_cli(repo, "--recover")
    assert done.returncode == 0 and done.stdout == b"Nothing to recover.\n"
    assert snapshot(repo) == scenario.old and not journal_dir(repo).exists()


def leave_journal(sc: Scenario, repo: Path) -> None:
    """Kill an apply part way through its commit phase."""
    at = 1
    while True:
        sc.fresh(repo)
        assert killed_child(repo, sc.patch, at)
        now = snapshot(repo)
        if journals.pending(str(repo / ".git")) and now != sc.old:
            return
        at += 1


def leave_journal_with_a_file_replaced(sc: Scenario, repo: Path) -> str:
    """Kill an apply once its journal is left and a file it modifies already holds its new
    content; that file's path."""
    at = 1
    while True:
        sc.fresh(repo)
        assert killed_child(repo, sc.patch, at), "the apply finished before such a point"
        at += 1
        if not journals.pending(str(repo / ".git")):
            continue
        record_dir = next(journal_dir(repo).iterdir())
        entries = json.loads((record_dir / "journal.json").read_text())["entries"]
        for e in entries:
            path = repo / e["path"]
            if (e["before_sha"] or e["before_stat"]) and (e["after_sha"] or e["after_stat"]) \
                    and path.exists() and path.read_bytes() != scenario_old_bytes(sc, e["path"]):
                return str(e["path"])


@pytest.mark.slow
def test_recover_refuses_when_a_file_was_edited_after_the_crash(scenario: Scenario,
                                                                tmp_path: Path):
    repo = tmp_path / "r"
    victim = leave_journal_with_a_file_replaced(scenario, repo)
    (repo / victim).write_bytes(b"the user's own edit\n")
    before = snapshot(repo)
    done = run_cli(repo, "--recover")
    assert done.returncode == 1 and b"error: stale_file:" in done.stderr, done
    assert snapshot(repo) == before and journals.pending(str(repo / ".git"))
    # the user moves the edit aside; recovery then completes
    (repo / victim).write_bytes(scenario_old_bytes(scenario, victim))
    assert run_cli(repo, "--recover").returncode == 0
    assert snapshot(repo) == scenario.old


def scenario_old_bytes(sc: Scenario, path: str) -> bytes:
    return (sc.template / path).read_bytes()


def test_live_journal_is_neither_pending_nor_recovered(scenario: Scenario, tmp_path: Path):
    """A journal whose apply is still running (its lock held) is left alone."""
    repo = scenario.fresh(tmp_path / "r")
    git_dir = str(repo / ".git")
    record = journal.new_record(str(repo))
    record.entries = [journal.Entry("d0/f0.txt", journal.sha256(b"x"), None, 0o644, 0, 1)]
    live = journal.Journal.create(git_dir, record, [b"x"])
    try:
        assert journals.pending(git_dir) == []
        assert apply_patch(scenario.patch, repo, check=True).ok
        done = recover(repo)
        assert done["busy"] == [record.txid] and done["journals"] == []
        assert snapshot(repo) == scenario.old
    finally:
        live.commit()
    assert not journal_dir(repo).exists()


def test_incomplete_journal_is_ignored_and_cleaned(scenario: Scenario, tmp_path: Path):
    """A process killed while writing its journal changed nothing in the tree."""
    repo = scenario.fresh(tmp_path / "r")
    (journal_dir(repo) / "123-1-dead").mkdir(parents=True)
    (journal_dir(repo) / "123-1-dead" / "preimages").write_bytes(b"partial")
    assert journals.pending(str(repo / ".git")) == []
    assert apply_patch(scenario.patch, repo, check=True).ok
    assert recover(repo)["journals"] == []
    assert not journal_dir(repo).exists()


def test_apply_outside_a_repository_has_no_journal(tmp_path: Path):
    (tmp_path / "f").write_bytes(b"a\n")
    receipt = apply_patch("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", tmp_path)
    assert receipt.ok and (tmp_path / "f").read_bytes() == b"b\n"
    assert sorted(os.listdir(tmp_path)) == ["f"]


@pytest.mark.slow
def test_sigkill_at_every_step_of_a_commit(scenario: Scenario, tmp_path: Path):
    """--commit (working tree, index and branch): after a kill at any step and --recover, the
    branch, index and working tree are all old or all new. A SIGKILL before the commit point
    can leave .git/index.lock behind, exactly as git does (index_locked says so); --recover
    removes it (unless the kill came before the lock said whose it is)."""
    probe = scenario.fresh(tmp_path / "probe")
    assert apply_patch(scenario.patch, probe, commit=True, message="m").ok
    old_tree = git(probe, "rev-parse", "HEAD~1^{tree}").strip()
    new_tree = git(probe, "rev-parse", "HEAD^{tree}").strip()
    outcomes: dict[str, int] = {}
    at = 0
    while True:
        at += 1 if LONG else 2
        repo = scenario.fresh(tmp_path / "r")
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            try:
                step_hook(None, at, lambda name: os.kill(os.getpid(), signal.SIGKILL))
                apply_patch(scenario.patch, repo, commit=True, message="m")
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        if not os.WIFSIGNALED(status):
            break
        had_journal = bool(journals.pending(str(repo / ".git")))
        recover(repo)  # removes the index lock the killed apply left (issue 42, item 6)
        lock = repo / ".git" / "index.lock"
        if lock.exists():  # only one killed before it said whose it is
            assert lock.read_bytes() == b"", f"kill at step {at}: a lock --recover left"
            lock.unlink()
        tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
        assert tree in (old_tree, new_tree)
        assert git(repo, "status", "--porcelain", "--untracked-files=all") == "", (
            f"kill at step {at}: working tree, index and branch disagree")
        assert snapshot(repo) == (scenario.old if tree == old_tree else probe_snapshot(probe))
        kind = ("new" if tree == new_tree else "old") + ("+journal" if had_journal else "")
        outcomes[kind] = outcomes.get(kind, 0) + 1
    print(f"\n--commit kill points tried: {sum(outcomes.values())}; outcomes {outcomes}; "
          "inconsistent: 0")
    assert outcomes.get("old+journal", 0) > 5 and outcomes.get("new", 0) + outcomes.get(
        "new+journal", 0) > 0


def probe_snapshot(probe: Path) -> dict:
    return snapshot(probe)


@pytest.fixture
def sigint_restored():
    """cli.main() ignores SIGINT once the command is over; give the test run its own back."""
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("sigint_restored")
def test_ctrl_c_inside_a_c_extension_import_is_an_interrupt(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture):
    """A Ctrl-C while pygit2 imports ssl comes out of the import as an ImportError
    ('PyCapsule_Import could not import module "_socket"'): reported as an interrupt, exit 130,
    nothing changed. The stand-in import below is interrupted by a real SIGINT."""
    import holon_git.api
    from holon_git import cli

    sc = Scenario.make(tmp_path / "s", files=3, lines=10)
    repo = sc.fresh(tmp_path / "r")

    def import_interrupted(*args: object, **kwargs: object) -> None:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            raise ImportError('PyCapsule_Import could not import module "_socket"') from None

    monkeypatch.setattr(holon_git.api, "apply_request", import_interrupted)
    monkeypatch.chdir(repo)
    (tmp_path / "p.diff").write_bytes(sc.patch)
    with pytest.raises(SystemExit) as exit_info:
        cli.main([str(tmp_path / "p.diff")])
    assert exit_info.value.code == 130
    assert "interrupted; nothing was changed" in capsys.readouterr().err
    assert snapshot(repo) == sc.old


@pytest.mark.usefixtures("sigint_restored")
def test_an_import_error_without_ctrl_c_is_not_hidden(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch):
    import holon_git.api
    from holon_git import cli

    def broken(*args: object, **kwargs: object) -> None:
        raise ImportError("a real installation problem")

    monkeypatch.setattr(holon_git.api, "apply_request", broken)
    repo = make_repo(tmp_path / "r", {"f.txt": "a\n"})
    monkeypatch.chdir(repo)
    (tmp_path / "p.diff").write_bytes(b"--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n")
    with pytest.raises(ImportError, match="a real installation problem"):
        cli.main([str(tmp_path / "p.diff")])


def test_ctrl_c_after_the_write_committed_lets_the_apply_finish(scenario: Scenario,
                                                               tmp_path: Path):
    """A SIGINT between the commit point and the report is too late to undo anything: the
    apply completes and returns its receipt (the CLI then says it was applied)."""
    repo = scenario.fresh(tmp_path / "r")

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "writing" and done == total:
            os.kill(os.getpid(), signal.SIGINT)  # delivered right here, in the main thread

    try:
        receipt = apply_patch(scenario.patch, repo, progress=progress)
    except KeyboardInterrupt:
        pytest.fail("the Ctrl-C stopped an apply that had already committed")
    assert receipt.ok and snapshot(repo) == scenario.new
    assert not journal_dir(repo).exists()


def test_ctrl_c_before_the_write_began_changes_nothing(scenario: Scenario, tmp_path: Path):
    repo = scenario.fresh(tmp_path / "r")

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "writing" and done == 0:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        apply_patch(scenario.patch, repo, progress=progress)
    assert snapshot(repo) == scenario.old and not journal_dir(repo).exists()


def test_the_cli_notes_the_write_when_the_library_reports_it():
    from holon_git import cli

    session = cli.Session()
    seen: list[tuple[str, int, int]] = []
    session.reporter = lambda *args: seen.append(args)  # type: ignore[assignment]
    session.progress("planning", 1, 2)
    session.progress("writing", 0, 2)
    session.progress("writing", 0, 2)  # --retry: a first attempt lost the race, a second begins
    assert not session.applied
    session.progress("writing", 2, 2)
    assert session.applied and len(seen) == 4


def test_recover_removes_only_temporary_files_of_dead_applies(tmp_path: Path):
    """An apply is alive while it holds its id's directory locked (journal.Liveness): the
    temporary files of one that does not are leftovers, whatever pid their name holds."""
    from holon_git.fs.journal import Liveness

    repo = make_repo(tmp_path / "r", {"d/f.txt": "x\n"})
    dead = os.fork()
    if dead == 0:  # pragma: no cover - child
        os._exit(0)
    os.waitpid(dead, 0)
    gone = f".holon-1795450889-{dead}-a522225d-0.tmp"
    running = Liveness.take(str(repo / ".git"), f"1795450889-{os.getpid()}-b522225d")
    assert running is not None
    mine = f".holon-{running.txid}-r1.tmp"  # an apply still running
    (repo / "d" / gone).write_text("old content\n")
    (repo / gone).write_text("old content\n")
    (repo / mine).write_text("in use\n")
    (repo / "d" / f".holon-1-{dead}-zzzzzzzz-0.tmp").write_text("not our pattern\n")
    (repo / f"{gone}.bak").write_text("not our name\n")
    (repo / "e").mkdir()
    (repo / "e" / gone).mkdir()  # a directory of that name is not a file of ours
    (repo / "link").mkdir()
    os.symlink(repo / "d" / "f.txt", repo / "link" / gone)
    (repo / ".git" / gone).write_text("inside .git: never looked at\n")
    done = recover(repo)
    assert done["temporaries"] == sorted([gone, f"d/{gone}"])
    assert not (repo / gone).exists() and not (repo / "d" / gone).exists()
    for kept in (repo / mine, repo / f"{gone}.bak", repo / "e" / gone, repo / "link" / gone,
                 repo / ".git" / gone, repo / "d" / f".holon-1-{dead}-zzzzzzzz-0.tmp"):
        assert os.path.lexists(kept), kept
    assert (repo / "d" / "f.txt").read_text() == "x\n"
    assert done["busy"] == [running.txid]
    running.release()
    assert recover(repo)["temporaries"] == [mine]


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="zombies are told by /proc")
def test_the_temporary_files_of_a_killed_apply_still_a_zombie_are_removed(tmp_path: Path):
    """A killed apply whose parent died too stays a zombie until the reaper of orphans
    collects it: it has exited, so its temporary files are leftovers all the same."""
    repo = make_repo(tmp_path / "r", {"d/f.txt": "x\n"})
    zombie = os.fork()
    if zombie == 0:  # pragma: no cover - child
        os._exit(0)
    try:
        while Path(f"/proc/{zombie}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] != b"Z":
            time.sleep(0.001)
        left = f".holon-1795450889-{zombie}-a522225d-3.tmp"
        (repo / "d" / left).write_text("new content\n")
        assert recover(repo)["temporaries"] == [f"d/{left}"]
        assert not (repo / "d" / left).exists()
    finally:
        os.waitpid(zombie, 0)
