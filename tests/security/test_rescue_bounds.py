"""The rescue tries a bounded number of versions and holds one at a time (issue 28, item 5).

The attack: a 3-line `--check` that misses a large file whose history log has 100 entries.
The rescue planned the patch against every recorded version and, with the cycle collector
paused for the apply, kept each try's file and indexes alive (a refusal raised from a local
is a reference cycle): 33 s and 6 GB for a 6 MB file. Now at most MAX_VERSIONS versions and
MAX_VERSION_BYTES are given, tried versions are remembered by digest, and each failed try is
let go at once, with the collector still paused.
"""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

import pytest
from repos.builders import make_repo

from holon_git import apply_patch
from holon_git.git import history, loose
from holon_git.git.versions import MAX_VERSION_BYTES, MAX_VERSIONS, RepositoryVersions
from holon_git.parse import parse_patch

LINES = 20_000
BIG = "".join(f"line {i} {'x' * 40}\n" for i in range(LINES))  # about 1 MB
MISS = "--- a/big.txt\n+++ b/big.txt\n@@ -1,3 +1,3 @@\n nope 1\n-nope 2\n+nope two\n nope 3\n"


def logged_repo(tmp_path: Path, versions: int) -> Path:
    repo = make_repo(tmp_path / "r", {"big.txt": BIG})
    git_dir = str(repo / ".git")
    store = loose.Store.of(git_dir)
    assert store is not None
    contents = [f"{BIG}version {k}\n".encode() for k in range(versions)]
    history.record(git_dir, [("big.txt", store.write(content), "", "", "",
                              history.preimage_proof("big.txt", content))
                             for content in contents])
    return repo


@pytest.mark.slow
def test_the_versions_given_are_bounded(tmp_path: Path):
    repo = logged_repo(tmp_path, 100)
    versions = RepositoryVersions.of_worktree(str(repo), str(repo / ".git"))
    (fp,) = parse_patch(MISS).files
    given = list(versions.versions(fp, "big.txt"))
    assert len(given) == MAX_VERSIONS
    assert [v.recorded for v in given] == [False] + [True] * (MAX_VERSIONS - 1)  # index = HEAD
    assert sum(len(v.content) for v in given) <= MAX_VERSION_BYTES


@pytest.mark.slow
def test_a_check_against_a_long_log_holds_one_version_at_a_time(tmp_path: Path):
    repo = logged_repo(tmp_path, 100)
    size = len(BIG)
    assert gc.isenabled()
    tracemalloc.start()
    try:
        receipt = apply_patch(MISS, repo, check=True)  # pauses the collector, as always
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert receipt.error is not None and receipt.error.code == "context_not_found"
    assert gc.isenabled()
    # one try (the file, its lines and indexes) peaks near 14 x its size, the current text's
    # failed try being kept for the refusal: two tries at once would pass 40 x
    assert peak < 40 * size, peak / size


def test_a_base_within_the_bound_still_merges(tmp_path: Path):
    """The newest recorded version is within the bound: the agent's next patch, written
    against it, merges though older entries fill the log."""
    repo = logged_repo(tmp_path, 40)
    first = "--- a/big.txt\n+++ b/big.txt\n@@ -2,3 +2,3 @@\n line 1 " + "x" * 40 + \
        "\n-line 2 " + "x" * 40 + "\n+line two\n line 3 " + "x" * 40 + "\n"
    assert apply_patch(first, repo).ok
    (repo / "big.txt").write_text((repo / "big.txt").read_text().replace(
        "line 10 ", "line ten "))
    middle = LINES // 2
    against_first = (f"--- a/big.txt\n+++ b/big.txt\n@@ -{middle},3 +{middle},3 @@\n"
                     f" line {middle - 1} {'x' * 40}\n-line {middle} {'x' * 40}\n+changed\n"
                     f" line {middle + 1} {'x' * 40}\n")
    receipt = apply_patch(against_first, repo)
    assert receipt.ok, receipt.error
    text = (repo / "big.txt").read_text()
    assert "line two\n" in text and "line ten " in text and "changed\n" in text
