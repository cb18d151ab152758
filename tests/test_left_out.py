"""File patches holon-git reads but does not apply (parse/left_out.py): a binary file, a mode
change alone, a path with a tab. Each is refused with a hint naming the option that leaves it
out; --exclude/--include leave it out and the rest applies, as with `git apply --exclude`;
--reject applies the rest and refuses it, as `git apply --reject` does with a binary patch
it cannot apply; --stat/--numstat/--summary list it as git does."""

from __future__ import annotations

from pathlib import Path

import pytest
from clisupport import holon, report_lines
from gitsupport import applied, everything, git_apply, refused, twin
from repos.builders import git, snapshot

TEXT = ("diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n"
        "@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n four\n")


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    return {"f.txt": "one\ntwo\nthree\nfour\nfive\n", "docs/blob.bin": b"\x00\x01old\x02",
            "run.sh": "echo hi\n"}


def _binary_diffs(repo: Path) -> dict[str, str]:
    """git's own diffs of a changed, an added and a deleted binary file: with --binary
    ('GIT binary patch') and without ('Binary files ... differ'), the working tree restored."""
    (repo / "docs/blob.bin").write_bytes(b"\x00\x02new content\x03")
    (repo / "docs/new.bin").write_bytes(b"\x00added")
    git(repo, "add", "-N", "docs/new.bin")
    diffs = {"git binary patch": git(repo, "diff", "--binary"), "binary files differ":
             git(repo, "diff")}
    git(repo, "rm", "-q", "--cached", "docs/new.bin")
    (repo / "docs/new.bin").unlink()
    git(repo, "checkout", "-q", ".")
    return diffs


def _left_out_patches(repo: Path) -> dict[str, tuple[str, list[str]]]:
    """Each kind of file patch left out, after a text change of f.txt: the patch, and the
    paths it names that holon-git does not apply."""
    diffs = _binary_diffs(repo)
    mode_only = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
    tab = ('diff --git "a/t\\tab.txt" "b/t\\tab.txt"\nnew file mode 100644\n--- /dev/null\n'
           '+++ "b/t\\tab.txt"\n@@ -0,0 +1 @@\n+x\n')
    return {
        "git binary patch": (TEXT + diffs["git binary patch"], ["docs/blob.bin", "docs/new.bin"]),
        "binary files differ": (diffs["binary files differ"] + TEXT,
                                ["docs/blob.bin", "docs/new.bin"]),
        "diff -r's binary line": (TEXT + "Binary files a/docs/blob.bin and b/docs/blob.bin "
                                  "differ\n", ["docs/blob.bin"]),
        "a mode change alone": (mode_only + TEXT, ["run.sh"]),
        "a path with a tab": (tab + TEXT, ["t\tab.txt"]),
    }


KINDS = ["git binary patch", "binary files differ", "diff -r's binary line",
         "a mode change alone", "a path with a tab"]
GITS_OWN = ["git binary patch", "binary files differ", "a mode change alone"]


@pytest.mark.parametrize("kind", KINDS)
def test_refused_with_a_hint_naming_the_option_that_leaves_it_out(repo: Path, kind: str):
    patch, left_out = _left_out_patches(repo)[kind]
    err = refused(repo, patch, ("unsupported_git_patch_feature", "invalid_path"))
    refusals = [err, *err.more]
    assert [e.path for e in refusals] == left_out
    for one in refusals:
        assert one.path is not None and "--exclude=" in one.hint and "--reject" in one.hint
    if kind == "a path with a tab":  # a pattern that matches it: '?' for the tab
        assert "--exclude='t?ab.txt'" in err.hint
        assert applied(repo, patch, check=True, exclude=["t?ab.txt"]).files[0].path == "f.txt"
    else:
        assert f"--exclude={left_out[0]} " in err.hint
    done = holon(repo, "-", stdin=patch)
    assert done.returncode == 1
    assert "hint: leave this file out with --exclude=" in " ".join(report_lines(done.stderr))


@pytest.mark.parametrize("kind", KINDS)
def test_exclude_leaves_it_out_and_the_rest_applies(repo: Path, kind: str):
    patch, left_out = _left_out_patches(repo)[kind]
    excludes = [f"--exclude={path}" for path in left_out]
    before = snapshot(repo)
    done = holon(repo, *excludes, "-", stdin=patch)
    assert done.returncode == 0, done.stderr
    after = snapshot(repo)
    assert (repo / "f.txt").read_text() == "one\ntwo\nTHREE\nfour\nfive\n"
    assert {path: after[path] for path in after if path != "f.txt"} == \
        {path: before[path] for path in before if path != "f.txt"}
    if kind in GITS_OWN:  # git apply --exclude writes the same tree
        other = twin(repo)
        git(other, "checkout", "-q", ".")
        git_apply(other, patch, *excludes)
        assert snapshot(other) == after
        assert (other / "run.sh").stat().st_mode == (repo / "run.sh").stat().st_mode


@pytest.mark.parametrize("kind", ["git binary patch", "a mode change alone"])
def test_include_of_the_others_leaves_it_out(repo: Path, kind: str):
    patch, _ = _left_out_patches(repo)[kind]
    receipt = applied(repo, patch, include=["f.txt"])
    assert [f.path for f in receipt.files] == ["f.txt"]


@pytest.mark.parametrize("kind", KINDS)
def test_reject_applies_the_rest_and_refuses_it(repo: Path, kind: str):
    patch, left_out = _left_out_patches(repo)[kind]
    done = holon(repo, "--reject", "-", stdin=patch)
    assert done.returncode == 1
    assert (repo / "f.txt").read_text() == "one\ntwo\nTHREE\nfour\nfive\n"
    assert "not applied: " + ", ".join(left_out) in done.stdout + done.stderr
    if kind == "binary files differ":  # git cannot apply it either: the same tree
        other = twin(repo)
        git(other, "checkout", "-q", ".")
        git(other, "apply", "--reject", "-", input=patch.encode(), check=False)
        assert snapshot(other) == snapshot(repo)


def test_nothing_changes_without_exclude(repo: Path):
    patch, _ = _left_out_patches(repo)["git binary patch"]
    state = everything(repo)
    assert holon(repo, "-", stdin=patch).returncode == 1
    assert everything(repo) == state


@pytest.mark.parametrize("kind", GITS_OWN)
def test_listed_as_git_lists_it(repo: Path, kind: str):
    """' Bin' in --stat, '-<TAB>-' in --numstat, ' create mode' in --summary: byte for
    byte git's, forwards and reversed."""
    patch, _ = _left_out_patches(repo)[kind]
    for flags in (["--stat", "--numstat", "--summary"], ["-R", "--stat", "--summary"],
                  ["--numstat", "-z"], ["--stat", "--exclude=docs/new.bin"]):
        expected = git(repo, "apply", *flags, "-", input=patch.encode())
        done = holon(repo, *flags, "-", stdin=patch)
        assert done.returncode == 0, done.stderr
        assert done.stdout == expected, flags
    if kind != "a mode change alone":
        assert " docs/blob.bin | Bin\n" not in expected  # git pads the name, and two spaces
        assert "  Bin\n" in expected and "-\t-\tdocs/new.bin" in holon(
            repo, "--numstat", "-", stdin=patch).stdout


@pytest.mark.parametrize("path", ["docs/blob.bin", "a b[1]*.bin", "#x.bin", "!y.bin",
                                  "back\\slash.bin", "t\tab.bin", "what?.bin"])
def test_the_hints_pattern_leaves_out_that_file_and_no_other(path: str):
    """The hint's --exclude pattern (gitignore rules, as --exclude reads them), unquoted as a
    shell would, matches the path it names and not a neighbour that differs in one place."""
    import shlex

    from holon_git.core.model import FileKind, FilePatch, Patch
    from holon_git.core.policy import select_files
    from holon_git.parse.left_out import exclude_pattern

    pattern = shlex.split(exclude_pattern(path))[0]
    files = [FilePatch(FileKind.MODIFY, name, name) for name in (path, path + "x", "other.bin")]
    kept = select_files(Patch(files), exclude=[pattern]).files
    assert [fp.path for fp in kept] == [path + "x", "other.bin"]
