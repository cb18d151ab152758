"""The git-native target options of `git holon-apply`, run as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import blob, head
from repos.builders import (
    git,
    git_env,
    git_state,
    held_index_lock,
    index_entries,
    lock_files,
    make_bare_repo,
    snapshot,
)

FILES = {"f.txt": "one\ntwo\nthree\nfour\nfive\n", "g.txt": "g\n"}
PATCH = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n four\n"
G = "--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-g\n+G\n"
AFTER = b"one\ntwo\nTHREE\nfour\nfive\n"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return FILES


def test_cached(repo: Path):
    files = snapshot(repo)
    done = holon(repo, "--cached", stdin=PATCH)
    assert done.returncode == 0, done.stderr
    assert blob(repo, index_entries(repo)["f.txt"][1]) == AFTER
    assert snapshot(repo) == files


def test_index(repo: Path):
    done = holon(repo, "--index", "--json", stdin=PATCH)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["target"] == "both"
    assert (repo / "f.txt").read_bytes() == AFTER
    assert git(repo, "status", "--porcelain") == "M  f.txt\n"


def test_index_mismatch_exit_code_and_hint(repo: Path):
    (repo / "f.txt").write_text("one\ntwo\nthree\nfour\nfive\nsix\n")
    state, files = git_state(repo), snapshot(repo)
    done = holon(repo, "--index", stdin=PATCH)
    assert done.returncode == 1
    assert done.stderr.startswith("error: index_mismatch: ")
    assert "hint: " in done.stderr
    assert git_state(repo) == state and snapshot(repo) == files


def test_index_locked(repo: Path):
    with held_index_lock(repo):
        done = holon(repo, "--cached", stdin=PATCH)
        assert done.returncode == 1 and "index_locked" in done.stderr
        assert lock_files(repo) == ["index.lock"]
    assert lock_files(repo) == []


def test_commit_with_message_and_author(repo: Path):
    parent = head(repo)
    done = holon(repo, "--commit", "-m", "Fix three\n\nBody.",
                 "--author", "Ann Example <ann@x.invalid>", stdin=PATCH)
    assert done.returncode == 0, done.stderr
    new = head(repo)
    assert done.stdout.endswith(f"Committed {new[:12]} on refs/heads/main.\n")
    assert git(repo, "log", "-1", "--format=%P|%an <%ae>|%cn|%B", "HEAD") == \
        f"{parent}|Ann Example <ann@x.invalid>|Fixture Committer|Fix three\n\nBody.\n\n"
    assert git(repo, "status", "--porcelain") == ""


def test_commit_json_receipt_carries_commit_and_tree(repo: Path):
    done = holon(repo, "--commit", "--cached", "-m", "m", "--json", stdin=PATCH)
    receipt = json.loads(done.stdout)
    assert receipt["commit"] == head(repo) and receipt["tree"] == head(repo, "HEAD^{tree}")
    assert receipt["ref"] == "refs/heads/main" and receipt["target"] == "index"
    assert (repo / "f.txt").read_bytes() == FILES["f.txt"].encode()


def test_ref_in_a_bare_repository(tmp_path: Path):
    bare = make_bare_repo(tmp_path / "b.git", FILES)
    done = holon(bare, "--ref", "refs/heads/main", "-m", "bot: fix", stdin=PATCH)
    assert done.returncode == 0, done.stderr
    assert git(bare, "show", "main:f.txt").encode() == AFTER
    assert git(bare, "log", "-1", "--format=%s", "main") == "bot: fix\n"


def test_detached_head_needs_ref(repo: Path):
    git(repo, "checkout", "-q", "--detach")
    done = holon(repo, "--commit", "-m", "m", stdin=PATCH)
    assert done.returncode == 1 and "detached_head" in done.stderr


def test_include_exclude(repo: Path):
    done = holon(repo, "--include", "*.txt", "--exclude", "g.txt", "-v", stdin=PATCH + G)
    assert done.returncode == 0, done.stderr
    assert "g.txt: not applied (--exclude)" in done.stdout
    assert (repo / "f.txt").read_bytes() == AFTER and (repo / "g.txt").read_text() == "g\n"


def test_protected_path(repo: Path):
    git(repo, "config", "holon.protect", "g.txt")
    done = holon(repo, stdin=PATCH + G)
    assert done.returncode == 1 and "protected_path" in done.stderr
    assert (repo / "f.txt").read_text() == FILES["f.txt"]


def test_emit_diff_to_a_file_and_to_stdout(repo: Path, tmp_path: Path):
    out = tmp_path / "applied.diff"
    done = holon(repo, "--index", "--emit-diff", str(out), stdin=PATCH)
    assert done.returncode == 0 and done.stdout.startswith("Applied 1 file")
    assert out.read_text() == git(repo, "diff", "--cached")
    git(repo, "reset", "-q", "--hard")
    done = holon(repo, "--emit-diff", "-", stdin=PATCH)
    assert done.returncode == 0 and done.stdout == out.read_text(), "stdout holds only the diff"


@pytest.mark.parametrize("args", [
    ("--ref", "main", "--cached", "-m", "m"),
    ("--ref", "main", "--index", "-m", "m"),
    ("--commit",),
    ("--ref", "main"),
    ("--commit", "-m", "  "),
    ("-m", "message without a commit"),
    ("--author", "A <a@x>"),
    ("--emit-diff", "-", "--json"),
    ("--commit", "-m", "m", "--author", "no email"),
])
def test_usage_errors_exit_2_and_change_nothing(repo: Path, args: tuple[str, ...]):
    state, files = git_state(repo), snapshot(repo)
    done = holon(repo, *args, stdin=PATCH)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert git_state(repo) == state and snapshot(repo) == files


def test_working_tree_apply_does_not_import_pygit2_or_pathspec(repo: Path):
    code = ("import sys\nfrom holon_git.cli import main\n"
            "try:\n    main(['apply', '-q', '-'])\nexcept SystemExit as e:\n    code = e.code\n"
            "print(code, 'pygit2' in sys.modules, 'pathspec' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=repo, input=PATCH.encode(),
                          capture_output=True, env=git_env())
    assert done.stderr.decode().split() == ["0", "False", "False"], done.stderr
    assert (repo / "f.txt").read_bytes() == AFTER


def test_check_loads_no_write_machinery(repo: Path):
    """--check writes nothing, so it imports neither the transaction, the crash journal nor
    the signal handling (start-up time counts: it runs in every pre-commit hook)."""
    write_side = ("holon_git.fs.transaction", "holon_git.fs.journal",
                  "holon_git.fs.signals", "pygit2", "pathspec")
    code = ("import sys\nfrom holon_git.cli import main\n"
            "try:\n    main(['apply', '--check', '-q', '-'])\nexcept SystemExit as e:\n"
            "    code = e.code\n"
            f"print(code, *[m in sys.modules for m in {write_side!r}], file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=repo, input=PATCH.encode(),
                          capture_output=True, env=git_env())
    assert done.stderr.decode().split() == ["0"] + ["False"] * len(write_side), done.stderr


# Every module of holon-git a `--check` of a one-line patch imports (issue 37: start-up is
# paid by every call of an agent and every pre-commit hook). A new import shows up here: one
# a path needs belongs where that path is handled (docs/architecture.md, "Imports").
CHECK_IMPORTS = (
    "api", "cli", "core", "core.change", "core.model", "core.paths", "core.place",
    "core.place.edges", "core.place.ladder", "core.place.match", "core.place.numbers",
    "core.place.splice",
    "core.place.unique", "core.plan", "core.plan.applied", "core.plan.expect", "core.plan.fast",
    "core.plan.files", "core.plan.hunks", "core.plan.plan", "core.plan.resend", "core.policy",
    "core.threeway", "errors", "fast_exit", "fs", "fs.gitdir_guard", "fs.tree", "git",
    "git.committed", "git.config", "git.history", "git.libgit2", "git.location",
    "git.ownership", "git.protect", "git.repository", "git.versions", "inputs", "parse",
    "parse.checks", "parse.directory", "parse.epoch", "parse.header", "parse.left_out",
    "parse.limits", "parse.edits", "parse.names", "parse.other_formats", "parse.text",
    "parse.unified", "progress", "quoting", "receipt", "report", "request", "spelling",
    "targets", "targets.base", "targets.registry",
    "targets.saved", "targets.worktree", "version", "whitespace"
)


def test_check_imports_only_these_modules(repo: Path):
    """No target it does not open (index, refs), no MCP, no provider, no three-way rescue,
    no last rungs, no pygit2; outside the standard library, click alone."""
    code = ("import sys\nfrom holon_git.cli import main\n"
            "try:\n    main(['apply', '--check', '-'])\nexcept SystemExit as e:\n"
            "    code = e.code\n"
            "ours = sorted(m[len('holon_git.'):] for m in sys.modules "
            "if m.startswith('holon_git.'))\n"
            "other = sorted({m.split('.')[0] for m in sys.modules} - set(sys.stdlib_module_names)"
            " - {'holon_git', '__main__', 'sitecustomize', '_distutils_hack'})\n"
            "print(code, ' '.join(ours), '|', ' '.join(other), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=repo, input=PATCH.encode(),
                          capture_output=True, env=git_env())
    status, _, rest = done.stderr.decode().partition(" ")
    ours, _, other = rest.partition("|")
    assert status == "0", done.stderr
    assert ours.split() == sorted(CHECK_IMPORTS)
    assert other.split() == ["click"]
