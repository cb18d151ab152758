"""Adding lines to an empty file: the result ends with a newline unless the patch says not."""

from __future__ import annotations

from pathlib import Path

from repos.builders import make_repo

from holon_git import apply_patch


def test_unified_addition_to_an_empty_file_ends_with_a_newline(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"empty.txt": ""})
    receipt = apply_patch(b"--- a/empty.txt\n+++ b/empty.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n", repo)
    assert receipt.ok, receipt.error
    assert (repo / "empty.txt").read_bytes() == b"one\ntwo\n"


def test_unified_addition_to_an_empty_file_without_newline_marker(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"empty.txt": ""})
    receipt = apply_patch(b"--- a/empty.txt\n+++ b/empty.txt\n@@ -0,0 +1 @@\n+one\n"
                          b"\\ No newline at end of file\n", repo)
    assert receipt.ok, receipt.error
    assert (repo / "empty.txt").read_bytes() == b"one"
