"""The placement search is bounded (issue 35, item 5): a hunk of hundreds of context lines that
repeat throughout a file is answered from the places of its rarest line, or refused by the
search's budget (`search_too_costly`), never after minutes of comparing windows. Not timed: the
answers are checked; before the bound, the first shape took 38 s and the last was refused as
`context_not_found` after as long."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import refused

from holon_git.core.place.match import RunningFile

REPEATED = "x = 1\n"


def hunk(context: int, removed: str) -> str:
    """One hunk: ``context`` lines of the repeated line, a removed line, as many again."""
    body = f" {REPEATED}" * context + f"-{removed}" + f" {REPEATED}" * context
    return (f"diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n"
            f"@@ -1000,{2 * context + 1} +1000,{2 * context} @@\n{body}")


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module: the repeated
    line 80,000 times, and blocks of 798 copies, each closed by another line."""
    block = REPEATED * 798 + "y = 2\n"
    return {"f.txt": REPEATED * 80_000, "blocks/f.txt": block * 50}


@pytest.mark.slow
@pytest.mark.parametrize("context", [400, 800])
def test_a_removed_line_the_file_lacks_is_looked_for_nowhere(repo: Path, context: int):
    """The removed line is nowhere: no window is read, whatever the anchor line's 80,000
    places. The new side (the context alone) is in the file: already_applied, as the rules
    say when the old side is nowhere and the new side is there. A budget far below what the
    old search compared (80,000 windows of 800 lines) is not reached."""
    RunningFile.budget, before = 200_000, RunningFile.budget
    try:
        refused(repo, hunk(context, "gone\n"), "already_applied", check=True)
        refused(repo, hunk(context, "gone\n"), "already_applied")
    finally:
        RunningFile.budget = before


def test_a_hunk_whose_every_line_repeats_is_refused_by_the_budget(repo: Path):
    """Every line of the hunk is the repeated one, and no run of the file is long enough:
    each of the 40,000 places is a near miss read for hundreds of lines. The budget refuses
    it, with a code, and nothing changes."""
    err = refused(repo, hunk(400, REPEATED).replace("f.txt", "blocks/f.txt"),
                  "search_too_costly")
    assert err.path == "blocks/f.txt"
    assert err.details["lines_compared"] > RunningFile.budget
