"""A nested repository's git directory, under any name, is off limits (issue 28, item 9).

The attack: a repository holding a bare repository as a fixture (`tests/fixtures/x.git`:
HEAD, objects/, refs/), or one a patch plants; a patch adds `x.git/hooks/post-checkout` or
changes `x.git/config` (`core.fsmonitor`), and the next git command run there runs it. git
refuses `.git` in any path component for this reason; holon-git refused only its own git
directory. Now every target refuses (`path_escape`) a path through a directory holding HEAD,
objects and refs, and a patch that would make one, and nothing changes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import everything
from repos.builders import git, make_repo

from holon_git import apply_patch
from holon_git.errors import PatchError
from holon_git.mcp_server.region import read_region

FIXTURE = "tests/fixtures/x.git"
HOOK = "#!/bin/sh\necho PWNED\n"


def add(path: str, body: str = HOOK) -> str:
    lines = "".join(f"+{line}\n" for line in body.splitlines())
    count = len(body.splitlines())
    return f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{count} @@\n{lines}"


def config_patch() -> str:
    return (f"--- a/{FIXTURE}/config\n+++ b/{FIXTURE}/config\n@@ -1 +1,2 @@\n [core]\n"
            "+\tfsmonitor = \"echo PWNED\"\n")


TARGETS = {"worktree": {}, "check": {"check": True}, "index": {"target": "index"},
           "both": {"target": "both"}, "commit": {"commit": True, "message": "m"},
           "ref": {"ref": "main", "message": "m"}}


@pytest.fixture
def repo_files() -> dict[str, str]:
    return {"README": "r\n"}


@pytest.fixture
def repo(repo: Path) -> Path:
    """The shared repository, committing a bare fixture repository too, with its config
    reduced to one line (so a patch can name it) and an empty hooks directory."""
    fixture = repo / FIXTURE
    git(repo, "init", "-q", "--bare", str(fixture))
    (fixture / "config").write_text("[core]\n")
    for sample in (fixture / "hooks").iterdir():
        sample.unlink()
    (fixture / "hooks" / "README").write_text("no hooks\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a fixture repository")
    return repo


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("patch", ["hook", "new_dir", "config"])
def test_writing_into_a_nested_git_directory_is_refused(repo: Path, target: str, patch: str):
    text = {"hook": add(f"{FIXTURE}/hooks/post-checkout"),
            "new_dir": add(f"{FIXTURE}/info/sparse/x"),
            "config": config_patch()}[patch]
    before = everything(repo)
    receipt = apply_patch(text, repo, **TARGETS[target])  # type: ignore[arg-type]
    assert receipt.error is not None and receipt.error.code == "path_escape", receipt.to_json()
    assert everything(repo) == before


def test_read_region_does_not_read_one(repo: Path):
    with pytest.raises(PatchError) as caught:
        read_region(str(repo), f"{FIXTURE}/config")
    assert caught.value.code == "path_escape"


PLANT = "".join(add(path, body) for path, body in (
    ("evil/HEAD", "ref: refs/heads/main\n"), ("evil/objects/info/packs", "\n"),
    ("evil/refs/heads/.keep", "\n"), ("evil/config", "[core]\n\tfsmonitor = \"echo PWNED\"\n")))


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_a_patch_that_would_make_a_git_directory_is_refused(repo: Path, target: str):
    before = everything(repo)
    receipt = apply_patch(PLANT, repo, **TARGETS[target])  # type: ignore[arg-type]
    assert receipt.error is not None and receipt.error.code == "path_escape", receipt.to_json()
    assert everything(repo) == before


@pytest.mark.parametrize("options", [{"atomic": False}, {"reject": True}],
                         ids=["no-atomic", "reject"])
def test_nor_file_by_file(repo: Path, options: dict[str, bool]):
    """--no-atomic and --reject write group by group: each is checked with what the groups
    before it wrote, so the part that would complete a git directory is refused (--no-atomic
    once wrote all of PLANT)."""
    receipt = apply_patch(PLANT, repo, **options)  # type: ignore[arg-type]
    assert receipt.error is not None and receipt.error.code == "path_escape", receipt.to_json()
    assert receipt.error.path == "evil"
    assert not (repo / "evil" / "refs").exists()  # HEAD and objects/ alone make none


def test_nor_piece_by_piece(repo: Path):
    """objects/ and refs/ first (no git directory yet: applied), then HEAD: refused."""
    first = add("evil/objects/info/packs", "\n") + add("evil/refs/heads/.keep", "\n")
    assert apply_patch(first, repo).ok
    before = everything(repo)
    receipt = apply_patch(add("evil/HEAD", "ref: refs/heads/main\n"), repo)
    assert receipt.error is not None and receipt.error.code == "path_escape"
    assert everything(repo) == before


def test_a_nested_repositorys_working_files_are_still_patched(tmp_path: Path):
    """Only the git directory is off limits: files that merely sit beside a HEAD file, or a
    directory named objects, are ordinary."""
    repo = make_repo(tmp_path / "r", {"docs/HEAD": "h\n", "docs/objects/a.txt": "a\n",
                                      "src/refs/b.txt": "b\n"})
    patch = ("--- a/docs/objects/a.txt\n+++ b/docs/objects/a.txt\n@@ -1 +1 @@\n-a\n+A\n"
             "--- a/docs/HEAD\n+++ b/docs/HEAD\n@@ -1 +1 @@\n-h\n+H\n")
    assert apply_patch(patch, repo).ok
    assert (repo / "docs/HEAD").read_text() == "H\n"


def test_a_bare_repositorys_branch_is_checked_in_its_tree(repo: Path, tmp_path: Path):
    """--ref on a bare clone: no working tree to walk, so the branch's own tree tells that
    tests/fixtures/x.git is a git directory; a hook there is refused, and so is one more
    piece of a git directory planted in the tree."""
    for kept in ("objects/info/packs", "refs/heads/main"):  # git tracks no empty folder
        (repo / FIXTURE / kept).write_text("\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the fixture's objects and refs")
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    before = everything(bare)
    for patch in (add(f"{FIXTURE}/hooks/post-checkout"), config_patch(),
                  add("evil/HEAD", "ref: refs/heads/main\n")):
        if patch.startswith("--- /dev/null\n+++ b/evil/"):
            first = add("evil/objects/info/packs", "\n") + add("evil/refs/heads/.keep", "\n")
            assert apply_patch(first, bare, ref="main", message="m").ok
            before = everything(bare)
        receipt = apply_patch(patch, bare, ref="main", message="m")
        assert receipt.error is not None and receipt.error.code == "path_escape", \
            receipt.to_json()
        assert everything(bare) == before
