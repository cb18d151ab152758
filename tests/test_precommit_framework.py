"""The pre-commit framework (PyPI `pre-commit`) runs this repository's hooks for real.

pre-commit builds a virtualenv with holon-git in it (~10 s). `try-repo` always builds it in a
fresh temporary store, so it runs once here; the other cases use `pre-commit run` against a
snapshot of this working copy with one PRE_COMMIT_HOME cache for the whole run, its workers
included.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from repos.builders import git, git_env, make_repo

ROOT = Path(__file__).resolve().parent.parent
GOOD = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
BAD = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\nb\n-x\n+B\n"
# docs/hooks.md's configurations name these; the tests put a real clone and commit in their place
DOC_CLONE = "/home/me/src/holon-git"
DOC_REV = "0123456789abcdef0123456789abcdef01234567"
STALE = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-q\n+Q\n"  # parses, does not apply

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def pre_commit_env(home: Path) -> dict[str, str]:
    env = git_env({"PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"})
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def pre_commit(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=repo,
                          capture_output=True, text=True, env=pre_commit_env(home))


@pytest.fixture(scope="session")
def hook_repo(made_once: Callable[[str, Callable[[Path], None]], Path]) -> tuple[Path, str]:
    """This working copy (tracked and untracked, not ignored) committed in a scratch repo,
    one for the whole run (conftest.py), so that the cases on different workers share the
    one virtualenv pre-commit builds for it."""
    def commit_working_copy(directory: Path) -> None:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard"], cwd=ROOT, capture_output=True,
                                check=True, env=git_env()).stdout.decode().split("\0")
        files = {name: (ROOT / name).read_bytes() for name in listed
                 if name and (ROOT / name).is_file() and not name.startswith("fixtures/corpus")}
        make_repo(directory / "holon-git", files)

    repo = made_once("hook-repo", commit_working_copy) / "holon-git"
    return repo, git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="session")
def cache(made_once: Callable[[str, Callable[[Path], None]], Path]) -> Path:
    """One PRE_COMMIT_HOME for the run: pre-commit locks its store while it installs, so
    workers may share it."""
    return made_once("pre-commit-home", lambda home: home.mkdir())


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f.txt": "a\nb\n"}


def configure(repo: Path, hook_repo: tuple[Path, str], patch_args: str = "") -> None:
    path, rev = hook_repo
    args = f"\n        args: [{patch_args}]" if patch_args else ""
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {path}\n    rev: {rev}\n    hooks:\n"
        f"      - id: holon-patch-check{args}\n      - id: holon-protect\n")
    git(repo, "add", ".pre-commit-config.yaml")


@pytest.mark.slow
def test_try_repo_runs_both_hooks_failing_and_passing(repo: Path, tmp_path: Path):
    (repo / "bad.diff").write_text(BAD)
    git(repo, "add", "bad.diff")
    done = pre_commit(repo, tmp_path / "home", "try-repo", str(ROOT))
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "holon-git patch check" in out and "holon-git protected paths" in out
    assert "bad.diff:5: malformed_hunk: hunk 1 of f.txt:" in out
    lines = out.splitlines()
    assert any(line.startswith("holon-git patch check") and line.endswith("Failed")
               for line in lines)
    assert any(line.startswith("holon-git protected paths") and line.endswith("Passed")
               for line in lines)


@pytest.mark.slow
def test_run_passes_good_patch_and_fails_bad(repo: Path, hook_repo: tuple[Path, str],
                                             cache: Path):
    configure(repo, hook_repo)
    (repo / "good.patch").write_text(GOOD)
    git(repo, "add", "good.patch")
    done = pre_commit(repo, cache, "run")
    assert done.returncode == 0, done.stdout + done.stderr
    (repo / "bad.diff").write_text(BAD)
    git(repo, "add", "bad.diff")
    done = pre_commit(repo, cache, "run")
    assert done.returncode == 1
    assert "bad.diff:5: malformed_hunk:" in done.stdout
    assert "good.patch" not in done.stdout  # only problems are reported


@pytest.mark.slow
def test_installed_framework_hook_blocks_git_commit(repo: Path, hook_repo: tuple[Path, str],
                                                    cache: Path):
    configure(repo, hook_repo)
    assert pre_commit(repo, cache, "install").returncode == 0
    (repo / "bad.diff").write_text(BAD)
    git(repo, "add", "bad.diff")
    head = git(repo, "rev-parse", "HEAD")
    env = pre_commit_env(cache)
    done = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=repo, capture_output=True,
                          text=True, env=env)
    assert done.returncode != 0
    assert "bad.diff:5: malformed_hunk:" in done.stdout + done.stderr
    assert git(repo, "rev-parse", "HEAD") == head
    (repo / "bad.diff").write_text(GOOD)
    git(repo, "add", "bad.diff")
    done = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=repo, capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(repo, "rev-parse", "HEAD") != head


def documented_configs() -> list[str]:
    """The `.pre-commit-config.yaml` blocks of docs/hooks.md: the clone's hooks, then local."""
    text = (ROOT / "docs" / "hooks.md").read_text(encoding="utf-8")
    return re.findall(r"```yaml\n(.*?)```", text, flags=re.S)


@pytest.mark.slow
@pytest.mark.parametrize("which", [0, 1], ids=["clone", "local"])
def test_the_documented_configurations_work(repo: Path, hook_repo: tuple[Path, str],
                                            cache: Path, which: int):
    """Each configuration docs/hooks.md shows, with its clone path and commit id made real
    (the local one runs the command this interpreter installed), guards a commit."""
    configs = documented_configs()
    assert len(configs) == 2
    clone, rev = hook_repo
    config = (configs[which]
              .replace(f"{DOC_CLONE}/.venv/bin", str(Path(sys.executable).parent))
              .replace(DOC_CLONE, str(clone)).replace(DOC_REV, rev))
    assert DOC_CLONE in configs[which] and DOC_CLONE not in config
    (repo / ".pre-commit-config.yaml").write_text(config)
    git(repo, "config", "holon.protect", "secret.txt")
    (repo / "bad.diff").write_text(BAD)
    (repo / "secret.txt").write_text("s\n")
    git(repo, "add", ".")
    done = pre_commit(repo, cache, "run")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "bad.diff:5: malformed_hunk:" in done.stdout
    assert "secret.txt: protected_path:" in done.stdout
    (repo / "bad.diff").write_text(GOOD)
    git(repo, "rm", "-q", "--cached", "secret.txt")
    git(repo, "add", "bad.diff")
    done = pre_commit(repo, cache, "run")
    assert done.returncode == 0, done.stdout + done.stderr
