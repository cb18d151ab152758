"""Refusals that say what to fix (issue 22): which copy an ambiguous hunk could mean and how to
pick one, a hunk that elides lines with '...', a near miss that differs in indentation, the
first differing line of a deletion, and header paths read without a/ b/ prefixes."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import refused
from repos.builders import make_repo

from holon_git import apply_patch

TWICE = "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n"
METHOD = ("class A:\n    def f(self):\n        one()\n        two()\n        three()\n"
          "        return 0\n")


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f.py": TWICE, "g.py": METHOD, "h.txt": "alpha\nbeta\n"}


def test_an_ambiguous_hunk_shows_each_copy_and_how_the_line_number_picks_one(repo: Path):
    patch = "--- a/f.py\n+++ b/f.py\n@@ -20,2 +20,2 @@\n     x = 1\n-    return x\n+    return 2\n"
    err = refused(repo, patch, "ambiguous_context")
    assert err.details["candidate_lines"] == [2, 6]
    assert [(c["line"], c["before"]) for c in err.details["copies"]] == [
        (2, "def a():"), (6, "def b():")]
    assert "line 2 after 'def a():', line 6 after 'def b():'" in err.message
    assert "setting the hunk header's old line number to one of these lines (@@ -2,2 ... @@) " \
        "picks that copy" in err.message
    # and it does: the line number of the second copy picks it
    receipt = apply_patch(patch.replace("-20,2 +20,2", "-6,2 +6,2"), repo)
    assert receipt.ok
    assert (repo / "f.py").read_text() == TWICE[:-len("    return x\n")] + "    return 2\n"


def test_an_ambiguous_hunk_without_line_numbers_says_a_line_number_would_pick(repo: Path):
    err = refused(repo, "--- a/f.py\n+++ b/f.py\n@@ @@\n     x = 1\n-    return x\n+    return 2\n",
                  "ambiguous_context")
    assert "a line number in the hunk header (@@ -2,2 ... @@) picks the copy" in err.message


def test_copies_alike_before_are_told_apart_by_the_line_after(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"t": "x\nsame\nfirst\nx\nsame\nsecond\n"})
    err = refused(repo, "--- a/t\n+++ b/t\n@@ -9 +9 @@\n-same\n+SAME\n", "ambiguous_context")
    assert "line 2 before 'first', line 5 before 'second'" in err.message


def test_copies_in_lines_earlier_hunks_added_are_refused_without_a_crash(tmp_path: Path):
    """The third hunk's context is only in lines the first two added, numbered in the file as
    they left it: the refusal lists them, and describes no neighbours it cannot see."""
    repo = make_repo(tmp_path / "r", {"f.txt": b"b"})
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -1,1 +1,2 @@\n+a\n b\n@@ -1,1 +1,2 @@\n b\n+a\n"
             "@@ -1,1 +1,1 @@\n a\n")
    err = refused(repo, patch, "ambiguous_context")
    assert err.hunk == 3 and err.details["candidate_lines"] == [1, 3]
    assert "copies" not in err.details


@pytest.mark.parametrize("elision", ["        # ...", "        ...",
                                     "        # ... existing code ..."])
def test_a_hunk_that_elides_lines_gets_its_own_hint(repo: Path, elision: str):
    patch = ("--- a/g.py\n+++ b/g.py\n@@ -2,5 +2,5 @@\n     def f(self):\n         one()\n"
             f" {elision}\n-        return 0\n+        return 1\n")
    err = refused(repo, patch, "context_not_found")
    assert err.details["elided_line"] == elision.strip()
    assert "seems to stand for lines left out" in err.message
    assert err.hint.startswith("a hunk lists every line of the region it changes: replace")


def test_an_elided_hunk_says_where_each_part_is_not_a_near_miss_elsewhere(repo: Path):
    """With most of the hunk after the '...', the nearest match lines up its tail and its
    'first difference' would point at another line of the file: each part's place is said
    instead."""
    patch = ("--- a/g.py\n+++ b/g.py\n@@ -1,6 +1,6 @@\n class A:\n     ...\n         two()\n"
             "         three()\n-        return 0\n+        return 1\n")
    err = refused(repo, patch, "context_not_found")
    assert "first difference" not in err.message and "first_difference" not in err.details
    assert err.message.endswith("the lines before it are at line 1; the lines after it are "
                                "at line 4")


def test_a_near_miss_in_indentation_and_text_names_both(repo: Path):
    patch = ("--- a/g.py\n+++ b/g.py\n@@ -2,3 +2,3 @@\n   def f(self):\n       ONE()\n"
             "-      two()\n+      TWO()\n")
    err = refused(repo, patch, "context_not_found")
    assert "line 2 differs only in its indentation" in err.message
    assert err.details["first_text_difference"] == {"line": 3, "expected": "      ONE()",
                                                    "found": "        one()"}
    assert "leading whitespace included" in err.hint


def test_a_near_miss_that_differs_in_text_gets_the_usual_hint(repo: Path):
    err = refused(repo, "--- a/g.py\n+++ b/g.py\n@@ -3,2 +3,2 @@\n         one()\n"
                        "-        TWO()\n+        2()\n", "context_not_found")
    assert "indentation" not in err.message and "elided_line" not in err.details


@pytest.mark.parametrize("body, words", [
    ("-alpha\n-BETA\n", "first difference at line 2: expected 'BETA', found 'beta'"),
    ("-alpha\n", "the file has more lines: line 2 is 'beta'"),
    ("-alpha\n-beta\n-gamma\n", "the file ends before the patch's line 3, 'gamma'"),
])
def test_a_deletion_that_differs_names_the_first_differing_line(repo: Path, body: str,
                                                                words: str):
    count = body.count("\n")
    err = refused(repo, f"--- a/h.txt\n+++ /dev/null\n@@ -1,{count} +0,0 @@\n{body}",
                  "content_mismatch")
    assert words in err.message and err.path == "h.txt"


def test_header_paths_without_a_b_prefixes_are_reported(repo: Path):
    receipt = apply_patch("--- h.txt\n+++ h.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n", repo)
    assert receipt.ok and (repo / "h.txt").read_text() == "ALPHA\nbeta\n"
    notes = [note for change in receipt.files for note in change.diagnostics]
    assert [note.code for note in notes] == ["missing_path_prefix"]
    assert "'h.txt' without git's a/ and b/ prefixes" in notes[0].message
    for prefixed in ("--- a/h.txt\n+++ b/h.txt\n", "diff --git a/h.txt b/h.txt\n--- a/h.txt\n"
                     "+++ b/h.txt\n"):
        receipt = apply_patch(prefixed + "@@ -1 +1 @@\n-ALPHA\n+alpha\n", repo, check=True)
        assert receipt.ok and not any(note.code == "missing_path_prefix"
                                      for change in receipt.files for note in change.diagnostics)


def test_context_not_found_names_the_invented_lines_and_the_best_partial_place(repo: Path):
    """Issue 30 item 3: a refusal the model can act on lists the hunk's lines that occur
    nowhere in the file and the longest run of its lines that the file has, in the receipt's
    details and in the message."""
    patch = ("--- a/g.py\n+++ b/g.py\n@@ -3,4 +3,4 @@\n         one()\n         two()\n"
             "-        gone()\n+        new()\n         return 0\n")
    err = refused(repo, patch, "context_not_found")
    assert err.details["absent_lines"] == [{"patch_line": 6, "text": "        gone()"}]
    assert err.details["partial_match"] == {"patch_lines": [4, 5], "file_lines": [3, 4]}
    assert "1 of its lines occurs nowhere in the file (patch line 6: " in err.message
    assert "longest run of lines the file has is patch lines 4-5, at lines 3-4" in err.message
    assert "around line 3" in (err.hint or "")
    # the file may have changed since as well as the model misremembered: the hint blames
    # neither (it said "were not copied from it", wrong for a stale patch)
    assert "not copied" not in (err.hint or "")
    assert "or the file changed since" in (err.hint or "")
    assert (repo / "g.py").read_text() == METHOD
