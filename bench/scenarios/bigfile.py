"""One big file (10,000 to 1,000,000 lines), 1 hunk per 100 lines: the exact patch and the
same hunks with line numbers off by -30..+30 (drifted), beside git apply, GNU patch and
pygit2: how the time grows with the file, and what drift costs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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

NAME = "bigfile"


def scenario_bigfile(cache: Path, reps: int, pyg: bool,
                     sizes: Sequence[int] = (10_000, 100_000, 1_000_000),
                     big_reps: int = 2) -> list[Row]:
    rows = []
    for n in sizes:
        rounds = reps if n < 1_000_000 else min(reps, big_reps)
        bf = inputs.big_file(cache, n)
        original = (bf.repo / bf.name).read_bytes()
        for kind, patch in (("exact", bf.exact), ("drifted", bf.drifted)):
            tools: dict[str, Callable[[], Run]] = {
                HOLON: lambda p=patch, r=bf.repo: run_process(
                    [*holon_argv(), "apply", "-q", str(p)], r),
                GIT: lambda p=patch, r=bf.repo: run_process(["git", "apply", str(p)], r),
                PATCH: lambda p=patch, r=bf.repo: run_process(
                    ["patch", "-p1", "-s", "--batch", "--no-backup-if-mismatch", "-i", str(p)], r),
            }
            if pyg:
                tools[PYGIT2] = lambda p=patch, r=bf.repo: run_process(
                    pygit2_argv(r, p, "worktree"), r)
            expected: dict[str, bytes] = {}

            def reset(_: str, bf: inputs.BigFile = bf, original: bytes = original) -> None:
                (bf.repo / bf.name).write_bytes(original)
                for leftover in bf.repo.glob(f"{bf.name}.*"):
                    leftover.unlink()
                settle()

            def verify(tool: str, bf: inputs.BigFile = bf,
                       expected: dict[str, bytes] = expected) -> str:
                got = (bf.repo / bf.name).read_bytes()
                if tool == GIT:
                    expected[GIT] = got
                reference = expected.get(GIT)
                return "" if reference is None or got == reference else "content differs"

            # git apply first in the first round, so its result is the reference.
            ordered = {GIT: tools.pop(GIT), **tools}
            cells = alternate(ordered, rounds, reset, verify)
            reset("")
            rows.append(Row(f"one file, {n:,} lines, {kind}",
                            f"{bf.hunks:,} hunks, {rounds} rounds" + (", headers off by -30..+30" if
                                                     kind == "drifted" else ""), cells))
    return rows


def run(cache: Path, options: Options) -> list[Row]:
    return scenario_bigfile(cache, options.reps, options.pyg, options.sizes,
                            options.big_reps)
