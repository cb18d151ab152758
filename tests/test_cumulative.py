"""Cumulative patches (issue 29): an agent sends its whole change since HEAD again, with one
new hunk. The hunks of its earlier steps are in the file already; the new one is not. The patch
is merged from the version it was written against (the index, HEAD, the patch's index blob, a
pre-image this tool recorded) when that merge is clean, and the hunks that were in already are
reported; it is refused only on a conflict. ``already_applied`` is said only when the whole
change is in the file: sent again, a cumulative patch changes nothing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gitsupport import applied, everything, forget_resend_records, git_apply, refused
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from repos.builders import git_env, make_repo
from strategies import Edit, apply_edits, difflib_patch, join, unique_line

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
    assert [h.already_applied for h in change.hunks] == [True, False]
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
    assert [h.already_applied for h in receipt.files[0].hunks] == [True, False, True]


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


def test_a_first_hunk_committed_meanwhile_merges_from_the_commit_before(
        tmp_path: Path) -> None:
    """Issue 36 item 2: the agent committed its first step (the tree is clean), then sends
    its whole change since the older HEAD. The path's version in the commit before is what
    the patch was written against: merged from it, not partly_applied."""
    repo = make_repo(tmp_path / "r", {PATH: HEAD})
    (repo / PATH).write_bytes(STEP1)
    for args in (["add", PATH], ["commit", "-qm", "step 1"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=git_env())
    receipt = applied(repo, patch(HEAD, STEP2))
    assert (repo / PATH).read_bytes() == STEP2
    (change,) = receipt.files
    assert change.three_way is not None and "at commit" in change.three_way["base"]
    assert [h.already_applied for h in change.hunks] == [True, False]


def test_reversed_partly_applied(tmp_path: Path) -> None:
    """-R of HEAD -> step 2 where only step 1 is in: hunk 2 has nothing to undo."""
    repo = make_repo(tmp_path / "r", {PATH: STEP1})
    err = refused(repo, patch(HEAD, STEP2), "partly_applied", reverse=True)
    assert err.details == {"hunks_in_file": [1], "hunks_not_in_file": [2]}
    assert "hunk 2 is not applied (nothing to undo)" in err.message


def test_one_hunk_whose_new_lines_the_first_step_made_whole_is_merged(tmp_path: Path) -> None:
    """Step 1 removed a line; the whole change since HEAD is one hunk that also removes the
    file's first two lines. Its old side is nowhere now, and its new side, thanks to step 1,
    is in the file whole: the hunk rules would read that as applied. The merge from HEAD,
    where the patch applies, changes the file: the change is not in, and it is merged."""
    head = b"".join(b"row %d\n" % i for i in range(12))
    one = head.replace(b"row 8\n", b"")
    two = one.replace(b"row 0\nrow 1\n", b"")
    repo = make_repo(tmp_path / "r", {PATH: head})
    applied(repo, patch(head, one))
    cumulative = patch(head, two)
    assert cumulative.count(b"\n@@ ") == 1  # one hunk holds both changes
    receipt = applied(repo, cumulative)
    assert (repo / PATH).read_bytes() == two
    assert receipt.files[0].three_way is not None
    forget_resend_records(repo)
    refused(repo, cumulative, "already_applied")  # sent again: the merge changes nothing


def test_a_hunk_whose_lines_repeat_is_decided_by_the_merge(tmp_path: Path) -> None:
    """Step 1 appended `done()`; the whole change since HEAD is one hunk that removes the
    first line and appends `done()`. In the file its new side sits at the end while its old
    side overlaps it (ambiguous_repeat); the merge from HEAD tells: one `done()`, as the
    agent meant (its line numbers alone would have added a second)."""
    head = b"start()\nwork()\n"
    one = head + b"done()\n"
    two = b"work()\ndone()\n"
    repo = make_repo(tmp_path / "r", {PATH: head})
    applied(repo, patch(head, one))
    receipt = applied(repo, patch(head, two))
    assert (repo / PATH).read_bytes() == two
    assert receipt.files[0].three_way is not None


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


# -- the property: a cumulative patch gives the merge's result, or is refused ---------------
@st.composite
def two_steps(draw: st.DrawFn) -> tuple[bytes, bytes, bytes]:
    """HEAD, HEAD with a first edit, and that with a second one, as an agent's two steps:
    unique lines, the edits at least eight lines apart (separate hunks, as git diff makes
    them), the first step above or below the second."""
    used: set[bytes] = set()
    lines = [unique_line(draw, used) for _ in range(draw(st.integers(12, 40)))]
    upper = draw(st.integers(0, len(lines) - 10))
    lower = draw(st.integers(upper + 8, len(lines) - 2))

    def edit(at: int) -> Edit:
        remove = draw(st.integers(0, 2))
        count = draw(st.integers(0 if remove else 1, 2))
        return Edit(at, remove, tuple(unique_line(draw, used) for _ in range(count)))

    first, second = edit(upper), edit(lower)
    if draw(st.booleans()):
        first, second = second, first
    one = apply_edits(lines, [first])
    two = apply_edits(lines, sorted([first, second], key=lambda e: e.start))
    return join(lines), join(one), join(two)


@pytest.mark.slow
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.large_base_example])
@given(two_steps())
def test_a_cumulative_patch_gives_what_git_merge_file_gives(tmp_path_factory, steps) -> None:
    """The first step applied (uncommitted), the whole change since HEAD sent: applied, it is
    exactly `git merge-file` of (current, HEAD, HEAD + patch), the second step's file. Sent
    again, it changes nothing."""
    head, one, two = steps
    tmp = tmp_path_factory.mktemp("c")
    repo = make_repo(tmp / "r", {PATH: head})
    applied(repo, patch(head, one))
    merged = merge_file(tmp, one, head, two)
    receipt = apply_patch(patch(head, two), repo)
    if receipt.ok:
        assert merged is not None and (repo / PATH).read_bytes() == merged == two
        state = everything(repo)
        again = apply_patch(patch(head, two), repo)
        assert again.error is not None and again.error.code == "already_applied"
        assert everything(repo) == state
    else:  # the steps are apart: the merge is clean, and so is the apply
        raise AssertionError(receipt.error)


def merge_file(tmp: Path, ours: bytes, base: bytes, theirs: bytes) -> bytes | None:
    """git merge-file -p: the merged text, or None on a conflict."""
    for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
        (tmp / name).write_bytes(text)
    done = subprocess.run(["git", "merge-file", "-p", "ours", "base", "theirs"], cwd=tmp,
                          capture_output=True, env=git_env())
    return done.stdout if done.returncode == 0 else None


def test_a_partly_applied_patch_the_last_rungs_read_is_not_already_applied(
        tmp_path: Path) -> None:
    """Hunk 1's context is the model's memory of the file (a parameter and a line that are
    not there: only the last rungs place it); hunk 2's change is in the file. No version
    takes the patch, so nothing merges it: refused, but never said to be applied."""
    from test_salvage import MODULE, PATCH

    module = MODULE.replace("    if os.path.exists(path):", "    if os.path.isfile(path):")
    second = ("@@ -21,3 +22,3 @@ def reset_settings(path):\n def reset_settings(path):\n"
              "-    if os.path.exists(path):\n+    if os.path.isfile(path):\n"
              "         os.remove(path)\n")
    repo = make_repo(tmp_path / "r", {"settings.py": module})
    err = refused(repo, PATCH + second, "partly_applied")
    assert err.details == {"hunks_in_file": [2], "hunks_not_in_file": [1]}
    applied(repo, PATCH)  # the first hunk alone: the last rungs place it
