"""Every refusal at once: an atomic apply and a --check plan every file patch and report each
refusal (the receipt's errors[], the first still in error), on real repositories, through the
library, the command line, the hooks, the provider glue and the MCP server."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from clisupport import holon, report_lines
from gitsupport import applied, everything, refused
from repos.builders import git, snapshot

from holon_git import apply_patch
from holon_git.hooks.checks import check_patch_files
from holon_git.mcp_server.calls import answer
from holon_git.provider import handle_tool_call


@pytest.fixture
def repo_files() -> Mapping[str, str]:
    return {"a.txt": "a1\na2\na3\n", "b.txt": "b1\nb2\nb3\n", "c.txt": "c1\nc2\nc3\n",
            "d.txt": "d1\n"}


def edit(path: str, old: str, new: str) -> str:
    return f"--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n {old}\n-{old[0]}2\n+{new}\n"


GOOD_A = edit("a.txt", "a1", "A2")
BROKEN_B = "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n nowhere\n-b2\n+B2\n"
MISSING = "--- a/gone.txt\n+++ b/gone.txt\n@@ -1 +1 @@\n-x\n+y\n"
ADD_D = "--- /dev/null\n+++ b/d.txt\n@@ -0,0 +1 @@\n+other\n"
GOOD_C = edit("c.txt", "c1", "C2")
THREE_BROKEN = GOOD_A + BROKEN_B + MISSING + ADD_D + GOOD_C


def codes(errors: list) -> list[tuple[str, str | None]]:
    return [(err.code, err.path) for err in errors]


@pytest.mark.parametrize("check", [False, True], ids=["apply", "check"])
def test_every_refused_file_patch_is_reported_and_nothing_is_written(repo: Path, check: bool):
    err = refused(repo, THREE_BROKEN, "context_not_found", check=check)
    assert err.path == "b.txt" and err.hunk == 1
    receipt = apply_patch(THREE_BROKEN, repo, check=check)
    assert codes(receipt.errors) == [("context_not_found", "b.txt"), ("not_found", "gone.txt"),
                                     ("already_exists", "d.txt")]
    assert receipt.errors[0] is receipt.error
    assert receipt.files == []  # nothing is reported as applied, the good files included
    data = receipt.to_dict()
    assert data["error"] == data["errors"][0]
    assert [e["code"] for e in data["errors"]] == ["context_not_found", "not_found",
                                                   "already_exists"]
    assert [e["patch_line"] for e in data["errors"]] == [9, 13, 18]


def test_a_patch_that_applies_has_no_errors(repo: Path):
    receipt = applied(repo, GOOD_A + GOOD_C)
    assert receipt.errors == [] and receipt.to_dict()["errors"] == []


def test_no_atomic_stops_at_the_first_refusal(repo: Path):
    receipt = apply_patch(THREE_BROKEN, repo, atomic=False)
    assert codes(receipt.errors) == [("context_not_found", "b.txt")]
    assert receipt.status == "partial" and [c.path for c in receipt.files] == ["a.txt"]
    assert (repo / "a.txt").read_text() == "a1\nA2\na3\n"


def test_the_index_target_reports_every_refusal_too(repo: Path):
    receipt = apply_patch(THREE_BROKEN, repo, target="index", check=True)
    assert codes(receipt.errors) == [("context_not_found", "b.txt"), ("not_found", "gone.txt"),
                                     ("already_exists", "d.txt")]


# -- file patches of one path, in sequence ---------------------------------------------------

def test_later_file_patches_of_a_refused_path_are_named_not_refused(repo: Path):
    series = (BROKEN_B  # lines 1-6
              + "--- a/b.txt\n+++ b/b.txt\n@@ -2,2 +2,2 @@\n b2\n-b3\n+B3\n"  # line 7
              + GOOD_A  # line 13
              + "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b1\n+B1\n"  # line 19
              + MISSING)  # line 24
    before = everything(repo)
    receipt = apply_patch(series, repo)
    assert codes(receipt.errors) == [("context_not_found", "b.txt"), ("not_found", "gone.txt")]
    first = receipt.errors[0]
    assert first.details["not_planned"] == [7, 19]
    assert "patch lines 7, 19 were not planned" in first.message
    assert everything(repo) == before


def test_a_refused_rename_blocks_both_of_its_paths(repo: Path):
    series = ("diff --git a/gone.txt b/new.txt\nsimilarity index 100%\nrename from gone.txt\n"
              "rename to new.txt\n"  # refused: nothing to rename (lines 1-4)
              "diff --git a/new.txt b/new.txt\n--- a/new.txt\n+++ b/new.txt\n@@ -1 +1 @@\n-x\n"
              "+y\n"  # line 5: applies after it
              + BROKEN_B)  # line 11
    receipt = apply_patch(series, repo)
    assert codes(receipt.errors) == [("not_found", "gone.txt"), ("context_not_found", "b.txt")]
    assert receipt.errors[0].details["not_planned"] == [5]


# -- refusals that are one for the whole patch ------------------------------------------------

def test_a_recorded_resend_is_one_refusal(repo: Path):
    applied(repo, GOOD_A + GOOD_C)
    receipt = apply_patch(GOOD_A + GOOD_C, repo)
    assert codes(receipt.errors) == [("already_applied", "a.txt")]
    assert receipt.error is not None and receipt.error.details["history"]


def test_every_stale_file_and_every_protected_path_is_named(repo: Path):
    wrong = "0" * 64
    receipt = apply_patch(GOOD_A, repo, expect_sha256={"a.txt": wrong, "b.txt": wrong,
                                                       "c.txt": ""})
    assert codes(receipt.errors) == [("stale_file", "a.txt"), ("stale_file", "b.txt"),
                                     ("stale_file", "c.txt")]
    git(repo, "config", "holon.protect", "*.txt")
    receipt = apply_patch(GOOD_A + BROKEN_B, repo)
    assert codes(receipt.errors) == [("protected_path", "a.txt"), ("protected_path", "b.txt")]


# -- the command line ---------------------------------------------------------------------------

def test_the_command_line_prints_every_refusal_with_its_hint(repo: Path, tmp_path: Path):
    patch = tmp_path / "three.diff"
    patch.write_text(THREE_BROKEN)
    before = snapshot(repo)
    done = holon(repo, str(patch))
    assert done.returncode == 1
    lines = report_lines(done.stderr)
    assert [line.split(":")[1].strip() for line in lines if line.startswith("error:")] == [
        "context_not_found", "not_found", "already_exists"]
    assert lines[0].startswith("error: context_not_found: hunk 1 of b.txt (patch line 9): ")
    assert lines[2].startswith("error: not_found: gone.txt (patch line 13): ")
    assert lines[4].startswith("error: already_exists: d.txt (patch line 18): ")
    assert [line for line in lines[1::2]] == [line for line in lines if line.startswith("hint:")]
    assert snapshot(repo) == before
    done = holon(repo, "--check", "--json", str(patch))
    assert done.returncode == 1
    receipt = json.loads(done.stdout)
    assert receipt["status"] == "refused" and len(receipt["errors"]) == 3
    assert receipt["error"] == receipt["errors"][0]


def test_several_patch_files_name_the_file_of_each_refusal(repo: Path, tmp_path: Path):
    first, second = tmp_path / "one.diff", tmp_path / "two.diff"
    first.write_text(BROKEN_B)
    second.write_text(MISSING)
    done = holon(repo, "--json", str(first), str(second))
    errors = json.loads(done.stdout)["errors"]
    assert [e["details"]["patch_file"] for e in errors] == [str(first), str(second)]
    assert f"error: not_found: {second}: gone.txt (patch line 1)" in done.stderr


# -- what a model sees ----------------------------------------------------------------------

def test_a_tool_result_shows_every_refusal(repo: Path):
    text = handle_tool_call("anthropic", {"patch": THREE_BROKEN}, repo)
    assert text.startswith("ApplyPatch refused the patch; nothing was changed. 3 refusals")
    assert "refusal 1 of 3:\nerror: context_not_found (b.txt, hunk 1, patch line 9)" in text
    assert "refusal 2 of 3:\nerror: not_found (gone.txt, patch line 13)" in text
    assert "refusal 3 of 3:\nerror: already_exists (d.txt, patch line 18)" in text
    assert text.count("\nfix: ") == 3
    assert "current text of b.txt" in text  # each keeps its region
    one = handle_tool_call("anthropic", {"patch": BROKEN_B}, repo)
    assert one.startswith("ApplyPatch refused the patch; nothing was changed.\nerror: ")


def test_an_mcp_answer_carries_every_refusal(repo: Path):
    reply = answer("check_patch", {"patch": THREE_BROKEN}, str(repo))
    assert reply.is_error
    assert [e["code"] for e in reply.structured["errors"]] == [
        "context_not_found", "not_found", "already_exists"]
    assert "refusal 3 of 3:\nerror: already_exists" in reply.text


def test_the_hook_check_reports_every_refusal(repo: Path):
    git(repo, "add", "-A")
    problems = check_patch_files([("fix.diff", THREE_BROKEN.encode())], apply_check=True,
                                 repo=str(repo))
    assert [p.code for p in problems] == ["context_not_found", "not_found", "already_exists"]


def test_a_tool_result_counts_the_refusals_past_twenty(repo: Path):
    patch = "".join(f"--- a/m{n}.txt\n+++ b/m{n}.txt\n@@ -1 +1 @@\n-x\n+y\n" for n in range(23))
    text = handle_tool_call("openai", patch, repo)
    assert "refusal 20 of 23:" in text and "refusal 21 of 23:" not in text
    assert text.endswith("... and 3 more refusals not shown (not_found: 3); fix those shown, "
                         "then check the patch again.")
