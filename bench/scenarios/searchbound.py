"""--check of hunks whose context lines repeat throughout the file: answered in well under a
second, or refused by the search's budget (search_too_costly); git apply beside it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import inputs
from contenders import (
    holon_argv,
    skipped,
)
from measure import (
    GIT,
    HOLON,
    PATCH,
    PYGIT2,
    Options,
    Row,
    Run,
    alternate,
    run_process,
)

NAME = "searchbound"


# Issue 35, item 5: (kind, lines, context lines on each side, label)
SEARCH_BOUND = (
    ("absent", 40_000, 400, "search bound: 40k repeated lines, 400 + 400 context lines around "
     "a line the file lacks"),
    ("absent", 80_000, 800, "search bound: 80k repeated lines, 800 + 800 context lines around "
     "a line the file lacks"),
    ("blocks", 40_000, 400, "search bound: 40k lines in blocks of 798 repeated lines, a hunk "
     "of 801"),
)


def refusal_is_the_answer(got: Run, holon: bool) -> Run:
    """A refusal is the expected outcome here: a run is good when the tool refused (git: exit
    1; holon-git: a receipt with a code, which the cell notes)."""
    if holon:
        try:
            code = (json.loads(got.stdout).get("error") or {}).get("code")
        except ValueError:
            return got
        if code:
            return Run(got.seconds, got.peak_kb, True, stdout=f"refused {code}", cpu=got.cpu)
        return got
    return Run(got.seconds, got.peak_kb, not got.ok and "does not apply" in got.error,
               got.error, "refused", got.cpu)


def scenario_searchbound(cache: Path, reps: int) -> list[Row]:
    """--check of a hunk whose context lines repeat throughout the file (issue 35): answered
    in well under a second, or refused by the search's budget (search_too_costly)."""
    rows = []
    for kind, n, context, label in SEARCH_BOUND:
        repo, patch = inputs.search_bound_case(cache, n, context, kind)
        p = str(patch)
        tools: dict[str, Callable[[], Run]] = {
            HOLON: lambda p=p, r=repo: refusal_is_the_answer(run_process(
                [*holon_argv(), "apply", "--check", "--json", p], r), True),
            GIT: lambda p=p, r=repo: refusal_is_the_answer(run_process(
                ["git", "apply", "--check", p], r), False),
        }
        cells = alternate(tools, reps)
        outcome = next((r.stdout for r in cells[HOLON].runs if r.stdout.startswith("refused")),
                       "planned")
        for tool in (PATCH, PYGIT2):
            cells[tool] = skipped("n/a")
        rows.append(Row(f"{label} (holon-git: {outcome})",
                        f"{patch.stat().st_size / 1e3:.0f} KB patch, --check, {reps} rounds",
                        cells))
    return rows


def run(cache: Path, options: Options) -> list[Row]:
    return scenario_searchbound(cache, options.reps)
