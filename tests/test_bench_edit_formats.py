"""bench/edit_formats.py and bench/edit_baselines.py: a diff carried over to edits keeps its
edit, what cannot be carried is left out with a reason, and each baseline follows its rule.

Nothing here times anything, and no case of the shared corpora is used: the cases are made here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import edit_baselines  # noqa: E402
import edit_formats  # noqa: E402

BEFORE = b"def f():\n    a = 1\n    b = 2\n    return a + b\n\n\ndef g():\n    return 0\n"
PATCH = (b"diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -2,3 +2,3 @@ def f():\n"
         b"     a = 1\n-    b = 2\n+    b = 3\n     return a + b\n")
AFTER = BEFORE.replace(b"b = 2", b"b = 3")


def _case(root: Path, patch: bytes, category: str = "exact") -> Path:
    case = root / "case-01"
    (case / "before").mkdir(parents=True)
    (case / "after").mkdir()
    (case / "before" / "m.py").write_bytes(BEFORE)
    (case / "after" / "m.py").write_bytes(AFTER)
    (case / "patch.diff").write_bytes(patch)
    (case / "case.json").write_text(json.dumps({"id": "case-01", "category": category,
                                                "expect": "apply"}))
    return case


def test_a_hunk_becomes_one_edit_of_its_old_and_new_sides():
    edits = edit_formats.edits_of(PATCH, "exact")
    assert [(e.path, e.old, e.new) for e in edits] == [
        ("m.py", b"    a = 1\n    b = 2\n    return a + b",
         b"    a = 1\n    b = 3\n    return a + b")]
    assert json.loads(edit_formats.render_edits(edits)) == [
        {"path": "m.py", "old_str": "    a = 1\n    b = 2\n    return a + b",
         "new_str": "    a = 1\n    b = 3\n    return a + b"}]
    blocks = edit_formats.render_blocks(edits)
    assert b"m.py\n```\n<<<<<<< SEARCH\n    a = 1\n    b = 2\n    return a + b\n=======\n" in blocks


@pytest.mark.parametrize("category", sorted(edit_formats.LEFT_OUT_CATEGORIES))
def test_a_case_resting_on_the_diffs_syntax_is_left_out_with_its_reason(category: str):
    with pytest.raises(edit_formats.LeftOut, match=edit_formats.LEFT_OUT_CATEGORIES[category][:20]):
        edit_formats.edits_of(PATCH, category)


def test_a_deletion_and_a_pure_insertion_are_left_out():
    deletion = b"--- a/m.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n"
    with pytest.raises(edit_formats.LeftOut, match="delete"):
        edit_formats.edits_of(deletion, "j_delete")
    insertion = b"--- a/m.py\n+++ b/m.py\n@@ -3,0 +4 @@\n+    c = 4\n"
    with pytest.raises(edit_formats.LeftOut, match="insertion"):
        edit_formats.edits_of(insertion, "drift")
    (edit,) = edit_formats.edits_of(insertion, "u0_insert")
    assert (edit.command, edit.insert_line, edit.new) == ("insert", 3, b"    c = 4\n")
    # a later insertion's line is counted in the file the earlier edits left
    two = insertion + b"@@ -5,0 +7 @@\n+x = 0\n"
    first, second = edit_formats.edits_of(two, "u0_insert")
    assert (first.insert_line, second.insert_line) == (3, 6)


def test_a_patch_without_its_final_newline_still_ends_its_lines():
    (edit,) = edit_formats.edits_of(PATCH[:-1], "exact")
    assert edit.new.endswith(b"return a + b") and edit.old.endswith(b"return a + b")
    marked = PATCH + b"\\ No newline at end of file\n"
    (edit,) = edit_formats.edits_of(marked, "f_noeol")
    assert edit.old.endswith(b"return a + b") and edit.new.endswith(b"return a + b")


def test_an_executable_new_file_is_left_out():
    patch = (b"diff --git a/run.sh b/run.sh\nnew file mode 100755\n"
             b"--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1 @@\n+echo\n")
    with pytest.raises(edit_formats.LeftOut, match="mode"):
        edit_formats.edits_of(patch, "i_add")
    (edit,) = edit_formats.edits_of(patch.replace(b"100755", b"100644"), "i_add")
    assert (edit.command, edit.path, edit.new) == ("create", "run.sh", b"echo\n")


def test_a_hostile_path_stays_in_the_edit():
    patch = PATCH.replace(b"b/m.py", b"b/../outside.py")
    (edit,) = edit_formats.edits_of(patch, "badpath")
    assert edit.path == "../outside.py"


@pytest.mark.parametrize("rule", ["exact-once", "aider", "cline"])
def test_each_baseline_applies_the_converted_case(tmp_path: Path, rule: str):
    case = _case(tmp_path / "corpus", PATCH)
    assert edit_formats.convert_case(case, "edits", tmp_path / "out") is None
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "m.py").write_bytes(BEFORE)
    edit_baselines.apply_case(rule, tmp_path / "out" / "case-01", repo)
    assert (repo / "m.py").read_bytes() == AFTER


def test_exact_once_refuses_a_second_copy_where_the_chains_take_the_first():
    content = "x = 1\ny = 2\nx = 1\n"
    with pytest.raises(edit_baselines.NoMatch):
        edit_baselines.exact_once(content, "x = 1", "x = 9")
    assert edit_baselines.aider(content, "x = 1", "x = 9") == "x = 9\ny = 2\nx = 1\n"
    assert edit_baselines.Cline()("p", content, "x = 1", "x = 9") == "x = 9\ny = 2\nx = 1\n"


def test_the_chains_forgive_indentation_and_anchors_as_documented():
    content = "class A:\n    def f(self):\n        return 1\n"
    # aider: the search lines written without their indentation take the file's back
    old, new = "def f(self):\n    return 1", "def f(self):\n    return 2"
    moved = edit_baselines.aider(content, old, new)
    assert moved == "class A:\n    def f(self):\n        return 2\n"
    # Cline: three lines or more, first and last line as anchors, the middle taken on trust
    assert edit_baselines.Cline()("p", content, "class A:\n    def g(self):\n        return 1",
                                  "class A:\n    pass") == "class A:\n    pass\n"


def test_a_failing_edit_changes_no_file(tmp_path: Path):
    case = tmp_path / "case"
    case.mkdir()
    (case / "edits.json").write_text(json.dumps([
        {"path": "m.py", "old_str": "a = 1", "new_str": "a = 5"},
        {"path": "m.py", "old_str": "nowhere", "new_str": "x"}]))
    (tmp_path / "m.py").write_bytes(BEFORE)
    command = [sys.executable, str(BENCH / "edit_baselines.py"), "exact-once", str(case)]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True)
    assert result.returncode == 1
    assert (tmp_path / "m.py").read_bytes() == BEFORE
