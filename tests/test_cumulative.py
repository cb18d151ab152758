"""Cumulative patches (issue 29): an agent sends its whole change since HEAD again, with one
new hunk. The hunks of its earlier steps are in the file already; the new one is not. The patch
is merged from the version it was written against (the index, HEAD, the patch's index blob, a
pre-image this tool recorded) when that merge is clean, and the hunks that were in already are
reported; it is refused only on a conflict. ``already_applied`` is said only when the whole
change is in the file: sent again, a cumulative patch changes nothing."""

from __future__ import annotations

from pathlib import Path

from gitsupport import applied, everything, forget_resend_records, git_apply, refused
from repos.builders import make_repo
from strategies import difflib_patch

from holon_git import apply_patch
from holon_git.provider.results import format_result

PATH = "src/steps.py"
HEAD = "".join(f"value_{i} = {i}\n" for i in range(1, 41)).encode()
STEP1 = HEAD.replace(b"value_5 = 5\n", b"value_5 = 'five'\n")
STEP2 = STEP1.replace(b"value_30 = 30\n", b"value_30 = 'thirty'\n")
STEP3 = STEP2.replace(b"value_18 = 18\n", b"value_18 = 'eighteen'\n")


def patch(old: bytes, new: bytes) -> bytes:
    return difflib_patch(PATH, old, new, 3)


def after_first_step(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "r", {PATH: HEAD})
    applied(repo, patch(HEAD, STEP1))
    assert (repo / PATH).read_bytes() == STEP1
    return repo


def test_the_whole_change_since_head_with_one_new_hunk_is_merged(tmp_path: Path) -> None:
    repo = after_first_step(tmp_path)
    receipt = applied(repo, patch(HEAD, STEP2))
    assert (repo / PATH).read_bytes() == STEP2
    (change,) = receipt.files
    assert change.three_way is not None and change.three_way["base"] == "index"
    assert [h.already_in for h in change.hunks] == [True, False]
    hunks = receipt.to_dict()["files"][0]["hunks"]
    assert [h.get("already_applied", False) for h in hunks] == [True, False]
    codes = [d.code for d in change.diagnostics]
    assert "hunks_already_applied" in codes and "three_way" in codes
    assert "Hunk 1 was in the file already" in format_result(receipt)


def test_a_longer_session_merges_each_cumulative_patch(tmp_path: Path) -> None:
    """Step 3 sent as HEAD -> step 3: two of its three hunks are in (one of them placed by
    the merge before), the middle one is new."""
    repo = after_first_step(tmp_path)
    applied(repo, patch(HEAD, STEP2))
    receipt = applied(repo, patch(HEAD, STEP3))
    assert (repo / PATH).read_bytes() == STEP3
    assert [h.already_in for h in receipt.files[0].hunks] == [True, False, True]


def test_a_cumulative_patch_sent_again_changes_nothing(tmp_path: Path) -> None:
    repo = after_first_step(tmp_path)
    cumulative = patch(HEAD, STEP2)
    applied(repo, cumulative)
    state = everything(repo)
    refused(repo, cumulative, "already_applied")  # the history log's record
    forget_resend_records(repo)
    err = refused(repo, cumulative, "already_applied")  # every hunk is in: the hunk rules
    assert "partly" not in err.message
    assert everything(repo) == state


def test_a_cumulative_patch_with_nothing_new_is_already_applied(tmp_path: Path) -> None:
    repo = after_first_step(tmp_path)
    applied(repo, patch(STEP1, STEP2))
    forget_resend_records(repo)
    refused(repo, patch(HEAD, STEP2), "already_applied")
    refused(repo, patch(HEAD, STEP1), "already_applied")


def test_the_earlier_step_made_by_another_tool(tmp_path: Path) -> None:
    """Nothing in the history log: the index (HEAD) is the base all the same."""
    repo = make_repo(tmp_path / "r", {PATH: HEAD})
    git_apply(repo, patch(HEAD, STEP1))
    applied(repo, patch(HEAD, STEP2))
    assert (repo / PATH).read_bytes() == STEP2


def test_a_new_hunk_that_conflicts_is_a_merge_conflict_not_already_applied(
        tmp_path: Path) -> None:
    """The agent changed the new hunk's line by hand since: the merge conflicts there."""
    repo = after_first_step(tmp_path)
    (repo / PATH).write_bytes(STEP1.replace(b"value_30 = 30\n", b"value_30 = 'XXX'\n"))
    err = refused(repo, patch(HEAD, STEP2), "merge_conflict")
    assert err.details["base"] == "index"


def test_no_version_to_merge_from_is_partly_applied(tmp_path: Path) -> None:
    """The repository holds only the file with the first step (HEAD, the index and the file
    agree, and this tool recorded nothing), so no version takes the whole patch. The refusal
    says which hunks are in and which are not, and never that the edit is in."""
    repo = make_repo(tmp_path / "r", {PATH: STEP1})
    err = refused(repo, patch(HEAD, STEP2), "partly_applied")
    assert err.details == {"hunks_in_file": [1], "hunks_not_in_file": [2]}
    assert "hunk 1 is already in the file, its hunk 2 is not" in err.message
    err = refused(repo, patch(HEAD, STEP2), "partly_applied", three_way=False)


def test_reversed_partly_applied(tmp_path: Path) -> None:
    """-R of HEAD -> step 2 where only step 1 is in: hunk 2 has nothing to undo."""
    repo = make_repo(tmp_path / "r", {PATH: STEP1})
    err = refused(repo, patch(HEAD, STEP2), "partly_applied", reverse=True)
    assert err.details == {"hunks_in_file": [1], "hunks_not_in_file": [2]}
    assert "hunk 2 is not applied (nothing to undo)" in err.message


# A stale patch (written against HEAD) whose line sits right after one the current text
# removed, among look-alike lines: git merge-file conflicts, and undoing the patch's change
# by a merge puts its line back beside the current text's own copy of it, which redoing then
# takes away again. That proves nothing: the current text does not hold the patch's change
# (it still has the line the patch removes), so it is a conflict, not "already applied".
DOC = (b"Title\n=====\n\nIntro text.\n\n\nFirst Part\n==========\n\n.. item:: alpha\n\n"
       b".. item:: beta\n\n\nSecond Part\n===========\n\n.. item:: gamma\n")


def test_a_conflict_among_look_alike_lines_is_not_called_already_applied(
        tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"docs/items.rst": DOC})
    one = DOC.replace(b"\n\nFirst Part\n==========\n", b"", 1)
    two = one.replace(b".. item:: alpha\n\n", b"", 1)
    stale = DOC.replace(b".. item:: beta\n\n", b"", 1)
    for old, new in ((DOC, one), (one, two)):
        applied(repo, difflib_patch("docs/items.rst", old, new, 3))
    forget_resend_records(repo)
    err = refused(repo, difflib_patch("docs/items.rst", one, one.replace(
        b".. item:: beta\n\n", b"", 1), 3), "merge_conflict")
    assert "holds its change" not in err.message
    assert apply_patch(difflib_patch("docs/items.rst", DOC, stale, 3), repo).error.code \
        == "merge_conflict"
