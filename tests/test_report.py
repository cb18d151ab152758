"""What the command line prints for a person (report.py): the summary line and -v notes."""

from __future__ import annotations

from pathlib import Path

import pytest
from clisupport import holon

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
