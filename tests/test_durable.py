"""durable=True (--fsync): fsync for the working tree on top of git's default, which has none."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from clisupport import holon
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


def test_durable_apply_fsyncs_files_directories_and_journal(tmp_path: Path,
                                                            synced: list[int]) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\nthree\n"})
    assert apply_patch(PATCH, repo, durable=True).ok
    # two staged files, their two directories, the journal's two files and its directories
    assert len(synced) >= 8


def test_default_writes_the_same_without_fsync(tmp_path: Path, synced: list[int]) -> None:
    durable = make_repo(tmp_path / "a", {"f.txt": "one\ntwo\nthree\n"})
    quick = make_repo(tmp_path / "b", {"f.txt": "one\ntwo\nthree\n"})
    assert apply_patch(PATCH, durable, durable=True).ok
    synced.clear()
    receipt = apply_patch(PATCH, quick)
    assert receipt.ok and receipt.status == "applied"
    assert synced == []
    assert snapshot(quick) == snapshot(durable)
    assert (quick / "new/g.txt").read_bytes() == b"g\n"


def test_default_keeps_the_crash_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without fsync the journal is still written before the first working-tree change."""
    from holon_git.fs import journal

    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\nthree\n"})
    created: list[bool] = []
    real = journal.Journal.create.__func__  # type: ignore[attr-defined]

    def spy(cls: type, git_dir: str, record: object, preimages: list[bytes],
            sync: bool = True, held: object = None, link: object = None) -> object:
        created.append(sync)
        return real(cls, git_dir, record, preimages, sync, held, link)

    monkeypatch.setattr(journal.Journal, "create", classmethod(spy))
    assert apply_patch(PATCH, repo).ok
    assert created == [False]
    assert not (repo / ".git" / "holon-apply").exists()


@pytest.mark.parametrize("args", [["--fsync"], ["--fsync", "--index"]])
def test_cli_fsync_flag(tmp_path: Path, args: list[str]) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\nthree\n"})
    result = holon(repo, *args, stdin=PATCH)
    assert result.returncode == 0, result.stderr
    assert (repo / "f.txt").read_bytes() == b"one\nTWO\nthree\n"


def test_durable_index_apply_fsyncs_the_working_tree(tmp_path: Path, synced: list[int]) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\nthree\n"})
    assert apply_patch(PATCH, repo, target="both", durable=True).ok
    assert synced
    assert (repo / "new/g.txt").read_bytes() == b"g\n"


def test_default_is_still_all_or_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\nthree\n"})
    bad = PATCH + b"--- a/f2.txt\n+++ b/f2.txt\n@@ -1 +1 @@\n-x\n+y\n"
    before = snapshot(repo)
    receipt = apply_patch(bad, repo)
    assert receipt.error is not None and receipt.error.code == "not_found"
    assert snapshot(repo) == before


def test_durable_is_refused_where_libgit2_writes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\nthree\n"})
    before, state = snapshot(repo), git_state(repo)
    receipt = apply_patch(PATCH, repo, target="index", durable=True)
    assert receipt.error is not None and receipt.error.code == "usage_error"
    assert snapshot(repo) == before and git_state(repo) == state
