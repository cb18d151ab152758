"""Tabs and spaces (issue 29): a consistent mapping is taken, and a file indented with spaces
only never gets an added line indented with a tab.

- A hunk whose context lines use tabs while its '-'/'+' lines use the file's spaces maps every
  old line under "a tab is N spaces": it applies, its added lines as written (the file's way).
- A hunk whose lines match the file exactly applies as written, tabs included, as git
  applies it (issue 36: seven real agent diffs adding a tab to tox.ini were refused).
- Whatever the patch, applied to a file indented with spaces only, a hunk matched with
  whitespace ignored leaves no indentation with a tab (property)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import applied, git_apply, twin
from hypothesis import given, settings
from hypothesis import strategies as st
from repos.builders import make_repo
from strategies import difflib_patch

from holon_git.core.change import SourceFile
from holon_git.core.plan.plan import plan_patch
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

MODULE = ("import os\n\n\nclass A:\n    def f(self):\n        x = 1\n        if x:\n"
          "            return 2\n        return 3\n\n    def g(self):\n        return 4\n")


def tolerances(receipt) -> list[list[str]]:
    return [hunk.tolerances for change in receipt.files for hunk in change.hunks]


def test_context_in_tabs_with_changed_lines_in_the_files_spaces(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": MODULE})
    patch = ("--- a/m.py\n+++ b/m.py\n@@ -5,5 +5,6 @@\n \tdef f(self):\n \t\tx = 1\n"
             "-        if x:\n+        if x > 0:\n+            x -= 1\n             return 2\n"
             " \t\treturn 3\n")
    receipt = applied(repo, patch)
    assert (repo / "m.py").read_text() == MODULE.replace(
        "        if x:\n", "        if x > 0:\n            x -= 1\n")
    assert tolerances(receipt) == [["whitespace"]]


def test_a_tab_as_a_column_count_maps_tabs_in_the_middle_of_an_indentation(
        tmp_path: Path) -> None:
    """'\\t    ' is eight columns when a tab is four: the added line written so takes eight
    spaces."""
    repo = make_repo(tmp_path / "r", {"m.py": MODULE})
    patch = ("--- a/m.py\n+++ b/m.py\n@@ -5,3 +5,4 @@\n \tdef f(self):\n \t    x = 1\n"
             "+\t    y = x\n         if x:\n")
    applied(repo, patch)
    assert (repo / "m.py").read_text() == MODULE.replace("x = 1\n", "x = 1\n        y = x\n")


def test_an_empty_added_line_stays_empty_when_the_hunk_is_reindented(tmp_path: Path) -> None:
    """A hunk written four spaces shallower than the file is re-indented; an empty line it
    adds (between two statements, in a docstring) gets no indentation: that would be
    trailing whitespace git warns about, in no line the model wrote."""
    repo = make_repo(tmp_path / "r", {"m.py": MODULE})
    patch = ("--- a/m.py\n+++ b/m.py\n@@ -5,3 +5,5 @@\n def f(self):\n     x = 1\n"
             "+\n+    y = x\n     if x:\n")
    receipt = applied(repo, patch)
    assert (repo / "m.py").read_text() == MODULE.replace("x = 1\n", "x = 1\n\n        y = x\n")
    assert tolerances(receipt) == [["whitespace", "reindented"]]


def test_a_file_indented_with_tabs_and_context_in_spaces(tmp_path: Path) -> None:
    source = "int f(void)\n{\n\tint x = 1;\n\tif (x)\n\t\treturn x;\n\treturn 0;\n}\n"
    repo = make_repo(tmp_path / "r", {"f.c": source})
    patch = ("--- a/f.c\n+++ b/f.c\n@@ -3,4 +3,5 @@\n     int x = 1;\n \tif (x)\n"
             "-\t\treturn x;\n+\t\treturn x + 1;\n+\t\t/* done */\n     return 0;\n")
    applied(repo, patch)
    assert (repo / "f.c").read_text() == source.replace(
        "\t\treturn x;\n", "\t\treturn x + 1;\n\t\t/* done */\n")


def test_added_tabs_with_exactly_matching_context_apply_as_written(tmp_path: Path) -> None:
    """The context (the imports) matches exactly: the hunk applies as written, its tab
    kept, as git apply keeps it."""
    repo = make_repo(tmp_path / "r", {"m.py": MODULE})
    patch = ("--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,6 @@\n import os\n+def h():\n+\treturn 1\n"
             " \n \n class A:\n")
    other = twin(repo)
    receipt = applied(repo, patch)
    git_apply(other, patch)
    assert (repo / "m.py").read_bytes() == (other / "m.py").read_bytes()
    assert b"\treturn 1\n" in (repo / "m.py").read_bytes()
    assert tolerances(receipt) == [[]]


def test_a_patch_written_all_in_tabs_leaves_no_tab_where_it_matched_loosely(
        tmp_path: Path) -> None:
    """Every line of both hunks in tabs: the first hunk's context shows a tab is four
    spaces (re-indented: no tab); the second's context is unindented and matches exactly.
    A file patch is one transport (issue 43): the second does not keep the tabs the first
    mapped back, its own lines showing nothing of what a tab is: it takes the first's
    reading, and the file gets spaces throughout."""
    repo = make_repo(tmp_path / "r", {"m.py": MODULE})
    patch = ("--- a/m.py\n+++ b/m.py\n@@ -5,3 +5,4 @@\n \tdef f(self):\n \t\tx = 1\n"
             "+\t\ty = 2\n \t\tif x:\n@@ -1,3 +2,5 @@\n import os\n+def h():\n+\treturn 1\n \n \n")
    applied(repo, patch)
    assert b"\t" not in (repo / "m.py").read_bytes()
    assert b"def h():\n    return 1\n" in (repo / "m.py").read_bytes()


# -- the property: a spaces-only file never gets a tab --------------------------------------
STATEMENTS = ["x = 1", "return x", "pass", "if x:", "else:", "for i in y:", "y.append(i)", ""]


@st.composite
def indented_file(draw: st.DrawFn) -> list[str]:
    """Lines of a Python-like file indented with four spaces per level."""
    lines, depth = [], 0
    for _ in range(draw(st.integers(3, 25))):
        depth = draw(st.integers(0, min(depth + 1, 3)))
        text = draw(st.sampled_from(STATEMENTS))
        lines.append("    " * depth + text if text else "")
    return lines


def tabbed(patch: bytes, which: str) -> bytes:
    """The patch with the four-space indentation units of its ``which`` lines (" ", "-",
    "+", or all of them) written as tabs."""
    out = []
    for line in patch.splitlines(keepends=True):
        if line[:1] in (b" ", b"-", b"+") and not line.startswith((b"---", b"+++")) \
                and (which == "all" or line[:1] == which.encode()):
            body = line[1:]
            stripped = body.lstrip(b" ")
            units, rest = divmod(len(body) - len(stripped), 4)
            line = line[:1] + b"\t" * units + b" " * rest + stripped
        out.append(line)
    return b"".join(out)


@pytest.mark.slow
@settings(max_examples=200)
@given(indented_file(), st.data())
def test_a_spaces_only_file_never_gets_an_indentation_tab(lines: list[str], data) -> None:
    old = "".join(line + "\n" for line in lines).encode()
    at = data.draw(st.integers(0, len(lines)))
    inserted = data.draw(st.lists(st.sampled_from(STATEMENTS[:-1]), min_size=1, max_size=3))
    depth = data.draw(st.integers(0, 3))
    new_lines = lines[:at] + ["    " * depth + text for text in inserted] + lines[at:]
    new = "".join(line + "\n" for line in new_lines).encode()
    patch = tabbed(difflib_patch("m.py", old, new, data.draw(st.integers(1, 3))),
                   data.draw(st.sampled_from(["all", "+", " "])))
    try:
        plan = plan_patch(parse_patch(patch), {"m.py": SourceFile(old)}.get)
    except PatchError:
        return  # refused: nothing written
    (change,) = plan.changes
    assert change.after is not None
    if not any(line.startswith(" ") for line in lines):
        return  # nothing indented: not a file indented with spaces, any indentation goes
    if not any({"whitespace", "punctuation"} & set(hunk.tolerances) for hunk in change.hunks):
        return  # matched exactly: applied as written, as git applies it
    for line in change.after.splitlines():
        assert b"\t" not in line[: len(line) - len(line.lstrip(b" \t"))], change.after
    assert change.after == new  # a tab is four spaces, as every indented line shows
