"""--stat, --numstat and --summary refuse a protected path as every other mode does (issue 35,
item 7).

They used to list the patch without asking the policy: a `*** Delete File:` of a protected
file printed its line count (read from the file), exit 0. Now the listing is refused with
`protected_path` on every target, and prints nothing of the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import everything

SECRET = "k1=a\nk2=b\nk3=c\nk4=d\nk5=e\nk6=f\nk7=g\n"
DELETE_SECRET = "*** Begin Patch\n*** Delete File: secret.env\n*** End Patch\n"
EDIT_SECRET = "--- a/secret.env\n+++ b/secret.env\n@@ -1 +1 @@\n-k1=a\n+k1=z\n"
LISTINGS = ("--stat", "--numstat", "--summary")
TARGETS = {"worktree": (), "cached": ("--cached",), "index": ("--index",),
           "ref": ("--ref", "main", "-m", "x")}


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"secret.env": SECRET, "open.txt": "one\ntwo\n", ".holon/protect": "secret.env\n"}


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("listing", LISTINGS)
@pytest.mark.parametrize("patch", [DELETE_SECRET, EDIT_SECRET], ids=["delete", "edit"])
def test_a_listing_of_a_protected_path_is_refused(repo: Path, listing: str, target: str,
                                                  patch: str):
    before = everything(repo)
    done = holon(repo, listing, *TARGETS[target], "-", stdin=patch)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "protected_path" in done.stderr
    assert done.stdout == ""  # no line count, no name
    assert everything(repo) == before


@pytest.mark.parametrize("listing", LISTINGS)
def test_reversed_it_is_refused_too(repo: Path, listing: str):
    done = holon(repo, listing, "-R", "-", stdin=EDIT_SECRET.replace("k1=a", "k1=q"))
    assert done.returncode == 1 and "protected_path" in done.stderr and done.stdout == ""


def test_beside_an_open_file_the_whole_listing_is_refused(repo: Path):
    both = DELETE_SECRET.replace("*** End Patch\n", "*** Delete File: open.txt\n*** End Patch\n")
    done = holon(repo, "--numstat", "-", stdin=both)
    assert done.returncode == 1 and done.stdout == ""


def test_an_open_file_is_still_listed(repo: Path):
    done = holon(repo, "--numstat", "-", stdin=DELETE_SECRET.replace("secret.env", "open.txt"))
    assert done.returncode == 0 and done.stdout == "0\t2\topen.txt\n", done.stderr


def test_a_target_that_cannot_open_here_still_has_heads_policy(repo: Path):
    """--ref of a branch checked out in another worktree cannot be opened; the listing is
    still held to HEAD's policy."""
    from repos.builders import git

    git(repo, "worktree", "add", "-q", "-b", "side", str(repo.parent / "wt"))
    done = holon(repo.parent / "wt", "--numstat", "--ref", "main", "-m", "x", "-",
                 stdin=DELETE_SECRET)
    assert done.returncode == 1 and "protected_path" in done.stderr and done.stdout == ""
