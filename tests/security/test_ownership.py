"""A repository owned by another user is refused as git refuses it ("dubious ownership").

The repositories are real and really owned by another uid (os.chown; the tests run as root
here and in CI, and skip, saying why, only where the process cannot chown). Each
configuration is also tried with git itself, and holon-git must agree with it: refuse
(`unsafe_repository`, every target and --recover, nothing changed) exactly when git does.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from repos.builders import git, git_env, make_bare_repo, make_repo, snapshot_all

from holon_git import apply_patch
from holon_git.api import recover
from holon_git.errors import PatchError

OTHER = 54321  # a uid that is not the test process's
PATCH = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"


def _can_chown(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.write_text("x")
    try:
        os.chown(probe, OTHER, -1)
    except PermissionError:
        return False
    return True


@pytest.fixture(autouse=True)
def _needs_chown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() == OTHER or not _can_chown(tmp_path):
        pytest.skip("this process cannot give files to another user (not root); the "
                    "ownership check needs a repository someone else owns")
    monkeypatch.delenv("SUDO_UID", raising=False)


def give_away(*paths: Path) -> None:
    """Everything at and below each path now belongs to OTHER."""
    for top in paths:
        os.lchown(top, OTHER, -1)
        if top.is_dir() and not top.is_symlink():
            for dirpath, dirnames, filenames in os.walk(top):
                for name in dirnames + filenames:
                    os.lchown(os.path.join(dirpath, name), OTHER, -1)


def git_accepts(repo: Path, env: dict[str, str] | None = None) -> bool:
    done = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=repo, capture_output=True,
                          env=git_env(env))
    assert done.returncode == 0 or b"dubious ownership" in done.stderr, done.stderr
    return done.returncode == 0


def holon_accepts(repo: Path, **options: object) -> bool:
    receipt = apply_patch(PATCH, repo, check=True, **options)  # type: ignore[arg-type]
    if receipt.error is None:
        return True
    assert receipt.error.code == "unsafe_repository", receipt.error
    return False


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\n"})
    give_away(repo)
    return repo


TARGETS = [{}, {"check": True}, {"target": "index"}, {"target": "both"},
           {"commit": True, "message": "m"}, {"ref": "main", "message": "m"}]


@pytest.mark.parametrize("options", TARGETS, ids=lambda o: "-".join(map(str, o)) or "worktree")
def test_every_target_refuses_a_foreign_repository(foreign: Path, options: dict[str, object]):
    assert not git_accepts(foreign)
    before = snapshot_all(foreign)
    receipt = apply_patch(PATCH, foreign, **options)  # type: ignore[arg-type]
    assert receipt.error is not None and receipt.error.code == "unsafe_repository", \
        receipt.to_json()
    assert f"safe.directory {os.path.realpath(foreign)}" in receipt.error.hint
    assert snapshot_all(foreign) == before


def test_recover_refuses_and_restores_nothing(foreign: Path):
    old, new = b"one\ntwo\n", b"half written\n"
    (foreign / "f.txt").write_bytes(new)
    txid = "1700000000-4242-deadbeef"
    where = foreign / ".git" / "holon-apply" / txid
    where.mkdir(parents=True)
    (where / "preimages").write_bytes(old)
    sha = hashlib.sha256
    (where / "journal.json").write_text(json.dumps({
        "txid": txid, "new_dirs": [], "root": "", "pid": 1, "created": 1.0, "version": 1,
        "entries": [{"path": "f.txt", "before_sha": sha(old).hexdigest(),
                     "after_sha": sha(new).hexdigest(), "perm": 0o644, "offset": 0,
                     "size": len(old)}]}))
    give_away(foreign)
    before = snapshot_all(foreign)
    with pytest.raises(PatchError) as caught:
        recover(foreign)
    assert caught.value.code == "unsafe_repository"
    assert snapshot_all(foreign) == before


def test_cli_refuses_with_gits_advice(foreign: Path):
    before = snapshot_all(foreign)
    done = subprocess.run([sys.executable, "-m", "holon_git", "--json", "-"], cwd=foreign,
                          input=PATCH.encode(), capture_output=True, timeout=60)
    assert done.returncode == 1, done
    assert b"Traceback" not in done.stderr
    assert b"error: unsafe_repository:" in done.stderr and b"dubious ownership" in done.stderr
    assert f"git config --global --add safe.directory {os.path.realpath(foreign)}".encode() \
        in done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "unsafe_repository"
    assert snapshot_all(foreign) == before


def _global_config(tmp_path: Path, *values: str) -> dict[str, str]:
    config = tmp_path / "global.gitconfig"
    config.write_text("[safe]\n" + "".join(f"\tdirectory = {v}\n" for v in values))
    return {"GIT_CONFIG_GLOBAL": str(config)}


def configurations(repo: Path, tmp_path: Path) -> dict[str, dict[str, str]]:
    real = os.path.realpath(repo)
    return {
        "nothing": {},
        "global_path": _global_config(tmp_path, real),
        "global_star": _global_config(tmp_path, "*"),
        "global_other_path": _global_config(tmp_path, "/somewhere/else"),
        "global_reset": _global_config(tmp_path, real, ""),
        "global_reset_then_star": _global_config(tmp_path, "", "*"),
        "command_line": {"GIT_CONFIG_PARAMETERS": f"'safe.directory'='{real}'"},
        "command_line_star": {"GIT_CONFIG_PARAMETERS": "'safe.directory'='*'"},
        "config_count": {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory",
                         "GIT_CONFIG_VALUE_0": "*"},
        "sudo_uid_owner": {"SUDO_UID": str(OTHER)},
        "sudo_uid_other": {"SUDO_UID": str(OTHER + 1)},
        "explicit_git_dir": {"GIT_DIR": str(repo / ".git"), "GIT_WORK_TREE": str(repo)},
    }


@pytest.mark.parametrize("name", ["nothing", "global_path", "global_star",
                                  "global_other_path", "global_reset",
                                  "global_reset_then_star", "command_line",
                                  "command_line_star", "config_count", "sudo_uid_owner",
                                  "sudo_uid_other", "explicit_git_dir"])
def test_safe_directory_and_sudo_as_git_reads_them(foreign: Path, tmp_path: Path, name: str,
                                                   monkeypatch: pytest.MonkeyPatch):
    env = configurations(foreign, tmp_path)[name]
    expected = git_accepts(foreign, env)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert holon_accepts(foreign) == expected
    assert holon_accepts(foreign, target="index") == expected


def test_the_repositorys_own_config_cannot_vouch_for_it(foreign: Path):
    """safe.directory in .git/config (written by whoever owns the repository) is ignored."""
    with open(foreign / ".git" / "config", "a") as fh:
        fh.write("[safe]\n\tdirectory = *\n")
    assert not git_accepts(foreign)
    assert not holon_accepts(foreign)


@pytest.mark.parametrize("owned_by_other", ["git_dir", "work_tree", "gitfile"])
def test_each_part_must_be_owned(tmp_path: Path, owned_by_other: str):
    """The working tree, the git directory and the file pointing to it are each checked."""
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main", "--separate-git-dir", str(tmp_path / "store"))
    (repo / "f.txt").write_text("one\ntwo\n")
    git(repo, "add", "f.txt")
    git(repo, "commit", "-q", "-m", "initial")
    part = {"git_dir": tmp_path / "store", "work_tree": repo, "gitfile": repo / ".git"}
    os.lchown(part[owned_by_other], OTHER, -1)
    assert not git_accepts(repo)
    assert not holon_accepts(repo)


def test_a_foreign_bare_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    bare = make_bare_repo(tmp_path / "srv.git", {"f.txt": "one\ntwo\n"})
    give_away(bare)
    assert not git_accepts(bare)
    assert not holon_accepts(bare, ref="main", message="m")
    env = _global_config(tmp_path, os.path.realpath(bare))  # a bare one names its git dir
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", env["GIT_CONFIG_GLOBAL"])
    assert git_accepts(bare, env)
    assert holon_accepts(bare, ref="main", message="m")


@pytest.mark.parametrize("owned", ["link", "repository"])
def test_reached_through_a_link_the_real_directory_counts(tmp_path: Path, owned: str):
    """git resolves its working directory: the owner of a link on the way does not matter,
    the owner of the repository it leads to does."""
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\n"})
    link = tmp_path / "alias"
    os.symlink(repo, link)
    if owned == "link":
        os.lchown(link, OTHER, -1)
    else:
        give_away(repo)
    assert git_accepts(link) == (owned == "link")
    assert holon_accepts(link) == (owned == "link")
