"""Issue 43, item 3, for a stale patch with no ``index`` line (models mostly write none): the
repository names the version the patch was written against when the patch does not.

Where a hunk is not placed exactly in the current file (away from its number, loosely, or
away from a file edge it claims) and a version the repository holds (the index, HEAD, HEAD's
recent history) places every hunk exactly and differs from the current file around it, the
stale reading from that version is one the evidence allows: the judge weighs it as for an
index line naming that version, and the rescue merges from it (plan/stale.py).

Each test is a module written here, the patch `git diff`'s without its index line, written
against the version committed first; the file changed since, either uncommitted or in a later
commit (then HEAD's recent history holds the patch's version).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import applied, everything, refused
from repos.builders import git, make_repo
from strategies import git_diff_patch


def without_index(path: str, base: str, wanted: str) -> str:
    """git's diff of ``base`` to ``wanted`` (its section texts git's own), with the headers
    `git diff` writes but no index line."""
    hunks = git_diff_patch(path, base.encode(), wanted.encode()).decode()
    return (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
            + hunks[hunks.index("@@"):])


def changed_since(tmp_path: Path, path: str, base: str, now: str, committed: bool) -> Path:
    """The patch's version committed, then the file as it is now: left uncommitted, or
    committed on top (HEAD and the index then equal the working tree)."""
    repo = make_repo(tmp_path / "r", {path: base})
    (repo / path).write_text(now)
    if committed:
        git(repo, "commit", "-qam", "changed since")
    return repo


STATES = pytest.mark.parametrize("committed", [False, True], ids=["uncommitted", "committed"])

# two tests that share a block; the patch edits the second's copy
SHARED = '''\
import codec


def test_latin():
    phrase = "abc"
    expect_width = 3

    # exercise,
    widths = tuple(map(codec.width, phrase))
    width = codec.total(phrase)

    # verify.
    assert width == expect_width


def test_filler():
    phrase = "\\u1100\\u1160"
    expect_width = 3

    # exercise,
    widths = tuple(map(codec.width, phrase))
    width = codec.total(phrase)

    # verify.
    assert width == expect_width
'''
SECOND = SHARED.rindex("    widths = ")
SHARED_WANTED = SHARED[:SECOND] + SHARED[SHARED.index("\n", SECOND) + 1:]
# since: the second test's expectation was rewritten (the line that leads the hunk's context)
SHARED_NOW = SHARED.replace('"\\u1100\\u1160"\n    expect_width = 3',
                            '"\\u1100\\u1160"\n    expect_width = 2')
SHARED_MERGED = SHARED_WANTED.replace('"\\u1100\\u1160"\n    expect_width = 3',
                                      '"\\u1100\\u1160"\n    expect_width = 2')


@STATES
def test_a_block_edited_since_is_merged_from_the_version_not_placed_in_its_sibling(
        tmp_path: Path, committed: bool) -> None:
    """The hunk's old side now occurs once, exactly, in the first test (its first context
    line was rewritten in the second since); its number and section text point at the
    second, and the repository's version holds it there exactly. Before, it removed the
    first test's line; now the stale reading from that version decides: merged from it."""
    repo = changed_since(tmp_path, "test_codec.py", SHARED, SHARED_NOW, committed)
    patch = without_index("test_codec.py", SHARED, SHARED_WANTED)
    assert "@@ def test_filler():" in patch
    receipt = applied(repo, patch)
    assert (repo / "test_codec.py").read_text() == SHARED_MERGED
    assert receipt.files[0].three_way is not None


def test_the_same_block_applies_in_a_file_the_repository_has_no_other_version_of(
        tmp_path: Path) -> None:
    """Only the current text in the repository: no version says the patch is stale, and the
    slip reading stands as before (the stale reading has nothing to come from)."""
    repo = make_repo(tmp_path / "r", {"test_codec.py": SHARED_NOW})
    receipt = applied(repo, without_index("test_codec.py", SHARED, SHARED_WANTED))
    assert receipt.files[0].three_way is None


# a module whose last function's last lines the patch rewrites
TAIL = '''\
import sqlkit


def test_reindent():
    formatted = sqlkit.format("select 1", reindent=True)
    assert formatted == "select 1"


def test_right_margin():
    # TODO: a better test; this only checks that it runs
    sqlkit.format("foo", right_margin="79")
'''
TAIL_WANTED = TAIL.replace(
    '    # TODO: a better test; this only checks that it runs\n'
    '    sqlkit.format("foo", right_margin="79")\n',
    '    assert sqlkit.format("foo", right_margin="79") == "foo"\n')
# since: a test appended right after the last one
TAIL_NOW = TAIL + '''

def test_json_ops():
    assert sqlkit.format("select a->'b';") == "select a->'b';"
'''


@STATES
def test_a_change_that_ended_the_file_conflicts_with_lines_added_after_it(
        tmp_path: Path, committed: bool) -> None:
    """The hunk claims the file's end (context before its change, none after) and the
    repository's version ends right there; a test was appended after it since: a line gained
    next to the change, which `git merge-file` calls a conflict. Before, it applied over
    them; refused now, the file untouched."""
    repo = changed_since(tmp_path, "test_format.py", TAIL, TAIL_NOW, committed)
    state = everything(repo)
    refused(repo, without_index("test_format.py", TAIL, TAIL_WANTED), "merge_conflict")
    assert everything(repo) == state


def test_lines_added_above_only_shift_the_hunk(tmp_path: Path) -> None:
    """The file changed since only far above the hunk (an import added): HEAD places the
    hunk at its number, the file two lines down, and the lines around it are the same in
    both: nothing says the place changed, and it applies where found, not merged."""
    now = TAIL.replace("import sqlkit\n", "import sqlkit\nimport json\nimport os\n")
    repo = changed_since(tmp_path, "test_format.py", TAIL + "\n\n# end\n",
                         now + "\n\n# end\n", False)
    wanted = TAIL_WANTED + "\n\n# end\n"
    receipt = applied(repo, without_index("test_format.py", TAIL + "\n\n# end\n", wanted))
    assert receipt.files[0].hunks[0].offset == 2
    assert receipt.files[0].three_way is None
    assert (repo / "test_format.py").read_text() == wanted.replace(
        "import sqlkit\n", "import sqlkit\nimport json\nimport os\n")
