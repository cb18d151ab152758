"""Files whose lines repeat (identical lines, blank lines): every line of a hunk's old side
occurs thousands of times and only the line numbers say which copy is meant; the base case
and its double (twice the hunks, twice the repetitions) show the growth."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import inputs
from contenders import (
    holon_argv,
    pygit2_argv,
    settle,
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

NAME = "repeats"


# Repeated lines (issue 23): (kind, lines, hunks, label). The first of each kind is the base;
# the others double its hunks or its repetitions (the growth check).
REPEATS = (
    ("identical3", 100_000, 64, "100k identical lines, 64 hunks with 3 lines of context"),
    ("identical", 100_000, 5_000, "100k identical lines, 5,000 one-line-context hunks"),
    ("identical", 100_000, 10_000, "100k identical lines, 10,000 one-line-context hunks"),
    ("identical", 200_000, 5_000, "200k identical lines, 5,000 one-line-context hunks"),
    ("identical_added", 100_000, 5_000,
     "100k identical lines and added copies, 5,000 hunks each adding one"),
    ("identical_added", 100_000, 10_000,
     "100k identical lines and added copies, 10,000 hunks each adding one"),
    ("blank", 100_000, 1_000, "blank lines of a 100k-line file, 1,000 zero-context hunks"),
    ("blank", 100_000, 2_000, "blank lines of a 100k-line file, 2,000 zero-context hunks"),
    ("blank", 200_000, 1_000, "blank lines of a 200k-line file, 1,000 zero-context hunks"),
)


def scenario_repeats(cache: Path, reps: int, pyg: bool) -> list[Row]:
    """Files whose lines repeat: every line of a hunk's old side occurs thousands of times,
    and only the line numbers say which copy is meant."""
    rows = []
    for kind, n, hunks, label in REPEATS:
        case = inputs.repeat_case(cache, kind, n, hunks)
        repo, target, patch = case.repo, case.repo / case.name, str(case.patch)
        original = target.read_bytes()
        zero = ["--unidiff-zero"] if case.zero_context else []
        tools: dict[str, Callable[[], Run]] = {
            GIT: lambda p=patch, r=repo, z=zero: run_process(["git", "apply", *z, p], r),
            # a -U0 case: numbers alone place its repeated lines, trusted as git is told to
            HOLON: lambda p=patch, r=repo, z=zero: run_process(
                [*holon_argv(), "apply", "-q", *z, p], r),
            PATCH: lambda p=patch, r=repo: run_process(
                ["patch", "-p1", "-s", "--batch", "--no-backup-if-mismatch", "-i", p], r),
        }
        if pyg:
            tools[PYGIT2] = lambda p=case.patch, r=repo: run_process(
                pygit2_argv(r, p, "worktree"), r)
        expected: dict[str, bytes] = {}

        def reset(_: str, target: Path = target, original: bytes = original) -> None:
            target.write_bytes(original)
            for leftover in target.parent.glob(f"{target.name}.*"):
                leftover.unlink()
            settle()

        def verify(tool: str, target: Path = target,
                   expected: dict[str, bytes] = expected) -> str:
            got = target.read_bytes()
            if tool == GIT:
                expected[GIT] = got
            reference = expected.get(GIT)
            return "" if reference is None or got == reference else "content differs"

        cells = alternate(tools, reps, reset, verify)  # git apply first: the reference
        reset("")
        rows.append(Row(label, f"{case.patch.stat().st_size / 1e3:.0f} KB patch, {reps} rounds"
                        + (", git apply --unidiff-zero" if zero else ""), cells))
    return rows


def run(cache: Path, options: Options) -> list[Row]:
    return scenario_repeats(cache, options.reps, options.pyg)
