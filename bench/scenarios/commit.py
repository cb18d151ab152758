"""--ref in a bare repository: the large patch committed onto a branch, beside git's own
pipeline (read-tree, apply --cached, write-tree, commit-tree, update-ref)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import inputs
from contenders import (
    NOT_AVAILABLE,
    holon_argv,
    skipped,
)
from inputs import git, git_env
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

NAME = "commit"


def scenario_commit(cache: Path, reps: int, flags: set[str]) -> list[Row]:
    lp = inputs.large_patch(cache)
    bare, patch = lp.bare, str(lp.patch)
    detail = "bare repository, branch main advanced by one commit"
    available = {"--ref", "--commit"} <= flags
    index_file = bare / "bench.index"
    env = git_env({"GIT_INDEX_FILE": str(index_file)})

    def git_pipeline() -> Run:
        # commit-tree and update-ref need the ids the steps before them print.
        runs = [run_process(["git", "read-tree", "main"], bare, env),
                run_process(["git", "apply", "--cached", patch], bare, env)]
        runs.append(run_process(["git", "write-tree"], bare, env))
        runs.append(run_process(["git", "commit-tree", runs[-1].stdout.strip(), "-p", "main",
                                 "-m", "bench"], bare, env))
        runs.append(run_process(["git", "update-ref", "refs/heads/main",
                                 runs[-1].stdout.strip(), lp.old_commit], bare, env))
        return Run(sum(r.seconds for r in runs), max(r.peak_kb for r in runs),
                   all(r.ok for r in runs), "; ".join(r.error for r in runs if not r.ok),
                   cpu=sum(r.cpu for r in runs))

    def reset(_: str) -> None:
        git(bare, "update-ref", "refs/heads/main", lp.old_commit)
        index_file.unlink(missing_ok=True)

    expected: dict[str, str] = {}

    def verify(tool: str) -> str:
        tree = git(bare, "rev-parse", "main^{tree}").strip()
        parent = git(bare, "rev-parse", "main^").strip()
        if parent != lp.old_commit:
            return "main was not advanced by one commit"
        expected.setdefault("tree", tree)
        return "" if tree == expected["tree"] else f"tree {tree[:10]} != {expected['tree'][:10]}"

    tools: dict[str, Callable[[], Run]] = {GIT: git_pipeline}
    if available:
        tools[HOLON] = lambda: run_process(
            [*holon_argv(), "apply", "-q", "--repo", str(bare), "--ref", "main", "-m", "bench",
             patch], bare)
    # git's pipeline goes first so its tree is the reference.
    cells = alternate(tools, reps, reset, verify)
    reset("")
    cells.setdefault(HOLON, skipped(NOT_AVAILABLE))
    cells[PATCH] = skipped("n/a")
    cells[PYGIT2] = skipped("n/a")
    return [Row("commit (--ref in bare repo)", detail + "; git: read-tree + apply --cached + "
                "write-tree + commit-tree + update-ref", cells)]


def run(cache: Path, options: Options) -> list[Row]:
    return scenario_commit(cache, options.reps, options.flags)
