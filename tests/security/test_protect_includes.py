"""holon.protect is read as git reads it, through every include (issue 42, item 3).

The attack: libgit2 follows neither `includeIf "hasconfig:remote.*.url:..."` nor a relative
`[include] path` of a GIT_CONFIG_GLOBAL file not named `.gitconfig` (it read that file through
a stand-in elsewhere): `git config --get-all holon.protect` listed the rule, and holon-git
wrote the protected file on every target while `protect-check` passed. Now the policy is read
by git itself whenever a config file may hold it (or an include), and a config git cannot
read refuses the apply (`config_unreadable`), changing nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import everything, refused
from repos.builders import git

from holon_git.mcp_server.calls import answer
from holon_git.mcp_server.tools import CHECK, check_arguments

FILES = {"secret.txt": "key=1\n", "f.txt": "one\n"}
TOUCH_SECRET = "--- a/secret.txt\n+++ b/secret.txt\n@@ -1 +1 @@\n-key=1\n+key=2\n"
TOUCH_OPEN = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-one\n+two\n"
TARGETS = {"worktree": {}, "check": {"check": True}, "index": {"target": "index"},
           "both": {"target": "both"}, "commit": {"commit": True, "message": "m"},
           "ref": {"ref": "main", "message": "m"}}


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    return FILES


def home_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gitconfig: str) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(gitconfig)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL")
    return home


def git_lists_the_rule(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The setup is real: git itself reads the rule (the fixture's git runs with the test's
    environment, HOME and GIT_CONFIG_GLOBAL included)."""
    import os
    import subprocess

    done = subprocess.run(["git", "config", "--get-all", "holon.protect"], cwd=repo,
                          capture_output=True, env=dict(os.environ), check=False)
    assert done.stdout == b"secret.txt\n", done


def refused_everywhere(repo: Path) -> None:
    before = everything(repo)
    for options in TARGETS.values():
        refused(repo, TOUCH_SECRET, "protected_path", **options)
    result = answer(CHECK, check_arguments(CHECK, {"patch": TOUCH_SECRET}), str(repo))
    assert result.structured["error"]["code"] == "protected_path"
    assert everything(repo) == before
    (repo / "secret.txt").write_text("key=3\n")
    git(repo, "add", "secret.txt", env=_env())
    done = holon(repo, "protect-check")
    assert done.returncode == 1 and "secret.txt: protected_path: " in done.stderr, done
    git(repo, "reset", "-q", "secret.txt", env=_env())
    git(repo, "checkout", "secret.txt", env=_env())


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k in ("HOME", "XDG_CONFIG_HOME")}


def test_include_if_hasconfig_remote_url(repo: Path, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch):
    rules = tmp_path / "work-rules.inc"
    rules.write_text("[holon]\n\tprotect = secret.txt\n")
    home_with(tmp_path, monkeypatch, '[includeIf "hasconfig:remote.*.url:https://'
              f'example.com/**"]\n\tpath = {rules}\n')
    git(repo, "remote", "add", "origin", "https://example.com/team/repo.git")
    git_lists_the_rule(repo, monkeypatch)
    refused_everywhere(repo)
    assert holon(repo, "-", stdin=TOUCH_OPEN).returncode == 0  # an open path still applies


def test_relative_include_of_a_global_file_not_named_gitconfig(repo: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch):
    settings = tmp_path / "settings"
    settings.mkdir()
    (settings / "protect.inc").write_text("[holon]\n\tprotect = secret.txt\n")
    (settings / "global.cfg").write_text("[include]\n\tpath = protect.inc\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(settings / "global.cfg"))
    git_lists_the_rule(repo, monkeypatch)
    refused_everywhere(repo)


def test_include_from_the_command_line(repo: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch):
    rules = tmp_path / "rules.inc"
    rules.write_text("[holon]\n\tprotect = secret.txt\n")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'include.path'='{rules}'")
    before = everything(repo)
    for options in TARGETS.values():
        refused(repo, TOUCH_SECRET, "protected_path", **options)
    assert everything(repo) == before


def test_a_config_git_cannot_read_refuses(repo: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch):
    """An include git cannot evaluate (here: a file git calls malformed) fails closed."""
    broken = tmp_path / "broken.inc"
    broken.write_text("[holon\n\tprotect = secret.txt\n")
    home_with(tmp_path, monkeypatch, f"[include]\n\tpath = {broken}\n")
    before = everything(repo)
    for options in TARGETS.values():
        err = refused(repo, TOUCH_OPEN, "config_unreadable", **options)
        assert "holon.protect" in err.message
    assert everything(repo) == before
    done = holon(repo, "protect-check")  # git itself refuses to list the staged changes
    assert done.returncode == 1 and "bad config line" in done.stderr, done
