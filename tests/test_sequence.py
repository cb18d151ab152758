"""File patches of one path in one input apply in sequence, as `git apply` applies them:
repeated ---/+++ blocks, `git format-patch` series, swaps and rotations from `git diff -M -B`,
rename then edit, delete then add. Every patch here is what git itself writes (or the shape an
agent writes), and every accepted result is compared with `git apply` on a twin repository."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from gitsupport import applied, everything, git_apply, refused, twin
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st
from repos.builders import git, index_entries, make_repo, snapshot, tree_entries
from strategies import apply_edits, difflib_patch, edits, file_lines, join, repeat_is_true

from holon_git import apply_patch
from holon_git.core.change import SourceFile
from holon_git.core.plan.plan import plan_patch
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

LETTERS = "".join(f"{c}\n" for c in "abcdefghijklm")


def bulk(tag: str) -> str:
    """A file git's break detection (-B) pairs with renames: 100 lines of one content."""
    return f"content of file {tag}\n" * 100


def sed(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text().replace(old, new))


def same_as_git(repo: Path, patch: bytes | str, *git_options: str, **kwargs: object) -> dict:
    """Apply with holon-git and git apply (on a twin); working trees and, for index targets,
    the index must be identical. Returns the receipt as a dict."""
    if repo.with_name(repo.name + "-twin").exists():
        shutil.rmtree(repo.with_name(repo.name + "-twin"))
    other = twin(repo)
    git_apply(other, patch, *git_options)
    receipt = applied(repo, patch, **kwargs)
    assert snapshot(repo) == snapshot(other)
    if kwargs.get("target") in ("index", "both"):
        assert index_entries(repo) == index_entries(other)
    return receipt.to_dict()


def reset(repo: Path) -> None:
    git(repo, "reset", "-q", "--hard")
    git(repo, "clean", "-qfd")


# -- repeated blocks and series --------------------------------------------------------------

@pytest.mark.parametrize("second", [("i\n", "y\n"), ("e\n", "y\n")],
                         ids=["independent", "overlapping"])
def test_two_diffs_of_one_file_concatenated(tmp_path: Path, second: tuple[str, str]) -> None:
    """git's t4127: 'git diff' after staging, then 'git diff' again, in one file."""
    repo = make_repo(tmp_path / "r", {"same_fn": LETTERS, "other_fn": LETTERS})
    sed(repo / "same_fn", "d\n", "z\n")
    patch = git(repo, "diff")
    git(repo, "add", "same_fn")
    sed(repo / "same_fn", *second)
    patch += git(repo, "diff")
    want = (repo / "same_fn").read_text()
    reset(repo)
    receipt = same_as_git(repo, patch)
    assert (repo / "same_fn").read_text() == want
    assert [f["action"] for f in receipt["files"]] == ["modify", "modify"]
    assert [d["code"] for d in receipt["files"][1]["diagnostics"]] == ["sequenced_file_patch"]


def test_format_patch_series_of_one_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"notes.txt": LETTERS, "other.txt": "x\n"})
    for old, new in (("c\n", "C\n"), ("C\nd\n", "C\nD\n")):
        sed(repo / "notes.txt", old, new)
        git(repo, "commit", "-qam", f"edit {new.strip()}")
    series = git(repo, "format-patch", "-2", "--stdout")
    assert series.count("From ") >= 2 and series.count("diff --git a/notes.txt") == 2
    want = (repo / "notes.txt").read_text()
    git(repo, "reset", "-q", "--hard", "HEAD~2")
    receipt = same_as_git(repo, series)
    assert (repo / "notes.txt").read_text() == want
    assert len(receipt["files"]) == 2


def test_later_block_that_does_not_apply_names_both(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f": "a\nb\nc\n"})
    patch = ("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
             "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+X\n c\n")
    err = refused(repo, patch, "context_not_found")
    assert err.patch_line == 10 and err.hunk == 1 and err.details["earlier_file_patch"] == 1
    assert "as the file patch at line 1 left it" in err.message
    assert err.details["first_difference"]["found"] == "B"


def test_a_rename_that_does_not_apply_names_the_block_that_made_its_file(
        tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"k": "k\n"})
    patch = ("diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n"
             "@@ -0,0 +1,2 @@\n+one\n+two\n"
             "diff --git a/x b/y\nrename from x\nrename to y\n--- a/x\n+++ b/y\n"
             "@@ -1,2 +1,2 @@\n one\n-three\n+four\n")
    err = refused(repo, patch, "context_not_found")
    assert err.details["earlier_file_patch"] == 1 and "in 'x' as the file patch at line 1" \
        in err.message


# -- renames ---------------------------------------------------------------------------------

def test_rename_then_edit_of_the_new_name(tmp_path: Path) -> None:
    """t4127: 'git diff -M --cached' of a rename with an edit, then 'git diff' of a further
    edit of the new name; applied with --index."""
    repo = make_repo(tmp_path / "r", {"same_fn": LETTERS})
    git(repo, "mv", "same_fn", "new_fn")
    sed(repo / "new_fn", "d\n", "z\n")
    git(repo, "add", "new_fn")
    patch = git(repo, "diff", "-M", "--cached")
    sed(repo / "new_fn", "e\n", "y\n")
    patch += git(repo, "diff")
    reset(repo)
    receipt = same_as_git(repo, patch, "--index", target="both")
    assert (repo / "new_fn").read_text() == LETTERS.replace("d\ne\n", "z\ny\n")
    assert not (repo / "same_fn").exists()
    assert [f["action"] for f in receipt["files"]] == ["rename", "modify"]


def test_edit_of_the_renamed_away_name_is_refused(tmp_path: Path) -> None:
    """t4127: 'apply same old filename after rename -- should fail'."""
    repo = make_repo(tmp_path / "r", {"same_fn": LETTERS})
    git(repo, "mv", "same_fn", "new_fn")
    sed(repo / "new_fn", "d\n", "z\n")
    git(repo, "add", "new_fn")
    patch = git(repo, "diff", "-M", "--cached")
    git(repo, "mv", "new_fn", "same_fn")
    sed(repo / "same_fn", "e\n", "y\n")
    patch += git(repo, "diff")
    reset(repo)
    err = refused(repo, patch, "duplicate_file_patch")
    assert "renamed away" in err.message
    assert subprocess.run(["git", "apply", "--check", "-"], cwd=repo, input=patch.encode(),
                          capture_output=True).returncode != 0


def test_rename_onto_a_name_renamed_away_earlier(tmp_path: Path) -> None:
    """t4127: 'apply A->B (rename), C->A (rename), A->A -- should pass'."""
    repo = make_repo(tmp_path / "r", {"same_fn": LETTERS, "other_fn": LETTERS})
    git(repo, "mv", "same_fn", "new_fn")
    sed(repo / "new_fn", "d\n", "z\n")
    git(repo, "add", "new_fn")
    patch = git(repo, "diff", "-M", "--cached")
    git(repo, "commit", "-qm", "a rename")
    git(repo, "mv", "other_fn", "same_fn")
    sed(repo / "same_fn", "e\n", "y\n")
    git(repo, "add", "same_fn")
    patch += git(repo, "diff", "-M", "--cached")
    sed(repo / "same_fn", "g\n", "x\n")
    patch += git(repo, "diff")
    git(repo, "reset", "-q", "--hard", "HEAD^")
    same_as_git(repo, patch)
    assert (repo / "same_fn").read_text() == LETTERS.replace("e\n", "y\n").replace("g\n", "x\n")


def swapped(tmp_path: Path, names: list[str], executable: set[str] = frozenset()
            ) -> tuple[Path, str, dict[str, str]]:
    """A repository with ``names``, and the git diff -M -B of moving each file's content to
    the next name (a swap for two names, a rotation for more)."""
    files = {name: bulk(name) for name in names}
    repo = make_repo(tmp_path / "r", {**files, "keep": "k\n"}, executable=executable)
    moved = {names[(i + 1) % len(names)]: files[name] for i, name in enumerate(names)}
    for name, content in moved.items():
        (repo / name).write_text(content)
    modes = {name: (repo / name).stat().st_mode for name in names}
    for i, name in enumerate(names):  # the exec bit travels with the content
        (repo / names[(i + 1) % len(names)]).chmod(modes[name])
    patch = git(repo, "diff", "-M", "-B")
    reset(repo)
    return repo, patch, moved


@pytest.mark.parametrize("names", [["a", "b"], ["a", "b", "c"], ["x/one", "y/two", "three"]],
                         ids=["swap", "rotation", "rotation-in-dirs"])
def test_swaps_and_rotations_from_git_diff_M_B(tmp_path: Path, names: list[str]) -> None:
    """git's t4130 criss-cross renames."""
    repo, patch, moved = swapped(tmp_path, names)
    assert patch.count("rename from") == len(names)
    receipt = same_as_git(repo, patch)
    for name, content in moved.items():
        assert (repo / name).read_text() == content
    assert all(f["action"] == "rename" for f in receipt["files"])
    assert any(d["code"] == "sequenced_file_patch"
               for f in receipt["files"] for d in f["diagnostics"])


def test_swap_of_an_executable_and_a_plain_file(tmp_path: Path) -> None:
    repo, patch, _ = swapped(tmp_path, ["run.sh", "notes"], executable={"run.sh"})
    same_as_git(repo, patch)
    assert not (repo / "run.sh").stat().st_mode & 0o100 and (repo / "notes").stat().st_mode & 0o100
    reset(repo)
    same_as_git(repo, patch, "--index", target="both")
    assert index_entries(repo)["notes"][0] == "100755"


@pytest.mark.parametrize("target", ["index", "both"])
def test_swap_on_the_index_targets(tmp_path: Path, target: str) -> None:
    repo, patch, _ = swapped(tmp_path, ["a", "b", "c"])
    option = "--cached" if target == "index" else "--index"
    same_as_git(repo, patch, option, target=target)


@pytest.mark.parametrize("how", ["commit", "ref"])
def test_sequences_on_the_commit_targets(tmp_path: Path, how: str) -> None:
    repo, patch, moved = swapped(tmp_path, ["a", "b"])
    other = twin(repo)
    git_apply(other, patch, "--index")
    git(other, "commit", "-qm", "by git")
    kwargs = {"commit": True} if how == "commit" else {"ref": "main"}
    receipt = applied(repo, patch, message="swap", **kwargs)
    assert tree_entries(repo, receipt.commit) == tree_entries(other, "HEAD")


def test_edit_after_a_swap(tmp_path: Path) -> None:
    """git apply refuses to edit a path a rename moved away even when a rename before it put
    a file there; in sequence, the edit applies to what the swap left."""
    repo, patch, moved = swapped(tmp_path, ["a", "b"])
    patch += ("diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,2 +1,2 @@\n-content of file b\n"
              "+edited after the swap\n content of file b\n")
    receipt = applied(repo, patch, target="both", commit=True, message="swap and edit")
    assert (repo / "a").read_text() == moved["a"].replace("content of file b\n",
                                                          "edited after the swap\n", 1)
    assert (repo / "b").read_text() == moved["b"]
    assert [c.kind for c in receipt.files] == ["rename", "rename", "modify"]
    assert git(repo, "status", "--porcelain") == ""


# -- delete then add, and what cannot be sequenced -------------------------------------------

def test_delete_then_add_replaces_the_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "old = 1\n", "k": "k\n"}, executable={"f.py"})
    patch = ("diff --git a/f.py b/f.py\ndeleted file mode 100755\n--- a/f.py\n+++ /dev/null\n"
             "@@ -1 +0,0 @@\n-old = 1\n"
             "diff --git a/f.py b/f.py\nnew file mode 100644\n--- /dev/null\n+++ b/f.py\n"
             "@@ -0,0 +1 @@\n+new = 2\n")
    receipt = same_as_git(repo, patch)
    assert [f["action"] for f in receipt["files"]] == ["delete", "add"]
    assert (repo / "f.py").read_text() == "new = 2\n"


def test_envelope_delete_then_add(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "old = 1\n"})
    envelope = ("*** Begin Patch\n*** Delete File: f.py\n*** Add File: f.py\n+new = 2\n"
                "*** Update File: f.py\n@@\n-new = 2\n+new = 3\n*** End Patch\n")
    receipt = applied(repo, envelope)
    assert (repo / "f.py").read_text() == "new = 3\n"
    assert [c.kind for c in receipt.files] == ["delete", "add", "modify"]


def test_add_over_a_path_an_earlier_file_patch_left_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a": bulk("a"), "b": bulk("b")})
    swap = ("diff --git a/b b/a\nrename from b\nrename to a\n"
            "diff --git a/a b/b\nrename from a\nrename to b\n")
    add_a = "diff --git a/a b/a\nnew file mode 100644\n--- /dev/null\n+++ b/a\n" \
            "@@ -0,0 +1 @@\n+x\n"
    err = refused(repo, swap + add_a, "duplicate_file_patch")
    assert err.details["earlier_file_patch"] == 1
    refused(repo, add_a.replace(" b/a", " b/n").replace("a/a", "a/n") * 2,
            "duplicate_file_patch")


# -- reverse, non-atomic, receipts ------------------------------------------------------------

@pytest.mark.parametrize("shape", ["repeat", "swap", "rename-then-edit"])
def test_reverse_undoes_a_sequence(tmp_path: Path, shape: str) -> None:
    if shape == "swap":
        repo, patch, _ = swapped(tmp_path, ["a", "b", "c"])
    else:
        repo = make_repo(tmp_path / "r", {"f": LETTERS})
        if shape == "repeat":
            patch = ("--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n"
                     "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n b\n-C\n+CC\n d\n")
        else:
            patch = ("diff --git a/f b/g\nrename from f\nrename to g\n"
                     "diff --git a/g b/g\n--- a/g\n+++ b/g\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n")
    before = everything(repo)
    applied(repo, patch)
    assert everything(repo) != before
    applied(repo, patch, reverse=True)
    assert snapshot(repo) == before["files"]


def test_no_atomic_applies_a_sequence_together(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f": "a\nb\nc\n", "g": "1\n", "h": "x\n"})
    good_g = "--- a/g\n+++ b/g\n@@ -1 +1 @@\n-1\n+2\n"
    first_f = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    stale_f = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+X\n c\n"
    good_h = "--- a/h\n+++ b/h\n@@ -1 +1 @@\n-x\n+y\n"
    receipt = apply_patch(good_g + first_f + good_h + stale_f, repo, atomic=False)
    assert receipt.status == "partial" and receipt.error.code == "context_not_found"
    assert (repo / "g").read_text() == "2\n"  # applied before the sequence
    assert (repo / "f").read_text() == "a\nb\nc\n"  # the sequence: all or nothing
    assert (repo / "h").read_text() == "x\n"  # after it
    assert [u["new_path"] for u in receipt.unapplied_files] == ["f", "f", "h"]
    ok = apply_patch(good_g.replace("-1\n+2", "-2\n+3") + first_f + good_h, repo, atomic=False)
    assert ok.ok and [c.path for c in ok.files] == ["g", "f", "h"]


def test_receipt_lists_file_patches_and_emit_diff_the_net_change(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f": "a\nb\nc\n"})
    patch = ("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
             "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n+A\n B\n c\n")
    receipt = apply_patch(patch, repo, emit_diff=True)
    assert receipt.ok, receipt.error
    data = json.loads(receipt.to_json())
    assert [(f["hunks"][0]["applied_line"], f["added_lines"]) for f in data["files"]] \
        == [(1, 1), (1, 1)]
    assert receipt.diff is not None and receipt.diff.count(b"diff --git") == 1
    assert b"-a\n-b\n+A\n+B\n" in receipt.diff


# -- property: a series of diffs of one file is the diff of the series ------------------------

@pytest.mark.slow
@settings(suppress_health_check=[HealthCheck.large_base_example])
@given(file_lines(max_lines=24), st.data())
def test_a_series_of_diffs_applies_as_the_last_version_and_reverses(lines: list[bytes],
                                                                     data: st.DataObject):
    versions = [lines]
    for _ in range(data.draw(st.integers(2, 3))):
        versions.append(apply_edits(versions[-1], data.draw(edits(versions[-1]))))
    blocks = [difflib_patch("f.txt", join(old), join(new))
              for old, new in zip(versions, versions[1:], strict=False) if old != new]
    assume(len(blocks) >= 2)
    patch = parse_patch(b"".join(blocks))
    first, last = join(versions[0]), join(versions[-1])
    try:
        forward = plan_patch(patch, {"f.txt": SourceFile(first)}.get)
        backward = plan_patch(patch.reversed(), {"f.txt": SourceFile(last)}.get, reverse=True)
    except PatchError as err:
        # A step whose added lines repeat the lines beside them (a blank line among blank
        # lines) is refused by design: nothing tells it from a re-send. Then that step, on
        # its own, must be refused so too, truly; the series has nothing more to show.
        assert err.code == "ambiguous_repeat", err
        steps = [(difflib_patch("f.txt", join(old), join(new)), join(old), join(new))
                 for old, new in zip(versions, versions[1:], strict=False) if old != new]
        assert any(_truly_repeats(step) for step in steps), err
        reject()
    assert [c.after for c in forward.changes] == ([last] if last != first else [])
    assert len(forward.receipt_files) == len(blocks)
    assert [c.after for c in backward.changes] == ([first] if last != first else [])


def _truly_repeats(step: tuple[bytes, bytes, bytes]) -> bool:
    """Is one diff of a series, forward or reversed, refused ambiguous_repeat truly?"""
    patch, old, new = step
    for reverse, content in ((False, old), (True, new)):
        parsed = parse_patch(patch)
        try:
            plan_patch(parsed.reversed() if reverse else parsed,
                       {"f.txt": SourceFile(content)}.get, reverse=reverse)
        except PatchError as err:
            if repeat_is_true(err, patch, content, reverse=reverse):
                return True
    return False


@pytest.mark.parametrize("target", ["worktree", "index"])
def test_a_sequence_inside_a_large_patch(tmp_path: Path, target: str) -> None:
    """Many files (a large patch stages new contents while planning) and a sequence."""
    files = {f"m{i:02}.txt": f"line {i}\n" for i in range(24)}
    repo = make_repo(tmp_path / "r", {**files, "a": bulk("a"), "b": bulk("b")})
    patch = "".join(f"--- a/{name}\n+++ b/{name}\n@@ -1 +1 @@\n-{text}+changed {name}\n"
                    for name, text in files.items())
    patch += ("diff --git a/b b/a\nrename from b\nrename to a\n"
              "diff --git a/a b/b\nrename from a\nrename to b\n"
              "diff --git a/m00.txt b/m00.txt\n--- a/m00.txt\n+++ b/m00.txt\n"
              "@@ -1 +1 @@\n-changed m00.txt\n+again\n")
    same_as_git(repo, patch, *(["--cached"] if target == "index" else []), target=target)
