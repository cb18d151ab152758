"""Library calls in this process (apply_patch, check_patch, apply_patch(durable=True)) of a
3-hunk patch to a 2,000-line file and a 200,000-line one, after many applies, beside the
floor's same edit, pygit2's Repository.apply and git apply as a subprocess."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import floor
import inputs
from measure import (
    FLOOR,
    GIT,
    HOLON,
    PYGIT2,
    Cell,
    Options,
    Row,
    Run,
    alternate,
    run_process,
    timed,
)

NAME = "inprocess"


HISTORY_APPLIES = 1_000  # applies made in the in-process repository before it is timed
BIG_INPROCESS = 200_000  # lines of the per-line row's file (issue 37)


def inprocess_patch(lines: list[bytes]) -> bytes:
    """The in-process scenarios' 3-hunk patch: at 15%, 50% and 85% of the file (lines 300,
    1,000 and 1,700 of 2,000)."""
    n = len(lines)
    return inputs.hunks_patch(lines, "module.py", [n * 3 // 20, n // 2, n * 17 // 20])


def scenario_inprocess(cache: Path, reps: int, pyg: bool,
                       history: int = HISTORY_APPLIES, size: int = 2000) -> list[Row]:
    """Library calls in this process: holon-git's API, the plain-Python floor of the same edit
    (bench/floor.py) and pygit2's Repository.apply, in a repository where holon-git has
    applied patches ``history`` times already (an agent's steady state: its history log
    holds them). ``size``: the file's lines; at other than 2,000 the rows are named after it
    and leave out pygit2 and the durable apply (issue 37's per-line row)."""
    from holon_git import apply_patch, check_patch

    big = size != 2000
    repo = inputs.small_repo(cache / ("inprocess-repo" if not big else f"inprocess-{size}"),
                             size)
    target = repo / "module.py"
    original = target.read_bytes()
    lines = original.splitlines(keepends=True)
    patch = inprocess_patch(lines)
    # An agent's repository is older than the 2 s after which holon-git trusts a config
    # file's mtime to show a change (and stops reading it on every call): wait that out.
    age = time.time() - (repo / ".git" / "config").stat().st_mtime
    time.sleep(max(0.0, 2.1 - age))

    def reset(_: str) -> None:
        target.write_bytes(original)

    for _ in range(history):  # untimed: the history a repository has after many applies
        reset("")
        if not apply_patch(patch, repo).ok:
            raise RuntimeError("holon-git refused the in-process patch")
    expected = target.read_bytes()

    def verify(_: str) -> str:
        return "" if target.read_bytes() == expected else "content differs"

    tools: dict[str, Callable[[], Run]] = {
        HOLON: lambda: timed(lambda: apply_patch(patch, repo).ok),
        FLOOR: lambda: timed(lambda: floor.apply(patch, repo) is None),
        GIT: lambda: run_process(["git", "apply", "-"], repo, input=patch),
    }
    if pyg and not big:
        import pygit2

        prepo = pygit2.Repository(str(repo))

        def pyg_apply() -> bool:
            prepo.apply(pygit2.Diff.parse_diff(patch), pygit2.enums.ApplyLocation.WORKDIR)
            return True

        tools[PYGIT2] = lambda: timed(pyg_apply)
    for _ in range(3):  # warm up: imports, caches
        reset("")
        tools[HOLON]()
    cells = alternate(tools, reps, reset, verify)
    reset("")
    check_cells = {HOLON: Cell(runs=[timed(lambda: check_patch(patch, repo).ok)
                                     for _ in range(reps)])}
    if big:
        detail = (f"3 hunks, {size:,}-line file, after {history:,} applies; git apply is a "
                  "subprocess for reference")
        label = f"in process, {size:,}-line file"
        return [Row(f"{label}: apply_patch()", detail, cells, memory=False),
                Row(f"{label}: check_patch()", detail, check_cells, memory=False)]
    durable_runs = []
    for _ in range(reps):
        reset("")
        durable_runs.append(timed(lambda: apply_patch(patch, repo, durable=True).ok))
    reset("")
    detail = (f"3 hunks, 2,000-line file, after {history:,} applies; git apply is a "
              "subprocess for reference")
    return [Row("in process: apply_patch()", detail, cells, memory=False),
            Row("in process: apply_patch(durable=True)", "with fsync (--fsync)",
                {HOLON: Cell(runs=durable_runs)}, memory=False),
            Row("in process: check_patch()", detail, check_cells, memory=False)]


def run(cache: Path, options: Options) -> list[Row]:
    rows = scenario_inprocess(cache, options.inprocess_reps, options.pyg, options.history)
    return rows + scenario_inprocess(cache, max(5, options.inprocess_reps // 4), options.pyg,
                                     history=max(1, options.history // 10),
                                     size=BIG_INPROCESS)
