"""Commits: --commit on the current branch, --ref in the object database, compare-and-swap."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import applied, blob, everything, git_apply, head, refused, twin
from repos.builders import (
    git,
    git_dir,
    index_entries,
    lock_files,
    make_bare_repo,
    make_detached_repo,
    make_empty_repo,
    make_repo,
    make_staged_repo,
    snapshot,
    tree_entries,
)

from holon_git import apply_patch

BASE = "".join(f"line {i}\n" for i in range(1, 21))
FILES = {"f.txt": BASE, "keep.txt": "untouched\n", "bin/run.sh": "#!/bin/sh\necho hi\n"}
MODIFY = "--- a/f.txt\n+++ b/f.txt\n@@ -5,3 +5,3 @@\n line 5\n-line 6\n+line six\n line 7\n"
RENAME = ("diff --git a/bin/run.sh b/scripts/run.sh\nsimilarity index 70%\n"
          "rename from bin/run.sh\nrename to scripts/run.sh\n--- a/bin/run.sh\n"
          "+++ b/scripts/run.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo hi\n+echo hello\n")
ADD = "--- /dev/null\n+++ b/src/new.py\n@@ -0,0 +1,2 @@\n+print('new')\n+print('file')\n"
PATCH = MODIFY + RENAME + ADD + "--- a/keep.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-untouched\n"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return FILES


@pytest.fixture
def repo_executable() -> set[str]:
    return {"bin/run.sh"}


def reflog(repo: Path, ref: str) -> list[str]:
    path = git_dir(repo) / "logs" / ref
    return path.read_text().splitlines() if path.exists() else []


def without_refs(state: dict) -> dict:
    """Everything but refs and reflogs (which a concurrent process legitimately moved)."""
    git_part = {k: v for k, v in state["git"].items() if k not in ("refs", "logs")}
    return {**state, "git": git_part}


# -- --commit -----------------------------------------------------------------------------------
def test_commit_makes_the_same_tree_as_git(repo: Path):
    other = twin(repo)
    git_apply(other, PATCH, "--index")
    git(other, "commit", "-q", "-m", "by git")
    parent = head(repo)
    receipt = applied(repo, PATCH, commit=True, message="Apply the fix\n\nBody text.",
                      target="both")
    assert receipt.target == "both"
    assert receipt.extra == {"commit": head(repo), "tree": head(repo, "HEAD^{tree}"),
                             "parent": parent, "ref": "refs/heads/main"}
    assert receipt.tree == head(other, "HEAD^{tree}")
    assert git(repo, "rev-list", "--parents", "-1", "HEAD").split() == [head(repo), parent]
    assert git(repo, "log", "-1", "--format=%B") == "Apply the fix\n\nBody text.\n\n"
    assert git(repo, "status", "--porcelain") == ""
    assert snapshot(repo) == snapshot(other)
    assert index_entries(repo) == index_entries(other)
    assert tree_entries(repo, "HEAD")["scripts/run.sh"][0] == "100755"


def test_commit_writes_reflog_entries(repo: Path):
    applied(repo, MODIFY, commit=True, message="Fix six\n\nmore")
    for ref in ("refs/heads/main", "HEAD"):
        last = reflog(repo, ref)[-1]
        assert last.split()[1] == head(repo)
        assert last.endswith("\tholon-apply: Fix six")
        assert "Fixture Committer <committer@example.invalid>" in last


def test_commit_defaults_to_both_targets_and_needs_a_message(repo: Path):
    receipt = applied(repo, MODIFY, commit=True, message="m")
    assert receipt.target == "both" and "line six" in (repo / "f.txt").read_text()
    refused(repo, MODIFY, "usage_error", commit=True)
    refused(repo, MODIFY, "usage_error", commit=True, message=" \n ")


def test_commit_cached_leaves_the_working_tree_alone(repo: Path):
    files = snapshot(repo)
    receipt = applied(repo, PATCH, target="index", commit=True, message="cached")
    assert receipt.target == "index" and receipt.commit == head(repo)
    assert snapshot(repo) == files
    assert git(repo, "diff", "--cached") == ""
    # the working tree still has the old content: it now differs from the index
    assert "-line six\n+line 6" in git(repo, "diff")


def test_commit_holds_the_patch_and_nothing_else_staged(tmp_path: Path):
    repo = make_staged_repo(tmp_path / "r", {**FILES, "other.txt": "o\n"},
                            staged={"other.txt": "staged\n"})
    applied(repo, MODIFY, commit=True, message="only the patch")
    assert git(repo, "show", "--name-only", "--format=", "HEAD") == "f.txt\n"
    assert git(repo, "diff", "--cached", "--name-only") == "other.txt\n"
    assert git(repo, "status", "--porcelain") == "M  other.txt\n"


def test_commit_refuses_staged_changes_on_a_touched_path(tmp_path: Path):
    repo = make_staged_repo(tmp_path / "r", FILES, staged={"f.txt": BASE + "staged\n"})
    err = refused(repo, MODIFY, "index_mismatch", commit=True, message="m")
    assert "staged" in err.message
    refused(repo, MODIFY, "index_mismatch", commit=True, message="m", target="index")
    applied(repo, MODIFY, target="both")  # without a commit this is fine, as git apply


def test_author_committer_and_dates(repo: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GIT_AUTHOR_DATE", "@1700000000 +0130")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2005-04-07T22:13:13+02:00")
    applied(repo, MODIFY, commit=True, message="m", author="Ada Lovelace <ada@example.org>")
    assert git(repo, "log", "-1", "--format=%an|%ae|%at|%ai|%cn|%ce|%ci") == (
        "Ada Lovelace|ada@example.org|1700000000|2023-11-14 23:43:20 +0130|"
        "Fixture Committer|committer@example.invalid|2005-04-07 22:13:13 +0200\n")
    refused(repo, RENAME, "usage_error", commit=True, message="m", author="no email")


def test_identity_from_git_config(repo: Path, monkeypatch: pytest.MonkeyPatch):
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(key, raising=False)
    git(repo, "config", "user.name", "Config User")
    git(repo, "config", "user.email", "config@example.org")
    receipt = applied(repo, MODIFY, commit=True, message="m")
    assert git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>") == \
        "Config User <config@example.org>|Config User <config@example.org>\n"
    assert receipt.diagnostics == []


def test_no_identity_is_refused_as_git_refuses(repo: Path, monkeypatch: pytest.MonkeyPatch):
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(key, raising=False)
    # the user's ~/.gitconfig must not leak in: GIT_CONFIG_GLOBAL (set by conftest) wins
    for options in ({"commit": True, "message": "m"}, {"ref": "main", "message": "m"},
                    {"ref": "main", "check": True}):
        err = refused(repo, MODIFY, "identity_unknown", **options)
        assert "user.name and user.email" in err.message and "--author" in err.hint
    git(repo, "config", "user.name", "Only Name")
    err = refused(repo, MODIFY, "identity_unknown", commit=True, message="m")
    assert err.details["missing"] == ["user.email"]
    monkeypatch.setenv("EMAIL", "from-env@example.org")  # git's last resort for the email
    applied(repo, MODIFY, commit=True, message="m")
    assert git(repo, "log", "-1", "--format=%cn <%ce>") == "Only Name <from-env@example.org>\n"


def test_author_alone_gives_the_identity(repo: Path, monkeypatch: pytest.MonkeyPatch):
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(key, raising=False)
    receipt = applied(repo, RENAME, commit=True, message="m", author="Ann <ann@example.org>")
    assert git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>") == \
        "Ann <ann@example.org>|Ann <ann@example.org>\n"
    assert receipt.diagnostics == []


def test_message_cleanup(repo: Path):
    applied(repo, MODIFY, commit=True, message="\n\n  Subject line   \n\n\n\nbody  \n\n")
    assert git(repo, "cat-file", "commit", "HEAD").split("\n\n", 1)[1] == \
        "  Subject line\n\nbody\n"


def test_detached_head_is_refused_unless_ref(tmp_path: Path):
    repo = make_detached_repo(tmp_path / "r", FILES)
    err = refused(repo, MODIFY, "detached_head", commit=True, message="m")
    assert "--ref" in err.hint
    detached = head(repo)
    receipt = applied(repo, MODIFY, ref="main", message="onto main")
    assert head(repo, "main") == receipt.commit != detached
    assert head(repo) == detached and git(repo, "symbolic-ref", "-q", "HEAD", check=False) == ""


def test_first_commit_in_an_empty_repository(tmp_path: Path):
    repo = make_empty_repo(tmp_path / "r")
    assert not (git_dir(repo) / "index").exists()
    receipt = applied(repo, ADD, commit=True, message="first")
    assert receipt.parent is None
    assert git(repo, "rev-list", "--parents", "HEAD").split() == [receipt.commit]
    assert tree_entries(repo, "HEAD") == index_entries(repo)
    assert git(repo, "status", "--porcelain") == ""
    assert reflog(repo, "refs/heads/main")[-1].endswith("\tholon-apply (initial): first")


# -- --ref ----------------------------------------------------------------------------------------
def test_ref_in_a_bare_repository(tmp_path: Path):
    bare = make_bare_repo(tmp_path / "b.git", FILES, executable={"bin/run.sh"})
    parent = head(bare, "main")
    receipt = applied(bare, PATCH, ref="main", message="bot fix")
    assert receipt.target == "ref"
    assert receipt.extra == {"commit": head(bare, "main"), "tree": head(bare, "main^{tree}"),
                             "parent": parent, "ref": "refs/heads/main"}
    entries = tree_entries(bare, "main")
    assert blob(bare, entries["f.txt"][1]) == BASE.replace("line 6\n", "line six\n").encode()
    assert entries["scripts/run.sh"][0] == "100755" and "bin/run.sh" not in entries
    assert "keep.txt" not in entries and entries["src/new.py"][0] == "100644"
    assert not (bare / "index").exists()
    assert git(bare, "fsck", "--no-dangling") == ""
    applied(bare, MODIFY.replace("line 5\n-line 6\n+line six", "line 5\n-line six\n+line 6"),
            ref="refs/heads/main", message="and back")


def test_ref_matches_git_tree(tmp_path: Path):
    repo = make_repo(tmp_path / "r", FILES, executable={"bin/run.sh"})
    other = twin(repo)
    git_apply(other, PATCH, "--index")
    git(other, "commit", "-q", "-m", "by git")
    bare = tmp_path / "b.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    receipt = applied(bare, PATCH, ref="main", message="m")
    assert receipt.tree == head(other, "HEAD^{tree}")


def test_ref_never_touches_working_tree_or_index(repo: Path):
    git(repo, "branch", "side")
    before = everything(repo)
    receipt = applied(repo, PATCH, ref="side", message="side fix")
    after = everything(repo)
    assert after["files"] == before["files"] and after["index"] == before["index"]
    assert after["git"]["index"] == before["git"]["index"]
    assert head(repo, "side") == receipt.commit and head(repo) != head(repo, "side")


def test_ref_errors(tmp_path: Path):
    bare = make_bare_repo(tmp_path / "b.git", FILES)
    refused(bare, MODIFY, "usage_error", ref="nope", message="m")
    refused(bare, MODIFY, "usage_error", ref="refs/tags/v1", message="m")
    refused(bare, MODIFY, "usage_error", ref="bad..name", message="m")
    refused(bare, MODIFY, "usage_error", ref="main")
    refused(bare, MODIFY, "usage_error", ref="main", message="m", target="index")
    refused(bare, MODIFY.replace("line 6", "line 66"), "context_not_found", ref="main",
            message="m")


def test_ref_first_commit_in_an_empty_bare_repository(tmp_path: Path):
    bare = make_empty_repo(tmp_path / "e.git", bare=True)
    receipt = applied(bare, ADD, ref="main", message="first")
    assert receipt.parent is None
    assert list(tree_entries(bare, "main")) == ["src/new.py"]
    refused(bare, ADD, "usage_error", ref="other", message="m")  # only HEAD's unborn branch


def test_reflog_in_bare_repositories_follows_core_logallrefupdates(tmp_path: Path):
    bare = make_bare_repo(tmp_path / "b.git", FILES)
    applied(bare, MODIFY, ref="main", message="no log")
    assert reflog(bare, "refs/heads/main") == []  # git writes none here either
    git(bare, "config", "core.logAllRefUpdates", "true")
    applied(bare, RENAME, ref="main", message="logged")
    assert reflog(bare, "refs/heads/main")[-1].endswith("\tholon-apply: logged")


# -- compare-and-swap -----------------------------------------------------------------------------
def concurrent_commit(repo: Path, ref: str = "refs/heads/main") -> str:
    """Another process commits on ``ref`` (plumbing only: it does not need the index)."""
    tree = head(repo, f"{ref}^{{tree}}")
    other = git(repo, "commit-tree", tree, "-p", ref, "-m", "concurrent").strip()
    git(repo, "update-ref", ref, other)
    return other


@pytest.mark.parametrize("target", ["both", "index"])
def test_branch_moved_during_commit(repo: Path, target: str):
    before = everything(repo)
    original = head(repo)
    moved: list[str] = []
    receipt = apply_patch(PATCH, repo, target=target, commit=True, message="mine",
                          on_ref_update=lambda: moved.append(concurrent_commit(repo)))
    assert receipt.error is not None and receipt.error.code == "head_moved", receipt.error
    assert receipt.error.details["expected"] == original
    assert receipt.error.details["found"] == moved[0]
    # the other process's commit is the branch tip, on top of ours' parent: nothing lost
    assert head(repo) == moved[0]
    assert git(repo, "log", "--format=%s", "main") == "concurrent\ninitial\n"
    # and nothing of ours is visible: files, index and HEAD's symbolic ref are as before
    assert without_refs(everything(repo)) == without_refs(before)
    assert lock_files(repo) == []


def test_branch_moved_during_ref_update_in_bare_repository(tmp_path: Path):
    bare = make_bare_repo(tmp_path / "b.git", FILES)
    moved: list[str] = []
    receipt = apply_patch(PATCH, bare, ref="main", message="mine",
                          on_ref_update=lambda: moved.append(concurrent_commit(bare)))
    assert receipt.error is not None and receipt.error.code == "head_moved"
    assert head(bare, "main") == moved[0]
    assert git(bare, "log", "--format=%s", "main") == "concurrent\ninitial\n"
    assert lock_files(bare) == []
    # applying again on top of the new tip works
    applied(bare, PATCH, ref="main", message="mine, again")
    assert git(bare, "log", "--format=%s", "main") == "mine, again\nconcurrent\ninitial\n"


def test_unborn_branch_created_concurrently(tmp_path: Path):
    bare = make_empty_repo(tmp_path / "e.git", bare=True)

    def create() -> None:
        tree = git(bare, "mktree", input=b"").strip()
        other = git(bare, "commit-tree", tree, "-m", "theirs").strip()
        git(bare, "update-ref", "refs/heads/main", other)

    receipt = apply_patch(ADD, bare, ref="main", message="mine", on_ref_update=create)
    assert receipt.error is not None and receipt.error.code == "head_moved"
    assert git(bare, "log", "--format=%s", "main") == "theirs\n"


def test_branch_locked_by_another_process(repo: Path):
    lock = git_dir(repo) / "refs" / "heads" / "main.lock"
    before = everything(repo)
    receipt = apply_patch(MODIFY, repo, commit=True, message="m",
                          on_ref_update=lambda: lock.write_text(""))
    assert receipt.error is not None and receipt.error.code == "ref_locked"
    assert lock.exists(), "holon-git removed a lock it did not take"
    lock.unlink()
    assert everything(repo) == before


def test_ctrl_c_before_the_branch_moves(tmp_path: Path):
    bare = make_bare_repo(tmp_path / "b.git", FILES)
    before = everything(bare)

    def interrupt() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        apply_patch(MODIFY, bare, ref="main", message="m", on_ref_update=interrupt)
    assert everything(bare) == before and lock_files(bare) == []


def test_commit_in_a_linked_worktree(repo: Path):
    linked = repo.parent / "linked"
    git(repo, "worktree", "add", "-q", str(linked), "-b", "side")
    main_before = everything(repo)
    receipt = applied(linked, MODIFY, commit=True, message="on side")
    assert receipt.extra["ref"] == "refs/heads/side"
    assert head(repo, "side") == receipt.commit
    assert git(linked, "status", "--porcelain") == ""
    assert reflog(repo, "refs/heads/side")[-1].endswith("holon-apply: on side")
    assert everything(repo)["files"] == main_before["files"]
    assert everything(repo)["index"] == main_before["index"]
    assert head(repo, "main") != head(repo, "side")


EXEC_ADD = ("diff --git a/tools/go.sh b/tools/go.sh\nnew file mode 100755\n"
            "--- /dev/null\n+++ b/tools/go.sh\n@@ -0,0 +1 @@\n+echo go\n")


@pytest.mark.parametrize("kwargs, git_options", [
    ({"target": "index"}, ("--cached",)),
    ({"target": "both"}, ("--index",)),
    ({"commit": True, "message": "m"}, ("--index",)),
])
def test_added_executable_matches_git_apply(repo: Path, kwargs: dict, git_options: tuple):
    other = twin(repo)
    git_apply(other, EXEC_ADD, *git_options)
    applied(repo, EXEC_ADD, **kwargs)
    assert index_entries(repo)["tools/go.sh"] == index_entries(other)["tools/go.sh"]
    assert index_entries(repo)["tools/go.sh"][0] == "100755"
    if "--index" in git_options:
        assert snapshot(repo) == snapshot(other)


def test_added_executable_on_a_ref(tmp_path: Path):
    bare = make_bare_repo(tmp_path / "bare.git", FILES)
    applied(bare, EXEC_ADD, ref="main", message="m")
    assert tree_entries(bare, "main")["tools/go.sh"][0] == "100755"
