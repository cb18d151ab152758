"""durable=False: the library's opt-out of fsync for the working tree; durable is the default."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from repos.builders import git_state, make_repo, snapshot

from holon_git import apply_patch

PATCH = (b"--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
         b"--- /dev/null\n+++ b/new/g.txt\n@@ -0,0 +1 @@\n+g\n")


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Records every fsync (which still happens): a spy, not a stand-in."""
    calls: list[int] = []
    real = os.fsync

    def spy(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    return calls


def test_default_apply_fsyncs_files_and_directories(tmp_path: Path, synced: list[int]) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\nthree\n"})
    assert apply_patch(PATCH, repo).ok
    assert len(synced) >= 4  # two staged files, their two directories


def test_durable_false_writes_the_same_without_fsync(tmp_path: Path, synced: list[int]) -> None:
    durable = make_repo(tmp_path / "a", {"f.txt": "one\ntwo\nthree\n"})
    quick = make_repo(tmp_path / "b", {"f.txt": "one\ntwo\nthree\n"})
    assert apply_patch(PATCH, durable).ok
    synced.clear()
    receipt = apply_patch(PATCH, quick, durable=False)
    assert receipt.ok and receipt.status == "applied"
    assert synced == []
    assert snapshot(quick) == snapshot(durable)
    assert (quick / "new/g.txt").read_bytes() == b"g\n"


def test_durable_false_is_still_all_or_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\nthree\n"})
    bad = PATCH + b"--- a/f2.txt\n+++ b/f2.txt\n@@ -1 +1 @@\n-x\n+y\n"
    before = snapshot(repo)
    receipt = apply_patch(bad, repo, durable=False)
    assert receipt.error is not None and receipt.error.code == "not_found"
    assert snapshot(repo) == before


@pytest.mark.parametrize("target", ["index", "both"])
def test_durable_false_is_for_the_working_tree_only(tmp_path: Path, target: str) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\nthree\n"})
    before, state = snapshot(repo), git_state(repo)
    receipt = apply_patch(PATCH, repo, target=target, durable=False)
    assert receipt.error is not None and receipt.error.code == "usage_error"
    assert snapshot(repo) == before and git_state(repo) == state
