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


def test_with_no_other_version_the_scope_its_section_text_names_still_speaks(
        tmp_path: Path) -> None:
    """Only the current text in the repository (no version to read): the exact copy in the
    first test is away from the hunk's number, and the scope its section text names holds
    its old lines but for one, rewritten. The slip reading (number and section text wrong,
    the copy right) and the stale reading (written for that scope, which changed since) are
    two edits: refused, naming the scope. Before, it removed the first test's line."""
    repo = make_repo(tmp_path / "r", {"test_codec.py": SHARED_NOW})
    error = refused(repo, without_index("test_codec.py", SHARED, SHARED_WANTED),
                    "context_not_found")
    assert "def test_filler():" in error.message


def test_an_exact_copy_away_from_its_number_in_the_scope_it_names_applies(
        tmp_path: Path) -> None:
    """The same hunk, its number off (lines added above since) but its copy inside the scope
    its section text names: nothing points elsewhere, and it applies there."""
    now = SHARED.replace("import codec\n", "import codec\nimport sys\nimport os\n")
    now = now.replace('    phrase = "abc"\n    expect_width = 3',
                      '    phrase = "abc"\n    expect_width = 4')
    repo = make_repo(tmp_path / "r", {"test_codec.py": now})
    receipt = applied(repo, without_index("test_codec.py", SHARED, SHARED_WANTED))
    assert receipt.files[0].hunks[0].offset == 2
    assert (repo / "test_codec.py").read_text() == SHARED_WANTED.replace(
        "import codec\n", "import codec\nimport sys\nimport os\n").replace(
        '    phrase = "abc"\n    expect_width = 3', '    phrase = "abc"\n    expect_width = 4')


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


# a loop whose branch gained an `else:` since, the `if` turned into an `elif`
SCAN = '''\
def joins_right(label, pos):
    ok = False
    for i in range(pos + 1, len(label)):
        kind = joining_types.get(ord(label[i]))
        if kind == ord("T"):
            continue
        if kind in [ord("R"), ord("D")]:
            ok = True
            break
    return ok
'''
SCAN_WANTED = SCAN.replace('            ok = True\n',
                           '            ok = True\n            trace("joined")\n')
SCAN_NOW = SCAN.replace('        if kind in [ord("R")', '        elif kind in [ord("R")').replace(
    '            ok = True\n            break\n',
    '            ok = True\n            break\n        else:\n            break\n')


def test_a_side_of_context_moved_away_from_the_change_is_a_conflict(tmp_path: Path) -> None:
    """Only the current text in the repository. The hunk's leading context is not the file's
    lines before the `break` its trailing context fits, but it is the file's lines two lines
    up (its `if` now an `elif`), with `break` and `else:` between them and the change: the
    file gained lines next to the change since (a conflict for git merge-file), not a side
    the model invented (invented lines are nowhere in the file). Before, the insertion went
    into the new `else:` branch; refused now, naming the lines between."""
    repo = make_repo(tmp_path / "r", {"scan.py": SCAN_NOW})
    error = refused(repo, without_index("scan.py", SCAN, SCAN_WANTED), "context_not_found")
    assert "away from the change" in error.message
    assert (repo / "scan.py").read_text() == SCAN_NOW
