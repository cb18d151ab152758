"""Fault injection: every OS call of a multi-file apply fails in turn (ENOSPC, EACCES, EIO,
EROFS). Each time the working tree, .git and everything around the repository end exactly as
before and the refusal is coded io_error; or, when the failing call was one whose failure is
harmless (a directory fsync, cleaning up after the commit point), the apply completes."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest
from crashkit import LONG, STEP_CALLS, Scenario, replace_by, step_hook
from repos.builders import git, git_state, snapshot, snapshot_all

from holon_git import apply_patch
from holon_git.fs import journal_dir
from holon_git.fs import tree as fstree

ERRORS = [errno.ENOSPC, errno.EACCES, errno.EIO, errno.EROFS]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return Scenario.make(tmp_path_factory.mktemp("faults"), files=12 if LONG else 5)


def files_of(snap: dict) -> dict:
    return {path: entry for path, entry in snap.items() if entry[0] != "dir"}


def without_dead_journals(snap: dict) -> dict:
    assert not any(path.endswith("journal.json") for path in snap)
    return {path: entry for path, entry in snap.items() if not path.startswith("holon-apply")}


def without_logs(state: dict) -> dict:
    return {key: value for key, value in state.items() if key != "logs"}


def fail_with(code: int):
    def action(name: str) -> None:
        raise OSError(code, f"{os.strerror(code)} (injected into os.{name})")
    return action


@pytest.mark.slow
@pytest.mark.parametrize("how", ["rename", "exchange"])
@pytest.mark.parametrize("durable", [False, True], ids=["default", "fsync"])
@pytest.mark.parametrize("code", ERRORS, ids=errno.errorcode.get)
def test_every_call_failing_in_turn(scenario: Scenario, tmp_path: Path, code: int,
                                    durable: bool, how: str, monkeypatch: pytest.MonkeyPatch):
    at, refused, completed = 0, 0, 0
    stride = 1 if LONG or code == errno.ENOSPC else 5  # the others take the same paths
    while True:
        at += stride
        repo = scenario.fresh(tmp_path / "r")
        around = snapshot_all(repo / ".git")
        with monkeypatch.context() as patched:
            replace_by(how, patched)
            counter = step_hook(patched, at, fail_with(code))
            receipt = apply_patch(scenario.patch, repo, durable=durable)
        # HEAD, refs and index as they were; no journal in force. (A failed clean-up after
        # the commit point may leave a journal directory without journal.json: ignored by
        # everyone, removed by the next --recover.)
        assert without_dead_journals(snapshot_all(repo / ".git")) == around
        assert not journal_dir.pending(str(repo / ".git"))
        if receipt.error is not None:
            assert receipt.error.code == "io_error", receipt.error
            assert os.strerror(code) in receipt.error.message
            assert "rollback_problems" not in receipt.error.details
            assert snapshot(repo) == scenario.old, f"failure at call {at} changed the tree"
            refused += 1
        else:
            # a failed rmdir of a directory a deletion emptied leaves it, empty, as git would
            assert files_of(snapshot(repo)) == files_of(scenario.new), (
                f"failure at call {at}: half applied")
            completed += 1
            if counter[0] < at:
                break
    print(f"\n{errno.errorcode[code]}: {refused + completed - 1} failure points: {refused} "
          f"refused cleanly, {completed - 1} harmless")
    assert refused > 30 // stride


def test_failure_of_the_undo_itself_leaves_a_journal_that_recovers(
        scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The commit phase fails, and so does the first write of its rollback: the error says
    so, the journal stays, and --recover finishes the undo."""
    from holon_git.recover import recover

    repo = scenario.fresh(tmp_path / "r")
    renames = [0]
    real_rename, real_open = os.rename, os.open
    state = {"failed_commit": False}

    def rename(*args, **kwargs):
        renames[0] += 1
        if renames[0] == 4:  # journal.json, then two files committed, then this one fails
            state["failed_commit"] = True
            raise OSError(errno.EIO, "injected")
        return real_rename(*args, **kwargs)

    def open_(path, flags, *args, **kwargs):
        if state["failed_commit"] and ".holon-" in str(path):
            raise OSError(errno.ENOSPC, "injected during rollback")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "rename", rename)
    monkeypatch.setattr(os, "open", open_)
    receipt = apply_patch(scenario.patch, repo)
    monkeypatch.undo()
    assert receipt.error is not None and receipt.error.code == "io_error"
    problems = receipt.error.details["rollback_problems"]
    assert any("--recover" in p for p in problems)
    assert snapshot(repo) != scenario.old and journal_dir.pending(str(repo / ".git"))
    again = apply_patch(scenario.patch, repo)
    assert again.error is not None and again.error.code == "unrecovered_journal"
    recover(repo)
    assert snapshot(repo) == scenario.old and git_state(repo) == scenario.git


def test_read_only_directory_is_a_coded_refusal(tmp_path: Path):
    if os.geteuid() == 0:
        pytest.skip("root ignores directory permissions")
    sc = Scenario.make(tmp_path, files=5)
    repo = sc.fresh(tmp_path / "r")
    os.chmod(repo / "d1", 0o555)
    try:
        receipt = apply_patch(sc.patch, repo)
    finally:
        os.chmod(repo / "d1", 0o755)
    assert receipt.error is not None and receipt.error.code == "io_error"
    assert snapshot(repo) == sc.old


def test_the_calls_list_covers_what_an_apply_uses(scenario: Scenario, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch):
    """Guard against a new kind of write escaping the injection: count the calls by name."""
    repo = scenario.fresh(tmp_path / "r")
    seen: dict[str, int] = {}
    with monkeypatch.context() as patched:
        replace_by("exchange", patched)
        for module, name in [*((os, n) for n in STEP_CALLS), (fstree, "exchange")]:
            real = getattr(module, name)

            def wrapper(*args, _real=real, _name=name, **kwargs):
                seen[_name] = seen.get(_name, 0) + 1
                return _real(*args, **kwargs)

            patched.setattr(module, name, wrapper)
        assert apply_patch(scenario.patch, repo, durable=True).ok
    assert {"open", "write", "fsync", "rename", "unlink", "mkdir", "rmdir"} <= set(seen)
    if sys.platform.startswith("linux"):
        assert seen.get("exchange")


@pytest.mark.slow
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES], ids=errno.errorcode.get)
def test_every_call_of_a_commit_failing_in_turn(scenario: Scenario, tmp_path: Path, code: int,
                                                monkeypatch: pytest.MonkeyPatch):
    """--commit: working tree, index and branch. A failure at any OS call leaves all three as
    they were (coded refusal), or the apply completes; never a half state."""
    probe = scenario.fresh(tmp_path / "probe")
    assert apply_patch(scenario.patch, probe, commit=True, message="m").ok
    new = snapshot(probe)
    at, refused, completed = 0, 0, 0
    while True:
        at += 1 if LONG or code == errno.ENOSPC else 4
        repo = scenario.fresh(tmp_path / "r")
        with monkeypatch.context() as patched:
            counter = step_hook(patched, at, fail_with(code))
            receipt = apply_patch(scenario.patch, repo, commit=True, message="m")
        assert not journal_dir.pending(str(repo / ".git"))
        assert not (repo / ".git" / "index.lock").exists(), f"stale lock after call {at}"
        if receipt.error is not None:
            assert receipt.error.code in ("io_error", "git_error"), receipt.error
            # (a branch moved and moved back, when the index could not follow, keeps both
            # moves in its reflog: honest history, same refs)
            assert snapshot(repo) == scenario.old, at
            assert without_logs(git_state(repo)) == without_logs(scenario.git), at
            refused += 1
        else:
            assert files_of(snapshot(repo)) == files_of(new)
            assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
            completed += 1
            if counter[0] < at:
                break
    print(f"\n--commit {errno.errorcode[code]}: {refused + completed - 1} failure points: "
          f"{refused} refused cleanly, {completed - 1} harmless")
    assert refused > 10


def test_index_write_failing_in_libgit2(scenario: Scenario, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch):
    import pygit2

    repo = scenario.fresh(tmp_path / "r")

    def failing_write(self, *args, **kwargs):
        raise pygit2.GitError("injected: failed to write the index")

    monkeypatch.setattr(pygit2.Index, "write", failing_write)
    receipt = apply_patch(scenario.patch, repo, commit=True, message="m")
    monkeypatch.undo()
    assert receipt.error is not None and receipt.error.code == "git_error"
    assert snapshot(repo) == scenario.old and git_state(repo) == scenario.git
    assert not (repo / ".git" / "index.lock").exists()
    assert not journal_dir.pending(str(repo / ".git"))
