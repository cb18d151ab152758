"""The two loose levels on real repositories: 'whitespace' (blanks and indentation ignored) and
'punctuation' (typographic characters read as ASCII). Context keeps the file's bytes; added
lines are re-indented the file's way, or the hunk is refused (indentation_mismatch); a refused
patch changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from clisupport import holon, report_lines
from gitsupport import applied, refused
from repos.builders import make_repo, snapshot

MAKEFILE = "all: build\n\nbuild:\n\tgcc -o app main.c\n\techo done\n\nclean:\n\trm -f app\n"
PYTHON = "def f(x):\n    if x:\n        return 1\n    return 2\n"


def tolerances(receipt) -> list[list[str]]:
    return [hunk.tolerances for change in receipt.files for hunk in change.hunks]


def test_tabs_for_spaces_and_other_widths(tmp_path: Path) -> None:
    want = "def f(x):\n    if x:\n        print(x)\n        return 1\n    return 2\n"
    for name, indent in (("tabs", "\t"), ("two", "  "), ("eight", "        ")):
        repo = make_repo(tmp_path / name, {"m.py": PYTHON})
        body = [" def f(x):", f" {indent}if x:", f"+{indent * 2}print(x)",
                f" {indent * 2}return 1", f" {indent}return 2"]
        applied(repo, "--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,5 @@\n" + "\n".join(body) + "\n")
        assert (repo / "m.py").read_text() == want, name


def test_mixed_tab_and_space_indentation_that_matches_exactly_is_kept(tmp_path: Path) -> None:
    """Kernel-style continuation lines ('\\t    ') in the context, identical in file and
    patch; only inner blanks differ: nothing maps, the added line is written unchanged."""
    source = "int f(void)\n{\n\tint  x = 1;\n\tif (x)\n\t    return  x;\n\treturn 0;\n}\n"
    repo = make_repo(tmp_path / "r", {"f.c": source})
    patch = ("--- a/f.c\n+++ b/f.c\n@@ -3,4 +3,5 @@\n \tint x = 1;\n \tif (x)\n"
             " \t    return x;\n+\tx++;\n \treturn 0;\n")
    receipt = applied(repo, patch)
    assert (repo / "f.c").read_text() == source.replace("\treturn 0;", "\tx++;\n\treturn 0;")
    assert tolerances(receipt) == [["whitespace"]]
    applied(repo, patch, reverse=True)
    assert (repo / "f.c").read_text() == source
    # an added line at another indentation still has nothing to map it by: refused
    refused(repo, patch.replace("+\tx++", "+  x++"), "indentation_mismatch")


@pytest.mark.parametrize("patch, why", [
    # the context lost its indentation unevenly: no one mapping
    ("@@ -1,4 +1,5 @@\n def f(x):\n if x:\n+  print(x)\n   return 1\n return 2\n",
     "line 2 is indented not at all in the hunk, 4 spaces in the file, unlike the lines before "
     "it"),
    # one indented level in context: a shift of 2 and a width of 2 both fit, and disagree
    ("@@ -2 +2,2 @@\n   if x:\n+    print(x)\n", "differently"),
    # an added line shallower than the shift (4 fewer) allows
    ("@@ -2,2 +2,3 @@\n         if x:\n             return 1\n+  oops()\n", "no counterpart"),
], ids=["uneven", "two-fits", "too-shallow"])
def test_indentation_that_does_not_map_is_refused(tmp_path: Path, patch: str, why: str) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": PYTHON})
    err = refused(repo, "--- a/m.py\n+++ b/m.py\n" + patch, "indentation_mismatch")
    assert why in err.message
    region = err.details["region"]
    assert region and all(r["text"] == PYTHON.splitlines()[r["line"] - 1] for r in region)


BODY = "def f(x):\n    a = 1\n    b = 2\n    c = 3\n    d = 4\n    return a\n"


@pytest.mark.parametrize("lines, which", [
    # next to the change: the case git's --ignore-whitespace applies
    ([" def f(x):", "     a = 1", "   b = 2", "-    c = 3", "+    c = 30", "     d = 4"],
     "line 3 is indented 2 spaces in the hunk, 4 spaces in the file, unlike the others; "
     "context_indent forgives only deeper context away from a change, and line 3 is next to "
     "a change"),
    # away from the change, but shallower
    ([" def f(x):", "   a = 1", "     b = 2", "-    c = 3", "+    c = 30", "     d = 4"],
     "line 2 is indented 2 spaces in the hunk, 4 spaces in the file, unlike the others; "
     "context_indent forgives only deeper context away from a change, and line 2 is not "
     "indented deeper than the file's"),
    # a removed line
    ([" def f(x):", "     a = 1", "     b = 2", "-  c = 3", "+    c = 30", "     d = 4"],
     "line 4 is indented 2 spaces in the hunk, 4 spaces in the file, unlike the others; "
     "context_indent forgives only deeper context away from a change, and line 4 is a "
     "removed line"),
], ids=["beside-the-change", "shallower", "removed"])
def test_uneven_indentation_says_which_line_and_rule(tmp_path: Path, lines: list[str],
                                                     which: str) -> None:
    """One line indented 2 spaces where the file and the hunk's other lines have 4: refused,
    --ignore-whitespace or not (docs/cli.md says so), in a message that names the line, both
    indentations, and which of context_indent's conditions it broke."""
    repo = make_repo(tmp_path / "r", {"m.py": BODY})
    (tmp_path / "p.diff").write_text("--- a/m.py\n+++ b/m.py\n@@ -1,5 +1,5 @@\n"
                                     + "\n".join(lines) + "\n")
    before = snapshot(repo)
    for flags in ([], ["--ignore-whitespace"]):
        done = holon(repo, *flags, str(tmp_path / "p.diff"))
        assert done.returncode == 1
        first = report_lines(done.stderr)[0]
        assert first == ("error: indentation_mismatch: hunk 1 of m.py (patch line 3): its old "
                         f"lines match lines 1-5 only with whitespace ignored, and {which}")
        assert len(first) < 320
        assert snapshot(repo) == before


