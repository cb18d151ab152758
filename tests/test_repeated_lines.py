"""Hunks whose added lines equal the lines beside them (audit finding 05), on real
repositories: a fifth blank line after four, a list element equal to the one before it.
Applied or not, the file reads the same, so the file alone cannot tell a re-send from a new
insertion. The history log of this tool's own applies tells: a record of the patch (or the
file still what this tool made of it) is a re-send, refused already_applied; then a merge from
the version the patch applies to (HEAD) tells; else no record, where the target logs every
apply, means this tool did not apply it, and the hunk goes where its line numbers fit
exactly. Without a log (--cached, --ref) the refusal is ambiguous_repeat,
which never says the edit is in (issue 29)."""

from __future__ import annotations

from pathlib import Path

from gitsupport import applied, everything, forget_resend_records, git_apply, refused
from repos.builders import git, make_repo

LIST = "def f():\n    return [\n        0,\n        0,\n    ]\n"
ONE_MORE = ("--- a/a.py\n+++ b/a.py\n@@ -4,2 +4,3 @@ def f():\n         0,\n+        0,\n"
            "     ]\n")
BLANKS = "x = 1\n\n\n\n\ny = 2\n"
FIFTH_BLANK = "--- a/b.py\n+++ b/b.py\n@@ -3,4 +3,5 @@ x = 1\n \n \n \n+\n y = 2\n"  # git diff


def test_an_insertion_equal_to_its_neighbours_goes_where_its_line_numbers_say(
        tmp_path: Path) -> None:
    """git apply takes these. With no record of the patch in the history log, which records
    every working-tree apply, this tool did not apply it: the hunk's line numbers fit the
    file exactly, and it goes there (as git apply puts it). Sent again, the log tells."""
    repo = make_repo(tmp_path / "r", {"a.py": LIST, "b.py": BLANKS})
    for patch in (ONE_MORE, FIFTH_BLANK):
        receipt = applied(repo, patch)
        assert "repeat_applied" in [d.code for c in receipt.files for d in c.diagnostics]
    assert (repo / "a.py").read_text() == LIST.replace("0,\n", "0,\n        0,\n", 1)
    assert (repo / "b.py").read_text() == BLANKS.replace("\n\n", "\n\n\n", 1)
    state = everything(repo)
    for patch in (ONE_MORE, FIFTH_BLANK):
        refused(repo, patch, "already_applied")
        assert everything(repo) == state


def test_without_a_history_log_it_is_refused_honestly(tmp_path: Path) -> None:
    """--cached keeps no history log, so nothing tells: refused ambiguous_repeat, which says
    the file may or may not have the edit and how to send it so that it can tell."""
    repo = make_repo(tmp_path / "r", {"a.py": LIST, "b.py": BLANKS})
    for patch in (ONE_MORE, FIFTH_BLANK):
        err = refused(repo, patch, "ambiguous_repeat", target="index")
        assert "repeat the lines beside them" in err.message
        assert "a re-send and a new insertion look the same" in err.hint
        assert "context line that tells the places apart" in err.hint
        assert set(err.details["repeats"]) == {"new_lines_at", "old_lines_at"}
    git_apply(repo, ONE_MORE)  # the reference takes it
    assert (repo / "a.py").read_text() == LIST.replace("0,\n", "0,\n        0,\n", 1)


def test_line_numbers_that_do_not_fit_are_refused(tmp_path: Path) -> None:
    """The same hunk with its header one line off: nothing says where the line goes, nor
    whether it is in."""
    repo = make_repo(tmp_path / "r", {"a.py": LIST})
    err = refused(repo, ONE_MORE.replace("-4,2 +4,3", "-5,2 +5,3"), "ambiguous_repeat")
    assert err.details["repeats"]


def test_a_resend_after_another_tool_applied_it_is_refused_by_its_line_numbers(
        tmp_path: Path) -> None:
    """git apply added the fifth blank line; sent again, the hunk's old side sits one line
    below its line number (the blank it added pushed it): the line numbers do not fit, and
    it is refused."""
    repo = make_repo(tmp_path / "r", {"b.py": BLANKS})
    git_apply(repo, FIFTH_BLANK)
    refused(repo, FIFTH_BLANK, "ambiguous_repeat")


def test_an_append_resent_keeps_the_plain_message(tmp_path: Path) -> None:
    """The old side of an append that is already in no longer ends the file, where the hunk
    must go: the file cannot be read as 'not applied', and the message says applied."""
    repo = make_repo(tmp_path / "r", {"f.txt": "alpha\nbeta\n"})
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n alpha\n beta\n+beta\n"
    applied(repo, patch)
    forget_resend_records(repo)
    err = refused(repo, patch, "already_applied")
    assert "repeats" not in err.details and "where the hunk goes" in err.message


def test_the_history_log_tells_a_resend_of_this_tools_apply(tmp_path: Path) -> None:
    """One element becomes two through this tool; sent again, the refusal says what
    happened: the file is what this tool made of it, or the log records this very patch."""
    repo = make_repo(tmp_path / "r", {"a.py": LIST.replace("        0,\n", "", 1)})
    patch = ONE_MORE.replace("-4,2 +4,3", "-3,2 +3,3")
    applied(repo, patch)
    assert (repo / "a.py").read_text() == LIST
    log = (repo / ".git" / "holon-apply-history").read_text()
    forget_resend_records(repo)  # the pre-image alone tells, too
    err = refused(repo, patch, "already_applied")
    assert "this tool applied this patch" in err.message
    (repo / ".git" / "holon-apply-history").write_text(log)
    # once the file changed since, the pre-image no longer tells, but the patch's record does
    (repo / "a.py").write_text(LIST + "# more\n")
    err = refused(repo, patch, "already_applied")
    assert "this very patch" in err.message and "changed since" in err.message
    forget_resend_records(repo)  # the merge from HEAD (where the patch applies) tells
    err = refused(repo, patch, "already_applied")
    assert "written against index" in err.message and "changes nothing" in err.message
    git(repo, "commit", "-qam", "both elements")
    (repo / ".git" / "holon-apply-history").unlink()
    # the commit before holds the version the patch applies to: merged, it changes nothing
    err = refused(repo, patch, "already_applied")
    assert "at commit" in err.message and "changes nothing" in err.message
    # a repository whose only version has both elements: nothing tells, not applied twice
    other = make_repo(tmp_path / "o", {"a.py": LIST + "# more\n"})
    err = refused(other, patch, "ambiguous_repeat")
    assert "repeat the lines beside them" in err.message


def test_removing_one_of_identical_lines_undoes_through_the_history(tmp_path: Path) -> None:
    """Apply, then -R, gives the original back (patch-format.md section 5): the reversed hunk
    puts back a line equal to its neighbours, which alone cannot tell; the history log shows
    this tool made the file from its recorded pre-image, so -R restores that. -R again is
    refused: the newest pre-image is now the patched file, which tells nothing."""
    original = "l0\nl0\nl0\nl1\n"
    repo = make_repo(tmp_path / "r", {"c.txt": original})
    patch = "--- a/c.txt\n+++ b/c.txt\n@@ -2,3 +2,2 @@\n l0\n-l0\n l1\n"
    applied(repo, patch)
    assert (repo / "c.txt").read_text() == "l0\nl0\nl1\n"
    receipt = applied(repo, patch, reverse=True)
    assert (repo / "c.txt").read_text() == original
    assert "undone_from_history" in [d.code for c in receipt.files for d in c.diagnostics]
    forget_resend_records(repo)
    state = everything(repo)
    err = refused(repo, patch, "ambiguous_repeat", reverse=True)
    assert "repeat the lines beside them" in err.message
    assert everything(repo) == state


def test_a_U0_patch_among_repeated_lines_applied_then_undone_gives_the_original_back(
        tmp_path: Path) -> None:
    """A git diff -U0 patch whose hunks delete one of two equal closing lines and put one
    back elsewhere: applied, its -R puts back lines equal to their neighbours, which the file
    alone cannot place; the history log shows this tool made the file from its pre-image,
    replayed as it was applied (hunks with no context go by their numbers): restored. As
    git apply --unidiff-zero round-trips it, CRLF or not."""
    for eol in ("\n", "\r\n"):
        before = eol.join(["", "ret;", "foo", "}", "}", "}", "foo", "}", "foo", "foo", "ret;",
                           "", "bar", ""]) + eol
        after = eol.join(["", "ret;", "foo", "}", "}", "foo", "foo", "}", "", "foo", "ret;",
                          "", "CHG", ""]) + eol
        repo = make_repo(tmp_path / f"r{len(eol)}", {"f.txt": before.encode()})
        (repo / "f.txt").write_bytes(after.encode())
        patch = git(repo, "diff", "-U0").encode("utf-8", "surrogateescape")
        git(repo, "checkout", "--", "f.txt")
        git_apply(repo, patch, "--unidiff-zero", "--check")  # git takes it (or raises)
        applied(repo, patch)
        assert (repo / "f.txt").read_bytes() == after.encode()
        applied(repo, patch, reverse=True)
        assert (repo / "f.txt").read_bytes() == before.encode()


def test_without_a_record_the_reverse_goes_where_its_line_numbers_say(
        tmp_path: Path) -> None:
    """Applied by git apply, nothing recorded it; -R puts the line back where its line
    numbers say (this tool undid nothing before). Without a log (--cached) it cannot tell."""
    original = "l0\nl0\nl0\nl1\n"
    repo = make_repo(tmp_path / "r", {"c.txt": original})
    patch = "--- a/c.txt\n+++ b/c.txt\n@@ -2,3 +2,2 @@\n l0\n-l0\n l1\n"
    git_apply(repo, patch)
    git(repo, "add", "c.txt")
    err = refused(repo, patch, "ambiguous_repeat", reverse=True, target="index")
    assert "nothing in the file tells whether the patch is applied" in err.message
    refused(repo, patch, "ambiguous_repeat", reverse=True, three_way=False)
    applied(repo, patch, reverse=True)
    assert (repo / "c.txt").read_text() == original
    refused(repo, patch, "not_applied", reverse=True)  # the log records that -R


def test_a_deletion_from_a_run_of_blanks_is_not_applied_twice(tmp_path: Path) -> None:
    """git diff's hunk for one blank line out of nine, sent again: its old side (blank lines,
    then `b`) is found one line above its hinted line, and its new side sits at that line.
    git apply takes it a second time (one more blank line gone); holon-git refuses: by the
    history log when this tool applied it, else saying the lines repeat."""
    text = "a\n" + "\n" * 9 + "b\n"
    patch = "--- a/m.txt\n+++ b/m.txt\n@@ -7,5 +7,4 @@ a\n \n \n \n-\n b\n"
    repo = make_repo(tmp_path / "r", {"m.txt": text})
    applied(repo, patch)
    once = text.replace("\n\n", "\n", 1)
    assert (repo / "m.txt").read_text() == once
    err = refused(repo, patch, "already_applied")
    assert "this very patch" in err.message  # the history log's record of the patch
    forget_resend_records(repo)
    err = refused(repo, patch, "already_applied")
    assert "this tool applied this patch" in err.message
    other = make_repo(tmp_path / "o", {"m.txt": once})  # the same file, nothing recorded
    err = refused(other, patch, "ambiguous_repeat")  # and the line numbers do not fit
    assert err.details["repeats"] == {"new_lines_at": 7, "old_lines_at": 6}
    git_apply(other, patch)  # the reference applies it twice
    assert (other / "m.txt").read_text() == once.replace("\n\n", "\n", 1)


def test_a_deletion_with_its_line_number_off_by_its_size_still_applies(tmp_path: Path) -> None:
    """The removed line opens the hunk and its header is one line too far: the kept line
    then sits at the hinted line, as the very line the deletion keeps, which tells nothing
    (no line repeats): applied."""
    repo = make_repo(tmp_path / "r", {"m.txt": "first\nsecond\nthird\n"})
    applied(repo, "--- a/m.txt\n+++ b/m.txt\n@@ -2,2 +2 @@\n-first\n second\n")
    assert (repo / "m.txt").read_text() == "second\nthird\n"


def test_the_models_view_does_not_say_the_edit_is_in(tmp_path: Path) -> None:
    from holon_git import apply_patch
    from holon_git.provider.results import format_result

    repo = make_repo(tmp_path / "r", {"a.py": LIST})
    shown = format_result(apply_patch(ONE_MORE, repo, target="index"))
    assert "error: ambiguous_repeat" in shown
    assert "may or may not have this change" in shown and "already has" not in shown


def test_a_U0_insertion_equal_to_the_line_after_it_is_not_said_to_be_in(
        tmp_path: Path) -> None:
    """git diff -U0 of a line inserted before an equal one ('c' after the blank line of
    '\\nc\\na\\n'): with its index line naming this very file, the numbers were read off it, so
    the line after is the file's own and the insertion goes in, as git apply --unidiff-zero
    puts it; sent again, the history log says it is in. Without the index line nothing tells
    a re-send from a new insertion: ambiguous_repeat, never already_applied (an agent told its
    edit is in moves on without it)."""
    repo = make_repo(tmp_path / "r", {"f": "\nc\na\n"})
    (repo / "f").write_text("\nc\nc\na\n")
    patch = git(repo, "diff", "-U0")
    git(repo, "checkout", "--", "f")
    assert "\nindex " in patch
    bare = "".join(line for line in patch.splitlines(keepends=True)
                   if not line.startswith("index "))
    fresh = make_repo(tmp_path / "fresh", {"f": "\nc\na\n"})
    state = everything(fresh)
    err = refused(fresh, bare, "ambiguous_repeat")
    assert "nothing in it" in err.message
    assert everything(fresh) == state
    git_apply(fresh, patch, "--unidiff-zero")  # what git makes of it
    applied(repo, patch)
    assert (repo / "f").read_text() == (fresh / "f").read_text() == "\nc\nc\na\n"
    refused(repo, patch, "already_applied")
