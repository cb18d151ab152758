"""A git directory inside the working tree under another name is as off limits as `.git`.

The dotfiles layout (`git --git-dir=.cfg --work-tree=.`), `git init --separate-git-dir`,
core.worktree, a linked worktree holding its common directory, and GIT_DIR naming a gitfile:
a patch that would write a hook or a config line into that directory is refused with
`path_escape` by every target and by --check, and nothing anywhere changes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import refused as refused_patch
from layouts import LAYOUTS, Layout
from repos.builders import git

from holon_git import apply_patch

HOOK = "#!/bin/sh\necho PWNED >&2\n"


def add(path: str) -> str:
    lines = "".join(f"+{line}\n" for line in HOOK.splitlines())
    return f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,2 @@\n{lines}"


def modify_config(path: str) -> str:
    return (f"--- a/{path}\n+++ b/{path}\n@@ -1 +1,2 @@\n [core]\n"
            "+\tfsmonitor = \"echo PWNED\"\n")


def delete_head(path: str) -> str:
    return f"--- a/{path}\n+++ /dev/null\n@@ -1 +0,0 @@\n-ref: refs/heads/main\n"


def rename_into(path: str) -> str:
    return (f"diff --git a/f.txt b/{path}\nsimilarity index 100%\nrename from f.txt\n"
            f"rename to {path}\n")


def envelope_add(path: str) -> str:
    body = "".join(f"+{line}\n" for line in HOOK.splitlines())
    return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"


PATCHES = {
    "add_hook": lambda g: add(f"{g}/hooks/pre-commit"),
    "add_new_dir": lambda g: add(f"{g}/info/sparse/x"),
    "modify_config": lambda g: modify_config(f"{g}/config"),
    "delete_head": lambda g: delete_head(f"{g}/HEAD"),
    "rename_into": lambda g: rename_into(f"{g}/hooks/post-checkout"),
    "envelope_add": lambda g: envelope_add(f"{g}/hooks/pre-commit"),
}

TARGETS = {
    "worktree": {},
    "check": {"check": True},
    "index": {"target": "index"},
    "index_check": {"target": "index", "check": True},
    "both": {"target": "both"},
    "commit": {"commit": True, "message": "planted"},
    "commit_cached": {"target": "index", "commit": True, "message": "planted"},
    "ref": {"ref": "main", "message": "planted"},
}


@pytest.fixture(params=sorted(LAYOUTS))
def layout(request: pytest.FixtureRequest, tmp_path: Path,
           monkeypatch: pytest.MonkeyPatch) -> Layout:
    made = LAYOUTS[request.param](tmp_path / "sentinel")
    for key, value in made.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(made.tree)
    return made


def refused(layout: Layout, patch: str, **options: object) -> None:
    """The shared helper (gitsupport.refused), comparing the whole layout."""
    refused_patch(layout.tree, patch, "path_escape", state=layout.state, **options)


# every kind of patch on the working tree; the hook on every target; the others on git's
CASES = sorted({(kind, "worktree") for kind in PATCHES}
               | {("add_hook", target) for target in TARGETS}
               | {(kind, "index") for kind in ("modify_config", "rename_into")}
               | {("modify_config", "ref")})


@pytest.mark.parametrize("kind, target", CASES)
def test_every_target_refuses_paths_into_the_git_dir(layout: Layout, kind: str, target: str):
    if target == "ref" and layout.name == "linked":
        options = {"ref": "work", "message": "planted"}  # the branch checked out there
    else:
        options = TARGETS[target]
    refused(layout, PATCHES[kind](layout.git_dir), **options)


def test_the_same_tree_still_takes_ordinary_patches(layout: Layout):
    """The guard refuses the git directory, not the working tree around it."""
    receipt = apply_patch("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n"
                          " three\n", layout.tree, commit=True, message="fine")
    assert receipt.ok, receipt.to_json()
    assert (layout.tree / "f.txt").read_text() == "one\nTWO\nthree\n"
    assert git(layout.tree, "status", "--porcelain", "--untracked-files=no",
               env=layout.env) == ""


@pytest.mark.slow
def test_cli_as_a_user_runs_it(layout: Layout):
    """`git --git-dir=... holon-apply` (or the layout's own way): exit 1, path_escape, no
    hook planted, and git's next commit runs no hook of the patch's."""
    before = layout.state()
    done = layout.run("--json", "-", input=add(f"{layout.git_dir}/hooks/pre-commit").encode())
    assert done.returncode == 1, done
    assert b"error: path_escape:" in done.stderr and b"Traceback" not in done.stderr
    assert b'"code": "path_escape"' in done.stdout
    assert layout.state() == before
    hooks = layout.tree / layout.git_dir / "hooks"
    assert not (hooks / "pre-commit").exists()


def test_a_gitfile_under_another_name_is_guarded_too(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch):
    """GIT_DIR=.gitlink: rewriting the file that points to the git directory would send git
    elsewhere; it is refused like the directory itself."""
    made = LAYOUTS["gitfile"](tmp_path / "sentinel")
    for key, value in made.env.items():
        monkeypatch.setenv(key, value)
    patch = ("--- a/.gitlink\n+++ b/.gitlink\n@@ -1 +1 @@\n-gitdir: gitstore\n"
             "+gitdir: /tmp/elsewhere\n")
    for options in ({}, {"check": True}, {"target": "index"}, {"target": "both"}):
        refused(made, patch, **options)


def test_the_working_tree_being_the_git_dir_is_refused(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch):
    """GIT_WORK_TREE pointing at the git directory itself: every path would be inside it."""
    made = LAYOUTS["dotfiles"](tmp_path / "sentinel")
    monkeypatch.setenv("GIT_DIR", made.env["GIT_DIR"])
    monkeypatch.setenv("GIT_WORK_TREE", made.env["GIT_DIR"])
    made.tree = made.tree / ".cfg"
    refused(made, add("hooks/pre-commit"))
    refused(made, add("hooks/pre-commit"), target="index")
