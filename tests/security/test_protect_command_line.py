"""holon.protect given on git's command line is honoured, and patterns follow core.ignorecase.

`git -c holon.protect=PATTERN holon-apply ...` hands the setting down as
GIT_CONFIG_PARAMETERS (and scripts use GIT_CONFIG_COUNT/KEY_n/VALUE_n); libgit2 reads neither.
Every target, --check and the protect-check hook must refuse a protected path from there as
from a config file, and change nothing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gitsupport import everything, refused
from repos.builders import git, git_env

from holon_git import apply_patch

FILES = {"secret.txt": "key=1\n", "f.txt": "one\ntwo\n"}
TOUCH_SECRET = "--- a/secret.txt\n+++ b/secret.txt\n@@ -1 +1 @@\n-key=1\n+key=2\n"
RENAME_SECRET = ("diff --git a/secret.txt b/public.txt\nsimilarity index 100%\n"
                 "rename from secret.txt\nrename to public.txt\n")
ADD_UPPER = "--- /dev/null\n+++ b/SECRET.TXT\n@@ -0,0 +1 @@\n+shadow\n"
ADD_POLICY = "--- /dev/null\n+++ b/.HOLON/PROTECT\n@@ -0,0 +1 @@\n+# nothing\n"
TARGETS = {"worktree": {}, "check": {"check": True}, "index": {"target": "index"},
           "both": {"target": "both"}, "commit": {"commit": True, "message": "m"},
           "ref": {"ref": "main", "message": "m"}}
PARAMETERS = {
    "parameters": {"GIT_CONFIG_PARAMETERS": "'holon.protect'='secret.txt'"},
    "parameters_old_style": {"GIT_CONFIG_PARAMETERS": "'holon.protect=secret.txt'"},
    "parameters_glob_among_others": {"GIT_CONFIG_PARAMETERS":
                                     "'user.name'='x' 'Holon.Protect'='*.txt'"},
    "count": {"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "core.quotepath",
              "GIT_CONFIG_VALUE_0": "false", "GIT_CONFIG_KEY_1": "holon.protect",
              "GIT_CONFIG_VALUE_1": "secret.txt"},
}


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return FILES




# every form on the working tree; the usual form on every target
CASES = sorted({(how, "worktree") for how in PARAMETERS}
               | {("parameters", target) for target in TARGETS})


@pytest.mark.parametrize("how, target", CASES)
def test_command_line_protect_on_every_target(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                              how: str, target: str):
    for key, value in PARAMETERS[how].items():
        monkeypatch.setenv(key, value)
    refused(repo, TOUCH_SECRET, "protected_path", **TARGETS[target])
    refused(repo, RENAME_SECRET, "protected_path", **TARGETS[target])


@pytest.mark.slow
@pytest.mark.parametrize("options", [[], ["--cached"], ["--commit", "-m", "m"],
                                     ["--ref", "main", "-m", "m"]])
def test_git_dash_c_through_real_git(repo: Path, options: list[str]):
    """As a user types it: git turns -c into GIT_CONFIG_PARAMETERS for the subcommand."""
    before = everything(repo)
    done = subprocess.run(["git", "-c", "holon.protect=secret.txt", "holon-apply", *options,
                           "-"], cwd=repo, input=TOUCH_SECRET.encode(), capture_output=True,
                          env=git_env())
    assert done.returncode == 1, done
    assert b"error: protected_path:" in done.stderr and b"Traceback" not in done.stderr
    assert everything(repo) == before


def test_protect_check_hook_honours_the_command_line(repo: Path):
    (repo / "secret.txt").write_text("key=2\n")
    git(repo, "add", "secret.txt")
    done = subprocess.run(["git", "-c", "holon.protect=secret.txt", "holon-apply",
                           "protect-check"], cwd=repo, capture_output=True, env=git_env())
    assert done.returncode == 1 and b"secret.txt" in done.stderr, done


@pytest.mark.parametrize("bad", ["'holon.protect", "'holon.protect'x", "holon.protect=a",
                                 "'nodot'='x'"])
def test_a_malformed_command_line_is_refused_not_ignored(repo: Path, bad: str,
                                                         monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", bad)
    refused(repo, TOUCH_SECRET, "usage_error")


def test_a_bogus_count_is_refused(repo: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GIT_CONFIG_COUNT", "two")
    refused(repo, TOUCH_SECRET, "usage_error")


@pytest.mark.parametrize("where", ["repository", "command_line"])
@pytest.mark.parametrize("target", ["worktree", "index", "ref"])
def test_patterns_follow_core_ignorecase(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                         where: str, target: str):
    git(repo, "config", "holon.protect", "Secret.Txt")
    options = TARGETS[target]
    receipt = apply_patch(TOUCH_SECRET, repo, check=True,
                          **{k: v for k, v in options.items() if k != "check"})
    assert receipt.ok, "case matters while core.ignorecase is off"
    if where == "repository":
        git(repo, "config", "core.ignorecase", "true")
    else:
        monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.ignorecase'='true'")
    refused(repo, TOUCH_SECRET, "protected_path", **options)
    refused(repo, ADD_UPPER, "protected_path", **options)
    refused(repo, ADD_POLICY, "protected_path", **options)


def test_the_command_line_can_switch_ignorecase_off(repo: Path,
                                                    monkeypatch: pytest.MonkeyPatch):
    git(repo, "config", "holon.protect", "Secret.Txt")
    git(repo, "config", "core.ignorecase", "true")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.ignorecase'='false'")
    assert apply_patch(TOUCH_SECRET, repo, check=True).ok
