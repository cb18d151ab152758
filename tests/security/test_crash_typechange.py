"""SIGKILL at every step of a file/directory type change (tests/test_typechange.py), then
--recover: the old tree, or the new one when the kill came after the commit point."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest
from crashkit import fresh_copy, killed_child, step_hook
from repos.builders import git_state, repo_and_git_patch, snapshot

from holon_git import apply_patch
from holon_git.fs import journal_dir
from holon_git.recover import recover

CASES = pytest.mark.parametrize("old, new", [
    ({"p": "a file\n", "k": "keep\n"}, {"p/inner.txt": "now a directory\n", "k": "keep\n"}),
    ({"p/inner.txt": "a directory\n", "p/deep/more.txt": "more\n", "k": "keep\n"},
     {"p": "now a file\n", "k": "keep\n"}),
], ids=["file-to-dir", "dir-to-file"])


@pytest.mark.slow
@CASES
def test_sigkill_at_every_step_then_recover(tmp_path: Path, old: dict, new: dict) -> None:
    template, patch = repo_and_git_patch(tmp_path / "r", old, new)
    before, state = snapshot(template), git_state(template)
    probe = tmp_path / "probe"
    shutil.copytree(template, probe, symlinks=True)
    assert apply_patch(patch, probe).ok
    after = snapshot(probe)
    at, recovered = 0, 0
    while True:
        at += 1
        repo = fresh_copy(template, tmp_path / "k")
        finished = not killed_child(repo, patch, at)
        if journal_dir.pending(str(repo / ".git")):
            recover(repo)
            recovered += 1
            assert snapshot(repo) == before, f"recovery after a kill at step {at}"
        else:
            assert snapshot(repo) in (before, after), f"kill at step {at} left a mixed tree"
        assert git_state(repo) == state
        if finished:
            break
    assert recovered > 5


@pytest.mark.slow
@CASES
def test_every_call_failing_in_turn(tmp_path: Path, old: dict, new: dict,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """EIO from each OS call in turn: io_error with the old tree (the undo puts a removed
    file back where the transaction had made its directory, and the other way round), or
    the new tree when the failing call was harmless."""
    template, patch = repo_and_git_patch(tmp_path / "t", old, new)
    before, state = snapshot(template), git_state(template)
    at, refused = 0, 0
    while True:
        at += 1
        repo = fresh_copy(template, tmp_path / "f")

        def fail(name: str) -> None:
            raise OSError(errno.EIO, f"injected into {name}")

        with monkeypatch.context() as patched:
            counter = step_hook(patched, at, fail)
            receipt = apply_patch(patch, repo)
        assert not journal_dir.pending(str(repo / ".git")) and git_state(repo) == state
        if receipt.error is not None:
            assert receipt.error.code == "io_error", receipt.error
            assert "rollback_problems" not in receipt.error.details
            assert snapshot(repo) == before, f"failure at call {at} changed the tree"
            refused += 1
        elif counter[0] < at:
            break
    assert refused > 5
