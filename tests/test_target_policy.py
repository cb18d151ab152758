"""Path policy (--include/--exclude, protected paths) and line endings across all targets."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from gitsupport import applied, blob, everything, git_apply, head, refused, twin
from repos.builders import (
    git,
    index_entries,
    make_bare_repo,
    make_crlf_repo,
    make_repo,
    snapshot,
    tree_entries,
)

from holon_git import apply_patch

FILES = {"src/a.py": "a = 1\nb = 2\n", "src/b.py": "x = 1\ny = 2\n", "README.md": "# R\n\ntext\n",
         "deploy/prod.yml": "replicas: 3\nimage: app\n"}
A = "--- a/src/a.py\n+++ b/src/a.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n"
B = "--- a/src/b.py\n+++ b/src/b.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"
README = "--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n # R\n \n-text\n+more text\n"
PROD = ("--- a/deploy/prod.yml\n+++ b/deploy/prod.yml\n@@ -1,2 +1,2 @@\n-replicas: 3\n"
        "+replicas: 0\n image: app\n")
ALL = A + B + README + PROD
TARGETS = ("worktree", "index", "both")


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return FILES


def changed_index_paths(repo: Path, before: dict) -> set[str]:
    after = index_entries(repo)
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


def changed_files(repo: Path, before: dict) -> set[str]:
    after = snapshot(repo)
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


# -- --include / --exclude ----------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_include_selects_file_patches(repo: Path, target: str):
    files, entries = snapshot(repo), index_entries(repo)
    receipt = applied(repo, ALL, target=target, include=["src/"])
    assert [f.new_path for f in receipt.files] == ["src/a.py", "src/b.py"]
    skipped = [d.message for d in receipt.diagnostics if d.code == "skipped_file"]
    assert skipped == ["README.md: not applied (--include)",
                       "deploy/prod.yml: not applied (--include)"]
    if target != "index":
        assert changed_files(repo, files) == {"src/a.py", "src/b.py"}
    if target != "worktree":
        assert changed_index_paths(repo, entries) == {"src/a.py", "src/b.py"}


def test_exclude_skips_matching_file_patches(repo: Path):
    files = snapshot(repo)
    receipt = applied(repo, ALL, exclude=["*.yml", "/README.md"])
    assert [f.new_path for f in receipt.files] == ["src/a.py", "src/b.py"]
    assert changed_files(repo, files) == {"src/a.py", "src/b.py"}


def test_exclude_wins_over_include_and_negation_reincludes(repo: Path):
    files = snapshot(repo)
    applied(repo, ALL, include=["src/"], exclude=["*.py", "!a.py"])
    assert changed_files(repo, files) == {"src/a.py"}


def test_include_matches_git_apply_for_simple_patterns(repo: Path):
    other = twin(repo)
    applied(repo, ALL, target="both", include=["*.py"], exclude=["src/b.py"])
    git_apply(other, ALL, "--index", "--exclude=src/b.py", "--include=*.py")
    assert snapshot(repo) == snapshot(other)
    assert index_entries(repo) == index_entries(other)


def test_nothing_selected_is_refused(repo: Path):
    err = refused(repo, ALL, "empty_patch", include=["docs/"])
    assert err.details["skipped"] == ["src/a.py", "src/b.py", "README.md", "deploy/prod.yml"]


def test_selection_happens_before_matching(repo: Path):
    stale = A + "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-no such line\n+x\n"
    refused(repo, stale, "context_not_found")
    applied(repo, stale, exclude=["README.md"])


# -- protected paths ----------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_holon_protect_config_is_multi_valued(repo: Path, target: str):
    git(repo, "config", "--add", "holon.protect", "deploy/")
    git(repo, "config", "--add", "holon.protect", "*.md")
    err = refused(repo, A + PROD, "protected_path", target=target)
    assert err.path == "deploy/prod.yml"
    assert err.details["patterns"] == ["deploy/", "*.md"]
    assert refused(repo, README, "protected_path", target=target).path == "README.md"
    applied(repo, A + B, target=target)


@pytest.mark.parametrize("target", TARGETS)
def test_committed_protect_file(tmp_path: Path, target: str):
    repo = make_repo(tmp_path / "r", {**FILES, ".holon/protect": "# ops owns these\n\ndeploy/\n"})
    assert refused(repo, A + PROD, "protected_path", target=target).path == "deploy/prod.yml"
    applied(repo, A, target=target)


def test_protect_file_is_read_as_committed(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {**FILES, ".holon/protect": "deploy/\n"})
    (repo / ".holon/protect").write_text("")  # an uncommitted edit does not lift the rule
    refused(repo, PROD, "protected_path")
    refused(repo, PROD, "protected_path", target="index")


def test_the_protect_file_protects_itself(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {**FILES, ".holon/protect": "deploy/\n"})
    lift = "--- a/.holon/protect\n+++ b/.holon/protect\n@@ -1 +0,0 @@\n-deploy/\n"
    refused(repo, lift, "protected_path")
    refused(repo, lift, "protected_path", target="both")
    create = "--- /dev/null\n+++ b/.holon/protect\n@@ -0,0 +1 @@\n+nothing\n"
    refused(make_repo(tmp_path / "plain", FILES), create, "protected_path")


def test_rename_out_of_a_protected_path_is_refused(repo: Path):
    git(repo, "config", "holon.protect", "deploy/")
    move = ("diff --git a/deploy/prod.yml b/prod.yml\nsimilarity index 100%\n"
            "rename from deploy/prod.yml\nrename to prod.yml\n")
    assert refused(repo, move, "protected_path", target="both").path == "deploy/prod.yml"


def test_protect_in_a_bare_repository_with_ref(tmp_path: Path):
    bare = make_bare_repo(tmp_path / "b.git", {**FILES, ".holon/protect": "deploy/\n"})
    refused(bare, PROD, "protected_path", ref="main", message="scale down")
    git(bare, "config", "holon.protect", "src/a.py")
    refused(bare, A, "protected_path", ref="main", message="edit")
    receipt = applied(bare, B, ref="main", message="edit b")
    assert receipt.commit == head(bare, "main")


def test_protect_file_on_the_ref_branch_not_head(tmp_path: Path):
    repo = make_repo(tmp_path / "r", FILES)
    git(repo, "checkout", "-q", "-b", "guarded")
    (repo / ".holon").mkdir()
    (repo / ".holon/protect").write_text("src/\n")
    git(repo, "add", ".holon/protect")
    git(repo, "commit", "-q", "-m", "guard")
    git(repo, "checkout", "-q", "main")
    refused(repo, A, "protected_path", ref="guarded", message="m")
    applied(repo, A, ref="main", message="m")


def test_global_config_protects(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    config = tmp_path / "global.gitconfig"
    config.write_text("[holon]\n\tprotect = src/b.py\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    for target in TARGETS:
        refused(repo, B, "protected_path", target=target)


def test_a_settled_config_edited_later_is_read_again(repo: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch):
    """In-process applies remember that no config file can protect anything; an edit of
    a config file (same size, explicit timestamps) must still be seen."""
    from holon_git.git import protect

    monkeypatch.setattr(protect, "_SETTLED_NS", 0)  # every file counts as settled
    config = tmp_path / "global.gitconfig"
    config.write_text("[user]\n\tnote = src/b.py\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    local = repo / ".git" / "config"
    for path, age in ((config, 100), (local, 100)):
        os.utime(path, ns=(0, time.time_ns() - age * 10**9))
    applied(repo, B)
    applied(repo, B, reverse=True)
    config.write_text("[holon]\n\tprotect = src/b.py\n")  # the same size as before
    os.utime(config, ns=(0, time.time_ns() - 50 * 10**9))
    refused(repo, B, "protected_path")


def test_check_also_refuses_protected_paths(repo: Path):
    git(repo, "config", "holon.protect", "src/")
    refused(repo, A, "protected_path", check=True)


# -- line endings -------------------------------------------------------------------------------
CRLF_FILES = {"doc.txt": "one\ntwo\nthree\n", "keep.txt": "keep\n"}
CRLF_EDIT = "--- a/doc.txt\n+++ b/doc.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
CRLF_ADD = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+fresh\n+lines\n"


def staged_blob(repo: Path, path: str) -> bytes:
    return blob(repo, index_entries(repo)[path][1])


@pytest.fixture(params=["autocrlf", "attributes"])
def crlf_repo(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    repo = make_crlf_repo(tmp_path / "crlf", CRLF_FILES, how=request.param)
    assert (repo / "doc.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\n"
    return repo


def test_index_keeps_crlf_in_the_work_tree_and_lf_in_the_blob(crlf_repo: Path):
    applied(crlf_repo, CRLF_EDIT + CRLF_ADD, target="both")
    assert (crlf_repo / "doc.txt").read_bytes() == b"one\r\nTWO\r\nthree\r\n"
    assert staged_blob(crlf_repo, "doc.txt") == b"one\nTWO\nthree\n"
    assert (crlf_repo / "new.txt").read_bytes() == b"fresh\r\nlines\r\n"
    assert staged_blob(crlf_repo, "new.txt") == b"fresh\nlines\n"
    # git agrees that the working tree and the index hold the same content
    assert git(crlf_repo, "status", "--porcelain") == "M  doc.txt\nA  new.txt\n"
    assert git(crlf_repo, "diff", "--stat") == ""


def test_cached_and_ref_store_lf_blobs(crlf_repo: Path):
    files = snapshot(crlf_repo)
    applied(crlf_repo, CRLF_EDIT, target="index")
    assert staged_blob(crlf_repo, "doc.txt") == b"one\nTWO\nthree\n"
    assert snapshot(crlf_repo) == files
    git(crlf_repo, "reset", "-q")
    receipt = applied(crlf_repo, CRLF_EDIT, ref="main", message="edit")
    assert blob(crlf_repo, tree_entries(crlf_repo, receipt.commit)["doc.txt"][1]) == \
        b"one\nTWO\nthree\n"


def test_commit_in_a_crlf_repo_matches_git_commit(crlf_repo: Path):
    other = twin(crlf_repo)
    receipt = applied(crlf_repo, CRLF_EDIT + CRLF_ADD, commit=True, message="edit")
    (other / "doc.txt").write_bytes(b"one\r\nTWO\r\nthree\r\n")
    (other / "new.txt").write_bytes(b"fresh\r\nlines\r\n")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "edit")
    assert receipt.tree == head(other, "HEAD^{tree}")
    assert snapshot(crlf_repo) == snapshot(other)
    assert git(crlf_repo, "status", "--porcelain") == ""


def test_crlf_working_tree_that_differs_from_the_index_is_refused(crlf_repo: Path):
    (crlf_repo / "doc.txt").write_bytes(b"one\r\ntwo\r\nthree\r\nfour\r\n")
    refused(crlf_repo, CRLF_EDIT, "index_mismatch", target="both")


def test_unsupported_filter_is_refused_for_index(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"big.bin": "one\ntwo\nthree\n",
                                      ".gitattributes": "*.bin filter=lfs\n"})
    edit = "--- a/big.bin\n+++ b/big.bin\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
    err = refused(repo, edit, "unsupported_filter", target="both")
    assert err.path == "big.bin"
    branch = git(repo, "branch", "--show-current").strip()
    # the checked-out branch: its working tree and index are updated too
    err = refused(repo, edit, "unsupported_filter", ref=branch, message="m")
    # what the hint offers instead: each one applies
    assert "working tree alone" in err.hint and "not checked out" in err.hint
    git(repo, "branch", "other")
    applied(repo, edit, ref="other", message="m")
    applied(repo, edit, target="index")  # blobs only: no conversion is involved
    applied(repo, edit)  # the working tree alone, written as the patch says


# -- everything is left alone on refusal, whatever the target -----------------------------------
def test_policy_refusal_leaves_everything(repo: Path):
    git(repo, "config", "holon.protect", "README.md")
    before = everything(repo)
    receipt = apply_patch(A + README, repo, commit=True, message="m")
    assert receipt.error is not None and receipt.error.code == "protected_path"
    assert everything(repo) == before
