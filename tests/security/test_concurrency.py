"""Concurrency: many processes committing different patches to one branch at once.

Every patch ends up in exactly one commit or is refused with a race code (head_moved,
index_locked, ref_locked), nothing is lost, the history stays linear, and a refused patch
leaves no trace in the working tree. HOLON_LONG_TESTS=1 runs 8 processes x 50 applies each;
the default run is 8 x 6.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from crashkit import LONG
from repos.builders import git, make_bare_repo, make_repo

from holon_git import apply_patch

PROCESSES = 8
EACH = 50 if LONG else 6
RACE_CODES = {"head_moved", "index_locked", "ref_locked"}

WORKER = r"""
import json, sys
from holon_git import apply_patch

repo, mode = sys.argv[1], sys.argv[4]
worker, count, retry = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[5])
sys.stdin.readline()  # start together
for i in range(count):
    path = f"w{worker}/n{i}.txt"
    patch = f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+worker {worker} patch {i}\n"
    if mode == "commit":
        r = apply_patch(patch, repo, commit=True, message=f"w{worker} n{i}")
    else:
        r = apply_patch(patch, repo, ref="main", message=f"w{worker} n{i}", retry=retry)
    print(json.dumps({"path": path, "ok": r.ok, "code": r.error.code if r.error else None,
                      "commit": r.extra.get("commit"), "attempts": r.extra.get("attempts")}),
          flush=True)
"""


def race(repo: Path, mode: str, retry: int = 0) -> list[dict]:
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(repo), str(w), str(EACH), mode,
                               str(retry)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for w in range(PROCESSES)]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0 and b"Traceback" not in err, err.decode()
        results.extend(json.loads(line) for line in out.splitlines())
    assert len(results) == PROCESSES * EACH
    return results


def check_history(repo: Path, results: list[dict], branch: str = "HEAD") -> None:
    applied = [r for r in results if r["ok"]]
    refused = [r for r in results if not r["ok"]]
    assert {r["code"] for r in refused} <= RACE_CODES, Counter(r["code"] for r in refused)
    assert not git(repo, "rev-list", "--min-parents=2", branch).strip(), "history not linear"
    history = git(repo, "rev-list", branch).split()
    assert len(history) == len(applied) + 1, "a commit was lost or one appeared from nowhere"
    assert {r["commit"] for r in applied} == set(history[:-1])
    # every applied patch is in exactly one commit, the one its receipt names
    log = git(repo, "log", "--format=@%H", "--name-only", branch)
    where: dict[str, list[str]] = {}
    commit = ""
    for line in log.splitlines():
        if line.startswith("@"):
            commit = line[1:]
        elif line.strip():
            where.setdefault(line.strip(), []).append(commit)
    for r in applied:
        assert where.get(r["path"]) == [r["commit"]], r
    for r in refused:
        assert r["path"] not in where, r


@pytest.mark.slow
def test_eight_processes_commit_to_one_branch(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"README": "start\n"})
    results = race(repo, "commit")
    check_history(repo, results)
    # the working tree and index hold exactly the applied patches; refusals left nothing
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    applied = {r["path"] for r in results if r["ok"]}
    on_disk = {str(p.relative_to(repo)) for p in repo.glob("w*/*.txt")}
    assert on_disk == applied
    codes = Counter(r["code"] or "applied" for r in results)
    print(f"\n--commit race, {PROCESSES} x {EACH}: {dict(codes)}")
    assert codes["applied"] > 0


@pytest.mark.slow
def test_eight_processes_with_ref_and_retry_all_land(tmp_path: Path):
    repo = make_bare_repo(tmp_path / "bare.git", {"README": "start\n"})
    results = race(repo, "ref", retry=200)
    check_history(repo, results, "main")
    assert all(r["ok"] for r in results), Counter(r["code"] for r in results)
    attempts = Counter(r["attempts"] for r in results)
    print(f"\n--ref --retry race, {PROCESSES} x {EACH}: attempts {dict(sorted(attempts.items()))}")


@pytest.mark.slow
def test_ref_without_retry_refuses_losers_cleanly(tmp_path: Path):
    repo = make_bare_repo(tmp_path / "bare.git", {"README": "start\n"})
    results = race(repo, "ref", retry=0)
    check_history(repo, results, "main")


BASE = "".join(f"line {i}\n" for i in range(1, 31))


def edit(old: str, new: str) -> str:
    n = int(old.split()[1])
    return (f"--- a/f.txt\n+++ b/f.txt\n@@ -{n - 1},3 +{n - 1},3 @@\n line {n - 1}\n-{old}\n"
            f"+{new}\n line {n + 1}\n")


def test_retry_replans_on_the_new_tip(tmp_path: Path):
    """The branch moves (a commit touching another part of the same file) between planning
    and the compare-and-swap: with --retry the patch is planned again on the new tip."""
    repo = make_bare_repo(tmp_path / "bare.git", {"f.txt": BASE})
    moved = []

    def someone_else_commits() -> None:
        if not moved:
            moved.append(apply_patch(edit("line 20", "line twenty"), repo, ref="main",
                                     message="theirs"))

    receipt = apply_patch(edit("line 5", "line five"), repo, ref="main", message="ours",
                          retry=3, on_ref_update=someone_else_commits)
    assert moved[0].ok and receipt.ok, receipt.error
    assert receipt.extra["attempts"] == 2
    content = git(repo, "show", "main:f.txt")
    assert "line five\n" in content and "line twenty\n" in content
    assert git(repo, "log", "--format=%s", "main").split() == ["ours", "theirs", "initial"]


def test_retry_refuses_when_the_patch_no_longer_applies(tmp_path: Path):
    repo = make_bare_repo(tmp_path / "bare.git", {"f.txt": BASE})
    moved = []

    def someone_else_commits() -> None:
        if not moved:
            moved.append(apply_patch(edit("line 5", "line FIVE"), repo, ref="main",
                                     message="theirs"))

    receipt = apply_patch(edit("line 5", "line five"), repo, ref="main", message="ours",
                          retry=3, on_ref_update=someone_else_commits)
    # the commit before the branch moved holds the version the patch was written against:
    # merged from it, the other's edit of the same line is a conflict
    assert receipt.error is not None and receipt.error.code == "merge_conflict"
    assert receipt.extra["attempts"] == 2
    assert git(repo, "log", "--format=%s", "main").split() == ["theirs", "initial"]


def test_without_retry_a_moved_branch_is_head_moved(tmp_path: Path):
    repo = make_bare_repo(tmp_path / "bare.git", {"f.txt": BASE})

    def someone_else_commits() -> None:
        apply_patch(edit("line 20", "line twenty"), repo, ref="main", message="theirs")

    receipt = apply_patch(edit("line 5", "line five"), repo, ref="main", message="ours",
                          on_ref_update=someone_else_commits)
    assert receipt.error is not None and receipt.error.code == "head_moved"
    assert "attempts" not in receipt.extra


def test_retry_is_only_for_ref(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": BASE})
    done = subprocess.run([sys.executable, "-m", "holon_git", "--retry", "3", "--commit", "-m",
                           "x", "-"], input=edit("line 5", "x").encode(), cwd=repo,
                          capture_output=True)
    assert done.returncode == 2 and b"--retry is for --ref" in done.stderr
