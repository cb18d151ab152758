"""`git holon-apply` as a user runs it: exit codes, output, options."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from clisupport import PATCH, holon, holon_process, report_lines
from repos.builders import snapshot

BAD = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n two\n-tree\n+THREE\n four\n"


def test_apply_from_file(repo: Path, patch_file: Path):
    done = holon(repo, str(patch_file))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Applied 1 file, 1 hunk.\n"
    assert (repo / "f.txt").read_text() == "one\ntwo\nTHREE\nfour\nfive\n"


def test_apply_from_stdin(repo: Path):
    assert holon(repo, stdin=PATCH).returncode == 0
    assert "THREE" in (repo / "f.txt").read_text()
    assert holon(repo, "-", stdin=PATCH).returncode == 1  # second time: already applied


def test_refusal_exit_code_and_message(repo: Path, patch_file: Path):
    patch_file.write_text(BAD)
    before = snapshot(repo)
    done = holon(repo, str(patch_file))
    assert done.returncode == 1 and done.stdout == ""
    first, second = report_lines(done.stderr)[:2]
    assert first.startswith("error: context_not_found: hunk 1 of f.txt (patch line 3): ")
    assert "expected 'tree', found 'three'" in first
    assert second.startswith("hint: ")
    assert snapshot(repo) == before


def test_check(repo: Path, patch_file: Path):
    before = snapshot(repo)
    done = holon(repo, "--check", str(patch_file))
    assert (done.returncode, done.stdout) == (0, "Would apply 1 file, 1 hunk.\n")
    patch_file.write_text(BAD)
    assert holon(repo, "--check", str(patch_file)).returncode == 1
    assert snapshot(repo) == before


def test_json_receipt(repo: Path, patch_file: Path):
    patch_file.write_text(BAD)
    done = holon(repo, "--json", str(patch_file))
    receipt = json.loads(done.stdout)
    assert done.returncode == 1 and receipt["status"] == "refused"
    assert receipt["error"]["code"] == "context_not_found" and receipt["error"]["hunk"] == 1
    patch_file.write_text(PATCH)
    done = holon(repo, "--json", str(patch_file))
    receipt = json.loads(done.stdout)
    assert receipt["status"] == "applied" and receipt["error"] is None
    assert receipt["files"][0]["hunks"][0] == {"index": 1, "hinted_line": 2, "applied_line": 2,
                                               "offset": 0, "tolerances": []}


def test_json_receipt_for_a_parse_error(repo: Path):
    done = holon(repo, "--json", stdin="nothing to see\n")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["code"] == "empty_patch"


def test_stat_does_not_apply(repo: Path, patch_file: Path):
    before = snapshot(repo)
    done = holon(repo, "--stat", str(patch_file))
    assert done.returncode == 0
    assert done.stdout.splitlines() == [" f.txt |    2 +-",
                                        " 1 file changed, 1 insertion(+), 1 deletion(-)"]
    assert snapshot(repo) == before
    assert holon(repo, "--stat", "--apply", str(patch_file)).returncode == 0
    assert "THREE" in (repo / "f.txt").read_text()


def test_reverse_and_verbose(repo: Path, patch_file: Path):
    assert holon(repo, str(patch_file)).returncode == 0
    done = holon(repo, "-R", "-v", str(patch_file))
    assert done.returncode == 0
    assert "M f.txt (+1 -1)" in done.stdout and "hunk 1 of f.txt at line 2" in done.stdout
    assert (repo / "f.txt").read_text() == "one\ntwo\nthree\nfour\nfive\n"


def test_strip_option(repo: Path):
    patch = PATCH.replace("a/f.txt", "x/y/f.txt").replace("b/f.txt", "x/y/f.txt")
    assert holon(repo, "-p", "2", stdin=patch).returncode == 0


def test_tolerance_is_reported_without_verbose(repo: Path):
    done = holon(repo, stdin=PATCH.replace("\n", "\r\n"))
    assert done.returncode == 0
    assert "[line_endings]" in done.stdout


def test_quiet(repo: Path, patch_file: Path):
    done = holon(repo, "-q", str(patch_file))
    assert (done.returncode, done.stdout) == (0, "")


def test_several_patch_files_apply_together(repo: Path, tmp_path: Path):
    (repo / "g.txt").write_text("g\n")
    first = tmp_path / "1.diff"
    first.write_text(PATCH)
    second = tmp_path / "2.diff"
    second.write_text("--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-nope\n+G\n")
    before = snapshot(repo)
    assert holon(repo, str(first), str(second)).returncode == 1
    assert snapshot(repo) == before
    second.write_text("--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-g\n+G\n")
    assert holon(repo, str(first), str(second)).returncode == 0
    assert (repo / "g.txt").read_text() == "G\n"


def test_usage_errors_exit_2(repo: Path):
    assert holon(repo, "missing.diff").returncode == 2
    assert holon(repo, "--format", "xml").returncode == 2
    assert holon(repo, "--no-such-option").returncode == 2
    assert holon(repo, "-p", "-1").returncode == 2


def test_help_and_version(repo: Path):
    done = holon(repo, "-h")
    assert done.returncode == 0 and "--check" in done.stdout and "holon-apply" in done.stdout
    assert holon(repo, "--version").stdout.startswith("holon-git ")


def test_repo_option(repo: Path, patch_file: Path, tmp_path: Path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert holon(elsewhere, "--repo", str(repo), str(patch_file)).returncode == 0
    assert "THREE" in (repo / "f.txt").read_text()


@pytest.mark.skipif(shutil.which("git-holon-apply") is None,
                    reason="console script not installed in this environment")
def test_runs_as_a_git_subcommand(repo: Path, patch_file: Path):
    env_path = os.environ.get("PATH", "")
    done = holon_process(repo, "--check", str(patch_file), command=["git", "holon-apply"])
    assert done.returncode == 0, (done.stderr, env_path)
    assert done.stdout == "Would apply 1 file, 1 hunk.\n"
