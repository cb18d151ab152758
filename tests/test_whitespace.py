"""--whitespace (holon_git/whitespace.py): git's default rules on the lines a patch adds."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from clisupport import holon, report_lines
from gitsupport import applied, refused
from hypothesis import given
from hypothesis import strategies as st
from repos.builders import git, git_env

from holon_git.parse import parse_patch
from holon_git.whitespace import fix_line, line_problems, problems

# patch line 6: trailing spaces; 7: a space before a tab in the indentation; 8: fine
ADD = ("diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n"
       "@@ -0,0 +1,3 @@\n+x = 1   \n+ \ty = 2\n+z = 3\n")
MODIFY = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n one\n+two\t\n three\n"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f.txt": "one\nthree\n", "crlf.txt": "a\r\nb\r\n"}


def test_the_rules_are_gits_defaults():
    assert line_problems(b"x = 1   \n") == ["trailing whitespace"]
    assert line_problems(b"x\t\r\n") == ["trailing whitespace"]
    assert line_problems(b" \ty\n") == ["space before tab in indent"]
    assert line_problems(b"\t y\n") == []  # a tab then spaces is git's default-clean
    assert line_problems(b"a\r\n") == []  # CRLF is a line ending here, kept as it is
    assert line_problems(b"no newline") == []


def test_fix_does_what_git_fix_does():
    assert fix_line(b"x = 1   \n") == b"x = 1\n"
    assert fix_line(b"x \t\r\n") == b"x\r\n"
    assert fix_line(b"   \ty\n") == b"\ty\n"  # spaces short of a tab stop fold into the tab
    assert fix_line(b"        \ty\n") == b"\t\ty\n"  # eight spaces are a tab
    assert fix_line(b"fine\n") == b"fine\n"


def test_problems_name_path_and_patch_line():
    found = problems(parse_patch(ADD))
    assert [(p.path, p.patch_line, p.what) for p in found] == [
        ("new.py", 6, "trailing whitespace"), ("new.py", 7, "space before tab in indent")]


def test_blank_lines_added_at_the_end_of_a_file():
    at_end = "--- a/f.txt\n+++ b/f.txt\n@@ -2 +2,3 @@\n three\n+\n+  \n"
    # the run is reported once, at its first line, as git reports it
    assert [(p.patch_line, p.what) for p in problems(parse_patch(at_end))] == [
        (5, "new blank line at EOF"), (6, "trailing whitespace")]
    inside = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,3 @@\n one\n+\n three\n"
    assert problems(parse_patch(inside)) == []  # a blank line with context after it


def test_blank_lines_at_the_end_are_counted_as_git_counts_them(repo: Path):
    at_end = "--- a/f.txt\n+++ b/f.txt\n@@ -2 +2,4 @@\n three\n+\n+\n+\n"
    expected = subprocess.run(["git", "apply", "--check", "-"], input=at_end, cwd=repo,
                              capture_output=True, text=True, env=git_env()).stderr
    done = holon(repo, "-", stdin=at_end)
    assert done.returncode == 0
    assert expected.splitlines()[-1] == done.stderr.splitlines()[-1] == \
        "warning: 1 line adds whitespace errors."
    assert done.stderr.count("new blank line at EOF") == 1


@pytest.mark.parametrize("action, word", [("warn", "warning"), ("error-all", "error")])
def test_trailing_blanks_at_the_end_count_once_more_as_git_counts_them(repo: Path, action: str,
                                                                       word: str):
    """Two added lines with trailing whitespace that are also the file's new blank end:
    git counts three errors (each line, and the blank end once more)."""
    at_end = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,4 @@\n one\n three\n+  \n+\t\n"
    theirs = subprocess.run(["git", "apply", "--check", f"--whitespace={action}", "-"],
                            input=at_end, cwd=repo, capture_output=True, text=True,
                            env=git_env()).stderr
    assert f"{word}: 3 lines add whitespace errors." in theirs.splitlines()
    done = holon(repo, "--check", f"--whitespace={action}", "-", stdin=at_end)
    if action == "warn":
        assert done.stderr.splitlines()[-1] == "warning: 3 lines add whitespace errors."
    else:
        assert report_lines(done.stderr)[0] == (
            "error: whitespace_error: f.txt (patch line 6): 3 added lines have whitespace "
            "errors (--whitespace=error-all); first: trailing whitespace")


def test_warn_is_the_default_and_applies(repo: Path):
    receipt = applied(repo, ADD)
    notes = [(d.code, d.patch_line) for d in receipt.diagnostics]
    assert notes == [("whitespace", 6), ("whitespace", 7)]
    assert (repo / "new.py").read_bytes() == b"x = 1   \n \ty = 2\nz = 3\n"  # as written


def test_the_cli_warns_on_stderr_as_git_does(repo: Path):
    done = holon(repo, "-", stdin=MODIFY)
    assert done.returncode == 0
    assert done.stderr == ("warning: patch line 5: f.txt: trailing whitespace (added)\n"
                           "warning: 1 line adds whitespace errors.\n")
    assert holon(repo, "-R", "-q", "-", stdin=MODIFY).stderr == ""  # removing them is fine
    assert holon(repo, "-q", "-", stdin=MODIFY).stderr == ""  # -q: nothing on success
    git(repo, "checkout", "--", "f.txt")
    done = holon(repo, "--whitespace=nowarn", "-", stdin=MODIFY)
    assert done.returncode == 0 and done.stderr == ""


def test_fix_applies_the_fixed_lines(repo: Path):
    receipt = applied(repo, ADD, whitespace="fix")
    assert (repo / "new.py").read_bytes() == b"x = 1\n\ty = 2\nz = 3\n"
    assert {d.code for d in receipt.diagnostics} == {"whitespace_fixed"}
    at_end = "--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,2 +1,4 @@\n a\r\n b\r\n+c  \r\n+\r\n"
    done = holon(repo, "--whitespace=strip", "-", stdin=at_end)
    assert done.returncode == 0, done.stderr
    assert (repo / "crlf.txt").read_bytes() == b"a\r\nb\r\nc\r\n"
    assert "2 lines applied after fixing whitespace errors" in done.stderr


@pytest.mark.parametrize("action", ["error", "error-all"])
def test_error_refuses_and_changes_nothing(repo: Path, action: str):
    err = refused(repo, ADD, "whitespace_error", whitespace=action)
    assert err.path == "new.py" and err.patch_line == 6
    assert len(err.details["errors"]) == (2 if action == "error-all" else 1)
    done = holon(repo, f"--whitespace={action}", "-", stdin=ADD)
    assert done.returncode == 1 and "whitespace_error" in done.stderr


def test_an_unknown_action_is_a_usage_error(repo: Path):
    assert holon(repo, "--whitespace=loud", "-", stdin=ADD).returncode == 2
    refused(repo, ADD, "usage_error", whitespace="loud")


def _agrees_with_every_line(body: bytes) -> None:
    """problems() skips a packed hunk body it can tell is clean without decoding it; it must
    find exactly what reading every line finds."""
    from holon_git.core.model import FileKind, FilePatch, Hunk, PackedLines, Patch

    def patch_of(lines: object) -> Patch:
        hunk = Hunk(1, None, 1, None, lines, patch_line=3)  # type: ignore[arg-type]
        return Patch([FilePatch(FileKind.MODIFY, "f.txt", "f.txt", [hunk])])

    packed = PackedLines(body)
    assert problems(patch_of(packed)) == problems(patch_of(list(packed)))


@pytest.mark.parametrize("body", [
    " a\n+b \n c\n", " a\n+b\n c \n", "+\tx\n+ \ty\n", " a\n+b\n+  \n", "-a \n+a\n",
    " a\n+b\t", " a\n+b\n", "+x\r\n+y \r\n", " \n+b\n \n", "  \tx\n+b\n", "+b\n \t\n",
    "+x\r\r\n", "+x \r\r\n", "+x\f\n", "+\vx\n", "+b\n-  \n c\n",
])
def test_the_packed_fast_path_agrees_with_reading_every_line(body: str):
    _agrees_with_every_line(body.encode())


@given(st.lists(st.tuples(st.sampled_from(" -+"), st.text(" \t\f\v\rx", max_size=5),
                          st.sampled_from(["\n", "\r\n"])), min_size=1, max_size=6),
       st.booleans())
def test_the_packed_fast_path_agrees_on_any_body(lines: list[tuple[str, str, str]],
                                                 ends_open: bool):
    """Bodies of blanks, tabs, form feeds, CRs and one letter, in context, removed and added
    lines, the last one perhaps without its line ending."""
    body = "".join(prefix + text + ending for prefix, text, ending in lines)
    if ends_open:
        body = body[:-2] if body.endswith("\r\n") else body[:-1]
    _agrees_with_every_line(body.encode())
