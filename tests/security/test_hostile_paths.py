"""Hostile paths: no patch writes outside the repository or into .git, whatever it names.

Every case runs a real apply against a repository inside a sentinel directory and asserts the
coded refusal and that nothing under the sentinel (the repository, its .git, the directory
around it) changed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from repos.builders import snapshot_all
from sandbox import SECRET, Sandbox

from holon_git import apply_patch
from holon_git.core.plan.plan import plan_patch
from holon_git.git.location import locate
from holon_git.parse import parse_patch
from holon_git.targets.worktree import WorktreeTarget

ESCAPE = ("path_escape",)
BAD = ("path_escape", "invalid_path")


def modify(path: str) -> str:
    return f"--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"


def add(path: str) -> str:
    return f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+planted\n"


def delete(path: str) -> str:
    return f"--- a/{path}\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-one\n-two\n-three\n"


def rename(old: str, new: str) -> str:
    return (f"diff --git a/{old} b/{new}\nsimilarity index 100%\nrename from {old}\n"
            f"rename to {new}\n")


def git_header(path: str) -> str:
    """A git diff whose 'diff --git' line names ``path``, with no ---/+++ lines."""
    return f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n"


@pytest.fixture
def box(tmp_path: Path) -> Sandbox:
    return Sandbox.make(tmp_path)


DOTDOT = [
    "../outside/secret.txt", "../../x", "..", "../", "./../x", "a/../../outside/x",
    "sub/../../x", "a/b/../../../outside/secret.txt", "a/..", "x/../y", "..\u200b/x/../../y",
]


@pytest.mark.parametrize("path", DOTDOT)
@pytest.mark.parametrize("make", [modify, add, delete, git_header])
def test_dotdot_in_every_position(box: Sandbox, path: str, make):
    box.refused(make(path), *BAD, "file_path_mismatch", "missing_file_header")


@pytest.mark.parametrize("old,new", [("f.txt", "../outside/secret.txt"),
                                     ("../outside/secret.txt", "stolen.txt"),
                                     ("f.txt", "sub/../../escaped"),
                                     ("f.txt", "/tmp/abs"),
                                     ("f.txt", ".git/hooks/post-checkout")])
def test_rename_from_or_to_outside(box: Sandbox, old: str, new: str):
    box.refused(rename(old, new), *ESCAPE)


def test_dotdot_survives_no_strip_option(box: Sandbox):
    # -p0 keeps the 'a/' prefix as a directory; the '..' after it still escapes
    box.refused("--- a/../x\n+++ a/../x\n@@ -0,0 +1 @@\n+x\n", *ESCAPE, strip=0)
    box.refused("--- ../x\n+++ ../x\n@@ -1 +1 @@\n-one\n+x\n", *ESCAPE, strip=0)


@pytest.mark.parametrize("path", ["/etc/passwd", "//server/share/x", "/tmp/holon-abs",
                                  "C:/Windows/x", "c:x"])
def test_absolute_paths(box: Sandbox, path: str):
    box.refused(f"--- {path}\n+++ {path}\n@@ -1 +1 @@\n-one\n+x\n", *ESCAPE, strip=0)
    box.refused(f"--- /dev/null\n+++ {path}\n@@ -0,0 +1 @@\n+x\n", *ESCAPE, strip=0)
    box.refused(f"--- /dev/null\n+++ {path}\n@@ -0,0 +1 @@\n+x\n", *ESCAPE)


@pytest.mark.parametrize("path", ["~/x", "~root/.ssh/authorized_keys", "~"])
def test_home_directory_paths(box: Sandbox, path: str):
    box.refused(add(path), *ESCAPE)


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x07", "\x1b", "\x7f", "\x0b", "\x0c"])
def test_control_characters(box: Sandbox, char: str):
    box.refused(add(f"a{char}b").encode(), "invalid_path")
    quoted = f"\\{ord(char):03o}"
    box.refused(f'--- /dev/null\n+++ "b/a{quoted}b"\n@@ -0,0 +1 @@\n+x\n', "invalid_path")


def test_very_long_paths(box: Sandbox):
    box.refused(add("d/" * 2100 + "x"), "invalid_path")
    box.refused(add("x" * 256), "invalid_path")
    box.refused(add("x" * 10_000_000), "invalid_path")


@pytest.mark.parametrize("patch", [
    "--- a/\n+++ b/\n@@ -1 +1 @@\n-one\n+x\n",
    "--- \n+++ \n@@ -1 +1 @@\n-one\n+x\n",
    "--- /dev/null\n+++ /\n@@ -0,0 +1 @@\n+x\n",
    "--- /dev/null\n+++ ./\n@@ -0,0 +1 @@\n+x\n",
    'diff --git "a/" "b/"\nindex 1111111..2222222 100644\n',
])
def test_empty_paths(box: Sandbox, patch: str):
    box.refused(patch, "invalid_path", "path_escape", "file_path_mismatch", "missing_file_header",
                "patch_parse_error", "empty_patch")


DOT_GIT = [
    ".git/config", ".git/hooks/pre-commit", ".GIT/config", ".Git/HEAD", "sub/.git/config",
    "git~1/config", "GIT~1/config", ".git./config", ".git /config", ".git. . /config",
    ".git::$INDEX_ALLOCATION/config", ".g\u200cit/config", "\ufeff.git/config",
    ".git\u200d/config", ".gi\u200et/config", "\u206a.GiT/config", ".git",
    "sub/.git", ".GIT", ".git:stream",
]


@pytest.mark.slow
@pytest.mark.parametrize("path", DOT_GIT)
@pytest.mark.parametrize("make", [modify, add, delete])
def test_dot_git_in_any_spelling(box: Sandbox, path: str, make):
    box.refused(make(path), *ESCAPE)


@pytest.mark.parametrize("path", [".git", "sub/.GIT"])
def test_git_file_planting_is_refused(box: Sandbox, path: str):
    """A '.git' *file* would redirect git to a directory of the attacker's choosing."""
    box.refused(add(path).replace("+planted", "+gitdir: ../outside"), *ESCAPE)


@pytest.mark.parametrize("path", ["..\\outside\\secret.txt", "a\\..\\..\\x", ".git\\config",
                                  "C:\\x", "dir\\file"])
def test_backslashes(box: Sandbox, path: str):
    box.refused(add(path), *BAD)


@pytest.mark.parametrize("first,second", [
    ("a/./f", "a/f"), ("a//f", "a/f"), ("./f", "f"), ("F.txt", "f.txt"),
    ("caf\u00e9", "cafe\u0301"), ("x\u200c", "x"), ("Stra\u00dfe", "STRASSE"),
])
def test_paths_colliding_after_normalization_within_one_patch(tmp_path: Path, first: str,
                                                                second: str):
    box = Sandbox.make(tmp_path)
    box.refused(add(first) + add(second), "duplicate_file_patch")


def test_case_only_rename_of_one_file_is_allowed(tmp_path: Path):
    box = Sandbox.make(tmp_path, {"Readme": "one\ntwo\nthree\n"})
    receipt = apply_patch(rename("Readme", "README"), box.repo)
    assert receipt.ok, receipt.error
    assert (box.repo / "README").read_bytes() == b"one\ntwo\nthree\n"


def test_cli_refuses_hostile_paths_without_traceback(box: Sandbox):
    box.refused_by_cli(add("../outside/planted").encode(), "path_escape")
    box.refused_by_cli(add(".GIT/hooks/pre-commit").encode(), "path_escape")
    box.refused_by_cli(add("a\x00b").encode(), "invalid_path")


# -- symbolic links --------------------------------------------------------------------------


@pytest.fixture
def linked(tmp_path: Path) -> Sandbox:
    """A repository with links: to a directory outside, to a file outside, to a file
    inside, to a directory inside, and dangling to a would-be file outside."""
    files = {"f.txt": "one\ntwo\nthree\n", "inner/g.txt": "one\ntwo\nthree\n",
             ".gitmodules": "one\ntwo\nthree\n"}
    box = Sandbox.make(tmp_path, files)
    links = {"out_dir": "../outside", "out_file": "../outside/secret.txt",
             "in_file": "f.txt", "in_dir": "inner", "dangling": "../outside/new.txt",
             "abs_dir": str(box.outside)}
    for name, target in links.items():
        os.symlink(target, box.repo / name)
    return box


@pytest.mark.parametrize("make", [modify, add, delete])
@pytest.mark.parametrize("path", ["out_dir/secret.txt", "out_dir/new.txt", "abs_dir/x",
                                  "out_dir/deep/er/x"])
def test_writing_through_a_link_to_a_directory_outside(linked: Sandbox, make, path: str):
    linked.refused(make(path), *ESCAPE)
    assert (linked.outside / "secret.txt").read_bytes() == SECRET


@pytest.mark.parametrize("make", [modify, delete])
@pytest.mark.parametrize("path", ["out_file", "in_file", "dangling"])
def test_file_patch_on_a_symlink_entry(linked: Sandbox, make, path: str):
    linked.refused(make(path), "path_escape", "symlink_in_path", "not_found")


@pytest.mark.parametrize("path", ["dangling", "out_file", "in_file", "in_dir/new.txt"])
def test_add_onto_or_through_a_symlink(linked: Sandbox, path: str):
    linked.refused(add(path), "path_escape", "symlink_in_path")
    assert not (linked.outside / "new.txt").exists()


@pytest.mark.parametrize("old,new", [("f.txt", "out_file"), ("f.txt", "dangling"),
                                     ("f.txt", "out_dir/f.txt"), ("f.txt", "in_dir/f.txt"),
                                     ("f.txt", "abs_dir/f.txt"), ("out_file", "mine.txt"),
                                     ("in_file", "mine.txt"), ("out_dir/secret.txt", "s.txt")])
def test_rename_onto_from_or_below_a_symlink(linked: Sandbox, old: str, new: str):
    linked.refused(rename(old, new), "path_escape", "symlink_in_path")


def test_gitmodules_symlink_is_not_written_through(tmp_path: Path):
    box = Sandbox.make(tmp_path)  # git itself refuses to commit such a link; it is untracked
    os.symlink("../outside/secret.txt", box.repo / ".gitmodules")
    box.refused(modify(".gitmodules"), *ESCAPE)
    box.refused(delete(".gitmodules"), *ESCAPE)


def test_a_regular_gitmodules_is_an_ordinary_file(linked: Sandbox):
    receipt = apply_patch(modify(".gitmodules"), linked.repo)
    assert receipt.ok, receipt.error
    assert (linked.repo / ".gitmodules").read_bytes() == b"one\nTWO\nthree\n"


def test_a_hard_link_to_a_file_outside_is_replaced_not_written_through(tmp_path: Path):
    box = Sandbox.make(tmp_path)
    os.unlink(box.repo / "f.txt")
    (box.outside / "shared.txt").write_bytes(b"one\ntwo\nthree\n")
    os.link(box.outside / "shared.txt", box.repo / "f.txt")
    receipt = apply_patch(modify("f.txt"), box.repo)
    assert receipt.ok, receipt.error
    assert (box.repo / "f.txt").read_bytes() == b"one\nTWO\nthree\n"
    assert (box.outside / "shared.txt").read_bytes() == b"one\ntwo\nthree\n"


def test_special_files_are_not_opened(tmp_path: Path):
    box = Sandbox.make(tmp_path)
    os.mkfifo(box.repo / "pipe")
    box.refused(modify("pipe"), "not_a_regular_file")  # opening a FIFO would block forever
    box.refused(add("pipe/x"), "already_exists")


# -- a directory swapped between planning and writing -----------------------------------------


def plan_then(box: Sandbox, patch: str):
    target = WorktreeTarget(str(box.repo), locate(str(box.repo)).git_dir)
    plan = plan_patch(parse_patch(patch), target.read)
    return target, plan


@pytest.mark.parametrize("link_to", ["../outside", "SENTINEL/outside", "inner2"])
@pytest.mark.parametrize("patch", [modify("sub/f.txt"), add("sub/new.txt"),
                                   modify("sub/f.txt") + add("sub/deeper/n.txt"),
                                   delete("sub/f.txt"), rename("sub/f.txt", "top.txt")])
def test_directory_swapped_for_a_symlink_after_planning(tmp_path: Path, link_to: str,
                                                        patch: str):
    files = {"sub/f.txt": "one\ntwo\nthree\n", "inner2/f.txt": "one\ntwo\nthree\n"}
    box = Sandbox.make(tmp_path, files)
    (box.outside / "f.txt").write_bytes(b"one\ntwo\nthree\n")
    target, plan = plan_then(box, patch)
    # the attacker's move: the planned directory goes, a link takes its place
    os.rename(box.repo / "sub", box.repo / "sub.moved")
    os.symlink(link_to.replace("SENTINEL", str(box.sentinel)), box.repo / "sub")
    swapped = box.state()
    try:
        with pytest.raises(Exception) as info:
            target.write(plan)
    finally:
        target.close()
    assert getattr(info.value, "code", None) in ("path_escape", "symlink_in_path"), info.value
    assert box.state() == swapped


def test_directory_swapped_for_another_directory_after_planning(tmp_path: Path):
    box = Sandbox.make(tmp_path, {"sub/f.txt": "one\ntwo\nthree\n"})
    target, plan = plan_then(box, modify("sub/f.txt"))
    os.rename(box.repo / "sub", box.repo / "sub.moved")
    (box.repo / "sub").mkdir()
    (box.repo / "sub" / "f.txt").write_bytes(b"one\ntwo\nthree\n")
    swapped = box.state()
    with pytest.raises(Exception) as info:
        target.write(plan)
    target.close()
    assert getattr(info.value, "code", None) == "stale_file"
    assert box.state() == swapped


def test_new_directory_created_as_symlink_after_planning(tmp_path: Path):
    box = Sandbox.make(tmp_path)
    target, plan = plan_then(box, add("fresh/deep/x.txt"))
    os.symlink("../outside", box.repo / "fresh")
    swapped = box.state()
    with pytest.raises(Exception) as info:
        target.write(plan)
    target.close()
    assert getattr(info.value, "code", None) == "path_escape"
    assert box.state() == swapped
    assert sorted(os.listdir(box.outside)) == ["secret.txt"]


def test_file_swapped_for_a_symlink_after_planning(tmp_path: Path):
    box = Sandbox.make(tmp_path)
    target, plan = plan_then(box, modify("f.txt"))
    os.unlink(box.repo / "f.txt")
    os.symlink("../outside/secret.txt", box.repo / "f.txt")
    swapped = box.state()
    with pytest.raises(Exception) as info:
        target.write(plan)
    target.close()
    assert getattr(info.value, "code", None) in ("path_escape", "stale_file")
    assert box.state() == swapped
    assert snapshot_all(box.outside)["secret.txt"][2] != ""
    assert (box.outside / "secret.txt").read_bytes() == SECRET


# -- the same paths in the '*** Begin Patch' envelope ------------------------------------------


def envelope(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


ENVELOPE_PATHS = ["../outside/secret.txt", "a/../../x", "/etc/passwd", "~/x", ".git/config",
                  ".GIT/hooks/pre-commit", "git~1/config", ".g\u200cit/config", "a\\b",
                  "a\x1bb", "", "out_dir/new.txt", "out_file", "dangling"]


@pytest.mark.parametrize("path", ENVELOPE_PATHS)
@pytest.mark.parametrize("section", [
    "*** Add File: {p}\n+planted\n",
    "*** Update File: {p}\n@@\n one\n-two\n+TWO\n",
    "*** Delete File: {p}\n",
    "*** Update File: f.txt\n*** Move to: {p}\n@@\n one\n-two\n+TWO\n",
    "*** Move File: f.txt -> {p}\n",
    "*** Move File: {p} -> stolen.txt\n",
])
def test_hostile_paths_in_the_envelope(linked: Sandbox, path: str, section: str):
    linked.refused(envelope(section.format(p=path)), "path_escape", "invalid_path",
                   "symlink_in_path", "patch_parse_error", "not_found")
    assert (linked.outside / "secret.txt").read_bytes() == SECRET
