"""Applying to the working tree of real git repositories."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from repos.builders import git, git_state, make_repo, snapshot

from holon_git import apply_patch, check_patch


def refused(repo: Path, patch: str | bytes, code: str, **kwargs: object):
    before, state = snapshot(repo), git_state(repo)
    receipt = apply_patch(patch, repo, **kwargs)  # type: ignore[arg-type]
    assert receipt.status == "refused", receipt.to_json()
    assert receipt.error is not None and receipt.error.code == code, receipt.error
    assert snapshot(repo) == before, "a refused patch changed the working tree"
    assert git_state(repo) == state
    return receipt.error


def applied(repo: Path, patch: str | bytes, **kwargs: object):
    receipt = apply_patch(patch, repo, **kwargs)  # type: ignore[arg-type]
    assert receipt.ok, receipt.error
    return receipt


BASE = "".join(f"line {i}\n" for i in range(1, 41))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"f.txt": BASE, "keep.txt": "untouched\n"})


def test_exact_patch(repo: Path):
    receipt = applied(repo, "--- a/f.txt\n+++ b/f.txt\n@@ -5,3 +5,3 @@\n line 5\n-line 6\n"
                            "+line six\n line 7\n")
    assert (repo / "f.txt").read_text() == BASE.replace("line 6\n", "line six\n")
    hunk = receipt.files[0].hunks[0]
    assert (hunk.hinted_line, hunk.applied_line, hunk.offset, hunk.tolerances) == (5, 5, 0, [])
    assert receipt.status == "applied"


def test_drifted_line_numbers(repo: Path):
    receipt = applied(repo, "--- a/f.txt\n+++ b/f.txt\n@@ -25,3 +25,3 @@\n line 5\n-line 6\n"
                            "+line six\n line 7\n")
    assert (repo / "f.txt").read_text() == BASE.replace("line 6\n", "line six\n")
    assert receipt.files[0].hunks[0].offset == -20


def test_drift_of_earlier_hunks_guides_later_ones(tmp_path: Path):
    body = "".join(f"x{i}\n" if i % 10 else "dup\n" for i in range(1, 60))
    repo = make_repo(tmp_path / "r", {"f": "pad\n" * 5 + body})
    patch = ("--- a/f\n+++ b/f\n@@ -3,1 +3,1 @@\n-x3\n+X3\n"
             "@@ -10,1 +10,1 @@\n-dup\n+DUP\n")
    receipt = applied(repo, patch)
    assert [h.applied_line for h in receipt.files[0].hunks] == [8, 15]
    assert receipt.files[0].hunks[1].by_line_number
    assert (repo / "f").read_text().splitlines()[14] == "DUP"


def test_missing_context_names_the_near_miss(repo: Path):
    err = refused(repo, "--- a/f.txt\n+++ b/f.txt\n@@ -5,3 +5,3 @@\n line 5\n-line 66\n"
                        "+line six\n line 7\n", "context_not_found")
    assert err.path == "f.txt" and err.hunk == 1 and err.patch_line == 3
    assert err.details["first_difference"] == {"line": 6, "expected": "line 66",
                                               "found": "line 6"}
    assert "line 6" in err.message


def test_ambiguous_context_is_refused(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f": "a\nb\nc\n" * 2 + "tail\n"})
    err = refused(repo, "--- a/f\n+++ b/f\n@@ -3,1 +3,1 @@\n-b\n+B\n", "ambiguous_context")
    assert err.details["candidate_lines"] == [2, 5]
    refused(repo, "--- a/f\n+++ b/f\n@@ @@\n a\n-b\n+B\n", "ambiguous_context")
    # the line number pointing exactly at one copy picks it
    applied(repo, "--- a/f\n+++ b/f\n@@ -5,1 +5,1 @@\n-b\n+B\n")
    assert (repo / "f").read_text() == "a\nb\nc\na\nB\nc\ntail\n"


def test_already_applied(repo: Path):
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -5,3 +5,3 @@\n line 5\n-line 6\n+line six\n line 7\n"
    applied(repo, patch)
    refused(repo, patch, "already_applied")


def test_all_or_nothing_across_files(repo: Path):
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-line 1\n+LINE 1\n"
             "--- a/keep.txt\n+++ b/keep.txt\n@@ -1 +1 @@\n-not there\n+x\n")
    err = refused(repo, patch, "context_not_found")
    assert err.path == "keep.txt"


def test_one_stale_hunk_refuses_the_whole_file(repo: Path):
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-line 1\n+LINE 1\n"
             "@@ -30 +30 @@\n-line 300\n+x\n")
    err = refused(repo, patch, "context_not_found")
    assert err.hunk == 2


def test_overlapping_hunks(repo: Path):
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n line 1\n-line 2\n+two\n"
             "@@ -2,2 +2,2 @@\n-line 2\n+deux\n line 3\n")
    err = refused(repo, patch, "overlapping_edits")  # both change line 2
    assert err.details["hunks"] == [1, 2] and err.hunk == 2
    assert "hunk 1" in err.message
    patch2 = ("--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n line 1\n-line 2\n+two\n"
              "@@ -2,2 +2,2 @@\n two\n-line 3\n+three\n")
    err = refused(repo, patch2, "overlapping_edits")  # hunk 2 depends on hunk 1's output
    assert err.details["hunks"] == [1, 2]


def test_hunks_sharing_context_both_apply(repo: Path):
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+two\n line 3\n"
             "@@ -3,3 +3,3 @@\n line 3\n-line 4\n+four\n line 5\n")
    applied(repo, patch)
    assert (repo / "f.txt").read_text().startswith("line 1\ntwo\nline 3\nfour\nline 5\n")


def test_hunks_out_of_order(repo: Path):
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -30 +30 @@\n-line 30\n+THIRTY\n"
             "@@ -3 +3 @@\n-line 3\n+THREE\n")
    applied(repo, patch)
    text = (repo / "f.txt").read_text()
    assert "THIRTY" in text and "THREE" in text


def test_zero_context_insert_into_non_empty_file_is_refused(repo: Path):
    refused(repo, "--- a/f.txt\n+++ b/f.txt\n@@ -3,0 +4 @@\n+new\n", "ambiguous_context")


def test_insert_into_empty_file(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"empty": ""})
    applied(repo, "--- a/empty\n+++ b/empty\n@@ -0,0 +1,2 @@\n+a\n+b\n")
    assert (repo / "empty").read_bytes() == b"a\nb\n"


# -- bytes ----------------------------------------------------------------------------------------

def test_crlf_file_with_lf_patch_keeps_crlf(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"w.txt": b"one\r\ntwo\r\nthree\r\n"})
    receipt = applied(repo, "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n+2b\n"
                            " three\n")
    assert (repo / "w.txt").read_bytes() == b"one\r\n2\r\n2b\r\nthree\r\n"
    assert receipt.files[0].hunks[0].tolerances == ["line_endings"]


def test_lf_file_with_crlf_patch_keeps_lf(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"u.txt": b"one\ntwo\n"})
    applied(repo, b"--- a/u.txt\r\n+++ b/u.txt\r\n@@ -1,2 +1,2 @@\r\n one\r\n-two\r\n+2\r\n")
    assert (repo / "u.txt").read_bytes() == b"one\n2\n"


def test_crlf_file_with_git_style_crlf_patch_is_exact(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"w.txt": b"one\r\ntwo\r\n"})
    receipt = applied(repo, b"--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n one\r\n-two\r\n"
                            b"+2\r\n")
    assert (repo / "w.txt").read_bytes() == b"one\r\n2\r\n"
    assert receipt.files[0].hunks[0].tolerances == []


def test_mixed_line_endings_are_kept_line_by_line(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"m.txt": b"a\r\nb\nc\r\n"})
    applied(repo, b"--- a/m.txt\n+++ b/m.txt\n@@ -1,3 +1,3 @@\n a\r\n-b\n+B\n c\r\n")
    assert (repo / "m.txt").read_bytes() == b"a\r\nB\nc\r\n"


def test_no_final_newline_is_preserved_and_changed_only_on_request(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"n.txt": b"a\nb\nc"})
    applied(repo, "--- a/n.txt\n+++ b/n.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
                  "\\ No newline at end of file\n")
    assert (repo / "n.txt").read_bytes() == b"a\nB\nc"
    applied(repo, "--- a/n.txt\n+++ b/n.txt\n@@ -2,2 +2,2 @@\n B\n-c\n"
                  "\\ No newline at end of file\n+c\n")
    assert (repo / "n.txt").read_bytes() == b"a\nB\nc\n"
    applied(repo, "--- a/n.txt\n+++ b/n.txt\n@@ -3 +3 @@\n-c\n+c\n"
                  "\\ No newline at end of file\n")
    assert (repo / "n.txt").read_bytes() == b"a\nB\nc"


def test_marker_forgotten_by_the_model_keeps_the_files_state(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"n.txt": b"a\nb"})
    applied(repo, "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,3 @@\n a\n b\n+c\n")
    assert (repo / "n.txt").read_bytes() == b"a\nb\nc"


def test_non_utf8_bytes_survive(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"l1.txt": b"caf\xe9\nna\xefve\n\xff\n"})
    applied(repo, b"--- a/l1.txt\n+++ b/l1.txt\n@@ -1,3 +1,3 @@\n caf\xe9\n-na\xefve\n+na\xeff\n"
                  b" \xff\n")
    assert (repo / "l1.txt").read_bytes() == b"caf\xe9\nna\xeff\n\xff\n"


def test_trailing_whitespace_tolerance_keeps_the_files_context_bytes(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"t.py": "def f():   \n    return 1\n"})
    receipt = applied(repo, "--- a/t.py\n+++ b/t.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n"
                            "+    return 2\n")
    assert (repo / "t.py").read_text() == "def f():   \n    return 2\n"
    assert receipt.files[0].hunks[0].tolerances == ["trailing_whitespace"]


def test_stripped_blank_context_line(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"b.py": "import os\n\nX = 1\n"})
    receipt = applied(repo, "--- a/b.py\n+++ b/b.py\n@@ -1,3 +1,3 @@\n import os\n\n-X = 1\n"
                            "+X = 2\n")
    assert (repo / "b.py").read_text() == "import os\n\nX = 2\n"
    assert "blank_context_line" in receipt.files[0].hunks[0].tolerances


def test_context_line_that_lost_its_space(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"b.py": "def f():\n    return 1\n\ndef g():\n    return 2\n"})
    receipt = applied(repo, "--- a/b.py\n+++ b/b.py\n@@ -4,2 +4,2 @@\ndef g():\n-    return 2\n"
                            "+    return 3\n")
    assert (repo / "b.py").read_text() == "def f():\n    return 1\n\ndef g():\n    return 3\n"
    assert "unprefixed_context_line" in receipt.files[0].hunks[0].tolerances


def test_removed_line_that_lost_its_minus_is_refused(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"b.py": "a\nold\nz\n"})
    refused(repo, "--- a/b.py\n+++ b/b.py\n@@ -1,3 +1,3 @@\n a\nold\n+new\n z\n", "malformed_hunk")


def test_mixed_path_prefix_names_one_file(repo: Path):
    applied(repo, "--- f.txt\n+++ b/f.txt\n@@ -3 +3 @@\n-line 3\n+LINE 3\n")
    assert (repo / "f.txt").read_text() == BASE.replace("line 3\n", "LINE 3\n")


def test_hunk_of_only_trailing_blank_lines_on_an_empty_file(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f": ""})
    err = refused(repo, "diff --git a/f b/f\n@@ -1,2 +1,2 @@\n\n", "context_not_found")
    assert "found the end of the file" in err.message


def test_trailing_blank_line_counted_as_context_but_absent_is_dropped(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"b.py": "a\nb\nc\n"})
    receipt = applied(repo, "--- a/b.py\n+++ b/b.py\n@@ -2,3 +2,3 @@\n-b\n+B\n c\n\n")
    assert (repo / "b.py").read_text() == "a\nB\nc\n"
    assert "trailing_blank_lines_as_separator" in receipt.files[0].hunks[0].tolerances


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
def test_mode_lines_of_an_existing_file_change_nothing(tmp_path: Path, header: str):
    repo = make_repo(tmp_path / "r", {"f": "a\n"})
    applied(repo, f"diff --git a/f b/f\n{header}--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n")
    assert not (repo / "f").stat().st_mode & stat.S_IXUSR


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


def test_delete_must_match_the_whole_file(repo: Path):
    err = refused(repo, "--- a/keep.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-something else\n",
                  "content_mismatch")
    assert err.path == "keep.txt"
    refused(repo, "diff --git a/keep.txt b/keep.txt\ndeleted file mode 100644\n",
            "content_mismatch")


def test_delete_with_crlf_tolerance(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"w.txt": b"a\r\nb\r\n"})
    applied(repo, "--- a/w.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n")
    assert not (repo / "w.txt").exists()


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


def test_subdirectory_applies_relative_to_the_top(repo: Path):
    (repo / "sub").mkdir()
    applied(repo / "sub", "--- a/keep.txt\n+++ b/keep.txt\n@@ -1 +1 @@\n-untouched\n+t\n")
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
