"""A million empty envelope additions, --check: holon-git's size limits refuse it
(patch_too_large) or it is planned within the time and memory budget."""

from __future__ import annotations

import json
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

NAME = "limits"


ADDS = 1_000_000


def scenario_limits(cache: Path, reps: int) -> list[Row]:
    """A million empty envelope additions, --check: refused (patch_too_large) or planned.
    Only holon-git reads the envelope."""
    repo, patch = inputs.envelope_adds(cache, ADDS)

    def check() -> Run:
        got = run_process([*holon_argv(), "apply", "--check", "--json", str(patch)], repo)
        try:
            code = (json.loads(got.stdout).get("error") or {}).get("code")
        except ValueError:
            return got
        if code == "patch_too_large":
            return Run(got.seconds, got.peak_kb, True, stdout="refused patch_too_large",
                       cpu=got.cpu)
        return got

    cells = alternate({HOLON: check}, reps)
    outcome = next((r.stdout for r in cells[HOLON].runs if r.stdout.startswith("refused")),
                   "planned")
    for tool in (GIT, PATCH, PYGIT2):
        cells[tool] = skipped("n/a")
    size = patch.stat().st_size / 1e6
    return [Row(f"1M empty envelope adds, --check ({outcome})", f"{size:.0f} MB patch", cells)]


def run(cache: Path, options: Options) -> list[Row]:
    return scenario_limits(cache, options.reps)
