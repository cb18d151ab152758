"""Start-up: a one-line patch, --check and applied, as a fresh process each time, beside
git apply, GNU patch, pygit2 and two baselines (python -c 'pass', python -c 'import
click')."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import inputs
from contenders import (
    holon_argv,
    pygit2_argv,
)
from measure import (
    GIT,
    HOLON,
    PATCH,
    PYGIT2,
    TOOLS,
    Options,
    Row,
    Run,
    alternate,
    run_process,
)

NAME = "startup"


def scenario_startup(cache: Path, reps: int, pyg: bool) -> list[Row]:
    repo = inputs.small_repo(cache / "startup-repo", 20)
    lines = (repo / "module.py").read_bytes().splitlines(keepends=True)
    patch = cache / "startup.patch"
    patch.write_bytes(inputs.hunks_patch(lines, "module.py", [10]))
    original = (repo / "module.py").read_bytes()

    def reset(_: str) -> None:
        (repo / "module.py").write_bytes(original)
        for leftover in repo.glob("module.py.*"):
            leftover.unlink()

    p = str(patch)
    rows = []
    check: dict[str, Callable[[], Run]] = {
        HOLON: lambda: run_process([*holon_argv(), "apply", "--check", p], repo),
        GIT: lambda: run_process(["git", "apply", "--check", p], repo),
        PATCH: lambda: run_process(["patch", "-p1", "-s", "--dry-run", "-i", p], repo),
    }
    if pyg:
        check[PYGIT2] = lambda: run_process(pygit2_argv(repo, patch, "worktree", "check"), repo)
    baselines: dict[str, Callable[[], Run]] = {
        "click": lambda: run_process([sys.executable, "-c", "import click"], repo),
        "pass": lambda: run_process([sys.executable, "-c", "pass"], repo),
    }
    cells = alternate({**check, **baselines}, reps)
    rows.append(Row("startup: --check, one-line patch", f"{reps} runs each", {
        k: v for k, v in cells.items() if k in TOOLS}))
    rows.append(Row("baseline: python -c 'import click'", f"{reps} runs",
                    {HOLON: cells["click"]}))
    rows.append(Row("baseline: python -c 'pass'", f"{reps} runs", {HOLON: cells["pass"]}))

    apply_tools: dict[str, Callable[[], Run]] = {
        HOLON: lambda: run_process([*holon_argv(), "apply", "-q", p], repo),
        GIT: lambda: run_process(["git", "apply", p], repo),
        PATCH: lambda: run_process(["patch", "-p1", "-s", "-i", p], repo),
    }
    if pyg:
        apply_tools[PYGIT2] = lambda: run_process(pygit2_argv(repo, patch, "worktree"), repo)
    cells = alternate(apply_tools, reps, reset)
    reset("")
    rows.append(Row("startup: apply, one-line patch", f"{reps} runs each", cells))
    return rows


def run(cache: Path, options: Options) -> list[Row]:
    return scenario_startup(cache, options.startup_reps, options.pyg)
