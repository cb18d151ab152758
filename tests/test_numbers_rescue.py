"""Issue 43, class 5: line numbers belong to the version a patch was written against. A hunk
told from its exact copies only by its line number, in a working tree an uncommitted edit
has shifted, is made in HEAD (where the numbers fit) and merged; a patch whose index line
names a committed blob is merged from that blob when its copies were told apart by number
there, even where a later change left one copy in the current text."""

from __future__ import annotations

import re
from pathlib import Path

from gitsupport import applied, refused
from repos.builders import git, make_repo, repo_and_git_patch

FUNC = ("def {name}(items):\n    total = 0\n    count = 0\n    for item in items:\n"
        "        total += item.price\n        count += 1\n    return total, count\n")
BASE = (FUNC.format(name="first") + "\n\n" + FUNC.format(name="second") + "\n\n"
        + "def third():\n    pass\n")
EDITED = BASE[: BASE.rindex("count += 1")] + "count += 2" + BASE[BASE.rindex("count += 1") + 10:]
SHIFT = "".join(f"import module_{n}\n" for n in range(7)) + "\n\n"


def _bare_patch(patch: bytes) -> str:
    """The patch without its index line and section text (as a model writes it)."""
    text = patch.decode()
    text = re.sub(r"^index .*\n", "", text, flags=re.M)
    return re.sub(r"^(@@ [^@]* @@).*$", r"\1", text, flags=re.M)


def test_a_copy_told_by_its_number_in_a_shifted_working_tree_is_merged_from_head(
        tmp_path: Path) -> None:
    repo, patch = repo_and_git_patch(tmp_path / "r", {"m.py": BASE}, {"m.py": EDITED})
    # uncommitted, 9 lines down: the first copy now sits at the second's line number
    (repo / "m.py").write_text(SHIFT + BASE)
    receipt = applied(repo, _bare_patch(patch))
    assert (repo / "m.py").read_text() == SHIFT + EDITED
    assert "three_way" in receipt.files[0].hunks[0].tolerances


def test_the_blob_an_index_line_names_decides_between_copies(tmp_path: Path) -> None:
    """Committed since the patch's base: lines inserted inside the first function's copy of
    the block. The second copy is now the only exact one, but the patch meant the first; the
    patch's index line names the base blob, where its line number told the copies apart."""
    # the patch meant the first function's copy, told from the second by its line number
    first = BASE.replace("count += 1", "count += 2", 1)
    repo, patch = repo_and_git_patch(tmp_path / "r", {"m.py": BASE}, {"m.py": first})
    changed = BASE.replace("    count = 0\n", "    count = 0\n    seen = set()\n", 1)
    (repo / "m.py").write_text(changed)
    git(repo, "commit", "-qam", "a later change inside the first function")
    text = re.sub(r"^(@@ [^@]* @@).*$", r"\1", patch.decode(), flags=re.M)
    applied(repo, text)
    assert (repo / "m.py").read_text() == changed.replace("count += 1", "count += 2", 1)


# -- a hunk with no context: the index line's blob is the version its numbers belong to -------

MODULE = "".join(f"SETTING_{n} = {n}\n" for n in range(1, 21))
INSERTED = MODULE.replace("SETTING_10 = 10\n", "SETTING_10 = 10\nSETTING_EXTRA = True\n")


def _zero_context_patch(tmp_path: Path) -> tuple[Path, str]:
    """A repository with MODULE committed, and the patch `git diff -U0` writes for an
    insertion after line 10 (its index line names MODULE's blob)."""
    repo = make_repo(tmp_path / "r", {"m.py": MODULE})
    (repo / "m.py").write_text(INSERTED)
    patch = git(repo, "diff", "-U0")
    git(repo, "checkout", "--", "m.py")
    assert "@@ -10,0 +11 @@" in patch and "\nindex " in patch
    return repo, patch


def test_a_U0_insertion_naming_head_is_merged_into_a_shifted_working_tree(
        tmp_path: Path) -> None:
    """The agent's uncommitted edit added lines above: the insertion's number is HEAD's (the
    blob its index line names), so it goes after SETTING_10, not after the line now at 10."""
    repo, patch = _zero_context_patch(tmp_path)
    (repo / "m.py").write_text(SHIFT + MODULE)
    receipt = applied(repo, patch)
    assert (repo / "m.py").read_text() == SHIFT + INSERTED
    assert receipt.files[0].three_way is not None
    assert receipt.files[0].three_way["base"].startswith("patch index line")


def test_a_U0_insertion_naming_an_older_commit_is_merged_from_it(tmp_path: Path) -> None:
    """Committed since the patch was written: lines above the insertion. The blob the index
    line names is in HEAD's history, and the merge from it puts the line where it was meant."""
    repo, patch = _zero_context_patch(tmp_path)
    (repo / "m.py").write_text(SHIFT + MODULE)
    git(repo, "commit", "-qam", "imports added above")
    applied(repo, patch)
    assert (repo / "m.py").read_text() == SHIFT + INSERTED


def test_a_U0_insertion_next_to_a_change_since_is_a_conflict(tmp_path: Path) -> None:
    """The line the insertion follows was rewritten since: git merge-file conflicts (a hunk
    with no context cannot show the lines beside it are the same), and so does holon-git."""
    repo, patch = _zero_context_patch(tmp_path)
    (repo / "m.py").write_text(MODULE.replace("SETTING_10 = 10", "SETTING_10 = 100"))
    err = refused(repo, patch, "merge_conflict")
    assert err.details["base"].startswith("patch index line")


def test_a_U0_insertion_naming_a_blob_the_path_never_had_stays_refused(
        tmp_path: Path) -> None:
    """An index line naming no version of the path gives no base: the numbers may be any
    version's, and the insertion is refused as before."""
    repo, patch = _zero_context_patch(tmp_path)
    (repo / "m.py").write_text(SHIFT + MODULE)
    forged = re.sub(r"^index [0-9a-f]+\.\.", "index 1234567..", patch, flags=re.M)
    err = refused(repo, forged, "context_not_found")
    assert "index line names another version" in err.message


# -- a hunk with no context and no index line: the two readings of its numbers ---------------

def _without_index_line(patch: str) -> str:
    return re.sub(r"^index .*\n", "", patch, flags=re.M)


def test_a_U0_insertion_whose_numbers_two_versions_read_apart_is_refused(
        tmp_path: Path) -> None:
    """No index line, and an uncommitted edit above the insertion: its number read off the
    current text and read off the index and HEAD are two places, and nothing in the patch
    says which version it was written against. Before the fix it went by the number into
    the shifted file (after the line now at 10, SETTING_1); now it is refused, naming both
    readings, the file untouched."""
    repo, patch = _zero_context_patch(tmp_path)
    (repo / "m.py").write_text(SHIFT + MODULE)
    err = refused(repo, _without_index_line(patch), "ambiguous_context")
    assert "read off the current text" in err.message and "read off the index" in err.message
    assert err.hunk == 1


def test_a_U0_insertion_whose_readings_agree_goes_by_its_number(tmp_path: Path) -> None:
    """The same insertion when the working tree differs from HEAD only below it, uncommitted
    or committed (HEAD's history then holds the version before): every reading gives the
    same edit."""
    repo, patch = _zero_context_patch(tmp_path)
    (repo / "m.py").write_text(MODULE + SHIFT)
    applied(repo, _without_index_line(patch))
    assert (repo / "m.py").read_text() == INSERTED + SHIFT
    git(repo, "checkout", "--", "m.py")
    (repo / "m.py").write_text(MODULE + SHIFT)
    git(repo, "commit", "-qam", "lines added below")
    applied(repo, _without_index_line(patch))
    assert (repo / "m.py").read_text() == INSERTED + SHIFT


def test_a_U0_insertion_after_a_committed_edit_above_it_is_refused(tmp_path: Path) -> None:
    """No index line, and the edit above the insertion committed since (HEAD is the current
    text, the version before it in HEAD's history): its number read off the current text
    and read off that commit are two places. Before the fix it went by the number into the
    shifted file (after SETTING_1); now it is refused, naming the commit, the file
    untouched."""
    repo, patch = _zero_context_patch(tmp_path)
    (repo / "m.py").write_text(SHIFT + MODULE)
    git(repo, "commit", "-qam", "imports added above")
    err = refused(repo, _without_index_line(patch), "ambiguous_context")
    assert "read off m.py at commit" in err.message and err.hunk == 1
    assert err.details["other_version"].startswith("m.py at commit")


# -- a context-less change of lines: placed by its removed lines, weighed by its numbers -----

CHANGED = MODULE.replace("SETTING_10 = 10\n", "SETTING_10 = 11\n")


def _zero_context_change(tmp_path: Path) -> tuple[Path, str]:
    """A repository with MODULE committed, and the patch `git diff -U0` writes for a change
    of line 10, without its index line (as models write it)."""
    repo = make_repo(tmp_path / "r", {"m.py": MODULE})
    (repo / "m.py").write_text(CHANGED)
    patch = git(repo, "diff", "-U0")
    git(repo, "checkout", "--", "m.py")
    assert "@@ -10 +10 @@" in patch
    return repo, _without_index_line(patch)


def test_a_U0_change_whose_neighbour_changed_since_is_a_conflict(tmp_path: Path) -> None:
    """The line right above the changed one was rewritten since, uncommitted or committed:
    the removed line is still once in the file, but the version the numbers fit (HEAD, or
    the commit before it) merges with a conflict (git merge-file calls a change next to a
    change one). Before the fix it was placed by its removed line; now merge_conflict."""
    repo, patch = _zero_context_change(tmp_path)
    neighbour = MODULE.replace("SETTING_9 = 9", "SETTING_9 = 90")
    (repo / "m.py").write_text(neighbour)
    err = refused(repo, patch, "merge_conflict")
    assert "index line" in err.message
    git(repo, "commit", "-qam", "the neighbour rewritten")
    err = refused(repo, patch, "merge_conflict")
    assert "m.py at commit" in err.message


def test_a_U0_change_whose_file_changed_far_from_it_applies(tmp_path: Path) -> None:
    """Lines added above (committed) and below (uncommitted), away from the change: every
    reading (the current text, the index and HEAD, the commit before) gives one edit."""
    repo, patch = _zero_context_change(tmp_path)
    (repo / "m.py").write_text(SHIFT + MODULE)
    git(repo, "commit", "-qam", "imports added above")
    (repo / "m.py").write_text(SHIFT + MODULE + "TAIL = True\n")
    applied(repo, patch)
    assert (repo / "m.py").read_text() == SHIFT + CHANGED + "TAIL = True\n"


def test_a_U0_change_with_no_other_version_goes_by_its_numbers(tmp_path: Path) -> None:
    """The file's only version is the current text (a new repository, or a stale patch from
    a version it never held: the two read the same): nothing contradicts the numbers, so the
    change goes by them, as the fresh -U0 patches real models send into a one-commit
    repository must (issue 43: the stale reading is blocked by design here)."""
    repo = make_repo(tmp_path / "r", {"m.py": MODULE})
    (repo / "m.py").write_text(CHANGED)
    patch = _without_index_line(git(repo, "diff", "-U0"))
    git(repo, "checkout", "--", "m.py")
    receipt = applied(repo, patch)
    assert (repo / "m.py").read_text() == CHANGED
    assert receipt.files[0].three_way is None


def test_a_copy_told_by_its_number_with_the_shift_staged_is_merged_from_head(
        tmp_path: Path) -> None:
    """The edit that shifted the lines is staged (the index holds it too): the numbers fit
    neither the working tree nor the index, but HEAD, and the merge from HEAD decides."""
    repo, patch = repo_and_git_patch(tmp_path / "r", {"m.py": BASE}, {"m.py": EDITED})
    (repo / "m.py").write_text(SHIFT + BASE)
    git(repo, "add", "m.py")
    receipt = applied(repo, _bare_patch(patch))
    assert (repo / "m.py").read_text() == SHIFT + EDITED
    three_way = receipt.files[0].three_way
    assert three_way is not None and three_way["base"] == "HEAD"


def test_a_trimmed_insertion_beside_a_hunk_with_context_is_merged_from_its_blob(
        tmp_path: Path) -> None:
    """A model trimmed one hunk's context (a -U0 insertion beside a -U3 hunk), written
    against HEAD (its index line), applied after an uncommitted edit shifted the file: the
    hunk with context is found by its lines, the insertion only by its number, which is
    HEAD's. Before the fix the insertion was refused (nothing in the shifted file proves
    its number); now the file patch is planned in HEAD and merged."""
    edited = INSERTED.replace("SETTING_18 = 18", "SETTING_18 = 180")
    repo = make_repo(tmp_path / "r", {"m.py": MODULE})
    (repo / "m.py").write_text(edited)
    full = git(repo, "diff")
    git(repo, "checkout", "--", "m.py")
    index_line = re.search(r"^index .*\n", full, flags=re.M)
    assert index_line is not None
    patch = ("diff --git a/m.py b/m.py\n" + index_line.group(0) + "--- a/m.py\n+++ b/m.py\n"
             "@@ -10,0 +11 @@\n+SETTING_EXTRA = True\n"
             "@@ -17,3 +18,3 @@\n SETTING_17 = 17\n-SETTING_18 = 18\n+SETTING_18 = 180\n"
             " SETTING_19 = 19\n")
    (repo / "m.py").write_text(SHIFT + MODULE)
    applied(repo, patch)
    assert (repo / "m.py").read_text() == SHIFT + edited


THREE = (FUNC.format(name="first") + "\n\n" + FUNC.format(name="second") + "\n\n"
         + FUNC.format(name="third"))


def test_copies_the_number_points_at_none_of_are_merged_from_where_it_does(
        tmp_path: Path) -> None:
    """Three copies of a block; the patch edits the second, told apart by its line number in
    HEAD. An uncommitted edit above moved every copy off that number by three lines, so in
    the working tree it points at none of them. Before the fix the hunk was refused
    (ambiguous_context); the numbers fit HEAD (and the index) exactly, and the merge from
    there edits the second copy."""
    second = THREE.replace("count += 1", "count += 2", 2).replace("count += 2", "count += 1", 1)
    repo, patch = repo_and_git_patch(tmp_path / "r", {"m.py": THREE}, {"m.py": second})
    above = "import os\nimport sys\nimport re\n"
    (repo / "m.py").write_text(above + THREE)
    receipt = applied(repo, _bare_patch(patch))
    assert (repo / "m.py").read_text() == above + second
    three_way = receipt.files[0].three_way
    assert three_way is not None and three_way["base"] in ("index", "HEAD")


def test_copies_no_version_tells_apart_stay_ambiguous(tmp_path: Path) -> None:
    """The same hunk with a number that fits no version exactly (a model's slip on a clean
    file: HEAD is the current text): no version says which copy, and it stays refused."""
    second = THREE.replace("count += 1", "count += 2", 2).replace("count += 2", "count += 1", 1)
    repo, patch = repo_and_git_patch(tmp_path / "r", {"m.py": THREE}, {"m.py": second})
    slipped = re.sub(r"^@@ -(\d+)", lambda m: f"@@ -{int(m.group(1)) + 3}", _bare_patch(patch),
                     flags=re.M)
    refused(repo, slipped, "ambiguous_context")


def _zero_context_copy_change(tmp_path: Path) -> tuple[Path, str]:
    """BASE (two copies of a block) committed, and the -U0 patch of a change of the second
    copy's ``count += 1``, without its index line: only its line number tells the copies
    apart."""
    repo = make_repo(tmp_path / "r", {"m.py": BASE})
    (repo / "m.py").write_text(EDITED)
    u0 = _without_index_line(git(repo, "diff", "-U0"))
    git(repo, "checkout", "--", "m.py")
    assert re.search(r"^@@ -\d+ \+\d+ @@", u0, flags=re.M)
    return repo, u0


def test_a_U0_change_among_copies_is_merged_from_the_version_its_number_fits(
        tmp_path: Path) -> None:
    """Lines added above both copies since (uncommitted, then committed): in the current
    text the number points at neither copy, in HEAD (then the commit before it) at the
    second exactly: that version is the one reading, and the merge edits the second copy.
    Before the fix it was refused (ambiguous_context: nothing proves the numbers)."""
    repo, patch = _zero_context_copy_change(tmp_path)
    above = "import os\nimport sys\nimport re\n"
    (repo / "m.py").write_text(above + BASE)
    receipt = applied(repo, patch, check=True)
    assert receipt.files[0].three_way is not None
    git(repo, "commit", "-qam", "imports added above")
    applied(repo, patch)
    assert (repo / "m.py").read_text() == above + EDITED


def test_a_U0_insertion_with_the_rescue_off_goes_by_its_number(tmp_path: Path) -> None:
    """--no-3way: no version of the file is weighed, so nothing contradicts the insertion's
    number, and it goes where the number says (here an uncommitted edit above shifted the
    file: the rescue, left on, refuses it; see the tests above)."""
    repo, patch = _zero_context_patch(tmp_path)
    (repo / "m.py").write_text(SHIFT + MODULE)
    refused(repo, _without_index_line(patch), "ambiguous_context")
    applied(repo, _without_index_line(patch), three_way=False)
    assert (repo / "m.py").read_text().splitlines()[10] == "SETTING_EXTRA = True"
