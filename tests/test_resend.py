"""A re-sent patch never applies twice (issue 19): an agent's retry, run as a user runs it, on
real repositories, for every target. The first apply succeeds; the same patch sent again is
refused already_applied and changes nothing at all; -R undoes the first; -R again is
refused not_applied."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import everything
from repos.builders import git, git_env, make_repo

ABC = "alpha\nbeta\ngamma\n"
COPIES = "start\nx\nsame1\nsame2\nsame3\ny\nsame1\nsame2\nsame3\nend\n"

CASES = {
    # git diff of an append: the context survives the first apply
    "append": (ABC, "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n alpha\n beta\n gamma\n+delta\n",
               "alpha\nbeta\ngamma\ndelta\n"),
    "prepend": (ABC, "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n+zero\n alpha\n beta\n gamma\n",
                "zero\nalpha\nbeta\ngamma\n"),
    # placed by its line number among identical copies; re-sent, the other copy is unique
    "hinted copy": (COPIES, "--- a/f.txt\n+++ b/f.txt\n@@ -3,3 +3,3 @@\n same1\n-same2\n"
                            "+SAME2\n same3\n",
                    "start\nx\nsame1\nSAME2\nsame3\ny\nsame1\nsame2\nsame3\nend\n"),
    "envelope append": (ABC, "*** Begin Patch\n*** Update File: f.txt\n@@\n gamma\n+delta\n"
                             "*** End of File\n*** End Patch\n",
                        "alpha\nbeta\ngamma\ndelta\n"),
    "envelope insertion": (ABC, "*** Begin Patch\n*** Update File: f.txt\n@@\n alpha\n"
                                "+alpha2\n*** End Patch\n",
                           "alpha\nalpha2\nbeta\ngamma\n"),
}

TARGETS = {
    "worktree": [],
    "cached": ["--cached"],
    "index": ["--index"],
    "commit": ["--commit", "-m", "agent edit"],
    "ref": ["--ref", "side", "-m", "agent edit"],
}


def content(repo: Path, target: str) -> str:
    """f.txt as the target sees it."""
    if target == "worktree":
        return (repo / "f.txt").read_text()
    spec = {"cached": ":f.txt", "index": ":f.txt", "commit": "HEAD:f.txt",
            "ref": "side:f.txt"}[target]
    return git(repo, "show", spec)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", CASES)
def test_a_resent_patch_is_refused_and_changes_nothing(tmp_path: Path, case: str,
                                                        target: str):
    before_text, patch, after_text = CASES[case]
    repo = make_repo(tmp_path / "r", {"f.txt": before_text})
    git(repo, "branch", "side")
    args = TARGETS[target]
    first = holon(repo, *args, "-", stdin=patch)
    assert first.returncode == 0, first.stderr
    assert content(repo, target) == after_text
    state = everything(repo)
    again = holon(repo, *args, "-", stdin=patch)
    assert again.returncode == 1 and "already_applied" in again.stderr, again.stderr
    assert everything(repo) == state
    if target in ("commit", "ref"):
        return  # a commit is undone by another commit, not by -R of the same patch
    undone = holon(repo, "-R", *args, "-", stdin=patch)
    assert undone.returncode == 0, undone.stderr
    assert content(repo, target) == before_text
    state = everything(repo)
    twice = holon(repo, "-R", *args, "-", stdin=patch)
    assert twice.returncode == 1 and "not_applied" in twice.stderr, twice.stderr
    assert everything(repo) == state


def test_git_apply_refuses_the_append_too(tmp_path: Path):
    """The reference behaviour the append case follows: git's match_end."""
    before_text, patch, _ = CASES["append"]
    repo = make_repo(tmp_path / "r", {"f.txt": before_text})
    git(repo, "apply", "-", input=patch.encode())
    done = subprocess.run(["git", "apply", "--check", "-"], cwd=repo, input=patch.encode(),
                          capture_output=True, env=git_env())
    assert done.returncode != 0
    assert holon(repo, "-", stdin=patch).returncode == 1


def test_a_resent_crlf_patch_applied_with_a_tolerance_is_recognised(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": b"alpha\r\nbeta\r\ngamma\r\n"})
    patch = CASES["append"][1]  # LF lines against a CRLF file: line_endings tolerance
    assert holon(repo, "-", stdin=patch).returncode == 0
    assert (repo / "f.txt").read_bytes() == b"alpha\r\nbeta\r\ngamma\r\ndelta\r\n"
    state = everything(repo)
    again = holon(repo, "-", stdin=patch)
    assert again.returncode == 1 and "already_applied" in again.stderr
    assert everything(repo) == state


def test_a_fresh_deletion_from_a_run_of_blank_lines_still_applies(tmp_path: Path):
    """A new side inside the old side's match says nothing: no false already_applied."""
    repo = make_repo(tmp_path / "r", {"f.txt": "x\n\n\n"})
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -2,2 +2 @@\n \n-\n"
    assert holon(repo, "-", stdin=patch).returncode == 0
    assert (repo / "f.txt").read_text() == "x\n\n"


def test_a_fresh_deletion_is_not_taken_for_applied_by_a_looser_level(tmp_path: Path):
    """The new side is checked at claimed places no more loosely than the old side was found:
    here the old side matches exactly, and the new side's first line '    )' sits where the
    hunk would end only with indentation ignored (')'). Django 4.2 -> 5.0, forms/utils.py."""
    text = ("def f():\n    return g(\n        x,\n    )\n\n\nMSG = (\n    'a'\n    % v()\n"
            ")\n\n\nclass Mixin:\n    pass\n")
    repo = make_repo(tmp_path / "r", {"f.txt": text})
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -4,11 +4,4 @@\n     )\n \n \n-MSG = (\n-    'a'\n"
             "-    % v()\n-)\n-\n-\n class Mixin:\n     pass\n")
    done = holon(repo, "-", stdin=patch)
    assert done.returncode == 0, done.stderr
    assert (repo / "f.txt").read_text() == text.replace("MSG = (\n    'a'\n    % v()\n)\n\n\n",
                                                        "")
    again = holon(repo, "-", stdin=patch)
    assert again.returncode == 1 and "already_applied" in again.stderr, again.stderr


@pytest.mark.parametrize("target", ["worktree", "cached", "index"])
def test_a_resent_deletion_is_already_applied(tmp_path: Path, target: str):
    """The file is gone; the index, HEAD or the history log held exactly the deleted lines."""
    repo = make_repo(tmp_path / "r", {"f.txt": ABC, "g.txt": "g\n"})
    patch = "--- a/f.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-alpha\n-beta\n-gamma\n"
    assert holon(repo, *TARGETS[target], "-", stdin=patch).returncode == 0
    state = everything(repo)
    again = holon(repo, *TARGETS[target], "-", stdin=patch)
    assert again.returncode == 1 and "already_applied" in again.stderr, again.stderr
    assert everything(repo) == state
    other = patch.replace("-gamma", "-delta")  # not what was there: the path is wrong
    assert "not_found" in holon(repo, *TARGETS[target], "-", stdin=other).stderr


LISTS = "import os\n\nA = [\n    1,\n    2,\n]\n\nB = [\n    1,\n    2,\n]\n"
FIRST_COPY = "--- a/f.txt\n+++ b/f.txt\n@@ -4,3 +4,3 @@\n     1,\n-    2,\n+    20,\n ]\n"
IMPORTS = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,4 @@\n import os\n+import sys\n+import re\n \n"


@pytest.mark.parametrize("target", TARGETS)
def test_a_hinted_copy_resent_after_the_lines_moved_is_refused(tmp_path: Path, target: str):
    """Placed by its line number on the first of two copies, then an unrelated edit above
    moved the lines: the old lines are now unique at the second copy, but the new lines sit
    nearer the hunk's line number, so it was applied there (audit finding 02)."""
    repo = make_repo(tmp_path / "r", {"f.txt": LISTS})
    git(repo, "branch", "side")
    args = TARGETS[target]
    assert holon(repo, *args, "-", stdin=FIRST_COPY).returncode == 0
    assert holon(repo, *args, "-", stdin=IMPORTS).returncode == 0
    state = everything(repo)
    again = holon(repo, *args, "-", stdin=FIRST_COPY)
    assert again.returncode == 1 and "already_applied" in again.stderr, again.stderr
    assert "nearer its line number (4) than its old lines, at line 11" in again.stderr
    assert everything(repo) == state
    if target in ("commit", "ref"):
        return
    # the copy it changed, not the other one
    undone = holon(repo, "-R", *args, "-", stdin=FIRST_COPY)
    assert undone.returncode == 0, undone.stderr
    assert content(repo, target) == LISTS.replace("import os\n", "import os\nimport sys\n"
                                                  "import re\n")


def block_copies(gap: int) -> str:
    body = "".join(f"line {i}\n" for i in range(gap))
    return "top\n" + "same1\nsame2\nsame3\n" + body + "same1\nsame2\nsame3\n" + "end\n"


@pytest.mark.parametrize("by_hand", [False, True], ids=["shift-applied", "shift-by-hand"])
@pytest.mark.parametrize("copy", ["first", "second"])
@pytest.mark.parametrize("shift", [1, 3, 5, 9])
def test_a_hinted_copy_resent_after_a_shift(tmp_path: Path, copy: str, shift: int,
                                            by_hand: bool):
    """Two copies 9 lines apart (start to start), the hunk placed by its line number on one,
    then `shift` lines inserted above both. Re-sent: refused whenever the new lines sit
    nearer the line number than the other copy's old lines. When the other copy lies above
    and the shift carried it at least half-way to the line number, the file alone looks
    exactly like one where the patch is fresh and meant for that copy: the history log
    decides, when the shift went through this tool too (this tool's pre-image, patched, is
    the next pre-image it recorded), or, after a shift by hand, because it records this very
    patch for the path and its new lines are in the file away from the copy it would edit
    (applied.refuse_a_logged_resend; patch-format.md section 3, item 7)."""
    text = block_copies(6)
    start = 2 if copy == "first" else 11
    patch = (f"--- a/f.txt\n+++ b/f.txt\n@@ -{start},3 +{start},3 @@\n"
             " same1\n-same2\n+SAME2\n same3\n")
    repo = make_repo(tmp_path / "r", {"f.txt": text})
    first = holon(repo, "-", stdin=patch)
    assert first.returncode == 0 and "placed by line number" in first.stdout
    lines = "".join(f"new {i}\n" for i in range(shift))
    if by_hand:
        (repo / "f.txt").write_text(lines + (repo / "f.txt").read_text())
    else:
        shifted = holon(repo, "-", stdin=f"--- a/f.txt\n+++ b/f.txt\n@@ -1 +1,{shift + 1} @@\n"
                        + "".join(f"+{line}\n" for line in lines.splitlines()) + " top\n")
        assert shifted.returncode == 0, shifted.stderr
    state = everything(repo)
    again = holon(repo, "-", stdin=patch)
    assert again.returncode == 1 and "already_applied" in again.stderr, again.stderr
    assert everything(repo) == state


def test_a_resent_one_sided_deletion_in_a_repository_holding_only_its_result(
        tmp_path: Path) -> None:
    """A deletion with trailing context only, applied and committed, sent again with no
    history log and no other version to merge from: its old side is nowhere, its new side
    (the context alone) is in the file, and its removed line is still in the file further
    down (another copy). The hunk rules tell it applied; the last rungs must not read it
    again, or they delete the other copy (a change made twice). Kept so after a measured
    attempt (2026-12-08) let such a hunk's context count only at a file edge: it made this
    wrong edit."""
    applied_text = "start\n}\nmiddle\nvalue = compute_total(items)\nend\n"
    repo = make_repo(tmp_path / "r", {"f.py": applied_text})
    patch = "--- a/f.py\n+++ b/f.py\n@@ -2,2 +2,1 @@\n-value = compute_total(items)\n }\n"
    state = everything(repo)
    again = holon(repo, "-", stdin=patch)
    assert again.returncode == 1 and "already_applied" in again.stderr, again.stderr
    assert everything(repo) == state
