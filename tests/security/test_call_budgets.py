"""One budget per call for the rescue's reading of HEAD's history (issue 42, item 7; the
search's, item 8, is in test_search_bound.py). Not timed: the work is counted (commits
walked, tree entries read) and the answers checked.

Before: each file patch with a stale ``index`` line walked up to 1,050 commits of HEAD's
history on its own: 200 of them, a 33 KB patch, took 171 s. ``bench/budgets.py`` runs the
issue's shapes beside ``git apply``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from repos.builders import git

from holon_git import apply_patch
from holon_git.git.recent import RecentHistory
from holon_git.git.versions import RepositoryVersions
from holon_git.parse import parse_patch

FILES, COMMITS = 40, 120


def text_of(n: int) -> str:
    return "".join(f"file {n} line {k}\n" for k in range(8))


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {f"src/f{n:02d}.txt": text_of(n) for n in range(FILES)}


@pytest.fixture
def repo(repo: Path) -> Path:
    """The shared repository with COMMITS more commits on top, each of another file only."""
    stream = b"".join(b"commit refs/heads/main\ncommitter T <t@example.com> %d +0000\n"
                      b"data 2\nc\n%sM 100644 inline log.txt\ndata %d\n%d\n\n"
                      % (1_700_000_000 + k, b"from refs/heads/main^0\n" if k == 0 else b"",
                         len(str(k)) + 1, k) for k in range(COMMITS))
    git(repo, "fast-import", "--quiet", input=stream)
    git(repo, "reset", "-q", "--hard", "main")
    return repo


def stale(n: int) -> str:
    """A file patch of src/fNN.txt with an index line naming no version of it, and an old
    side in no version either: the rescue looks for the named blob in HEAD's history."""
    return (f"diff --git a/src/f{n:02d}.txt b/src/f{n:02d}.txt\nindex 1234567..89abcde 100644\n"
            f"--- a/src/f{n:02d}.txt\n+++ b/src/f{n:02d}.txt\n@@ -2,3 +2,3 @@\n"
            f" file {n} line 1\n-file {n} line two\n+file {n} line 2, changed\n"
            f" file {n} line 3\n")


class CountedWalks:
    """A pygit2 repository whose history walks count the commits they give (the rest is the
    repository itself)."""

    def __init__(self, repo: Any) -> None:
        self._repo = repo
        self.commits = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._repo, name)

    def __getitem__(self, key: Any) -> Any:
        return self._repo[key]

    def walk(self, *args: Any) -> Iterator[Any]:
        for commit in self._repo.walk(*args):
            self.commits += 1
            yield commit


def test_history_is_walked_once_for_every_file_patch(repo: Path):
    """Item 7: the versions of FILES stale file patches, asked in turn as a plan asks them,
    walk HEAD's history once per order (not once per file patch: FILES x 171 commits)."""
    versions = RepositoryVersions.of_worktree(str(repo), str(repo / ".git"))
    counted = CountedWalks(versions.git.repo)
    versions.git.repo = counted
    for n, fp in enumerate(parse_patch("".join(map(stale, range(FILES)))).files):
        given = list(versions.versions(fp, f"src/f{n:02d}.txt"))
        assert [v.label for v in given] == ["index"], given  # index = HEAD; no named blob
    history_length = COMMITS + 1
    assert counted.commits <= 2 * history_length, counted.commits


def test_a_path_is_read_once_per_distinct_tree_of_its_directory(repo: Path):
    """The commits change log.txt only: src/ is one tree throughout, so each path asked is
    read once, and the root's entry for src/ once per commit."""
    versions = RepositoryVersions.of_worktree(str(repo), str(repo / ".git"))
    for n, fp in enumerate(parse_patch("".join(map(stale, range(FILES)))).files):
        list(versions.versions(fp, f"src/f{n:02d}.txt"))
    recent = versions.recent
    assert recent.commits_walked <= 2 * (COMMITS + 1)
    assert recent.trees_read <= (COMMITS + 1) + 2 * FILES, recent.trees_read


def test_past_the_budget_the_history_gives_nothing_more(repo: Path):
    """The budget is the call's: once spent, later paths get no history (the rescue goes on
    with the index, HEAD and the log), and nothing more is read."""
    import pygit2

    from holon_git.git.repository import open_repository

    # enough for one path through the history, and a few more
    history = RecentHistory(open_repository(str(repo)).repo, budget=5_000)
    order = pygit2.enums.SortMode.TIME
    assert len(history.entries("src/f00.txt", order, 1000)) == COMMITS + 1
    for n in range(1, FILES):
        history.entries(f"src/f{n:02d}.txt", order, 1000)
    assert history.spent
    read = history.trees_read
    assert history.entries("src/f39.txt", order, 1000) == []
    assert history.entries("log.txt", order, 1000) == []
    assert history.trees_read == read


def test_a_named_blob_deep_in_history_is_still_a_base(repo: Path):
    """The walk is read once, not cut: a patch written against a version of log.txt 100
    commits back (its index line names that blob) still merges."""
    old = git(repo, "rev-parse", "main~100:log.txt").strip()
    assert (repo / "log.txt").read_text() == f"{COMMITS - 1}\n"
    patch = (f"diff --git a/log.txt b/log.txt\nindex {old[:7]}..89abcde 100644\n"
             "--- a/log.txt\n+++ b/log.txt\n@@ -1 +1,2 @@\n 19\n+after 19\n")
    receipt = apply_patch(patch, repo, check=True)
    assert receipt.error is not None and receipt.error.code == "merge_conflict", receipt.error
