"""The two loose levels on real repositories: 'whitespace' (blanks and indentation ignored) and
'punctuation' (typographic characters read as ASCII). Context keeps the file's bytes; added
lines are re-indented the file's way, or the hunk is refused (indentation_mismatch); a refused
patch changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import applied, refused
from repos.builders import make_repo

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
     "no one mapping"),
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


def test_a_mapping_the_reverse_could_not_show_again_is_refused(tmp_path: Path) -> None:
    """The matched lines show a shift (four spaces fewer, at two levels), but once applied the
    reversed hunk's old lines would all sit at one level, where a shift and a change of width
    both fit: -R could not give the removed line back, so the hunk is refused."""
    body = "class A:\n    a = 1\n    b = 2\n        c = 3\n"
    repo = make_repo(tmp_path / "r", {"m.py": body})
    patch = ("--- a/m.py\n+++ b/m.py\n@@ -2,3 +2,3 @@\n         a = 1\n         b = 2\n"
             "-            c = 3\n+        d = 4\n")
    err = refused(repo, patch, "indentation_mismatch")
    assert "-R" in err.message and err.details["line"] == "            c = 3"
    # an added line at the removed one's level: both directions show the shift
    receipt = applied(repo, patch.replace("+        d", "+            d"))
    assert (repo / "m.py").read_text() == body.replace("c = 3", "d = 4")
    assert tolerances(receipt) == [["whitespace", "reindented"]]


def test_tab_indented_file_never_gets_a_leading_space(tmp_path: Path) -> None:
    makefile = MAKEFILE.replace("clean:", "clean:   # remove")
    repo = make_repo(tmp_path / "r", {"Makefile": makefile})
    # the context (no indented line) matches only with blanks ignored; nothing says how to
    # indent the added recipe line, and spaces would break the Makefile
    patch = "--- a/Makefile\n+++ b/Makefile\n@@ -7 +7,2 @@\n clean: # remove\n+    rm -f x.o\n"
    err = refused(repo, patch, "indentation_mismatch")
    assert "not in the file's style" in err.message
    receipt = applied(repo, patch.replace("+    rm", "+\trm"))
    assert tolerances(receipt) == [["whitespace"]]
    assert "clean:   # remove\n\trm -f x.o\n\trm -f app\n" in (repo / "Makefile").read_text()


def test_punctuation_smartened_in_transport(tmp_path: Path) -> None:
    source = "msg = 'don't panic'  # it's fine - really...\nx = \"a - b\"\n"
    repo = make_repo(tmp_path / "r", {"t.py": source})
    patch = ("--- a/t.py\n+++ b/t.py\n@@ -1,2 +1,2 @@\n"
             " msg = \u2018don\u2019t panic\u2019  # it\u2019s fine \u2013 really\u2026\n"
             "-x = \u201ca \u2013 b\u201d\n+x = \u201ca \u2013 c\u2026\u201d  # \u2018ok\u2019\n")
    receipt = applied(repo, patch)
    assert (repo / "t.py").read_text() == source.replace(
        'x = "a - b"', "x = \"a - c...\"  # 'ok'")
    assert tolerances(receipt) == [["punctuation", "punctuation_normalized"]]


def test_typographic_file_keeps_its_own_characters(tmp_path: Path) -> None:
    """The file itself uses typographic quotes; the patch has ASCII: matched at the
    punctuation level, the added lines are written as the patch has them."""
    source = "Title: \u201cHello\u201d\nBody: it\u2019s here\n"
    repo = make_repo(tmp_path / "r", {"doc.txt": source})
    receipt = applied(repo, "--- a/doc.txt\n+++ b/doc.txt\n@@ -1,2 +1,2 @@\n"
                      " Title: \"Hello\"\n-Body: it's here\n+Body: it\u2019s gone\n")
    assert (repo / "doc.txt").read_text() == "Title: \u201cHello\u201d\nBody: it\u2019s gone\n"
    assert tolerances(receipt) == [["punctuation"]]


def test_smartened_single_quotes_are_evidence_for_double_ones(tmp_path: Path) -> None:
    """Only single quotes differ at the matched lines, but the added line's double quotes
    were smartened by the same transport: an ASCII file gets ASCII quotes."""
    source = "# don't change\nr = get('a')\n"
    repo = make_repo(tmp_path / "r", {"t.py": source})
    patch = ("--- a/t.py\n+++ b/t.py\n@@ -1,2 +1,2 @@\n # don\u2018t change\n"
             "-r = get(\u2018a\u2019)\n+r = get(\u201cb\u201d)\n")
    receipt = applied(repo, patch)
    assert (repo / "t.py").read_text() == "# don't change\nr = get(\"b\")\n"
    assert tolerances(receipt) == [["punctuation", "punctuation_normalized"]]


def test_a_file_with_double_typographic_quotes_keeps_the_patch_s(tmp_path: Path) -> None:
    """The file has \u201c\u201d somewhere: evidence about single quotes says nothing about
    the double ones, which are left as the patch has them."""
    source = "# don't change\nr = get('a')\n# \u201cquoted\u201d\n"
    repo = make_repo(tmp_path / "r", {"t.py": source})
    patch = ("--- a/t.py\n+++ b/t.py\n@@ -1,2 +1,2 @@\n # don\u2018t change\n"
             "-r = get(\u2018a\u2019)\n+r = get(\u201cb\u201d)\n")
    applied(repo, patch)
    assert (repo / "t.py").read_text() == source.replace("get('a')", "get(\u201cb\u201d)")


def test_a_smartened_patch_normalizes_its_exactly_placed_hunks_too(tmp_path: Path) -> None:
    """Hunk 1's context shows the transport smartened quotes (the file has none anywhere);
    hunk 2 matched exactly, and its added line's quotes came through the same transport."""
    lines = [f"line{i} = {i}\n" for i in range(20)]
    lines[1] = "msg = 'hello'\n"
    source = "".join(lines)
    repo = make_repo(tmp_path / "r", {"t.py": source})
    patch = ("--- a/t.py\n+++ b/t.py\n@@ -1,3 +1,3 @@\n line0 = 0\n"
             " msg = \u2018hello\u2019\n-line2 = 2\n+line2 = \u2018two\u2019\n"
             "@@ -15,3 +15,3 @@\n line14 = 14\n-line15 = 15\n+line15 = \u201cfifteen\u201d\n"
             " line16 = 16\n")
    receipt = applied(repo, patch)
    text = (repo / "t.py").read_text()
    assert "line2 = 'two'\n" in text and 'line15 = "fifteen"\n' in text
    assert tolerances(receipt) == [["punctuation", "punctuation_normalized"],
                                   ["punctuation_normalized"]]


def test_typographic_added_lines_of_a_plain_patch_stay(tmp_path: Path) -> None:
    """No old line holds a typographic character: nothing says a transport touched the
    patch, and an em dash or quotes the model wrote are kept."""
    source = "a = 1\nb = 2\n"
    repo = make_repo(tmp_path / "r", {"t.py": source})
    applied(repo, "--- a/t.py\n+++ b/t.py\n@@ -1,2 +1,3 @@\n a = 1\n"
                  "+# fast path \u2014 \u201cno copy\u201d\n b = 2\n")
    assert (repo / "t.py").read_text() == "a = 1\n# fast path \u2014 \u201cno copy\u201d\nb = 2\n"


def test_no_break_spaces(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"n.txt": "a b c\nd\n"})
    applied(repo, "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\u00a0b\u00a0c\n-d\n"
                  "+e\u00a0f\n")
    assert (repo / "n.txt").read_text() == "a b c\ne f\n"


def test_each_level_is_unique_at_its_own_level(tmp_path: Path) -> None:
    # two copies once indentation is ignored: ambiguous, though one is the patch's exactly
    # indented in tabs
    body = "def a():\n    x = 1\n\nclass B:\n    def a():\n        x = 1\n"
    repo = make_repo(tmp_path / "r", {"m.py": body})
    err = refused(repo, "--- a/m.py\n+++ b/m.py\n@@ @@\n def a():\n-\tx = 1\n+\tx = 2\n",
                  "ambiguous_context")
    assert err.details["level"] == "whitespace"
    # a stricter level that finds one copy wins before the looser ones are tried
    receipt = applied(repo, "--- a/m.py\n+++ b/m.py\n@@ @@\n def a():\n-    x = 1\n"
                      "+    x = 2\n")
    assert tolerances(receipt) == [[]]
    assert (repo / "m.py").read_text() == body.replace("    x = 1\n\n", "    x = 2\n\n", 1)


def test_envelope_with_tabs_for_spaces(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": PYTHON})
    envelope = ("*** Begin Patch\n*** Update File: m.py\n@@ def f(x):\n \tif x:\n"
                "+\t\tprint(x)\n \t\treturn 1\n*** End Patch\n")
    applied(repo, envelope)
    assert "        print(x)\n        return 1" in (repo / "m.py").read_text()


def test_reindented_apply_reverses_to_the_original_bytes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"Makefile": MAKEFILE})
    patch = ("--- a/Makefile\n+++ b/Makefile\n@@ -3,3 +3,3 @@\n build:\n"
             "-    gcc -o app main.c\n+    gcc -O2 -o app main.c\n     echo done\n")
    applied(repo, patch)
    assert "\tgcc -O2 -o app main.c\n" in (repo / "Makefile").read_text()
    applied(repo, patch, reverse=True)
    assert (repo / "Makefile").read_text() == MAKEFILE


def test_a_resent_patch_never_applies_loosely_elsewhere(tmp_path: Path) -> None:
    body = "def f():\n    x = 1\n\nclass C:\n    def f():\n        x = 1\n"
    repo = make_repo(tmp_path / "r", {"m.py": body})
    patch = "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n def f():\n-    x = 1\n+    x = 2\n"
    receipt = applied(repo, patch)
    assert tolerances(receipt) == [[]]
    # sent again: its old lines now match only class C's method, with indentation ignored
    refused(repo, patch, "already_applied")
    assert (repo / "m.py").read_text() == body.replace("    x = 1\n\n", "    x = 2\n\n")


def test_a_hunk_that_only_reindents_is_not_already_applied(tmp_path: Path) -> None:
    """Old and new sides equal once indentation is ignored: the whitespace level cannot say
    which of them the file holds, so it never calls the hunk applied."""
    repo = make_repo(tmp_path / "r", {"m.py": PYTHON})
    patch = ("--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,4 @@\n def f(x):\n-    if x:\n"
             "-        return 1\n+\tif x:\n+\t\treturn 1\n     return 2\n")
    receipt = applied(repo, patch)
    assert tolerances(receipt) == [[]]
    assert (repo / "m.py").read_text() == "def f(x):\n\tif x:\n\t\treturn 1\n    return 2\n"
    refused(repo, patch, "already_applied")
    applied(repo, patch, reverse=True)
    assert (repo / "m.py").read_text() == PYTHON
