"""A working-tree patch of many files stages its files while it is planned: every few hundred
kilobytes of new content go to a few staging threads, and the plan goes on.

Its new contents then never all sit in memory, and the plan does not wait for the disk
(unless the disk falls megabytes behind). Staging early must not change what an apply does:
the same tree as `git apply`, and on any refusal, failure or interruption while the plan is
still running, the old tree with no temporary file left behind.
"""

from __future__ import annotations

import errno
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from repos.builders import git, make_repo, repo_and_git_patch, snapshot

from holon_git import apply_patch
from holon_git.fs import transaction
from holon_git.fs.tree import Tree

MANY = transaction.PARALLEL_STAGING + 4


def _old_and_new() -> tuple[dict[str, str], dict[str, str]]:
    old = {f"src/m{i}.py": "".join(f"line {i}.{j}\n" for j in range(60)) for i in range(MANY)}
    old.update({"doomed.txt": "bye\n", "kind": "a file that becomes a directory\n",
                "moved/from.txt": "".join(f"keep {j}\n" for j in range(20))})
    new = {path: text.replace("line", "LINE", 1) for path, text in old.items()
           if path.startswith("src/")}
    new.update({"src/added.py": "print('new')\n", "fresh/dir/new.txt": "in a new directory\n",
                "kind/inner.txt": "now a directory\n",
                "moved/to.txt": "".join(f"keep {j}\n" for j in range(19)) + "changed\n"})
    return old, new


def _temporaries(repo: Path) -> list[str]:
    return [p for p in snapshot(repo) if os.path.basename(p).startswith(".holon-")]


def _soon(done: Callable[[], object], seconds: float = 20) -> bool:
    """Whether ``done()`` comes true within ``seconds`` (the stagers are other threads)."""
    end = time.monotonic() + seconds
    while not done():
        if time.monotonic() > end:
            return False
        time.sleep(0.005)
    return True


@pytest.fixture(autouse=True, params=[2000, 10000], ids=["small batches", "pooled batches"])
def batch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hand every few files to the stagers (the real threshold is more than these files
    hold), in batches of a few files or of all of them."""
    monkeypatch.setattr(transaction, "_BATCH", request.param)


@pytest.fixture
def case(tmp_path: Path) -> tuple[Path, bytes]:
    old, new = _old_and_new()
    return repo_and_git_patch(tmp_path / "r", old, new)


def test_a_many_file_patch_gives_git_apply_s_tree(case: tuple[Path, bytes], tmp_path: Path):
    repo, patch = case
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin, symlinks=True)
    git(twin, "apply", "-", input=patch)
    receipt = apply_patch(patch, repo)
    assert receipt.ok, receipt.error
    assert len(receipt.files) > MANY
    assert snapshot(repo) == snapshot(twin)
    assert not (repo / ".git" / "holon-apply").exists()


def test_files_are_staged_while_the_plan_runs(case: tuple[Path, bytes]):
    """Before the last file is planned, earlier files' new contents are on disk."""
    repo, patch = case
    seen: list[bool] = []

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "planning" and done == total - 1:
            seen.append(_soon(lambda: _temporaries(repo)))

    assert apply_patch(patch, repo, progress=progress).ok
    assert seen == [True]
    assert not _temporaries(repo)


def _hold_first_stage(monkeypatch: pytest.MonkeyPatch, seconds: float) -> tuple[
        threading.Event, list[bool]]:
    """Hold the first staged file's write until the returned event is set (or ``seconds``
    pass); the list gets whether the event released it."""
    planned, released_by_the_plan = threading.Event(), []
    real_write_new = Tree.write_new
    first = threading.Lock()

    def held_write_new(self: Tree, rel_dir: str, name: str, *args: object,
                       **kwargs: object) -> os.stat_result:
        if first.acquire(blocking=False):
            released_by_the_plan.append(planned.wait(seconds))
        return real_write_new(self, rel_dir, name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Tree, "write_new", held_write_new)
    return planned, released_by_the_plan


def test_the_plan_never_waits_for_a_file_being_staged(case: tuple[Path, bytes],
                                                       monkeypatch: pytest.MonkeyPatch):
    """The first staged file's write is held until the plan has planned every file: the
    plan goes on meanwhile (staging that made it wait would hold it for the full timeout),
    and the apply then completes."""
    repo, patch = case
    planned, released_by_the_plan = _hold_first_stage(monkeypatch, 20)

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "planning" and done == total:
            planned.set()

    receipt = apply_patch(patch, repo, progress=progress)
    assert receipt.ok, receipt.error
    assert released_by_the_plan == [True]


@pytest.mark.slow
def test_the_plan_waits_once_the_stagers_fall_far_behind(case: tuple[Path, bytes],
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path):
    """Past the in-flight bound (megabytes for real; none here) the plan waits for the
    oldest batch: with the first staged file held, the plan cannot finish until the hold
    times out (so new contents cannot pile up in memory behind a slow disk)."""
    repo, patch = case
    monkeypatch.setattr(transaction, "_IN_FLIGHT", 0)
    planned, released_by_the_plan = _hold_first_stage(monkeypatch, 1)

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "planning" and done == total:
            planned.set()

    twin = tmp_path / "twin"
    shutil.copytree(repo, twin, symlinks=True)
    git(twin, "apply", "-", input=patch)
    receipt = apply_patch(patch, repo, progress=progress)
    assert receipt.ok, receipt.error
    assert released_by_the_plan == [False]
    assert snapshot(repo) == snapshot(twin)


def test_a_refusal_after_files_were_staged_leaves_the_old_tree(case: tuple[Path, bytes]):
    repo, patch = case
    last = sorted(f"src/m{i}.py" for i in range(MANY))[-1]  # git diff's order: the last file
    (repo / last).write_text("someone rewrote this file\n")
    before = snapshot(repo)
    staged: list[bool] = []

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "planning" and done == total - 1:
            staged.append(_soon(lambda: _temporaries(repo)))

    receipt = apply_patch(patch, repo, progress=progress)
    # the hunks match HEAD's version, which the rewrite conflicts with
    assert receipt.error is not None and receipt.error.code == "merge_conflict"
    assert receipt.error.path == last
    assert staged == [True]  # files were staged before the refusal
    assert snapshot(repo) == before  # and none is left: nothing replaced, no temporary file


def test_ctrl_c_while_planning_removes_what_was_staged(case: tuple[Path, bytes]):
    repo, patch = case
    before = snapshot(repo)

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "planning" and done == total - 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        apply_patch(patch, repo, progress=progress)
    assert snapshot(repo) == before


def test_a_failed_early_write_is_a_coded_refusal(case: tuple[Path, bytes],
                                                 monkeypatch: pytest.MonkeyPatch):
    repo, patch = case
    before = snapshot(repo)
    real_write = os.write
    writes = [0]

    journal_existed: list[bool] = []

    def failing_write(fd: int, data: bytes) -> int:
        writes[0] += 1
        if writes[0] == 5:
            journal_existed.append(any((repo / ".git" / "holon-apply").glob("*/journal.json")))
            raise OSError(errno.EIO, "injected")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", failing_write)
    receipt = apply_patch(patch, repo)
    monkeypatch.undo()
    assert receipt.error is not None and receipt.error.code == "io_error", receipt.error
    assert journal_existed == [False]  # it failed while the plan was still running
    assert snapshot(repo) == before


def test_durable_apply_of_a_many_file_patch(case: tuple[Path, bytes], tmp_path: Path):
    repo, patch = case
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin, symlinks=True)
    git(twin, "apply", "-", input=patch)
    assert apply_patch(patch, repo, durable=True).ok
    assert snapshot(repo) == snapshot(twin)


def test_a_small_patch_is_staged_after_planning(tmp_path: Path):
    """Below the threshold nothing is written while planning (no thread pool, no temporary
    files before the plan is whole)."""
    files = {f"f{i}.txt": f"{i}\n" for i in range(3)}
    repo = make_repo(tmp_path / "r", files)
    patch = "".join(f"--- a/f{i}.txt\n+++ b/f{i}.txt\n@@ -1 +1 @@\n-{i}\n+x{i}\n"
                    for i in range(3))
    seen: list[int] = []

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "planning":
            seen.append(len(_temporaries(repo)))

    assert apply_patch(patch, repo, progress=progress).ok
    assert seen == [0, 0, 0]
