"""Resource bounds: huge patches, huge lines and absurd hunk counts use memory in proportion to
the input and finish (or fail cleanly). The 100 MB case runs with HOLON_LONG_TESTS=1."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from crashkit import LONG
from repos.builders import git_state, snapshot

from holon_git import apply_patch

MB = 1024 * 1024

MEASURE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
sys.stderr.buffer.write(done.stderr)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def run_measured(repo: Path, patch: Path) -> tuple[int, int, float]:
    """Exit code, peak resident memory in bytes, and seconds of `holon-apply PATCH`."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "holon_git",
                           "-q", str(patch)], cwd=repo, capture_output=True, timeout=600)
    elapsed = time.perf_counter() - start
    assert b"Traceback" not in done.stderr, done.stderr
    code, peak_kb = done.stdout.split()
    return int(code), int(peak_kb) * 1024, elapsed


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f": "a\nb\nc\n"}


@pytest.mark.slow
def test_a_ten_megabyte_line(repo: Path, tmp_path: Path):
    patch = tmp_path / "line.diff"
    patch.write_bytes(b"--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1 @@\n+" + b"x" * (10 * MB)
                      + b"\n")
    code, peak, seconds = run_measured(repo, patch)
    assert code == 0
    assert (repo / "big.txt").stat().st_size == 10 * MB + 1
    assert peak < 12 * 10 * MB + 80 * MB, f"peak {peak / MB:.0f} MB"
    print(f"\n10 MB line: {seconds:.2f} s, peak {peak / MB:.0f} MB")


@pytest.mark.slow
def test_a_ten_megabyte_line_that_does_not_match(repo: Path):
    before, state = snapshot(repo), git_state(repo)
    patch = b"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-" + b"y" * (10 * MB) + b"\n+z\n"
    receipt = apply_patch(patch, repo)
    assert receipt.error is not None and receipt.error.code == "context_not_found"
    assert len(receipt.to_json()) < 200_000, "the refusal echoes the huge line back"
    assert snapshot(repo) == before and git_state(repo) == state


@pytest.mark.parametrize("count", ["1000000000000", "999999999999999999999999", "0"])
def test_absurd_hunk_counts_are_harmless(repo: Path, count: str):
    start = time.perf_counter()
    patch = f"--- a/f\n+++ b/f\n@@ -1,{count} +1,{count} @@\n a\n-b\n+B\n c\n"
    receipt = apply_patch(patch, repo)
    assert time.perf_counter() - start < 2
    if receipt.ok:
        assert (repo / "f").read_bytes() == b"a\nB\nc\n"
    else:
        assert receipt.error is not None and receipt.error.code in (
            "invalid_hunk_header", "malformed_hunk", "truncated_patch")
        assert (repo / "f").read_bytes() == b"a\nb\nc\n"


def test_many_hunks_and_files_finish(repo: Path, tmp_path: Path):
    files = 2000 if LONG else 300
    patch = b"".join(b"--- /dev/null\n+++ b/many/%d.txt\n@@ -0,0 +1 @@\n+%d\n" % (i, i)
                     for i in range(files))
    start = time.perf_counter()
    receipt = apply_patch(patch, repo)
    assert receipt.ok, receipt.error
    assert len(list((repo / "many").iterdir())) == files
    assert time.perf_counter() - start < 60


@pytest.mark.skipif(not LONG, reason="HOLON_LONG_TESTS=1: writes a 100 MB patch")
def test_a_hundred_megabyte_patch(repo: Path, tmp_path: Path):
    lines = 1_250_000
    patch = tmp_path / "huge.diff"
    with open(patch, "wb") as fh:
        fh.write(b"--- /dev/null\n+++ b/huge.txt\n@@ -0,0 +1,%d @@\n" % lines)
        for start in range(0, lines, 50_000):
            fh.write(b"".join(b"+%079d\n" % i for i in range(start, start + 50_000)))
    size = patch.stat().st_size
    code, peak, seconds = run_measured(repo, patch)
    assert code == 0 and (repo / "huge.txt").stat().st_size == lines * 80
    assert peak < 8 * size + 100 * MB, f"peak {peak / MB:.0f} MB for {size / MB:.0f} MB"
    print(f"\n{size / MB:.0f} MB patch: {seconds:.1f} s, peak {peak / MB:.0f} MB")
