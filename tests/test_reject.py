"""--reject as git has it: what applies is applied, each refused hunk is written to PATH.rej in
git's format (compared byte for byte with `git apply --reject` on twin repositories), through
the same safe writes as every file; the receipt names the .rej files and the refused hunks."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import refused, twin
from repos.builders import git, git_env, make_repo, snapshot

from holon_git import apply_patch
from holon_git.core.model import Hunk, HunkLine
from holon_git.core.plan.reject import hunk_text

LETTERS = "".join(f"{c}\n" for c in "abcdefghijklm")


@pytest.fixture
def repo_files() -> Mapping[str, str]:
    return {"f.txt": LETTERS, "g.txt": "x\ny\n", "h.txt": "one\ntwo\n"}


# hunk 2 of f.txt and the hunk of g.txt do not apply; nope.txt does not exist
PATCH = ("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -6,3 +6,3 @@\n f\n-ZZZ\n"
         "+G\n h\n@@ -11,3 +11,3 @@\n k\n-l\n+L\n m\n"
         "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,2 @@\n-q\n+Q\n y\n"
         "--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n"
         "--- a/h.txt\n+++ b/h.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n")
F_REJ = b"diff a/f.txt b/f.txt\t(rejected hunks)\n@@ -6,3 +6,3 @@\n f\n-ZZZ\n+G\n h\n"


def git_reject(repo: Path, patch: str | bytes, *options: str) -> subprocess.CompletedProcess:
    data = patch.encode() if isinstance(patch, str) else patch
    return subprocess.run(["git", "apply", "--reject", *options, "-"], cwd=repo, input=data,
                          capture_output=True, env=git_env())


def files_of(repo: Path) -> dict[str, bytes]:
    return {str(p.relative_to(repo)): p.read_bytes() for p in repo.rglob("*")
            if p.is_file() and ".git" not in p.relative_to(repo).parts}


def same_as_git(repo: Path, patch: str | bytes, *options: str) -> None:
    """holon-git --reject and git apply --reject, each in a copy of ``repo``, leave the same
    files (the .rej files included) and both exit 1."""
    other = twin(repo)
    assert git_reject(other, patch, *options).returncode == 1
    receipt = apply_patch(patch, repo, reject=True, reverse="-R" in options)
    assert receipt.status == "partial" and receipt.error is not None
    assert files_of(repo) == files_of(other)


def test_what_applies_is_applied_and_the_rest_goes_to_rej_files_as_git_writes_them(repo: Path):
    same_as_git(repo, PATCH)
    assert (repo / "f.txt").read_text() == LETTERS.replace("b\n", "B\n").replace("l\n", "L\n")
    assert (repo / "f.txt.rej").read_bytes() == F_REJ
    assert (repo / "h.txt").read_text() == "one\nTWO\n"
    assert not (repo / "nope.txt.rej").exists()


def test_the_receipt_names_the_rej_files_and_the_refused_hunks(repo: Path):
    receipt = apply_patch(PATCH, repo, reject=True)
    data = receipt.to_dict()
    assert data["status"] == "partial" and data["atomic"] is False
    assert data["rejects"] == [
        {"path": "f.txt.rej", "file": "f.txt", "replaced": False,
         "hunks": [{"index": 2, "patch_line": 8, "code": "context_not_found"}]},
        {"path": "g.txt.rej", "file": "g.txt", "replaced": False,
         "hunks": [{"index": 1, "patch_line": 20, "code": "context_not_found"}]}]
    assert [(e["code"], e["path"], e.get("hunk")) for e in data["errors"]] == [
        ("context_not_found", "f.txt", 2), ("context_not_found", "g.txt", 1),
        ("not_found", "nope.txt", None)]
    assert data["error"] == data["errors"][0]
    f, g, h = data["files"]
    assert [hunk["index"] for hunk in f["hunks"]] == [1, 3] and f["rejected_hunks"] == [2]
    assert (f["added_lines"], f["removed_lines"]) == (2, 2)
    assert g["hunks"] == [] and g["rejected_hunks"] == [1]
    assert "rejected_hunks" not in h
    assert [u["new_path"] for u in data["unapplied_files"]] == ["nope.txt"]


def test_a_file_whose_every_hunk_is_refused_is_left_untouched(repo: Path):
    patch = "--- a/g.txt\n+++ b/g.txt\n@@ -1,2 +1,2 @@\n-q\n+Q\n y\n"
    before = os.stat(repo / "g.txt")
    receipt = apply_patch(patch, repo, reject=True)
    assert receipt.status == "partial" and receipt.error is not None
    assert os.stat(repo / "g.txt").st_mtime_ns == before.st_mtime_ns  # not even rewritten
    assert (repo / "g.txt.rej").read_bytes() == (b"diff a/g.txt b/g.txt\t(rejected hunks)\n"
                                                 + patch.split("\n", 2)[2].encode())


def test_a_file_patch_refused_as_a_whole_gets_no_rej_file_as_with_git(repo: Path):
    patch = ("--- a/g.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-not y\n"  # not its content
             "--- /dev/null\n+++ b/h.txt\n@@ -0,0 +1 @@\n+h\n"  # there already
             "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
    receipt = apply_patch(patch, repo, reject=True, check=True)
    assert [e.code for e in receipt.errors] == ["content_mismatch", "already_exists"]
    assert receipt.rejects == []
    same_as_git(repo, patch)
    assert not list(repo.glob("*.rej")) and (repo / "g.txt").exists()
    assert (repo / "f.txt").read_text().startswith("a\nB\n")


def test_a_refused_first_hunk_does_not_stop_the_later_ones(repo: Path):
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-QQ\n+B\n c\n"
             "@@ -6,3 +6,3 @@\n f\n-g\n+G\n h\n@@ -11,3 +11,3 @@\n k\n-l\n+L\n m\n")
    same_as_git(repo, patch)
    assert (repo / "f.txt").read_text() == LETTERS.replace("g\n", "G\n").replace("l\n", "L\n")


def test_many_refused_hunks_are_rejected_together(tmp_path: Path):
    """Past files.ONE_BY_ONE refused hunks, the rest that place nowhere on their own are
    rejected in one pass; the result is still git's."""
    repo = make_repo(tmp_path / "r", {"many.txt": "".join(f"line {n}\n" for n in range(200))})
    hunks = []
    for n in range(24):
        at = n * 8 + 2
        old = f"line {at}" if n % 2 else f"not line {at}"
        hunks.append(f"@@ -{at},3 +{at},3 @@\n line {at - 1}\n-{old}\n+LINE {at}\n"
                     f" line {at + 1}\n")
    patch = "--- a/many.txt\n+++ b/many.txt\n" + "".join(hunks)
    receipt = apply_patch(patch, repo, reject=True, check=True)
    assert [left_out.index for left_out in receipt.rejects[0].hunks] == list(range(1, 25, 2))
    same_as_git(repo, patch)


def test_everything_applies_exits_0_and_writes_no_rej(repo: Path):
    patch = "--- a/h.txt\n+++ b/h.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
    done = holon(repo, "--reject", "-", stdin=patch)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Applied 1 file, 1 hunk.")
    assert not list(repo.glob("*.rej"))
    assert apply_patch(patch.replace("two", "TWO", 1).replace("+TWO", "+2"), repo,
                       reject=True).to_dict()["rejects"] == []


def test_the_command_line_lists_each_refusal_and_each_rej_file(repo: Path):
    done = holon(repo, "--reject", "-", stdin=PATCH)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert [line.split(":")[1].strip() for line in lines if line.startswith("error:")] == [
        "context_not_found", "context_not_found", "not_found"]
    assert lines[0].startswith("error: context_not_found: hunk 2 of f.txt (patch line 8): ")
    assert lines[-4:] == ["changed: f.txt (without hunk 2), h.txt",
                          "wrote f.txt.rej: rejected hunk 2 of f.txt",
                          "wrote g.txt.rej: rejected hunk 1 of g.txt",
                          "not applied: nope.txt"]
    done = holon(repo, "--reject", "--json", "-", stdin=PATCH)
    assert json.loads(done.stdout)["rejects"][0]["replaced"] is True  # written the first time


def test_check_with_reject_says_what_would_be_rejected_and_writes_nothing(repo: Path):
    before = snapshot(repo)
    receipt = apply_patch(PATCH, repo, reject=True, check=True)
    assert receipt.status == "refused" and len(receipt.errors) == 3
    assert [r.path for r in receipt.rejects] == ["f.txt.rej", "g.txt.rej"]
    assert snapshot(repo) == before
    done = holon(repo, "--check", "--reject", "-", stdin=PATCH)
    assert done.returncode == 1
    assert "would change (nothing was written): f.txt (without hunk 2), h.txt" in done.stderr
    assert "would write f.txt.rej: rejected hunk 2 of f.txt" in done.stderr
    assert snapshot(repo) == before


# -- where a .rej file goes ---------------------------------------------------------------------

def test_a_rej_file_there_already_is_replaced_as_git_replaces_it(repo: Path):
    (repo / "f.txt.rej").write_text("an old reject\nof three lines\n...\n")
    (repo / "f.txt.rej").chmod(0o755)
    same_as_git(repo, PATCH)
    assert (repo / "f.txt.rej").read_bytes() == F_REJ
    assert not os.stat(repo / "f.txt.rej").st_mode & 0o111
    assert apply_patch(PATCH, repo, reject=True, check=True).rejects[0].replaced


@pytest.mark.parametrize("kind, code", [("link out", "path_escape"),
                                        ("link in", "symlink_in_path"),
                                        ("directory", "not_a_regular_file"),
                                        ("git directory", "not_a_regular_file")])
def test_a_rej_path_that_is_no_file_refuses_the_file_patch(repo: Path, kind: str, code: str,
                                                          tmp_path: Path):
    outside = tmp_path / "outside.txt"
    outside.write_text("not to be written\n")
    if kind == "link out":
        (repo / "f.txt.rej").symlink_to(outside)
    elif kind == "link in":
        (repo / "f.txt.rej").symlink_to("g.txt")
    elif kind == "git directory":
        git(repo, "init", "-q", "--bare", "f.txt.rej")
    else:
        (repo / "f.txt.rej").mkdir()
        (repo / "f.txt.rej" / "x").write_text("x\n")
    receipt = apply_patch(PATCH, repo, reject=True)
    assert receipt.status == "partial"
    errors = [(e.code, e.path) for e in receipt.errors]
    assert errors[0] == (code, "f.txt.rej") and "the hunks rejected from 'f.txt'" in \
        receipt.errors[0].message
    assert (repo / "f.txt").read_text() == LETTERS  # not applied: no refused hunk is lost
    assert outside.read_text() == "not to be written\n"
    assert (repo / "g.txt").read_text() == "x\ny\n"
    assert (repo / "h.txt").read_text() == "one\nTWO\n"  # the rest applied
    assert [u["new_path"] for u in receipt.to_dict()["unapplied_files"]] == ["f.txt",
                                                                              "nope.txt"]


def test_a_rej_path_the_patch_changes_refuses_the_file_patch(repo: Path):
    patch = PATCH + "--- /dev/null\n+++ b/f.txt.rej\n@@ -0,0 +1 @@\n+mine\n"
    receipt = apply_patch(patch, repo, reject=True)
    assert ("already_exists", "f.txt") in [(e.code, e.path) for e in receipt.errors]
    assert (repo / "f.txt").read_text() == LETTERS
    assert (repo / "f.txt.rej").read_text() == "mine\n"


def test_a_protected_rej_path_refuses_the_file_patch(repo: Path):
    git(repo, "config", "holon.protect", "*.rej")
    receipt = apply_patch(PATCH, repo, reject=True)
    assert [(e.code, e.path) for e in receipt.errors][:2] == [
        ("protected_path", "f.txt.rej"), ("protected_path", "g.txt.rej")]
    assert (repo / "f.txt").read_text() == LETTERS and not list(repo.glob("*.rej"))


def test_rej_files_are_not_marked_intent_to_add(repo: Path):
    patch = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+n\n" + PATCH
    receipt = apply_patch(patch, repo, reject=True, intent_to_add=True)
    assert receipt.intent_to_add == ["new.txt"]
    assert "f.txt.rej" not in git(repo, "ls-files")


# -- git's format ---------------------------------------------------------------------------------

def test_reverse_writes_the_hunks_as_the_patch_has_them_as_git_does(repo: Path):
    forward = ("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-X\n+b\n c\n"
               "@@ -11,3 +11,3 @@\n k\n-L\n+l\n m\n")  # -R: b -> X applies, l -> L does not
    forward = forward.replace("-L\n+l\n", "-L\n+q\n")
    same_as_git(repo, forward, "-R")
    assert (repo / "f.txt").read_text() == LETTERS.replace("b\n", "X\n")
    assert b"@@ -11,3 +11,3 @@\n k\n-L\n+q\n m\n" in (repo / "f.txt.rej").read_bytes()


def test_no_newline_markers_and_crlf_lines_are_written_as_git_writes_them(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"n.txt": b"one\r\ntwo\r\nend", "m.txt": "a\nb\n"})
    patch = (b"--- a/n.txt\n+++ b/n.txt\n@@ -1,3 +1,3 @@\n one\r\n-TWO\r\n+2\r\n end\n"
             b"\\ No newline at end of file\n"
             b"--- a/m.txt\n+++ b/m.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n")
    same_as_git(repo, patch)
    assert (repo / "n.txt.rej").read_bytes().endswith(b" end\n\\ No newline at end of file\n")


def test_hunk_text_writes_git_headers_and_envelope_hunks():
    body = [HunkLine(" ", b"a\n"), HunkLine("-", b"b"), HunkLine("+", b"B")]
    hunk = Hunk(5, 1, 5, 1, [HunkLine("-", b"x\n"), HunkLine("+", b"y\n")], section="def f():")
    assert hunk_text(hunk) == b"@@ -5 +5 @@ def f():\n-x\n+y\n"
    assert hunk_text(Hunk(0, 0, 1, 2, [HunkLine("+", b"p\n"), HunkLine("+", b"q\n")])) == \
        b"@@ -0,0 +1,2 @@\n+p\n+q\n"
    no_newline = Hunk(1, 2, 1, 2, body, old_no_newline=True, new_no_newline=True)
    assert hunk_text(no_newline) == (b"@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
                                     b"+B\n\\ No newline at end of file\n")
    envelope = Hunk(None, None, None, None, [HunkLine("-", b"x\n"), HunkLine("+", b"y\n")],
                    section="class A:", anchor_text="class A:", anchor_end=True)
    assert hunk_text(envelope) == b"@@ class A:\n-x\n+y\n*** End of File\n"
    assert hunk_text(Hunk(None, None, None, None, [HunkLine("+", b"z\n")])) == b"@@\n+z\n"


def test_an_envelope_hunk_is_written_as_the_envelope_has_it(repo: Path):
    envelope = ("*** Begin Patch\n*** Update File: f.txt\n@@ a\n-b\n+B\n@@ f\n-nowhere\n+G\n"
                "*** End Patch\n")
    receipt = apply_patch(envelope, repo, reject=True)
    assert receipt.status == "partial"
    assert (repo / "f.txt").read_text().startswith("a\nB\nc\n")
    assert (repo / "f.txt.rej").read_bytes() == (b"diff a/f.txt b/f.txt\t(rejected hunks)\n"
                                                 b"@@ f\n-nowhere\n+G\n")


def test_file_patches_of_one_path_share_its_rej_file(repo: Path):
    series = ("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-QQ\n+B\n c\n"
              "@@ -6,3 +6,3 @@\n f\n-g\n+G\n h\n"
              "--- a/f.txt\n+++ b/f.txt\n@@ -6,3 +6,3 @@\n f\n-G\n+GG\n h\n"
              "@@ -11,3 +11,3 @@\n k\n-RR\n+L\n m\n")
    receipt = apply_patch(series, repo, reject=True)
    assert receipt.status == "partial"
    assert (repo / "f.txt").read_text() == LETTERS.replace("g\n", "GG\n")
    assert (repo / "f.txt.rej").read_bytes() == (
        b"diff a/f.txt b/f.txt\t(rejected hunks)\n@@ -1,3 +1,3 @@\n a\n-QQ\n+B\n c\n"
        b"diff a/f.txt b/f.txt\t(rejected hunks)\n@@ -11,3 +11,3 @@\n k\n-RR\n+L\n m\n")
    (rejects,) = receipt.rejects
    assert [(h.index, h.hunk.patch_line) for h in rejects.hunks] == [(1, 3), (2, 20)]


# -- each hunk judged by every rule -------------------------------------------------------------

def test_a_hunk_already_applied_is_rejected_not_applied_twice(repo: Path):
    git(repo, "config", "user.name", "t")
    (repo / "f.txt").write_text(LETTERS.replace("l\n", "L\n"))
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
             "@@ -11,3 +11,3 @@\n k\n-l\n+L\n m\n")
    receipt = apply_patch(patch, repo, reject=True, three_way=False)
    assert [(e.code, e.hunk) for e in receipt.errors] == [("already_applied", 2)]
    assert (repo / "f.txt").read_text() == LETTERS.replace("b\n", "B\n").replace("l\n", "L\n")


@pytest.mark.parametrize("three_way", [True, False], ids=["3way", "no-3way"])
def test_a_hunk_already_in_and_one_that_places_nowhere_both_go_to_the_rej(
        repo: Path, three_way: bool):
    """Issue 35, item 8: hunk 1's change is in the file already (committed: HEAD cannot
    merge it away) and hunk 2's old lines are nowhere; once hunk 2 was left out, hunk 1 was
    judged with it again, so the file patch was refused whole, no .rej written, and errors[]
    named hunk 2 alone. git apply --reject rejects both and applies hunk 3; so does
    --no-3way. With the rescue, the commit before hunk 1 went in proves it is in: hunk 2
    alone is rejected."""
    (repo / "f.txt").write_text(LETTERS.replace("b\n", "B\n"))
    git(repo, "commit", "-qam", "hunk 1 is in")
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
             "@@ -6,3 +6,3 @@\n f\n-ZZZ\n+G\n h\n@@ -11,3 +11,3 @@\n k\n-l\n+L\n m\n")
    other = twin(repo)
    assert git_reject(other, patch).returncode == 1
    receipt = apply_patch(patch, repo, reject=True, three_way=three_way)
    assert receipt.status == "partial"
    assert (repo / "f.txt").read_text() == LETTERS.replace("b\n", "B\n").replace("l\n", "L\n")
    if three_way:
        # the rescue merges from the commit before hunk 1 went in: that version proves hunk
        # 1's change is in (the receipt says so), so only hunk 2 is refused and rejected
        assert [(e.code, e.hunk) for e in receipt.errors] == [("context_not_found", 2)]
        assert [h.index for h in receipt.rejects[0].hunks] == [2]
        assert [(h.index, h.already_applied) for h in receipt.files[0].hunks] \
            == [(1, True), (3, False)]
        return
    assert [(e.code, e.hunk) for e in receipt.errors] == [("already_applied", 1),
                                                          ("context_not_found", 2)]
    assert [h.index for h in receipt.rejects[0].hunks] == [1, 2]
    assert files_of(repo) == files_of(other)


def test_a_conflicting_merge_rejects_the_hunks_it_refused(tmp_path: Path):
    """The rescue finds the version the patch was written against (HEAD); the file changed
    since beside where hunk 2 goes, so the merge conflicts: hunk 2 is rejected, though a last
    rung would place it without that version (--no-3way), and hunk 1, which places in the
    current text, applies."""
    lines = [f"line {n}\n" for n in range(1, 31)]
    repo = make_repo(tmp_path / "r", {"s.txt": "".join(lines)})
    now = lines.copy()
    now[18] = "line nineteen, edited\n"
    (repo / "s.txt").write_text("".join(now))
    patch = ("--- a/s.txt\n+++ b/s.txt\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n"
             "@@ -19,3 +19,3 @@\n line 19\n-line 20\n+LINE 20\n line 21\n")
    err = refused(repo, patch, "merge_conflict")
    assert err.hunk is None
    placed = apply_patch(patch, repo, reject=True, three_way=False, check=True)
    assert placed.ok and placed.files[0].hunks[1].tolerances == ["context_invented"]
    receipt = apply_patch(patch, repo, reject=True)
    assert [(e.code, e.hunk) for e in receipt.errors] == [("context_not_found", 2)]
    now[2] = "LINE 3\n"
    assert (repo / "s.txt").read_text() == "".join(now)
    assert b"-line 20\n+LINE 20\n" in (repo / "s.txt.rej").read_bytes()


def test_a_file_applied_in_part_is_no_recorded_resend(repo: Path):
    """The history log records h.txt, applied whole (a re-send of the patch is refused as
    one), and not f.txt, applied without a hunk: its file patch sent again is judged by the
    file: hunk 1 is there already, hunk 2 places nowhere, and no version takes the whole
    file patch to merge it from, so hunk 2's refusal is the one said."""
    apply_patch(PATCH, repo, reject=True)
    again = apply_patch(PATCH, repo)
    assert again.error is not None and again.error.details.get("history")
    assert again.error.path == "h.txt"
    f_only = PATCH[: PATCH.index("--- a/g.txt")]
    again = apply_patch(f_only, repo)
    assert [(e.code, e.hunk) for e in again.errors] == [("context_not_found", 2)]
    assert "history" not in again.error.details


# -- what --reject goes with ------------------------------------------------------------------

@pytest.mark.parametrize("args", [["--cached"], ["--index"], ["--commit", "-m", "m"],
                                  ["--ref", "main", "-m", "m"], ["--emit-diff", "out.diff"],
                                  ["--atomic"]])
def test_reject_is_for_the_working_tree_alone(repo: Path, args: list[str]):
    before = snapshot(repo)
    done = holon(repo, "--reject", *args, "-", stdin=PATCH)
    assert done.returncode == 2, done.stderr
    assert "error: usage_error: --reject" in done.stderr
    assert snapshot(repo) == before


@pytest.mark.parametrize("options", [{"target": "index"}, {"target": "both"},
                                     {"commit": True, "message": "m"},
                                     {"ref": "main", "message": "m"}, {"emit_diff": True}])
def test_the_library_refuses_the_same_requests(repo: Path, options: dict):
    refused(repo, PATCH, "usage_error", reject=True, **options)


def test_a_failed_write_stops_and_is_reported_after_the_refusals_before_it(
        repo: Path, monkeypatch: pytest.MonkeyPatch):
    from holon_git.errors import PatchError
    from holon_git.targets.worktree import WorktreeTarget

    real, writes = WorktreeTarget.write, []

    def failing(self: WorktreeTarget, plan):  # type: ignore[no-untyped-def]
        writes.append([c.path for c in plan.changes])
        if len(writes) == 2:
            raise PatchError("io_error", "writing failed: No space left on device")
        return real(self, plan)

    monkeypatch.setattr(WorktreeTarget, "write", failing)
    receipt = apply_patch(PATCH, repo, reject=True)
    assert writes == [["f.txt"], []]  # g.txt: only its .rej file to write
    assert [e.code for e in receipt.errors] == ["context_not_found", "io_error"]
    assert receipt.status == "partial" and [c.path for c in receipt.files] == ["f.txt"]
    assert (repo / "f.txt.rej").exists() and not (repo / "g.txt.rej").exists()
    assert (repo / "h.txt").read_text() == "one\ntwo\n"  # after the failure: not applied
    assert [u["new_path"] for u in receipt.unapplied_files] == ["g.txt", "nope.txt", "h.txt"]


def test_reject_says_how_each_hunk_that_went_in_was_read(tmp_path: Path):
    """Issue 43, class 11: --reject reports each hunk that went in as a plain apply does:
    the hunk read without its invented context lines is named with its tolerance and its
    note, as the plain apply of that hunk alone says it."""
    repo = make_repo(tmp_path / "r", {"m.py": "".join(f"v{n} = f({n})\n" for n in range(60))})
    invented = ("@@ -40,7 +40,7 @@\n v39 = f(39, fast=True)\n v40 = f(40, fast=True)\n"
                " v41 = f(41, fast=True)\n-v42 = f(42)\n+v42 = f(4200)\n v43 = f(43)\n"
                " v44 = f(44)\n v45 = f(45)\n")
    lost = "@@ -5,3 +5,3 @@\n v4 = f(4)\n-gone = f(5)\n+gone = f(55)\n v6 = f(6)\n"
    header = "--- a/m.py\n+++ b/m.py\n"
    plain = holon(repo, "--check", "-", stdin=header + invented)
    assert plain.returncode == 0
    said = [line.replace("hunk 1", "hunk 2") for line in plain.stdout.splitlines()
            if line.startswith(("  hunk", "  note:"))]
    assert said and "context_invented" in said[0]
    done = holon(repo, "--reject", "-", stdin=header + lost + invented)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    at = lines.index("changed: m.py (without hunk 1)")
    assert lines[at + 1: at + 1 + len(said)] == said
