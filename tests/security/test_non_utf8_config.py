"""git config values that are not UTF-8 never end in a traceback (issue 42, item 12).

The attack: `holon.protect` (or `user.name`) set to Latin-1 bytes in a config file: every
apply, `protect-check` (so every commit's hook) and the MCP server raised UnicodeDecodeError.
Now `holon.protect` is read as the bytes it is (a Latin-1 pattern protects the Latin-1 path it
names, as a path is held), and an identity that is not UTF-8 is refused `config_unreadable`
naming the key, changing nothing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import everything, refused
from repos.builders import git, git_env

from holon_git import apply_patch
from holon_git.mcp_server.calls import answer
from holon_git.mcp_server.tools import CHECK, check_arguments

LATIN1 = b"caf\xe9.txt"
TOUCH_LATIN1 = b"--- a/caf\xe9.txt\n+++ b/caf\xe9.txt\n@@ -1 +1 @@\n-key=1\n+key=2\n"
TOUCH_OPEN = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-one\n+two\n"
TARGETS = {"worktree": {}, "check": {"check": True}, "index": {"target": "index"},
           "both": {"target": "both"}, "commit": {"commit": True, "message": "m"},
           "ref": {"ref": "main", "message": "m"}}


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    return {"f.txt": "one\n"}


def add_latin1_file(repo: Path) -> None:
    (repo / LATIN1.decode("utf-8", "surrogateescape")).write_bytes(b"key=1\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, env=git_env(), check=True)
    subprocess.run(["git", "commit", "-qm", "latin-1"], cwd=repo, env=git_env(), check=True)


def append_config(repo: Path, text: bytes) -> None:
    with open(repo / ".git" / "config", "ab") as config:
        config.write(text)


@pytest.mark.parametrize("target", TARGETS)
def test_a_latin1_protect_pattern_protects_its_path(repo: Path, target: str):
    add_latin1_file(repo)
    append_config(repo, b"[holon]\n\tprotect = " + LATIN1 + b"\n")
    before = everything(repo)
    refused(repo, TOUCH_LATIN1, "protected_path", **TARGETS[target])
    assert everything(repo) == before
    receipt = apply_patch(TOUCH_OPEN, repo, **TARGETS[target])
    assert receipt.ok, receipt.to_json()


def test_protect_check_and_mcp_with_a_latin1_pattern(repo: Path):
    add_latin1_file(repo)
    append_config(repo, b"[holon]\n\tprotect = " + LATIN1 + b"\n")
    result = answer(CHECK, check_arguments(CHECK, {"patch": TOUCH_LATIN1.decode(
        "utf-8", "surrogateescape")}), str(repo))
    assert result.structured["error"]["code"] == "protected_path", result.structured
    assert holon(repo, "protect-check").returncode == 0  # nothing staged
    (repo / LATIN1.decode("utf-8", "surrogateescape")).write_bytes(b"key=3\n")
    git(repo, "add", "-A")
    done = holon(repo, "protect-check")
    assert done.returncode == 1 and "protected_path" in done.stderr, done
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("key", ["user.name", "user.email", "committer.name"])
def test_a_latin1_identity_is_refused_naming_the_key(repo: Path, key: str,
                                                     monkeypatch: pytest.MonkeyPatch):
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                 "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(name)
    git(repo, "config", "user.name", "Plain Name")
    git(repo, "config", "user.email", "plain@example.org")
    section, name = key.split(".")
    append_config(repo, f"[{section}]\n\t{name} = ".encode() + b"Jos\xe9\n")
    before = everything(repo)
    for options in (TARGETS["commit"], TARGETS["ref"]):
        err = refused(repo, TOUCH_OPEN, "config_unreadable", **options)
        assert key in err.message
    assert everything(repo) == before
    done = holon(repo, "--commit", "-m", "m", "-", stdin=TOUCH_OPEN)
    assert done.returncode == 1 and "config_unreadable" in done.stderr
    assert "Traceback" not in done.stderr
    assert apply_patch(TOUCH_OPEN, repo).ok  # the working tree needs no identity
