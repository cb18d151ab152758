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
CONTEXT, FILES = 10, 12  # the hunks and files of the call-wide budget's test


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
    small = REPEATED * (2 * CONTEXT - 2) + "y = 2\n"
    return {"f.txt": REPEATED * 80_000, "blocks/f.txt": block * 50,
            **{f"small/f{n:02d}.txt": small * 100 for n in range(FILES)}}


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


def test_one_budget_for_the_whole_call(repo: Path, monkeypatch: pytest.MonkeyPatch):
    """Issue 42, item 8: the budget was per file patch (and fresh for each version the rescue
    tried), so 60 file patches each just under it took 20 s. Now one budget serves the call:
    each file patch alone stays under it (context_not_found, its search run to the end);
    together they pass it, and from there on every file patch is refused search_too_costly
    at once, the lines compared being the call's."""
    monkeypatch.setattr(RunningFile, "budget", 5_000_000)
    paths = [f"small/f{n:02d}.txt" for n in range(FILES)]
    for path in paths[:2]:
        refused(repo, hunk(CONTEXT, REPEATED).replace("f.txt", path), "context_not_found",
                check=True)
    err = refused(repo, "".join(hunk(CONTEXT, REPEATED).replace("f.txt", path)
                                for path in paths), "context_not_found", check=True)
    codes = [err.code, *(more.code for more in err.more)]
    assert len(codes) == FILES
    first = codes.index("search_too_costly")
    assert first > 0 and set(codes[first:]) == {"search_too_costly"}, codes
    spent = [more.details["lines_compared"] for more in err.more[first - 1:]]
    window = 2 * CONTEXT + 1 + 16
    assert all(RunningFile.budget < lines <= RunningFile.budget + window for lines in spent)


def test_the_rescue_versions_share_the_call_budget(repo: Path, monkeypatch: pytest.MonkeyPatch):
    """Issue 42, item 8: each version the three-way rescue tried had a fresh budget. A file
    patch that misses a file with 8 logged pre-images, each a near miss as costly as the file:
    alone (no log) it stays under the budget; with them, the tries together pass it."""
    from holon_git.git import history, loose

    monkeypatch.setattr(RunningFile, "budget", 5_000_000)
    path = "small/f00.txt"
    patch = hunk(CONTEXT, REPEATED).replace("f.txt", path)
    refused(repo, patch, "context_not_found", check=True)
    git_dir = str(repo / ".git")
    store = loose.Store.of(git_dir)
    assert store is not None
    content = (repo / path).read_bytes()
    versions = [content + b"version %d\n" % k for k in range(8)]
    history.record(git_dir, [(path, store.write(version), "", "", "",
                              history.preimage_proof(path, version)) for version in versions])
    err = refused(repo, patch, "search_too_costly", check=True)
    assert RunningFile.budget < err.details["lines_compared"]


def test_every_plan_of_a_call_shares_the_budget(repo: Path, monkeypatch: pytest.MonkeyPatch):
    """--reject plans each group of file patches on its own (as --no-atomic does): each plan
    had a budget of its own. Now the call's one budget serves them all."""
    monkeypatch.setattr(RunningFile, "budget", 5_000_000)
    patch = "".join(hunk(CONTEXT, REPEATED).replace("f.txt", f"small/f{n:02d}.txt")
                    for n in range(FILES))
    err = refused(repo, patch, "context_not_found", check=True, reject=True)
    codes = [err.code, *(more.code for more in err.more)]
    assert len(codes) == FILES
    first = codes.index("search_too_costly")
    assert first > 0 and set(codes[first:]) == {"search_too_costly"}, codes
