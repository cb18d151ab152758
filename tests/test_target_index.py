"""The index targets on real repositories: --cached ("index") and --index ("both")."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from gitsupport import applied, blob, everything, git_apply, refused, twin
from repos.builders import (
    git,
    git_dir,
    git_env,
    git_state,
    held_index_lock,
    index_entries,
    lock_files,
    make_bare_repo,
    make_repo,
    make_staged_repo,
    make_submodule_repo,
    snapshot,
)

from holon_git import apply_patch, check_patch

BASE = "".join(f"line {i}\n" for i in range(1, 21))
FILES = {"f.txt": BASE, "keep.txt": "untouched\n", "bin/run.sh": "#!/bin/sh\necho hi\n",
         "docs/old.md": "# Old\n\ntext\n"}
MODIFY = "--- a/f.txt\n+++ b/f.txt\n@@ -5,3 +5,3 @@\n line 5\n-line 6\n+line six\n line 7\n"
MIXED = (
    MODIFY
    + "--- /dev/null\n+++ b/new/added.txt\n@@ -0,0 +1,2 @@\n+fresh\n+file\n"
    + "--- a/keep.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-untouched\n"
    + "diff --git a/bin/run.sh b/scripts/run.sh\nsimilarity index 70%\n"
      "rename from bin/run.sh\nrename to scripts/run.sh\n--- a/bin/run.sh\n"
      "+++ b/scripts/run.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo hi\n+echo hello\n"
)


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return FILES


@pytest.fixture
def repo_executable() -> set[str]:
    return {"bin/run.sh"}


# -- --cached -----------------------------------------------------------------------------------
def test_cached_modify_writes_blob_and_entry_only(repo: Path):
    files, entries = snapshot(repo), index_entries(repo)
    head = git(repo, "rev-parse", "HEAD")
    receipt = applied(repo, MODIFY, target="index")
    assert receipt.target == "index" and receipt.extra == {}
    after = index_entries(repo)
    assert after["f.txt"][0] == "100644"
    assert blob(repo, after["f.txt"][1]) == BASE.replace("line 6\n", "line six\n").encode()
    assert {p: e for p, e in after.items() if p != "f.txt"} == \
        {p: e for p, e in entries.items() if p != "f.txt"}
    assert snapshot(repo) == files, "--cached touched the working tree"
    assert git(repo, "rev-parse", "HEAD") == head


def test_cached_equals_git_apply_cached(repo: Path):
    other = twin(repo)
    git_apply(other, MIXED, "--cached")
    applied(repo, MIXED, target="index")
    assert index_entries(repo) == index_entries(other)
    assert index_entries(repo)["scripts/run.sh"][0] == "100755", "rename kept the exec mode"
    assert index_entries(repo)["new/added.txt"][0] == "100644"
    assert "keep.txt" not in index_entries(repo) and (repo / "keep.txt").exists()
    assert git(repo, "status", "--porcelain") == git(other, "status", "--porcelain")
    assert git(repo, "diff", "--cached") == git(other, "diff", "--cached")


def test_cached_reads_the_index_not_the_working_tree(tmp_path: Path):
    repo = make_staged_repo(tmp_path / "r", {"f.txt": "a\nb\nc\n"}, staged={"f.txt": "a\nB\nc\n"},
                            unstaged={"f.txt": "a\nWORK\nc\n"})
    refused(repo, "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-WORK\n+x\n c\n",
            "context_not_found", target="index")
    applied(repo, "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-B\n+x\n c\n",
            target="index")
    assert blob(repo, index_entries(repo)["f.txt"][1]) == b"a\nx\nc\n"
    assert (repo / "f.txt").read_bytes() == b"a\nWORK\nc\n"


def test_cached_add_into_a_file_path_or_onto_a_directory_is_refused(repo: Path):
    refused(repo, "--- /dev/null\n+++ b/f.txt/inner\n@@ -0,0 +1 @@\n+x\n", "already_exists",
            target="index")
    refused(repo, "--- /dev/null\n+++ b/docs\n@@ -0,0 +1 @@\n+x\n", "already_exists",
            target="index")


def test_cached_add_onto_a_directory_known_only_to_the_index_is_refused(tmp_path: Path):
    """Directories are told from the index's sorted paths, names that are not UTF-8 and
    names that sort next to the directory's ("d.txt", "d-x", "d0" beside "d/") included; a
    deleted entry frees its path for a new file, as in git."""
    repo = make_repo(tmp_path / "r", {"d.txt": "a\n", "d-x": "a\n", "d0": "a\n",
                                      "d/inner.txt": "a\n", "keep.txt": "a\n"})
    (repo / os.fsdecode(b"caf\xe9")).mkdir()
    (repo / os.fsdecode(b"caf\xe9/x.txt")).write_bytes(b"a\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "dirs")
    for gone in ("d", os.fsdecode(b"caf\xe9")):  # only the index knows them now
        subprocess.run(["rm", "-r", str(repo / gone)], check=True)
    add = "--- /dev/null\n+++ b/{}\n@@ -0,0 +1 @@\n+x\n"
    refused(repo, add.format("d"), "already_exists", target="index")
    refused(repo, 'diff --git "a/caf\\351" "b/caf\\351"\nnew file mode 100644\n'
            '--- /dev/null\n+++ "b/caf\\351"\n@@ -0,0 +1 @@\n+x\n', "already_exists",
            target="index")
    applied(repo, "--- a/d/inner.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n" + add.format("d"),
            target="index")
    assert "d" in index_entries(repo) and "d/inner.txt" not in index_entries(repo)


def test_cached_missing_file(repo: Path):
    (repo / "untracked.txt").write_text("a\n")
    refused(repo, "--- a/untracked.txt\n+++ b/untracked.txt\n@@ -1 +1 @@\n-a\n+b\n",
            "not_found", target="index")


def test_check_takes_no_lock_and_writes_nothing(repo: Path):
    before = everything(repo)
    with held_index_lock(repo):
        receipt = check_patch(MIXED, repo, target="index")
        assert receipt.status == "checked", receipt.error
        receipt = check_patch(MIXED, repo, target="both")
        assert receipt.status == "checked", receipt.error
    assert everything(repo) == before


# -- --index --------------------------------------------------------------------------------------
def test_index_equals_git_apply_index(repo: Path):
    other = twin(repo)
    git_apply(other, MIXED, "--index")
    receipt = applied(repo, MIXED, target="both")
    assert receipt.target == "both"
    assert snapshot(repo) == snapshot(other)
    assert index_entries(repo) == index_entries(other)
    for command in (["status", "--porcelain"], ["diff", "--cached"], ["diff"]):
        assert git(repo, *command) == git(other, *command), command
    assert git(repo, "diff") == ""
    assert os.access(repo / "scripts/run.sh", os.X_OK)
    assert not (repo / "bin").exists(), "the emptied directory is pruned, as git does"


def test_index_entries_carry_stat_data(repo: Path):
    applied(repo, MODIFY, target="both")
    # plumbing trusts stat data without re-hashing: a stat-less entry would show as modified
    assert git(repo, "diff-files", "--name-only") == ""


def test_index_refuses_a_path_that_differs_from_the_index(repo: Path):
    (repo / "f.txt").write_text(BASE.replace("line 1\n", "LINE 1\n"))
    err = refused(repo, MODIFY, "index_mismatch", target="both")
    assert err.path == "f.txt"
    applied(repo, MODIFY, target="index")  # --cached does not look at the working tree


def test_index_refuses_staged_file_changed_again(tmp_path: Path):
    repo = make_staged_repo(tmp_path / "r", {"f.txt": BASE},
                            staged={"f.txt": BASE + "staged\n"},
                            unstaged={"f.txt": BASE + "staged\nand more\n"})
    refused(repo, MODIFY, "index_mismatch", target="both")


def test_index_applies_over_staged_changes_when_tree_and_index_agree(tmp_path: Path):
    repo = make_staged_repo(tmp_path / "r", {"f.txt": BASE}, staged={"f.txt": BASE + "more\n"})
    other = twin(repo)
    git_apply(other, MODIFY, "--index")
    applied(repo, MODIFY, target="both")
    assert git(repo, "diff", "--cached") == git(other, "diff", "--cached")
    assert git(repo, "status", "--porcelain") == git(other, "status", "--porcelain")


def test_index_ignores_differences_on_untouched_paths(repo: Path):
    (repo / "keep.txt").write_text("edited but not staged\n")
    applied(repo, MODIFY, target="both")
    assert git(repo, "status", "--porcelain") == "M  f.txt\n M keep.txt\n"


def test_index_refuses_untracked_and_deleted_files(repo: Path):
    (repo / "loose.txt").write_text("a\n")
    refused(repo, "--- a/loose.txt\n+++ b/loose.txt\n@@ -1 +1 @@\n-a\n+b\n", "index_mismatch",
            target="both")
    refused(repo, "--- /dev/null\n+++ b/loose.txt\n@@ -0,0 +1 @@\n+b\n", "already_exists",
            target="both")
    (repo / "f.txt").unlink()
    refused(repo, MODIFY, "index_mismatch", target="both")


def test_index_mode_mismatch(repo: Path):
    os.chmod(repo / "f.txt", 0o755)
    refused(repo, MODIFY, "index_mismatch", target="both")


def test_index_in_a_bare_repository_is_refused(tmp_path: Path):
    bare = make_bare_repo(tmp_path / "b.git", {"f.txt": BASE})
    refused(bare, MODIFY, "not_a_repository", target="both")


def test_modes_are_kept(repo: Path):
    patch = ("--- a/bin/run.sh\n+++ b/bin/run.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo hi\n"
             "+echo ho\n")
    applied(repo, patch, target="both")
    assert index_entries(repo)["bin/run.sh"][0] == "100755"
    assert os.access(repo / "bin/run.sh", os.X_OK)


# -- symbolic links and submodules --------------------------------------------------------------
def test_symlink_entries_are_refused(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"target.txt": "a\n", "dir/x.txt": "x\n"},
                     symlinks={"link": "target.txt", "dirlink": "dir"})
    to_link = "--- a/link\n+++ b/link\n@@ -1 +1 @@\n-a\n+b\n"
    through = "--- a/dirlink/x.txt\n+++ b/dirlink/x.txt\n@@ -1 +1 @@\n-x\n+y\n"
    add_through = "--- /dev/null\n+++ b/dirlink/new.txt\n@@ -0,0 +1 @@\n+n\n"
    for target in ("index", "both"):
        refused(repo, to_link, "symlink_in_path", target=target)
        refused(repo, through, "symlink_in_path", target=target)
        refused(repo, add_through, "symlink_in_path", target=target)
    refused(repo, to_link, "symlink_in_path", ref="main", message="m")
    refused(repo, add_through, "symlink_in_path", ref="main", message="m")


def test_submodule_entries_are_refused(tmp_path: Path):
    repo = make_submodule_repo(tmp_path / "r", {"f.txt": BASE})
    assert index_entries(repo)["sub"][0] == "160000"
    inside = "--- a/sub/inner.txt\n+++ b/sub/inner.txt\n@@ -1 +1 @@\n-inner\n+outer\n"
    onto = "--- a/sub\n+++ b/sub\n@@ -1 +1 @@\n-x\n+y\n"
    add_inside = "--- /dev/null\n+++ b/sub/new.txt\n@@ -0,0 +1 @@\n+n\n"
    for kwargs in ({"target": "index"}, {"ref": "main", "message": "m"}):
        refused(repo, inside, "not_a_regular_file", **kwargs)
        refused(repo, onto, "not_a_regular_file", **kwargs)
        refused(repo, add_inside, "not_a_regular_file", **kwargs)
    applied(repo, MODIFY, target="both")  # the rest of the repository still works


# -- locking --------------------------------------------------------------------------------------
def test_held_index_lock_is_refused_and_left_alone(repo: Path):
    with held_index_lock(repo) as lock:
        state = git_state(repo)
        files = snapshot(repo)
        for target in ("index", "both"):
            receipt = apply_patch(MODIFY, repo, target=target)
            assert receipt.error is not None and receipt.error.code == "index_locked"
            assert "index.lock" in receipt.error.hint
            assert lock.exists(), "holon-git removed a lock it did not take"
        assert git_state(repo) == state and snapshot(repo) == files


def test_lock_is_held_from_read_to_write(repo: Path):
    """A `git add` started while we work fails on our lock; ours is not lost either."""
    (repo / "keep.txt").write_text("changed\n")
    attempts = []

    def concurrent_git_add() -> None:
        done = subprocess.run(["git", "add", "keep.txt"], cwd=repo, capture_output=True,
                              env=git_env())
        attempts.append((done.returncode, done.stderr.decode()))

    applied(repo, MODIFY, target="both", commit=True, message="m",
            on_ref_update=concurrent_git_add)
    assert attempts and attempts[0][0] != 0 and "index.lock" in attempts[0][1]
    assert git(repo, "status", "--porcelain") == " M keep.txt\n"


def test_index_is_read_after_the_lock(repo: Path):
    """What `git add` staged before we started is kept."""
    (repo / "keep.txt").write_text("staged\n")
    git(repo, "add", "keep.txt")
    applied(repo, MODIFY, target="index")
    assert git(repo, "status", "--porcelain") == "MM f.txt\nM  keep.txt\n"


def test_no_lock_left_after_refusals(repo: Path):
    for target in ("index", "both"):
        refused(repo, MODIFY.replace("line 6", "line 66"), "context_not_found", target=target)
    git(repo, "checkout", "-q", "--detach")
    refused(repo, MODIFY, "detached_head", target="both", commit=True, message="m")
    assert lock_files(repo) == []


def test_ctrl_c_releases_the_lock_and_changes_nothing(repo: Path):
    before = everything(repo)

    def interrupt() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        apply_patch(MIXED, repo, target="both", commit=True, message="m",
                    on_ref_update=interrupt)
    assert lock_files(repo) == []
    assert everything(repo) == before


def test_ctrl_c_at_the_commit_point_is_held_until_it_is_passed(repo: Path,
                                                              monkeypatch: pytest.MonkeyPatch):
    """A real SIGINT arriving while the branch and index are being switched is held until
    both are; by then it is too late to undo, so the apply completes and reports: the
    commit is complete, the index matches it, no lock is left."""
    import signal

    from holon_git.fs.lock import IndexLock

    real_commit = IndexLock.commit

    def commit_with_interrupt(self: IndexLock, new_index: str) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        real_commit(self, new_index)

    monkeypatch.setattr(IndexLock, "commit", commit_with_interrupt)
    parent = git(repo, "rev-parse", "HEAD").strip()
    try:
        receipt = apply_patch(MIXED, repo, target="both", commit=True, message="m")
    except KeyboardInterrupt:
        pytest.fail("a Ctrl-C past the commit point surfaced as an interrupt")
    assert receipt.ok
    assert git(repo, "rev-parse", "HEAD~1").strip() == parent
    assert git(repo, "status", "--porcelain") == ""
    assert lock_files(repo) == []


@pytest.mark.parametrize("target", ["index", "both", "ref"])
def test_ctrl_c_while_blobs_are_written_stops_before_the_commit_point(
        repo: Path, monkeypatch: pytest.MonkeyPatch, target: str):
    import signal

    import pygit2

    before_files, before_git = snapshot(repo), git_state(repo)
    real = pygit2.Repository.create_blob
    calls = []

    def create_blob(self: pygit2.Repository, data: bytes) -> pygit2.Oid:
        calls.append(data)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # held: the write goes on to its checkpoint
        return real(self, data)

    monkeypatch.setattr(pygit2.Repository, "create_blob", create_blob)
    options = {"ref": "main", "message": "m"} if target == "ref" else {"target": target}
    with pytest.raises(KeyboardInterrupt):
        apply_patch(MIXED, repo, **options)
    assert calls
    assert snapshot(repo) == before_files and git_state(repo) == before_git
    assert lock_files(repo) == []


# -- environment ---------------------------------------------------------------------------------
def test_git_index_file_is_honoured(repo: Path, monkeypatch: pytest.MonkeyPatch):
    alternate = repo.parent / "hook-index"
    git(repo, "read-tree", "HEAD", env={"GIT_INDEX_FILE": str(alternate)})
    main_index = (git_dir(repo) / "index").read_bytes()
    monkeypatch.setenv("GIT_INDEX_FILE", str(alternate))
    applied(repo, MODIFY, target="index")
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert (git_dir(repo) / "index").read_bytes() == main_index
    entries = index_entries(repo, env={"GIT_INDEX_FILE": str(alternate)})
    assert blob(repo, entries["f.txt"][1]) == BASE.replace("line 6\n", "line six\n").encode()
    assert not list(repo.parent.glob("hook-index*.lock"))


def test_git_dir_and_work_tree_are_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    store = tmp_path / "store.git"
    tree = tmp_path / "tree"
    tree.mkdir()
    env = {"GIT_DIR": str(store), "GIT_WORK_TREE": str(tree)}
    git(tree, "init", "-q", "-b", "main", env=env)
    (tree / "f.txt").write_text(BASE)
    git(tree, "add", "f.txt", env=env)
    git(tree, "commit", "-q", "-m", "i", env=env)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("GIT_DIR", str(store))
    monkeypatch.setenv("GIT_WORK_TREE", str(tree))
    receipt = apply_patch(MODIFY, elsewhere, target="both", commit=True, message="env")
    assert receipt.ok, receipt.error
    assert "line six" in (tree / "f.txt").read_text()
    assert git(tree, "status", "--porcelain", env=env) == ""
    assert git(tree, "log", "-1", "--format=%s", env=env) == "env\n"
    assert list(elsewhere.iterdir()) == []


def test_unresolved_conflict_is_refused(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": "base\n"})
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "f.txt").write_text("other\n")
    git(repo, "commit", "-q", "-am", "other")
    git(repo, "checkout", "-q", "main")
    (repo / "f.txt").write_text("mine\n")
    git(repo, "commit", "-q", "-am", "mine")
    git(repo, "merge", "-q", "other", check=False)
    assert "UU f.txt" in git(repo, "status", "--porcelain")
    refused(repo, "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-base\n+x\n", "index_mismatch",
            target="index")
