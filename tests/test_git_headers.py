"""File headers as `git apply` reads them: traditional diffs (GNU diff's dates, names with
spaces, two different names, file creation without /dev/null) and git headers whose lines
disagree (inconsistent_header). Real repositories; where git takes the patch, the tree must be
the one `git apply` makes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gitsupport import git_apply, refused, twin
from repos.builders import make_repo, snapshot

from holon_git import apply_patch


def gnu_diff(tmp_path: Path, *args: str, files: dict[str, str]) -> bytes:
    """What GNU diff writes for ``files`` (made in a scratch directory), run with ``args``."""
    scratch = tmp_path / "scratch"
    for rel, text in files.items():
        (scratch / rel).parent.mkdir(parents=True, exist_ok=True)
        (scratch / rel).write_text(text)
    done = subprocess.run(["diff", *args], cwd=scratch, capture_output=True, check=False)
    assert done.returncode == 1, done.stderr
    return done.stdout


def same_as_git(repo: Path, patch: bytes, *options: str, **kwargs: object) -> list[str]:
    """Apply with holon-git and with git apply on a twin; the trees must match. Returns the
    diagnostics of the applied files."""
    other = twin(repo)
    git_apply(other, patch, *options)
    receipt = apply_patch(patch, repo, **kwargs)  # type: ignore[arg-type]
    assert receipt.ok, receipt.error
    assert snapshot(repo) == snapshot(other)
    return [d.code for change in receipt.files for d in change.diagnostics]


# -- traditional diffs ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["postimage.txt", "post image.txt"])
def test_diff_u_of_a_backup_patches_the_file(tmp_path: Path, name: str) -> None:
    patch = gnu_diff(tmp_path, "-u", f"{name}.orig", name,
                     files={f"{name}.orig": "one\ntwo\n", name: "one\nTWO\n"})
    assert b"\t20" in patch.splitlines()[0]  # GNU diff dated it after a tab
    repo = make_repo(tmp_path / "r", {name: "one\ntwo\n"})
    assert same_as_git(repo, patch) == ["traditional_file_names"]
    assert (repo / name).read_text() == "one\nTWO\n"


def test_plus_name_that_only_adds_to_the_minus_name_patches_the_minus_file(
        tmp_path: Path) -> None:
    patch = gnu_diff(tmp_path, "-u", "notes.txt", "notes.txt.new",
                     files={"notes.txt": "a\nb\n", "notes.txt.new": "a\nB\n"})
    repo = make_repo(tmp_path / "r", {"notes.txt": "a\nb\n"})
    same_as_git(repo, patch)
    assert (repo / "notes.txt").read_text() == "a\nB\n"


def test_chosen_file_missing_is_refused_naming_both(tmp_path: Path) -> None:
    patch = gnu_diff(tmp_path, "-u", "app.py.orig", "app.py",
                     files={"app.py.orig": "x = 1\n", "app.py": "x = 2\n"})
    repo = make_repo(tmp_path / "r", {"app.py.orig": "x = 1\n"})
    err = refused(repo, patch, "file_path_mismatch")
    assert "app.py.orig" in err.message and "'app.py'" in err.message
    assert err.details == {"old_header_path": "app.py.orig", "new_header_path": "app.py",
                           "chosen": "app.py"}
    assert subprocess.run(["git", "apply", "--check", "-"], cwd=repo, input=patch,
                          capture_output=True).returncode != 0  # git refuses it too


def test_p0_keeps_two_names_and_refuses_when_the_chosen_one_is_missing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"src/app.py": "a\n"})
    patch = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert refused(repo, patch, "file_path_mismatch", strip=0).path == "b/src/app.py"


def test_diff_ruN_of_two_trees_with_spaces_and_a_new_file(tmp_path: Path) -> None:
    patch = gnu_diff(tmp_path, "-ruN", "old", "new", files={
        "old/post image.txt": "pre\nimage\n", "new/post image.txt": "post\nimage\n",
        "new/created file.txt": "fresh\n"})
    repo = make_repo(tmp_path / "r", {"post image.txt": "pre\nimage\n"})
    notes = same_as_git(repo, patch)
    assert notes.count("traditional_file_names") == 2 and "epoch_timestamp" in notes
    assert (repo / "created file.txt").read_text() == "fresh\n"


def creation(separator: str, zone: str) -> str:
    """A creation patch as diff -urN writes it for 'post image.txt', optionally whitespace
    damaged (the tab before each date expanded to spaces) and with a colon in the zone."""
    return ("diff -urN old/post image.txt new/post image.txt\n"
            f"--- old/post image.txt{separator}1969-12-31 16:00:00 -08{zone}00\n"
            f"+++ new/post image.txt{separator}2005-04-12 02:14:06 -07{zone}00\n"
            "@@ -0,0 +1 @@\n+postimage\n")


@pytest.mark.parametrize("separator", ["\t", " "], ids=["tab", "damaged"])
@pytest.mark.parametrize("zone", ["", ":"], ids=["plain-tz", "colon-tz"])
def test_dated_creation_with_spaces_in_the_name(tmp_path: Path, separator: str,
                                                zone: str) -> None:
    repo = make_repo(tmp_path / "r", {"other.txt": "x\n"})
    same_as_git(repo, creation(separator, zone).encode())
    assert (repo / "post image.txt").read_text() == "postimage\n"


@pytest.mark.parametrize("existing", [None, ""], ids=["missing", "empty"])
def test_hunk_without_old_lines_creates_or_patches(tmp_path: Path, existing: str | None) -> None:
    """No /dev/null and no epoch date: git creates the file when it is missing and patches it
    when it is there."""
    files = {"keep.txt": "k\n"} if existing is None else {"keep.txt": "k\n", "file": existing}
    repo = make_repo(tmp_path / "r", files)
    patch = ("--- a/file\t1982-09-16 07:00:00.000000000 -0800\n"
             "+++ b/file\t1982-09-16 07:00:00.000000000 -0800\n@@ -0,0 +1 @@\n+something\n")
    notes = same_as_git(repo, patch.encode())
    assert ("missing_file_created" in notes) == (existing is None)
    assert (repo / "file").read_text() == "something\n"


def test_quoted_traditional_names(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"caf\u00e9 menu.txt": "tea\n"})
    patch = ('--- "a/caf\\303\\251 menu.txt"\t2024-01-02 03:04:05.000000000 +0100\n'
             '+++ "b/caf\\303\\251 menu.txt"\t2024-01-02 03:04:06.000000000 +0100\n'
             "@@ -1 +1 @@\n-tea\n+coffee\n")
    same_as_git(repo, patch.encode())
    assert (repo / "caf\u00e9 menu.txt").read_text() == "coffee\n"


def test_svn_style_annotation_after_the_tab(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"Makefile": "all:\n\techo hi\n"})
    patch = ("Index: Makefile\n" + "=" * 67 + "\n"
             "--- Makefile\t(revision 13)\n+++ Makefile\t(working copy)\n"
             "@@ -1,2 +1,2 @@\n all:\n-\techo hi\n+\techo bye\n")
    same_as_git(repo, patch.encode())


# -- git headers that disagree ----------------------------------------------------------------

INCONSISTENT = {
    "git line vs rename": "diff --git a/old.txt b/new.txt\nrename from other.txt\n"
                          "rename to new.txt\n",
    "rename vs file lines": "diff --git a/a.txt b/b.txt\nrename from a.txt\nrename to b.txt\n"
                            "--- a/a.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-a\n+A\n",
    "new file with old side": "diff --git a/a.txt b/a.txt\nnew file mode 100644\n--- a/a.txt\n"
                              "+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n",
    "deleted file with new side": "diff --git a/a.txt b/a.txt\ndeleted file mode 100644\n"
                                  "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n",
    "new file, other name (git t4133)": "diff --git a/f b/f\nnew file mode 100644\n"
                                        "index 0000000..d00491f\n--- /dev/null\n+++ b/f-blah\n"
                                        "@@ -0,0 +1 @@\n+1\n",
    "deleted file, other name (git t4133)": "diff --git a/a.txt b/a.txt\n"
                                            "deleted file mode 100644\n--- b/a.txt-blah\n"
                                            "+++ /dev/null\n@@ -1 +0,0 @@\n-a\n",
    "rename and new file": "diff --git a/a.txt b/n.txt\nnew file mode 100644\n"
                           "rename from a.txt\nrename to n.txt\n",
    "rename and deleted file": "diff --git a/a.txt b/n.txt\ndeleted file mode 100644\n"
                               "rename from a.txt\nrename to n.txt\n",
    "git line vs file lines": "diff --git a/a.txt b/a.txt\n--- a/b.txt\n+++ b/b.txt\n"
                              "@@ -1 +1 @@\n-b\n+B\n",
    "two names, no rename": "diff --git a/a.txt b/b.txt\n--- a/a.txt\n+++ b/b.txt\n"
                            "@@ -1 +1 @@\n-a\n+A\n",
}


@pytest.mark.parametrize("name", sorted(INCONSISTENT))
def test_inconsistent_git_headers_are_never_applied(tmp_path: Path, name: str) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n", "b.txt": "b\n", "other.txt": "o\n"})
    err = refused(repo, INCONSISTENT[name], "inconsistent_header")
    assert err.patch_line == 1 and len(err.details["lines"]) >= 2
    for quoted in err.details["lines"]:
        assert f"line {quoted['line']}: '{quoted['text']}'" in err.message


def test_consistent_rename_with_spaces_matches_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"old name.txt": "one\ntwo\nthree\n"})
    patch = ("diff --git a/old name.txt b/new name.txt\nsimilarity index 80%\n"
             "rename from old name.txt\nrename to new name.txt\n--- a/old name.txt\n"
             "+++ b/new name.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n")
    same_as_git(repo, patch.encode())


BINARY = {
    "git --binary": "diff --git a/img.png b/img.png\nindex 0000000..bdc955b\n"
                    "GIT binary patch\nliteral 2\nJcmZQ%0000\n\nliteral 0\nHcmV?d00001\n",
    "git without --binary": "diff --git a/img.png b/img.png\nnew file mode 100644\n"
                            "index 0000000..bdc955b\nBinary files /dev/null and b/img.png differ\n",
    "diff -r, between text patches": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n"
                                     "Binary files a/img.png and b/img.png differ\n",
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_a_binary_change_is_refused_naming_its_file(tmp_path: Path, name: str) -> None:
    """Never skipped (the text patches around it would apply without it), and the refusal
    says which file (error.path)."""
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    err = refused(repo, BINARY[name], "unsupported_git_patch_feature")
    assert err.path == "img.png" and "binary" in err.message


@pytest.mark.parametrize("prefixes", [("old/", "new/"), ("left/", "right/")])
def test_git_diff_with_its_own_prefixes_applies_as_git_applies_it(tmp_path: Path,
                                                                 prefixes: tuple[str, str]):
    """git diff --src-prefix/--dst-prefix: git apply's -p1 strips any first component; the
    two sides differ there only, so it is a prefix (a modify, an add and a delete)."""
    repo = make_repo(tmp_path / "r", {"src/f.txt": "1\n2\n3\n", "gone.txt": "x\n"})
    (repo / "src" / "f.txt").write_text("1\nTWO\n3\n")
    (repo / "new.txt").write_text("fresh\n")
    (repo / "gone.txt").unlink()
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    patch = subprocess.run(["git", "diff", "--cached", f"--src-prefix={prefixes[0]}",
                            f"--dst-prefix={prefixes[1]}"], cwd=repo, capture_output=True,
                           check=True).stdout
    assert f"diff --git {prefixes[0]}src/f.txt {prefixes[1]}src/f.txt".encode() in patch
    subprocess.run(["git", "reset", "-q", "--hard"], cwd=repo, check=True)
    same_as_git(repo, patch)
    assert (repo / "src" / "f.txt").read_text() == "1\nTWO\n3\n"
    assert (repo / "new.txt").exists() and not (repo / "gone.txt").exists()


def test_a_lone_plus_line_header_changes_that_file_as_the_whole_header_would(tmp_path: Path):
    """'+++ b/src/f.txt' and a hunk, no '---' and no 'diff --git' line (a model's one-path
    header): the same change git apply makes of the patch with its '---' line."""
    repo = make_repo(tmp_path / "r", {"src/f.txt": "1\n2\n3\n"})
    whole = b"--- a/src/f.txt\n+++ b/src/f.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+TWO\n 3\n"
    other = twin(repo)
    git_apply(other, whole)
    receipt = apply_patch(whole.replace(b"--- a/src/f.txt\n", b""), repo)
    assert receipt.ok, receipt.error
    assert snapshot(repo) == snapshot(other)
