"""Applying to the working tree of real git repositories. Matching and byte-for-byte cases
live as folders in tests/scenarios/."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from gitsupport import applied, forget_resend_records, refused
from repos.builders import git, git_state, make_repo, snapshot

from holon_git import apply_patch, check_patch

BASE = "".join(f"line {i}\n" for i in range(1, 41))


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f.txt": BASE, "keep.txt": "untouched\n"}


def test_already_applied(repo: Path):
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -5,3 +5,3 @@\n line 5\n-line 6\n+line six\n line 7\n"
    applied(repo, patch)
    refused(repo, patch, "already_applied")


# -- blank lines at the end ------------------------------------------------------------------------

def test_hunk_of_only_trailing_blank_lines_on_an_empty_file(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f": ""})
    err = refused(repo, "diff --git a/f b/f\n@@ -1,2 +1,2 @@\n\n", "context_not_found")
    assert "found the end of the file" in err.message


# -- files ----------------------------------------------------------------------------------------

def test_add_creates_parents_with_normal_mode(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"x": "x\n"})
    receipt = applied(repo, "diff --git a/new/dir/a.txt b/new/dir/a.txt\nnew file mode 100644\n"
                            "--- /dev/null\n+++ b/new/dir/a.txt\n@@ -0,0 +1 @@\n+a\n")
    path = repo / "new/dir/a.txt"
    assert path.read_text() == "a\n"
    assert not path.stat().st_mode & stat.S_IXUSR
    assert receipt.files[0].ignored_metadata == ["new file mode 100644"]


def test_added_file_declared_executable_is_created_executable(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"x": "x\n"})
    patch = ("diff --git a/new/dir/run.sh b/new/dir/run.sh\nnew file mode 100755\n"
             "--- /dev/null\n+++ b/new/dir/run.sh\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo hi\n")
    receipt = applied(repo, patch)
    path = repo / "new/dir/run.sh"
    assert path.read_text() == "#!/bin/sh\necho hi\n"
    assert path.stat().st_mode & stat.S_IXUSR
    assert receipt.files[0].ignored_metadata == []  # applied, so not ignored
    applied(repo, patch, reverse=True)
    assert not path.exists()


def test_reversed_delete_of_an_executable_recreates_it_executable(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"run.sh": "echo hi\n"})
    os.chmod(repo / "run.sh", 0o755)
    patch = ("diff --git a/run.sh b/run.sh\ndeleted file mode 100755\n"
             "--- a/run.sh\n+++ /dev/null\n@@ -1 +0,0 @@\n-echo hi\n")
    applied(repo, patch)
    applied(repo, patch, reverse=True)
    assert (repo / "run.sh").stat().st_mode & stat.S_IXUSR


@pytest.mark.parametrize("header", ["old mode 100644\nnew mode 100755\n", ""])
def test_mode_lines_of_an_existing_file_set_its_mode(tmp_path: Path, header: str):
    """As git apply: 'new mode 100755' makes the changed file executable (test_mode_change.py
    for every target); without mode lines the file keeps its mode."""
    repo = make_repo(tmp_path / "r", {"f": "a\n"})
    applied(repo, f"diff --git a/f b/f\n{header}--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n")
    assert bool((repo / "f").stat().st_mode & stat.S_IXUSR) == bool(header)


def test_add_without_final_newline_and_empty_add(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"x": "x\n"})
    applied(repo, "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+no newline\n"
                  "\\ No newline at end of file\n"
                  "diff --git a/pkg/__init__.py b/pkg/__init__.py\nnew file mode 100644\n"
                  "index 0000000..e69de29\n")
    assert (repo / "a.txt").read_bytes() == b"no newline"
    assert (repo / "pkg/__init__.py").read_bytes() == b""


def test_add_onto_existing_file(repo: Path):
    refused(repo, "--- /dev/null\n+++ b/keep.txt\n@@ -0,0 +1 @@\n+other\n", "already_exists")
    refused(repo, "--- /dev/null\n+++ b/keep.txt\n@@ -0,0 +1 @@\n+untouched\n",
            "already_applied")


def test_add_below_a_file(repo: Path):
    refused(repo, "--- /dev/null\n+++ b/keep.txt/sub\n@@ -0,0 +1 @@\n+x\n", "already_exists")


def test_modify_or_delete_missing_file(repo: Path):
    refused(repo, "--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n", "not_found")
    refused(repo, "--- a/nope.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", "not_found")
    refused(repo, "--- a/dir/nope.txt\n+++ b/dir/nope.txt\n@@ -1 +1 @@\n-a\n+b\n", "not_found")


def test_delete_removes_file_and_empty_parents(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"a/b/c.txt": "1\n2\n", "a/other.txt": "o\n"})
    applied(repo, "--- a/a/b/c.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-1\n-2\n")
    assert not (repo / "a/b").exists() and (repo / "a/other.txt").exists()


def test_deleting_a_deep_file_then_a_shallower_one_prunes_both_parents(tmp_path: Path):
    # The first deletion's pruning removes a/b and a; the second's parent is then gone too.
    repo = make_repo(tmp_path / "r", {"a/b/c/z.txt": "z\n", "a/b/x.txt": "x\n", "keep": "k\n"})
    applied(repo, "--- a/a/b/c/z.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n"
                  "--- a/a/b/x.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n")
    assert not (repo / "a").exists() and (repo / "keep").exists()
    assert git(repo, "status", "--porcelain") == " D a/b/c/z.txt\n D a/b/x.txt\n"


def test_rename_keeps_mode_and_edits(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"old/run.sh": "#!/bin/sh\necho 1\n"},
                     executable=["old/run.sh"])
    applied(repo, "diff --git a/old/run.sh b/new/place/run.sh\nsimilarity index 80%\n"
                  "rename from old/run.sh\nrename to new/place/run.sh\n--- a/old/run.sh\n"
                  "+++ b/new/place/run.sh\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo 1\n+echo 2\n")
    moved = repo / "new/place/run.sh"
    assert moved.read_text() == "#!/bin/sh\necho 2\n"
    assert moved.stat().st_mode & stat.S_IXUSR
    assert not (repo / "old").exists()


def test_rename_only_and_rename_onto_existing(repo: Path):
    refused(repo, "diff --git a/f.txt b/keep.txt\nrename from f.txt\nrename to keep.txt\n",
            "already_exists")
    applied(repo, "diff --git a/f.txt b/g.txt\nrename from f.txt\nrename to g.txt\n")
    assert (repo / "g.txt").read_text() == BASE and not (repo / "f.txt").exists()
    refused(repo, "diff --git a/f.txt b/g.txt\nrename from f.txt\nrename to g.txt\n",
            "already_applied")


def test_modify_keeps_exec_bit_and_permissions(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"run.sh": "echo 1\n"}, executable=["run.sh"])
    os.chmod(repo / "run.sh", 0o750)
    applied(repo, "--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo 1\n+echo 2\n")
    assert stat.S_IMODE((repo / "run.sh").stat().st_mode) == 0o750


def test_no_temporary_files_left_behind(repo: Path):
    applied(repo, "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-line 1\n+x\n"
                  "--- /dev/null\n+++ b/n/new.txt\n@@ -0,0 +1 @@\n+n\n")
    names = {p.name for p in repo.rglob("*") if ".git" not in p.parts}
    assert not any(name.startswith(".holon-") for name in names)


def test_write_failure_restores_every_file(repo: Path, monkeypatch: pytest.MonkeyPatch):
    """Fault injection: the third rename of the commit step fails."""
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-line 1\n+x\n"
             "--- a/keep.txt\n+++ b/keep.txt\n@@ -1 +1 @@\n-untouched\n+touched\n"
             "--- /dev/null\n+++ b/added/n.txt\n@@ -0,0 +1 @@\n+n\n")
    before, state = snapshot(repo), git_state(repo)
    real_rename = os.rename
    calls = []

    def failing_rename(*args: object, **kwargs: object) -> None:
        calls.append(args)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        real_rename(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "rename", failing_rename)
    receipt = apply_patch(patch, repo)
    monkeypatch.setattr(os, "rename", real_rename)
    assert receipt.error is not None and receipt.error.code == "io_error"
    assert "No space left" in receipt.error.message
    assert snapshot(repo) == before and git_state(repo) == state


def _many_files_patch(count: int) -> tuple[dict[str, str], str]:
    files = {f"d{i % 3}/f{i}.txt": f"a{i}\nb{i}\n" for i in range(count)}
    patch = "".join(f"--- a/{p}\n+++ b/{p}\n@@ -1,2 +1,2 @@\n a{i}\n-b{i}\n+c{i}\n"
                    for i, p in enumerate(files))
    return files, patch


def test_many_files_are_staged_and_synced_together(tmp_path: Path):
    files, patch = _many_files_patch(40)  # above the thread-pool threshold
    repo = make_repo(tmp_path / "r", files)
    applied(repo, patch)
    for i, path in enumerate(files):
        assert (repo / path).read_text() == f"a{i}\nc{i}\n"
    assert not [p for p in repo.rglob("*.tmp")]


def test_fsync_failure_among_many_files_restores_everything(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch):
    """Fault injection: with --fsync, one fsync of the thread pool fails; nothing changes,
    no temp files."""
    files, patch = _many_files_patch(40)
    repo = make_repo(tmp_path / "r", files)
    before, state = snapshot(repo), git_state(repo)
    real_fsync = os.fsync
    calls = []

    def failing_fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 7:
            raise OSError(5, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    receipt = apply_patch(patch, repo, durable=True)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert receipt.error is not None and receipt.error.code == "io_error"
    assert receipt.error.path in files
    assert snapshot(repo) == before and git_state(repo) == state


def test_check_writes_nothing(repo: Path):
    before = snapshot(repo)
    receipt = check_patch("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-line 1\n+x\n", repo)
    assert receipt.status == "checked" and receipt.ok
    assert snapshot(repo) == before


def test_reverse_undoes(repo: Path):
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-line 1\n+x\n"
             "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+n\n"
             "--- a/keep.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-untouched\n")
    before = snapshot(repo)
    applied(repo, patch)
    assert snapshot(repo) != before
    assert applied(repo, patch, reverse=True).reverse
    assert snapshot(repo) == before
    err = refused(repo, patch, "not_applied", reverse=True)
    assert "reversed" in err.message and "re-send" in err.message  # the history log's record
    forget_resend_records(repo)
    err = refused(repo, patch, "not_applied", reverse=True)
    assert "not applied" in err.message


# -- where a patch may write ----------------------------------------------------------------------

def test_symlinked_directory_pointing_outside(tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.txt").write_text("secret\n")
    repo = make_repo(tmp_path / "r", {"x": "x\n"}, symlinks={"link": str(outside)})
    err = refused(repo, "--- /dev/null\n+++ b/link/new.txt\n@@ -0,0 +1 @@\n+pwned\n",
                  "path_escape")
    assert "outside" in err.message
    refused(repo, "--- a/link/target.txt\n+++ b/link/target.txt\n@@ -1 +1 @@\n-secret\n+x\n",
            "path_escape")
    assert sorted(os.listdir(outside)) == ["target.txt"]
    assert (outside / "target.txt").read_text() == "secret\n"


def test_symlink_inside_the_repository(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"src/a.txt": "a\n"},
                     symlinks={"alias": "src", "a-link.txt": "src/a.txt"})
    refused(repo, "--- a/alias/a.txt\n+++ b/alias/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
            "symlink_in_path")
    refused(repo, "--- a/a-link.txt\n+++ b/a-link.txt\n@@ -1 +1 @@\n-a\n+b\n",
            "symlink_in_path")
    refused(repo, "--- a/a-link.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", "symlink_in_path")


def test_directory_target(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"d/x": "x\n"})
    refused(repo, "--- a/d\n+++ b/d\n@@ -1 +1 @@\n-a\n+b\n", "not_a_regular_file")


def test_bare_repository_has_no_working_tree(tmp_path: Path):
    from repos.builders import make_bare_repo

    bare = make_bare_repo(tmp_path / "bare.git")
    receipt = apply_patch("--- a/README\n+++ b/README\n@@ -1 +1 @@\n-x\n+y\n", bare)
    assert receipt.error is not None and receipt.error.code == "not_a_repository"


def test_in_a_subdirectory_a_git_diff_names_paths_from_the_top(repo: Path):
    (repo / "sub").mkdir()
    applied(repo / "sub", "diff --git a/keep.txt b/keep.txt\n--- a/keep.txt\n+++ b/keep.txt\n"
            "@@ -1 +1 @@\n-untouched\n+t\n")
    assert (repo / "keep.txt").read_text() == "t\n"


def test_outside_any_repository_applies_relative_to_the_directory(tmp_path: Path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "f").write_text("a\n")
    applied(plain, "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n")
    assert (plain / "f").read_text() == "b\n"


def test_git_status_after_apply_matches_git_apply(tmp_path: Path):
    files = {"a.py": "".join(f"v{i}\n" for i in range(30)), "b/c.txt": "c\n"}
    ours = make_repo(tmp_path / "ours", files)
    theirs = make_repo(tmp_path / "theirs", files)
    patch = ("diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -3,3 +3,4 @@\n v2\n-v3\n+V3\n"
             "+V3b\n v4\n"
             "diff --git a/b/c.txt b/d.txt\nsimilarity index 100%\nrename from b/c.txt\n"
             "rename to d.txt\n"
             "diff --git a/e.txt b/e.txt\nnew file mode 100644\n--- /dev/null\n+++ b/e.txt\n"
             "@@ -0,0 +1 @@\n+e\n")
    applied(ours, patch)
    git(theirs, "apply", "-", input=patch.encode())
    assert snapshot(ours) == snapshot(theirs)
    assert git(ours, "status", "--porcelain") == git(theirs, "status", "--porcelain")


@pytest.mark.skipif(shutil.which("diff") is None, reason="needs GNU diff")
def test_a_gnu_diff_ruN_patch_adds_modifies_and_deletes(tmp_path: Path):
    """`diff -ruN old new` dates files missing on one side at the epoch instead of /dev/null."""
    old_files = {"d/f.txt": "a\nb\nc\n", "d/old.txt": "gone\n", "keep": "k\n"}
    new_files = {"d/f.txt": "a\nB\nc\n", "newdir/n.txt": "new\nfile\n", "keep": "k\n"}
    for name, files in (("old", old_files), ("new", new_files)):
        for path, text in files.items():
            (tmp_path / name / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name / path).write_text(text)
    made = subprocess.run(["diff", "-ruN", "old", "new"], cwd=tmp_path, capture_output=True)
    assert made.returncode == 1 and b"1970-01-01" in made.stdout
    repo = make_repo(tmp_path / "r", old_files)
    receipt = applied(repo, made.stdout, strip=1)
    assert {d.code for f in receipt.files for d in f.diagnostics} == {"epoch_timestamp"}
    assert snapshot(repo) == snapshot(tmp_path / "new")


def test_the_library_takes_the_path_of_a_patch_file(repo: Path, tmp_path: Path):
    from pathlib import PurePath  # any os.PathLike

    patch = tmp_path / "fix.diff"
    patch.write_text("--- a/keep.txt\n+++ b/keep.txt\n@@ -1 +1 @@\n-untouched\n+touched\n")
    assert check_patch(patch, repo).ok
    applied(repo, patch)
    assert (repo / "keep.txt").read_text() == "touched\n"
    err = refused(repo, PurePath(tmp_path / "missing.diff"), "usage_error")
    assert "cannot read patch" in err.message


def test_a_str_naming_a_patch_file_says_to_pass_a_path(repo: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch):
    """A str is the patch's text: `apply_patch("fix.diff")` with a file of that name here
    (or in the repository) is refused, and the hint names the Path that would read it."""
    text = "--- a/keep.txt\n+++ b/keep.txt\n@@ -1 +1 @@\n-untouched\n+touched\n"
    (tmp_path / "fix.diff").write_text(text)
    monkeypatch.chdir(tmp_path)
    err = refused(repo, "fix.diff", "empty_patch")
    assert err.message == ("the patch text 'fix.diff' holds no patch: it is the name of a "
                           "file, and a str is read as the patch's text")
    assert err.hint == ("to apply the patch in that file, pass its path as a Path: "
                        "apply_patch(pathlib.Path('fix.diff'), ...)")
    assert refused(repo, "fix.diff", "empty_patch", allow_empty=True).details == {
        "file": "fix.diff"}  # not "nothing to apply": the file was meant
    (repo / "in-repo.diff").write_text(text)
    err = refused(repo, "in-repo.diff", "empty_patch", check=True)
    assert f"pathlib.Path({str(repo / 'in-repo.diff')!r})" in err.hint
    # text that names no file, and a Path, are what they were
    assert refused(repo, "nothing.diff", "empty_patch").details.get("file") is None
    applied(repo, Path("fix.diff"))
