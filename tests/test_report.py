"""What the command line prints for a person (report.py): the summary line and -v notes."""

from __future__ import annotations

from pathlib import Path

import pytest
from clisupport import holon, report_lines

ADD = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n"
ENVELOPE_ADD = "*** Begin Patch\n*** Add File: env.txt\n+hello\n*** End Patch\n"
DELETE = "*** Begin Patch\n*** Delete File: g.txt\n*** End Patch\n"
MODIFY = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f.txt": "one\ntwo\n", "g.txt": "g\n"}


@pytest.mark.parametrize("patch, summary", [
    (MODIFY, "Applied 1 file, 1 hunk."),
    (ADD, "Applied 1 file (1 added)."),
    (ENVELOPE_ADD, "Applied 1 file (1 added)."),  # never '0 hunks' for a file that was added
    (DELETE, "Applied 1 file (1 deleted)."),
    (MODIFY + ADD, "Applied 2 files (1 added), 1 hunk."),
])
def test_the_summary_says_what_happened_to_each_kind_of_file(repo: Path, patch: str,
                                                             summary: str):
    done = holon(repo, "-", stdin=patch)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == summary


def test_verbose_notes_of_a_file_name_it(repo: Path):
    miscounted = MODIFY.replace("@@ -1,2 +1,2 @@", "@@ -1,5 +1,5 @@")
    done = holon(repo, "-v", "-", stdin=miscounted)
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stdout.splitlines() if "note:" in line]
    assert notes and all(line.startswith("  note: f.txt: ") for line in notes), notes


def test_a_hunk_line_without_verbose_is_not_indented_under_a_missing_file_line(repo: Path):
    """Without -v there is no file line ('  M f.txt'), so a hunk worth saying stands under
    the summary line as its own item, naming its file; with -v it goes under its file."""
    (repo / "f.txt").write_text("one  \ntwo\n")  # context 'one' matches but for its spaces
    done = holon(repo, "-", stdin=MODIFY)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Applied 1 file, 1 hunk.\n" \
        "  hunk 1 of f.txt at line 1 [trailing_whitespace]\n"
    (repo / "f.txt").write_text("one  \ntwo\n")
    done = holon(repo, "-v", "-", stdin=MODIFY)
    assert done.stdout.splitlines()[1:3] == [
        "  M f.txt (+1 -1)", "    hunk 1 of f.txt at line 1 [trailing_whitespace]"]


def test_a_long_refusal_is_broken_at_its_clauses_and_a_shared_hint_said_once(repo: Path):
    """Two missing files and a hunk not found: each refusal is listed; the hint the two
    not_found share is said once; the long context_not_found line is broken after its
    clauses, never inside a quoted line, and reads the same joined again."""
    missing = "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n"
    bad = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n onee; and more\n-twoo\n+TWO\n"
    done = holon(repo, "-", stdin=missing + missing.replace("x.txt", "y.txt") + bad)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert [line.split(":")[1] for line in lines if line.startswith("error:")] == [
        " not_found", " not_found", " context_not_found"]
    assert sum(line.startswith("hint: no such file here") for line in lines) == 1
    assert lines.index(next(line for line in lines if line.startswith("hint: no such"))) == 2
    assert all(len(line) <= 100 for line in lines if not line.startswith("hint: no such")), lines
    assert any(line.startswith("  ") for line in lines)  # broken after a clause
    assert any("'onee; and more'" in line for line in lines)  # a quoted line kept whole
    assert "error: context_not_found: hunk 1 of f.txt (patch line 13): the hunk's old lines " \
           "were not found; nearest match" in report_lines(done.stderr)[3]
