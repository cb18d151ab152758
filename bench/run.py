"""holon-git against `git apply`, GNU patch, pygit2 and a plain-Python floor on the same
inputs, in one run: the scenarios (bench/scenarios/, one module each), the table, the targets.

    python bench/run.py                 # everything (first run downloads two Django sdists)
    python bench/run.py --only startup --reps 3
    python bench/run.py --json results.json

See bench/README.md for what each scenario measures, the targets and the latest figures.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import inputs  # noqa: E402
import scenarios  # noqa: E402
from contenders import compile_holon, have_pygit2, holon_flags  # noqa: E402
from measure import (  # noqa: E402, F401  (the names tests/test_bench_helpers.py uses)
    FLOOR,
    GIT,
    HOLON,
    PATCH,
    Cell,
    Options,
    Row,
    Run,
    alternate,
    run_process,
)
from report import filesystem_of, machine, ratios, table  # noqa: E402, F401
from scenarios.inprocess import HISTORY_APPLIES  # noqa: E402
from targets import targets, targets_29  # noqa: E402, F401

TMPFS_CACHE = f"/dev/shm/holon-git-bench-{os.getuid()}"  # --tmpfs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--only", action="append", choices=scenarios.NAMES,
                        help="run only these scenarios (repeatable)")
    parser.add_argument("--reps", type=int, default=5, help="rounds per scenario (default 5)")
    parser.add_argument("--startup-reps", type=int, default=50,
                        help="runs per tool in the startup scenario (default 50)")
    parser.add_argument("--inprocess-reps", type=int, default=200,
                        help="calls per tool in the in-process scenario (default 200)")
    parser.add_argument("--mcp-calls", type=int, default=1000,
                        help="apply_patch calls through the MCP server (default 1,000)")
    parser.add_argument("--history", type=int, default=HISTORY_APPLIES,
                        help="applies made before the in-process and MCP scenarios are timed "
                        f"(default {HISTORY_APPLIES:,}; a tenth for the 200,000-line file)")
    parser.add_argument("--sizes", default="10000,100000,1000000",
                        help="line counts for the one-big-file scenario")
    parser.add_argument("--big-reps", type=int, default=2,
                        help="rounds for files of 1,000,000 lines or more, where git apply "
                        "takes tens of seconds (default 2)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="where inputs are built (default $HOLON_BENCH_CACHE or "
                        "~/.cache/holon-git-bench)")
    parser.add_argument("--tmpfs", action="store_true",
                        help=f"build the inputs on tmpfs, in {TMPFS_CACHE} (unless --cache "
                        "names a folder), so that CPU decides the large patch's figures")
    parser.add_argument("--json", type=Path, default=None, help="also write results as JSON")
    args = parser.parse_args(argv)
    cache = (args.cache or (Path(TMPFS_CACHE) if args.tmpfs else inputs.default_cache())
             ).resolve()
    if args.tmpfs and filesystem_of(cache) != "tmpfs":
        parser.error(f"{cache} is not on a tmpfs")
    cache.mkdir(parents=True, exist_ok=True)
    for tool in ("git", "patch"):
        if shutil.which(tool) is None:
            parser.error(f"{tool} is not on PATH")
    chosen = args.only or list(scenarios.NAMES)
    compile_holon()
    options = Options(reps=args.reps, startup_reps=args.startup_reps,
                      inprocess_reps=args.inprocess_reps, mcp_calls=args.mcp_calls,
                      history=args.history, sizes=[int(s) for s in args.sizes.split(",") if s],
                      big_reps=args.big_reps, flags=holon_flags(), pyg=have_pygit2())
    rows: list[Row] = []
    started = time.time()
    for scenario in scenarios.ALL:
        if scenario.NAME in chosen:
            print(f"running {scenario.NAME} ...", file=sys.stderr, flush=True)
            rows += scenario.run(cache, options)
    touched = options.touched_bytes
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = " ".join(["python", "bench/run.py", *(sys.argv[1:] if argv is None else argv)])
    print(f"\n## holon-git benchmark, {stamp}\n\n`{command}`\n\n{machine()}\n")
    print(f"Medians; {args.reps} rounds (startup {args.startup_reps}, in-process "
          f"{args.inprocess_reps}), tools alternating; took {time.time() - started:.0f} s. "
          f"Each cell: wall time (CPU time, user + system). Inputs in {cache} "
          f"({filesystem_of(cache) or 'filesystem unknown'}).\n")
    print(table(rows))
    for text in options.later:
        print(f"\n{text}")
    print("\n| target | goal | this run | met |\n|---|---|---|---|")
    checks = targets(rows, touched, filesystem_of(cache))
    for t in checks:
        met = "yes" if t.met else "no" if t.met is not None else "-"
        print(f"| {t.name} | {t.goal} | {t.value} | {met} |")
    if args.json:
        args.json.write_text(json.dumps({
            "date": stamp, "command": command, "machine": machine(),
            "rows": [{"scenario": r.scenario, "detail": r.detail, "tools": {
                t: {"median_s": c.median, "cpu_median_s": c.cpu_median,
                    "peak_kb": c.peak_kb if r.memory else None,
                    "runs": len(c.runs), "status": c.describe()}
                for t, c in r.cells.items()}} for r in rows],
            "targets": [t.__dict__ for t in checks]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
