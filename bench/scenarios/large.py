"""The large patch: Django one release to the next (thousands of files and hunks), applied
to the working tree and with --cached, beside git apply, GNU patch, pygit2 and the floor;
every tool's result checked against git apply's tree."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import inputs
from contenders import (
    NOT_AVAILABLE,
    clean_checkout,
    floor_argv,
    holon_argv,
    pygit2_argv,
    skipped,
    tree_of_worktree,
)
from inputs import git
from measure import (
    FLOOR,
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

NAME = "large"


def scenario_large(cache: Path, reps: int, flags: set[str], pyg: bool) -> list[Row]:
    lp = inputs.large_patch(cache)
    repo, patch = lp.repo, str(lp.patch)
    detail = (f"Django {inputs.DJANGO_OLD} -> {inputs.DJANGO_NEW}: {lp.files:,} files, "
              f"{lp.hunks:,} hunks, {lp.patch.stat().st_size / 1e6:.1f} MB")
    rows = []

    # Working tree. The reference tree is git apply's.
    clean_checkout(repo, lp.old_commit)
    got = run_process(["git", "apply", patch], repo)
    if not got.ok:
        raise RuntimeError(f"git apply failed on the large patch: {got.error}")
    expected = tree_of_worktree(repo)
    tools: dict[str, Callable[[], Run]] = {
        HOLON: lambda: run_process([*holon_argv(), "apply", "-q", patch], repo),
        GIT: lambda: run_process(["git", "apply", patch], repo),
        PATCH: lambda: run_process(["patch", "-p1", "-s", "--batch", "-i", patch], repo),
    }
    if pyg:
        tools[PYGIT2] = lambda: run_process(pygit2_argv(repo, lp.patch, "worktree"), repo)
    tools[FLOOR] = lambda: run_process(floor_argv(patch), repo)

    def verify_tree(_: str) -> str:
        tree = tree_of_worktree(repo)
        return "" if tree == expected else f"tree {tree[:10]} != {expected[:10]}"

    cells = alternate(tools, reps, lambda _: clean_checkout(repo, lp.old_commit), verify_tree)
    rows.append(Row("large patch, working tree", detail, cells))

    # --cached: the index only.
    clean_checkout(repo, lp.old_commit)
    run_process(["git", "apply", "--cached", patch], repo)
    expected_index = git(repo, "write-tree").strip()

    def verify_index(_: str) -> str:
        tree = git(repo, "write-tree").strip()
        return "" if tree == expected_index else f"tree {tree[:10]} != {expected_index[:10]}"

    tools = {GIT: lambda: run_process(["git", "apply", "--cached", patch], repo)}
    if "--cached" in flags:
        tools[HOLON] = lambda: run_process([*holon_argv(), "apply", "-q", "--cached", patch],
                                           repo)
    if pyg:
        tools[PYGIT2] = lambda: run_process(pygit2_argv(repo, lp.patch, "index"), repo)
    cells = alternate(tools, reps, lambda _: clean_checkout(repo, lp.old_commit), verify_index)
    cells.setdefault(HOLON, skipped(NOT_AVAILABLE))
    cells[PATCH] = skipped("n/a")
    rows.append(Row("large patch, --cached", detail, cells))
    clean_checkout(repo, lp.old_commit)
    return rows


def run(cache: Path, options: Options) -> list[Row]:
    rows = scenario_large(cache, options.reps, options.flags, options.pyg)
    options.touched_bytes = inputs.large_patch(cache).touched_bytes
    return rows
