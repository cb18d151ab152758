"""An envelope hunk's '@@ <text>' line breaks a tie between copies of its old lines, as Codex
reads it: the first copy after the one line of the file that matches the text wins. Real
repositories; a refused patch changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import applied, forget_resend_records, refused
from repos.builders import make_repo

TWINS = ("def a():\n    x = 1\n    return x\n\n"
         "def b():\n    x = 1\n    return x\n")
METHODS = ("class A:\n    def run(self):\n        return 1\n\n"
           "class B:\n    def run(self):\n        return 1\n")


def envelope(*sections: str) -> str:
    return "*** Begin Patch\n*** Update File: m.py\n" + "".join(sections) + "*** End Patch\n"


RETURN_PLUS_ONE = "     x = 1\n-    return x\n+    return x + 1\n"


def test_the_copy_after_the_anchor_line_wins(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": TWINS})
    receipt = applied(repo, envelope("@@ def b():\n", RETURN_PLUS_ONE))
    assert (repo / "m.py").read_text() == TWINS.replace(
        "def b():\n    x = 1\n    return x\n", "def b():\n    x = 1\n    return x + 1\n")
    (change,) = receipt.files
    assert change.hunks[0].by_anchor and change.hunks[0].applied_line == 6
    assert change.hunks[0].to_dict()["by_anchor"] is True
    assert [d.code for d in change.diagnostics] == ["placed_by_anchor"]
    assert "line 5" in change.diagnostics[0].message


def test_the_first_copy_after_the_anchor(tmp_path: Path) -> None:
    """Codex takes the first copy after the anchor line, not the last."""
    repo = make_repo(tmp_path / "r", {"m.py": TWINS + "\n# again\n    x = 1\n    return x\n"})
    applied(repo, envelope("@@ def a():\n", RETURN_PLUS_ONE))
    assert (repo / "m.py").read_text().count("return x + 1") == 1
    assert (repo / "m.py").read_text().startswith("def a():\n    x = 1\n    return x + 1\n")


def test_indented_anchor_lines_match_without_their_indentation(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": METHODS})
    applied(repo, envelope("@@ class B:\n", "     def run(self):\n-        return 1\n"
                           "+        return 2\n"))
    assert (repo / "m.py").read_text() == METHODS[:-2] + "2\n"


def test_two_anchored_hunks_of_one_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": TWINS})
    applied(repo, envelope("@@ def b():\n", RETURN_PLUS_ONE,
                           "@@ def a():\n", RETURN_PLUS_ONE.replace("x + 1", "x + 2")))
    text = (repo / "m.py").read_text()
    assert text.index("x + 2") < text.index("def b():") < text.index("x + 1")


def test_a_unique_copy_before_the_anchor_line_is_refused(tmp_path: Path) -> None:
    """The '@@ class B:' line says the hunk comes after it; the old lines occur once, in
    class A, before it. Codex refuses (it seeks them only after the line), and so does
    holon-git, rather than edit the copy the patch did not name."""
    source = "class A:\n    def run(self):\n        pass\n\nclass B:\n    def run(self):\n" \
             "        return 1\n"
    repo = make_repo(tmp_path / "r", {"m.py": source})
    patch = envelope("@@ class B:\n", "-        pass\n+        return 2\n")
    err = refused(repo, patch, "context_not_found")
    assert "line 3, before line 5" in err.message and "'@@ class B:'" in err.hint
    assert err.details["anchor"] == {"text": "class B:", "lines": [5]}
    # named where it is, the same hunk applies
    applied(repo, patch.replace("@@ class B:", "@@ class A:"))
    assert (repo / "m.py").read_text() == source.replace("pass", "return 2")


def test_an_anchor_that_matches_no_line_or_starts_the_copy_says_nothing(
        tmp_path: Path) -> None:
    """A text that matches no line of the file is informational; a copy that starts at the
    anchor line itself (the context repeats it) is not before it."""
    source = "def a():\n    return 1\n\ndef b():\n    pass\n"
    repo = make_repo(tmp_path / "r", {"m.py": source})
    applied(repo, envelope("@@ def c():\n", "-    return 1\n+    return 2\n"))
    applied(repo, envelope("@@ def b():\n", " def b():\n-    pass\n+    return 3\n"))
    assert (repo / "m.py").read_text() == source.replace("1", "2").replace("pass", "return 3")


@pytest.mark.parametrize("anchor, why", [
    ("def c():", "no line of the file matches it"),
    ("x = 1", "2 lines of the file match it"),
    ("return x", "2 lines of the file match it"),
])
def test_an_anchor_that_does_not_decide_is_refused(tmp_path: Path, anchor: str,
                                                   why: str) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": TWINS})
    err = refused(repo, envelope(f"@@ {anchor}\n", RETURN_PLUS_ONE), "ambiguous_context")
    assert f"'@@ {anchor}' line did not decide" in err.hint and why in err.hint
    assert err.details["anchor"]["text"] == anchor


def test_no_copy_after_the_anchor_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": TWINS + "\n# the end\n"})
    err = refused(repo, envelope("@@ # the end\n", RETURN_PLUS_ONE), "ambiguous_context")
    assert "no copy follows line 9" in err.hint
    assert err.details["anchor"]["lines"] == [9]


def test_unified_section_text_is_not_an_anchor(tmp_path: Path) -> None:
    """git diff's function-name text after '@@' is informational: a unified hunk with two
    copies and no line number to decide stays ambiguous."""
    repo = make_repo(tmp_path / "r", {"m.py": TWINS})
    patch = "--- a/m.py\n+++ b/m.py\n@@ def b():\n" + RETURN_PLUS_ONE
    refused(repo, patch, "invalid_hunk_header")
    bare = "--- a/m.py\n+++ b/m.py\n@@ @@\n" + RETURN_PLUS_ONE
    err = refused(repo, bare, "ambiguous_context")
    assert "anchor" not in err.details


def test_a_resent_anchored_hunk_is_already_applied(tmp_path: Path) -> None:
    """Applied once, the hunk's old lines are left only in a(): sent again, its '@@ def b():'
    line says it goes after line 5, where its new lines already are."""
    repo = make_repo(tmp_path / "r", {"m.py": TWINS})
    patch = envelope("@@ def b():\n", RETURN_PLUS_ONE)
    applied(repo, patch)
    after = (repo / "m.py").read_text()
    forget_resend_records(repo)  # the hunk rule, not the history log's record
    err = refused(repo, patch, "already_applied")
    assert "line 6" in err.message
    assert (repo / "m.py").read_text() == after
