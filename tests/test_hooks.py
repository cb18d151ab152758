"""patch-check, protect-check, install-hooks and the plain git hooks, run by real git commits."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clisupport import holon
from repos.builders import git, git_env, git_state, snapshot

from holon_git.hooks.install import install_hooks
from holon_git.hooks.scripts import HOOKS, MARKER, NAMES, script

GOOD = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
BAD = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\nb\n-x\n+B\n"  # line 5: lost its prefix
BAD_LINE = ("bad.diff:5: malformed_hunk: hunk 1 of f.txt: line 'b' inside hunk 1 is not a "
            "context, removed or added line (every hunk body line starts with ' ' (context), "
            "'-' (remove) or '+' (add); re-emit the hunk with each line's prefix)")
BIN = str(Path(sys.executable).parent)  # where this environment's git-holon-apply lives
COMMAND = os.path.join(BIN, "git-holon-apply")
# the hooks install-hooks writes here: calling this environment's command by its path
INSTALLED = {name: script(name, COMMAND) for name in NAMES}


def hook_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """git's environment for commits that run hooks calling `git holon-apply` from here."""
    env = git_env(extra)
    env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
    return env


def commit(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "commit", "-q", "-m", "change", *args], cwd=repo,
                          capture_output=True, text=True, env=hook_env())


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f.txt": "a\nb\n"}


# patch-check

def test_patch_check_named_files(repo: Path):
    (repo / "good.patch").write_text(GOOD)
    (repo / "bad.diff").write_text(BAD)
    ok = holon(repo, "patch-check", "good.patch")
    assert ok.returncode == 0 and ok.stdout == ok.stderr == ""
    done = holon(repo, "patch-check", "good.patch", "bad.diff")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [BAD_LINE]


@pytest.mark.parametrize("apply_check", [[], ["--apply-check"]])
def test_patch_check_reports_a_binary_or_mode_only_file_patch(repo: Path, apply_check: list[str]):
    """Read but not applied (parse/left_out.py): still a problem of the patch file, once."""
    (repo / "bin.diff").write_text(GOOD.replace("--- a/f.txt", "diff --git a/f.txt b/f.txt\n"
                                                "--- a/f.txt") + "diff --git a/x.bin b/x.bin\n"
                                   "Binary files a/x.bin and b/x.bin differ\n"
                                   "diff --git a/f.txt b/f.txt\nold mode 100644\nnew mode "
                                   "100755\n")
    done = holon(repo, "patch-check", *apply_check, "bin.diff")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert [line.split(": ")[:2] for line in lines] == [
        ["bin.diff:8", "unsupported_git_patch_feature"],
        ["bin.diff:10", "unsupported_git_patch_feature"]], lines


def test_patch_check_reports_one_line_per_bad_file(repo: Path):
    (repo / "bad.diff").write_text(BAD)
    (repo / "empty.patch").write_text("Sure! Here is the fix.\n")
    (repo / "header.patch").write_text("--- a/f.txt\n+++ b/f.txt\n@@ line 3 @@\n-a\n+b\n")
    done = holon(repo, "patch-check", "bad.diff", "empty.patch", "header.patch")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 3
    assert lines[0] == BAD_LINE
    assert lines[1].startswith("empty.patch:1: empty_patch: ")
    assert lines[2].startswith("header.patch:3: invalid_hunk_header: ")
    assert all(line.endswith(")") and " (" in line for line in lines)


def test_patch_check_default_reads_staged_content_not_the_working_tree(repo: Path):
    (repo / "p.diff").write_text(BAD)
    git(repo, "add", "p.diff")
    (repo / "p.diff").write_text(GOOD)  # fixed on disk, but not staged
    done = holon(repo, "patch-check")
    assert done.returncode == 1
    assert done.stderr.startswith("p.diff:5: malformed_hunk: ")
    git(repo, "add", "p.diff")
    (repo / "p.diff").write_text(BAD)  # broken on disk, good as staged
    assert holon(repo, "patch-check").returncode == 0


def test_patch_check_default_skips_other_and_deleted_files(repo: Path):
    (repo / "old.patch").write_text(BAD)
    git(repo, "add", "old.patch")
    git(repo, "commit", "-q", "--no-verify", "-m", "old")
    git(repo, "rm", "-q", "old.patch")  # a staged deletion has nothing to check
    (repo / "notes.txt").write_text(BAD)  # not a patch file by name
    (repo / "sub").mkdir()
    (repo / "sub" / "UPPER.PATCH").write_text(GOOD)
    git(repo, "add", "notes.txt", "sub/UPPER.PATCH")
    assert holon(repo, "patch-check").returncode == 0
    (repo / "sub" / "UPPER.PATCH").write_text(BAD)
    git(repo, "add", "sub/UPPER.PATCH")
    done = holon(repo, "patch-check")
    assert done.returncode == 1 and done.stderr.startswith("sub/UPPER.PATCH:5: ")


def test_patch_check_outside_a_repository(tmp_path: Path):
    done = holon(tmp_path, "patch-check")
    assert done.returncode == 1
    assert done.stderr.startswith("error: not_a_repository: ")


# install-hooks

def test_install_hooks_writes_executable_scripts_and_is_idempotent(repo: Path):
    state = git_state(repo)
    done = holon(repo, "install-hooks")
    assert done.returncode == 0, done.stderr
    hooks = repo / ".git" / "hooks"
    assert done.stdout.splitlines() == [f"installed: {hooks / name}" for name in HOOKS]
    for name, text in INSTALLED.items():
        assert (hooks / name).read_text() == text
        assert f"\nINSTALLED={COMMAND}\n" in text
        assert os.access(hooks / name, os.X_OK)
    again = holon(repo, "install-hooks")
    assert again.stdout.splitlines() == [f"unchanged: {hooks / name}" for name in HOOKS]
    assert git_state(repo) == state


def test_install_hooks_never_overwrites_a_foreign_hook_without_force(repo: Path):
    hooks = repo / ".git" / "hooks"
    (hooks / "pre-merge-commit").write_text("#!/bin/sh\nmake lint\n")
    done = holon(repo, "install-hooks")
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: hook_exists: {hooks / 'pre-merge-commit'}: ")
    # all or nothing: the pre-commit hook was not installed either
    assert not (hooks / "pre-commit").exists()
    assert (hooks / "pre-merge-commit").read_text() == "#!/bin/sh\nmake lint\n"
    assert holon(repo, "install-hooks", "pre-commit").returncode == 0  # just the free one
    forced = holon(repo, "install-hooks", "--force")
    assert forced.returncode == 0
    assert forced.stdout.splitlines() == [f"unchanged: {hooks / 'pre-commit'}",
                                          f"replaced: {hooks / 'pre-merge-commit'}"]
    assert (hooks / "pre-merge-commit").read_text() == INSTALLED["pre-merge-commit"]


def test_install_hooks_names_the_pre_commit_framework(repo: Path):
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n")
    done = holon(repo, "install-hooks", "pre-commit")
    assert done.returncode == 1 and ".pre-commit-config.yaml" in done.stderr


def test_install_hooks_replaces_a_symlink_without_writing_through_it(repo: Path, tmp_path: Path):
    elsewhere = tmp_path / "shared-hook"
    elsewhere.write_text("#!/bin/sh\nexit 0\n")
    link = repo / ".git" / "hooks" / "pre-commit"
    link.symlink_to(elsewhere)
    assert holon(repo, "install-hooks", "pre-commit").returncode == 1
    assert link.is_symlink()
    assert holon(repo, "install-hooks", "pre-commit", "--force").returncode == 0
    assert not link.is_symlink() and link.read_text() == INSTALLED["pre-commit"]
    assert elsewhere.read_text() == "#!/bin/sh\nexit 0\n"


def test_install_hooks_honours_core_hooks_path(repo: Path):
    git(repo, "config", "core.hooksPath", "tools/githooks")
    (repo / "sub").mkdir()
    done = holon(repo / "sub", "install-hooks", "pre-commit")
    assert done.returncode == 0, done.stderr
    assert (repo / "tools" / "githooks" / "pre-commit").read_text() == INSTALLED["pre-commit"]
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()


def test_install_hooks_unknown_name_is_a_usage_error(repo: Path):
    before = snapshot(repo)
    done = holon(repo, "install-hooks", "post-commit")
    assert done.returncode == 2 and "usage_error" in done.stderr
    assert snapshot(repo) == before


def test_shipped_hook_scripts_are_the_installed_ones():
    root = Path(__file__).resolve().parent.parent
    for name, text in HOOKS.items():
        assert (root / "hooks" / name).read_text() == text
        assert os.access(root / "hooks" / name, os.X_OK)
        assert MARKER in text


# the plain hooks, run by git itself

@pytest.mark.slow
def test_pre_commit_hook_refuses_a_bad_staged_patch(repo: Path):
    assert holon(repo, "install-hooks").returncode == 0
    (repo / "bad.diff").write_text(BAD)
    git(repo, "add", "bad.diff")
    head = git(repo, "rev-parse", "HEAD")
    done = commit(repo)
    assert done.returncode != 0
    assert BAD_LINE in done.stderr
    assert git(repo, "rev-parse", "HEAD") == head
    (repo / "bad.diff").write_text(GOOD)
    git(repo, "add", "bad.diff")
    done = commit(repo)
    assert done.returncode == 0, done.stderr
    assert git(repo, "rev-parse", "HEAD") != head


@pytest.mark.slow
def test_pre_commit_hook_checks_the_index_git_commit_a_builds(repo: Path):
    """`git commit -a` stages into a temporary index (GIT_INDEX_FILE); the hook must see it."""
    (repo / "p.diff").write_text(GOOD)
    git(repo, "add", "p.diff")
    git(repo, "commit", "-q", "-m", "good patch")
    assert holon(repo, "install-hooks").returncode == 0
    (repo / "p.diff").write_text(BAD)  # modified, not staged: only -a stages it
    (repo / "f.txt").write_text("a\nb\nc\n")
    git(repo, "add", "f.txt")
    done = commit(repo)  # the real index still holds the good p.diff
    assert done.returncode == 0, done.stderr
    (repo / "f.txt").write_text("a\nb\nc\nd\n")
    head = git(repo, "rev-parse", "HEAD")
    done = commit(repo, "-a")
    assert done.returncode != 0 and "p.diff:5: malformed_hunk" in done.stderr
    assert git(repo, "rev-parse", "HEAD") == head


def without_holon_on_path() -> dict[str, str]:
    """git's environment with no git-holon-apply on PATH: a shell where the venv is not active."""
    env = git_env()
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not (Path(p) / "git-holon-apply").exists())
    return env


@pytest.mark.slow
def test_installed_hook_runs_the_installing_command_without_path(repo: Path):
    """A commit from a shell where holon-git's environment is not active is still checked."""
    assert holon(repo, "install-hooks", "pre-commit").returncode == 0
    (repo / "bad.diff").write_text(BAD)
    git(repo, "add", "bad.diff")
    env = without_holon_on_path()
    done = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=repo, capture_output=True,
                          text=True, env=env)
    assert done.returncode != 0
    assert BAD_LINE in done.stderr
    (repo / "bad.diff").write_text(GOOD)
    git(repo, "add", "bad.diff")
    done = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=repo, capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0, done.stderr


def test_hook_falls_back_to_path_when_its_command_is_gone(repo: Path, tmp_path: Path):
    (tmp_path / "old-venv").mkdir()
    gone = tmp_path / "old-venv" / "git-holon-apply"
    shutil.copy2(COMMAND, gone)
    install_hooks(str(repo), ("pre-commit",), command=str(gone))
    assert f"INSTALLED={gone}\n" in (repo / ".git" / "hooks" / "pre-commit").read_text()
    gone.unlink()  # the environment that installed the hook was removed
    (repo / "bad.diff").write_text(BAD)
    git(repo, "add", "bad.diff")
    done = commit(repo)  # PATH has this environment's git-holon-apply
    assert done.returncode != 0
    assert BAD_LINE in done.stderr
    done = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=repo, capture_output=True,
                          text=True, env=without_holon_on_path())
    assert done.returncode != 0
    assert (f"holon-git hook: git-holon-apply is not on PATH and {gone} is gone; install "
            "holon-git, or remove .git/hooks/pre-commit to stop running this hook"
            in done.stderr), done.stderr


def test_reinstalling_from_another_environment_updates_the_hook(repo: Path, tmp_path: Path):
    hooks = repo / ".git" / "hooks"
    install_hooks(str(repo), command=str(tmp_path / "old-venv" / "git-holon-apply"))
    done = holon(repo, "install-hooks")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"updated: {hooks / name}" for name in NAMES]
    assert all((hooks / name).read_text() == INSTALLED[name] for name in NAMES)
    # one that was edited is not holon-git's to replace any more
    (hooks / "pre-commit").write_text(INSTALLED["pre-commit"] + "make lint\n")
    done = holon(repo, "install-hooks", "pre-commit")
    assert done.returncode == 1
    assert "holon-git's, but edited or written by another version: --force" in done.stderr
    assert (hooks / "pre-commit").read_text().endswith("make lint\n")


# protect-check

def test_protect_check_refuses_staged_changes_to_protected_paths(repo: Path):
    git(repo, "config", "--add", "holon.protect", "ci/")
    git(repo, "config", "--add", "holon.protect", "*.lock")
    (repo / "ci").mkdir()
    (repo / "ci" / "run.sh").write_text("make\n")
    (repo / "deps.lock").write_text("x\n")
    (repo / "f.txt").write_text("changed\n")
    git(repo, "add", "-A")
    state = git_state(repo)
    done = holon(repo, "protect-check")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert [line.split(":")[0] for line in lines] == ["ci/run.sh", "deps.lock"]
    assert all(": protected_path: " in line and "--no-verify" in line for line in lines)
    assert git_state(repo) == state
    git(repo, "reset", "-q", "ci/run.sh", "deps.lock")
    assert holon(repo, "protect-check").returncode == 0


def test_protect_check_reads_the_committed_policy_file_and_protects_it(repo: Path):
    (repo / ".holon").mkdir()
    (repo / ".holon" / "protect").write_text("# secrets\nsecret/\n")
    git(repo, "add", "-A")
    done = holon(repo, "protect-check")  # the policy file itself is always protected
    assert done.returncode == 1 and done.stderr.startswith(".holon/protect: protected_path: ")
    git(repo, "commit", "-q", "--no-verify", "-m", "policy")
    (repo / "secret").mkdir()
    (repo / "secret" / "key").write_text("k\n")
    git(repo, "add", "-A")
    assert holon(repo, "protect-check").stderr.startswith("secret/key: protected_path: ")
    git(repo, "reset", "-q")
    git(repo, "rm", "-q", "f.txt")  # deletions count too
    git(repo, "config", "holon.protect", "f.txt")
    assert holon(repo, "protect-check").stderr.startswith("f.txt: protected_path: ")


def test_pre_commit_hook_refuses_protected_path_and_renames(repo: Path):
    assert holon(repo, "install-hooks").returncode == 0
    git(repo, "config", "holon.protect", "f.txt")
    git(repo, "mv", "f.txt", "g.txt")  # a rename touches both names
    head = git(repo, "rev-parse", "HEAD")
    done = commit(repo)
    assert done.returncode != 0 and "f.txt: protected_path: " in done.stderr
    assert git(repo, "rev-parse", "HEAD") == head


# --apply-check

def test_apply_check_uses_the_index_not_the_working_tree(repo: Path):
    (repo / "p.diff").write_text(GOOD)
    git(repo, "add", "p.diff")
    assert holon(repo, "patch-check", "--apply-check").returncode == 0
    (repo / "f.txt").write_text("a\nq\n")  # the working tree no longer matches the patch...
    assert holon(repo, "patch-check", "--apply-check").returncode == 0  # ...the index does
    git(repo, "add", "f.txt")
    done = holon(repo, "patch-check", "--apply-check")
    assert done.returncode == 1  # written against HEAD, it conflicts with the staged change
    assert done.stderr.startswith("p.diff:1: merge_conflict: f.txt: ")
    assert holon(repo, "patch-check").returncode == 0  # parsing alone is still fine


def test_apply_check_honours_git_index_file(repo: Path, tmp_path: Path):
    (repo / "p.diff").write_text(GOOD)
    git(repo, "add", "p.diff")
    other = tmp_path / "other-index"
    env = git_env({"GIT_INDEX_FILE": str(other)})
    subprocess.run(["git", "read-tree", "HEAD"], cwd=repo, env=env, check=True)
    blob = git(repo, "hash-object", "-w", "--stdin", input=b"a\nq\n").strip()
    subprocess.run(["git", "update-index", "--cacheinfo", f"100644,{blob},f.txt"], cwd=repo,
                   env=env, check=True)
    assert holon(repo, "patch-check", "--apply-check", "p.diff").returncode == 0
    done = holon(repo, "patch-check", "--apply-check", "p.diff", env=env)
    assert done.returncode == 1 and "merge_conflict" in done.stderr


@pytest.mark.slow
def test_plain_hook_apply_check_via_config(repo: Path):
    assert holon(repo, "install-hooks", "pre-commit").returncode == 0
    (repo / "p.diff").write_text(GOOD.replace("-b", "-q").replace(" a", " a"))
    git(repo, "add", "p.diff")
    assert commit(repo).returncode == 0  # parses: enough without holon.applyCheck
    git(repo, "config", "holon.applyCheck", "true")
    (repo / "p2.diff").write_text(GOOD.replace("-b", "-q"))
    git(repo, "add", "p2.diff")
    done = commit(repo)
    assert done.returncode != 0 and "p2.diff:3: context_not_found" in done.stderr
