"""Call-wide budgets (issue 42, items 7 and 8): bench/budgets.py's shapes (a rescue through
1,100 commits of history, near-miss searches in 60 files of 300,000 lines, 1 MB patches of
them), `--check`, holon-git beside git apply. bench/budgets.py runs on its own too; here its
table is printed after the main one (``options.later``)."""

from __future__ import annotations

from pathlib import Path

from measure import Options, Row

NAME = "budgets"


def run(cache: Path, options: Options) -> list[Row]:
    import budgets  # bench/budgets.py, not this module: its own table and rounds

    options.later.append(budgets.report(cache, reps=options.reps))
    return []
