"""Where a hunk ends, on real repositories: a patch cut off inside a hunk (a model's output
limit) is refused rather than applied in part, and prose after a complete hunk (a blank line,
then markdown bullets) is skipped text, never hunk lines. A refused patch changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import applied, git_apply, refused, twin
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from repos.builders import make_repo, snapshot
from strategies import apply_edits, difflib_patch, edits, file_lines, join

from holon_git.core.change import SourceFile
from holon_git.core.place.match import split_lines
from holon_git.core.plan.plan import plan_patch
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

TEXT = ("hey!\nthis is some context!\naround some lines\nthat will change\nyes it is!\n"
        "(this line is changed)\nand this\nis additional context\nbelow it!\n")
CUT_IN_REMOVED = ("--- a/file.txt\n+++ b/file.txt\n@@ -1,9 +1,3 @@\n hey!\n"
                  "-this is some context!\n-around some lines\n-that will change\n")
FUNC = "def f():\n    x = 1\n    return x\n"
CUT_IN_ADDED = ("--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,5 @@\n def f():\n     x = 1\n"
                "-    return x\n+    y = compute(x)\n+    return y + comp")


def test_a_patch_cut_inside_its_removed_lines_is_refused(tmp_path: Path) -> None:
    """The header counts 9 old lines, the body stops after 4, on a '-' line, and they are the
    file's first 4 of 9: the rest of the hunk is missing."""
    repo = make_repo(tmp_path / "r", {"file.txt": TEXT})
    err = refused(repo, CUT_IN_REMOVED, "truncated_patch")
    assert err.hunk == 1 and err.details["header"] == [9, 3]
    assert "cut off" in err.message


def test_a_patch_cut_inside_its_added_lines_is_refused_as_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": FUNC})
    err = refused(repo, CUT_IN_ADDED, "truncated_patch")
    assert err.details == {"header": [3, 5], "body": [3, 4]} and err.patch_line == 3
    with pytest.raises(PatchError) as caught:  # no repository needed to see it
        parse_patch(CUT_IN_ADDED)
    assert caught.value.code == "truncated_patch"
    # the same added block cut off at the end of the file is just as incomplete
    repo2 = make_repo(tmp_path / "r2", {"m.py": FUNC})
    refused(repo2, "--- a/m.py\n+++ b/m.py\n@@ -2,2 +2,5 @@\n     x = 1\n     return x\n"
            "+\n+def g():\n", "truncated_patch")


def test_a_hunk_at_the_end_of_the_file_with_counts_too_large_applies(tmp_path: Path) -> None:
    """Its old side reaches the file's end, so nothing can be missing after it: the counts
    are merely wrong, and the body decides. Sent again, it is already applied."""
    repo = make_repo(tmp_path / "r", {"m.py": FUNC})
    patch = ("--- a/m.py\n+++ b/m.py\n@@ -2,9 +2,9 @@\n     x = 1\n-    return x\n"
             "+    return x + 1\n")
    assert parse_patch(patch).files[0].hunks[0].unfinished
    applied(repo, patch)
    assert (repo / "m.py").read_text() == FUNC.replace("return x", "return x + 1")
    refused(repo, patch, "already_applied")
    applied(repo, patch, reverse=True)
    assert (repo / "m.py").read_text() == FUNC


def test_a_cut_hunk_claiming_the_files_start_goes_only_where_it_is_the_whole_file(
        tmp_path: Path) -> None:
    """A hunk at line 1 with context claims the file's start (git's match_beginning); cut
    off, it is held to the file's end as well. Its lines ending the file from line 2 on hold
    only one of the claims: refused, never placed a line down from where it says."""
    text = "\n\n\n"
    repo = make_repo(tmp_path / "r", {"f.txt": text})
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,5 @@\n+top\n \n \n+bottom\n"
    assert parse_patch(patch).files[0].hunks[0].unfinished
    err = refused(repo, patch, "truncated_patch")
    assert "claims the file's start" in err.message and "from line 2" in err.message
    # the same hunk whose lines are the whole file holds both claims
    whole = patch.replace("@@ -1,3 +1,5 @@\n+top\n \n \n", "@@ -1,4 +1,6 @@\n+top\n \n \n \n")
    applied(repo, whole)
    assert (repo / "f.txt").read_text() == "top\n\n\n\nbottom\n"


@pytest.mark.parametrize("patch", [
    # a no-newline marker says the added side ends the file
    "--- a/m.py\n+++ b/m.py\n@@ -3 +3,3 @@\n-    return x\n+    y = x\n+    return y\n"
    "\\ No newline at end of file\n",
], ids=["no-newline-marker"])
def test_hunks_that_end_the_input_whole(tmp_path: Path, patch: str) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": FUNC})
    applied(repo, patch)
    assert not parse_patch(patch).files[0].hunks[0].unfinished


def test_a_hunk_ending_on_context_with_counts_too_large_applies_where_it_ends_the_file(
        tmp_path: Path) -> None:
    """Its old side is the whole file: nothing can be missing after it, the counts are
    merely wrong."""
    repo = make_repo(tmp_path / "r", {"m.py": FUNC})
    patch = ("--- a/m.py\n+++ b/m.py\n@@ -1,9 +1,9 @@\n def f():\n-    x = 1\n+    x = 2\n"
             "     return x\n")
    applied(repo, patch)
    assert (repo / "m.py").read_text() == FUNC.replace("x = 1", "x = 2")


LONG = "".join(f"line {n}\n" for n in range(1, 31))


def test_a_diff_cut_on_a_context_line_after_its_first_change_is_refused(tmp_path: Path) -> None:
    """Issue 43, class 10: a `git diff` cut off on a context line after the hunk's first
    change; the second change of the hunk is lost. Applying the part that arrived would make
    half the edit: refused, the file untouched."""
    repo = make_repo(tmp_path / "r", {"f.txt": LONG})
    patch = ("diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -7,11 +7,12 @@\n"
             " line 7\n line 8\n line 9\n-line 10\n+line ten\n+line ten and a half\n"
             " line 11\n line 12\n")
    err = refused(repo, patch, "truncated_patch")
    assert "cut off" in err.message and err.details["header"] == [11, 12]


def test_a_diff_cut_before_its_first_change_is_refused(tmp_path: Path) -> None:
    """Only leading context arrived: applying would change nothing while saying it applied."""
    repo = make_repo(tmp_path / "r", {"f.txt": LONG})
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -7,7 +7,7 @@\n line 7\n line 8\n"
    err = refused(repo, patch, "truncated_patch")
    assert "before its first change" in err.message
    with pytest.raises(PatchError) as caught:  # seen as it is read
        parse_patch(patch)
    assert caught.value.code == "truncated_patch"


def test_a_diff_cut_in_its_last_context_lines_applies_the_whole_edit(tmp_path: Path) -> None:
    """The lines missing are as many on both sides and fit in the context git writes after
    the last change (as many as before the first): only context is lost, the edit is whole."""
    repo = make_repo(tmp_path / "r", {"f.txt": LONG})
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -7,7 +7,7 @@\n line 7\n line 8\n line 9\n"
             "-line 10\n+line ten\n line 11\n")
    applied(repo, patch)
    assert (repo / "f.txt").read_text() == LONG.replace("line 10\n", "line ten\n")


def test_a_closed_fence_says_the_patch_was_not_cut(tmp_path: Path) -> None:
    """A model that closed its fence finished its output: an added block at the end of the
    file with a header count too large is the model's miscount, not a cut."""
    repo = make_repo(tmp_path / "r", {"m.py": FUNC})
    body = "--- a/m.py\n+++ b/m.py\n@@ -3 +3,4 @@\n     return x\n+\n+def g():\n"
    applied(repo, "Here it is:\n\n```diff\n" + body + "```\n")
    assert (repo / "m.py").read_text() == FUNC + "\ndef g():\n"
    repo2 = make_repo(tmp_path / "r2", {"m.py": FUNC})
    refused(repo2, "Here it is:\n\n```diff\n" + body, "truncated_patch")  # never closed


SOURCE = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
HUNK = "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n def f():\n-    return 1\n+    return 10\n \n"


@pytest.mark.parametrize("bullets", [
    "\n+ Changed f to return 10\n+ Left g alone\n",
    "\n- Changed f to return 10\n- Left g alone\n",
    "\n\n- one\n+ two\n\\ what\n",
], ids=["plus", "minus", "mixed"])
def test_bullets_after_a_complete_hunk_are_text(tmp_path: Path, bullets: str) -> None:
    """The counts are met; a blank line, then lines that look like hunk lines but hold no
    context line: prose, skipped as git apply skips it."""
    repo = make_repo(tmp_path / "r", {"x.py": SOURCE})
    other = twin(repo)
    receipt = applied(repo, HUNK + bullets)
    git_apply(other, HUNK + bullets)
    assert snapshot(repo) == snapshot(other)
    assert (repo / "x.py").read_text() == SOURCE.replace("return 1", "return 10")
    assert "skipped_text" in [d.code for d in receipt.diagnostics]


def test_a_hunk_whose_counts_are_too_small_goes_on_after_a_blank_line(tmp_path: Path) -> None:
    """The counts are met at the blank line, but the lines after it hold context: they
    continue the hunk, and the blank line is stripped blank context."""
    repo = make_repo(tmp_path / "r", {"x.py": SOURCE})
    patch = ("--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n def f():\n     return 1\n\n\n"
             "-def g():\n+def h():\n     return 2\n")
    receipt = applied(repo, patch)
    assert (repo / "x.py").read_text() == SOURCE.replace("def g", "def h")
    assert "blank_context_line" in receipt.files[0].hunks[0].tolerances


def test_a_blank_line_before_the_next_hunk_is_unchanged(tmp_path: Path) -> None:
    """Counts met, a blank line, then the next '@@': a separator, as before."""
    repo = make_repo(tmp_path / "r", {"x.py": SOURCE})
    patch = (HUNK + "\n@@ -5,2 +5,2 @@\n def g():\n-    return 2\n+    return 20\n")
    applied(repo, patch)
    assert (repo / "x.py").read_text() == SOURCE.replace("1", "10").replace("2", "20")


@st.composite
def cut_patch(draw: st.DrawFn) -> tuple[bytes, bytes, bytes]:
    """(file, whole patch, the patch cut right after one of its change lines, inside a hunk:
    a body line of the same hunk followed it)."""
    lines = draw(file_lines(max_lines=40))
    new_lines = apply_edits(lines, draw(edits(lines)))
    assume(lines and new_lines != lines)
    old = join(lines)
    patch = difflib_patch("f.txt", old, join(new_lines), draw(st.integers(0, 3)))
    rows = patch.splitlines(keepends=True)
    cuts = [i for i in range(len(rows) - 1) if rows[i][:1] in (b"-", b"+")
            and not rows[i].startswith((b"--- ", b"+++ ")) and rows[i + 1][:1] in b" -+"
            and not rows[i + 1].startswith((b"--- ", b"+++ "))]
    assume(cuts)
    cut = draw(st.sampled_from(cuts))
    return old, patch, b"".join(rows[: cut + 1])


@pytest.mark.slow
@settings(max_examples=200)
@given(cut_patch())
def test_a_cut_patch_never_applies_a_hunk_short_of_the_file_end(case) -> None:
    """Cut after a change line inside a hunk, a patch is refused, or its cut hunk's old side
    still reaches the end of the file (nothing after it could be missing)."""
    old, _, cut = case
    try:
        parsed = parse_patch(cut)
        plan = plan_patch(parsed, {"f.txt": SourceFile(old)}.get)
    except PatchError:
        return
    (change,) = plan.changes
    last = parsed.files[0].hunks[-1]
    assert last.unfinished
    end = change.hunks[-1].applied_line - 1 + len(last.old_lines)
    assert end == len(split_lines(old))


def test_an_append_with_counts_too_large_resent_is_already_applied(tmp_path: Path) -> None:
    """Its old side (the context) is still in the file, no longer at the end; its new side
    ends the file: a re-send, not a cut."""
    repo = make_repo(tmp_path / "r", {"m.py": FUNC})
    patch = "--- a/m.py\n+++ b/m.py\n@@ -3,4 +3,9 @@\n     return x\n+\n+\n+def g():\n+    pass\n"
    applied(repo, patch)
    assert (repo / "m.py").read_text() == FUNC + "\n\ndef g():\n    pass\n"
    refused(repo, patch, "already_applied")


def test_a_U0_append_of_a_last_line_without_a_newline_goes_at_the_end(tmp_path: Path):
    """git diff -U0 of a line appended without a newline ('\\ No newline at end of file'):
    it goes where its number says, the file's end, as git apply --unidiff-zero puts it, and
    -R takes it off again; a number that is not the end places nothing."""
    repo = make_repo(tmp_path / "r", {"f": "b\nc\n"})
    patch = ("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -2,0 +3 @@ c\n+d\n"
             "\\ No newline at end of file\n")
    other = twin(repo)
    git_apply(other, patch, "--unidiff-zero")
    applied(repo, patch)
    assert snapshot(repo) == snapshot(other)
    assert (repo / "f").read_bytes() == b"b\nc\nd"
    applied(repo, patch, reverse=True)
    assert (repo / "f").read_bytes() == b"b\nc\n"
    refused(repo, patch.replace("@@ -2,0 +3 @@", "@@ -1,0 +2 @@"), "ambiguous_context")


def test_counts_one_too_large_on_both_sides_are_a_miscount(tmp_path: Path) -> None:
    """Two lines of leading context, three after the change, and the header counting one more
    on each side: a model's miscount (a cut would have lost trailing context git writes as
    long as the leading), read as the body says."""
    repo = make_repo(tmp_path / "r", {"f.txt": LONG})
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -8,7 +8,7 @@\n line 8\n line 9\n-line 10\n"
             "+line ten\n line 11\n line 12\n line 13\n")
    applied(repo, patch)
    assert (repo / "f.txt").read_text() == LONG.replace("line 10\n", "line ten\n")


def test_counts_too_large_by_two_and_three_are_a_miscount(tmp_path: Path) -> None:
    """The header overstates the old side by two lines and the new side by three, the body
    ending on its trailing context: as many lines missing on both sides would be a cut's
    mark; two on one side is a miscount, read as the body says."""
    repo = make_repo(tmp_path / "r", {"f.txt": LONG})
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -7,8 +7,9 @@\n line 7\n line 8\n line 9\n"
             "-line 10\n+line ten\n line 11\n line 12\n")
    applied(repo, patch)
    assert (repo / "f.txt").read_text() == LONG.replace("line 10\n", "line ten\n")


def test_counts_too_large_around_a_whole_looking_hunk_are_a_miscount(tmp_path: Path) -> None:
    """Three lines of context before and after the change, and the header counting five more
    on each side: the tail is as long as git writes it, so nothing looks cut off."""
    repo = make_repo(tmp_path / "r", {"f.txt": LONG})
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -7,12 +7,12 @@\n line 7\n line 8\n line 9\n"
             "-line 10\n+line ten\n line 11\n line 12\n line 13\n")
    applied(repo, patch)
    assert (repo / "f.txt").read_text() == LONG.replace("line 10\n", "line ten\n")
