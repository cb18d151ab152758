"""`git holon-apply mcp` driven by the MCP SDK's stdio client: the round trip of an
apply_patch call, beside the same call in process."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import inputs
from contenders import (
    skipped,
)
from inputs import git_env
from measure import (
    HOLON,
    Cell,
    Options,
    Row,
    Run,
    format_seconds,
    percentile,
    timed,
)

from scenarios.inprocess import HISTORY_APPLIES, inprocess_patch

NAME = "mcp"


def scenario_mcp(cache: Path, calls: int, history: int = HISTORY_APPLIES) -> list[Row]:
    """`git holon-apply mcp` driven by the official MCP SDK's stdio client: ``calls``
    apply_patch calls of the in-process scenario's patch (3 hunks, 2,000 lines), the file reset
    between calls (not timed), after ``history`` applies; then as many in-process
    apply_patch() calls in the same repository, the figure the round trip is judged against.
    Per call: the wall time the client waits (median, p99). The server's CPU time, start-up
    included, is read from this process's children's rusage when it exits, and shown per call."""
    import resource

    try:
        import anyio
        from mcp import Client, StdioServerParameters
    except ImportError as exc:
        return [Row("MCP: apply_patch() round trip", f"skipped (no mcp SDK: {exc})",
                    {HOLON: skipped("skipped (pip install 'holon-git[mcp]')")}, memory=False)]
    from holon_git import apply_patch

    repo = inputs.small_repo(cache / "mcp-repo", 2000)
    target = repo / "module.py"
    original = target.read_bytes()
    patch = inprocess_patch(original.splitlines(keepends=True))
    age = time.time() - (repo / ".git" / "config").stat().st_mtime
    time.sleep(max(0.0, 2.1 - age))
    for _ in range(history):  # untimed, as in the in-process scenario
        target.write_bytes(original)
        if not apply_patch(patch, repo).ok:
            raise RuntimeError("holon-git refused the MCP scenario's patch")
    expected = target.read_bytes()
    env = git_env({"PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                            os.environ.get("PATH", "")])})
    params = StdioServerParameters(command="git", args=["holon-apply", "mcp", "--repo",
                                                        str(repo)], env=env, cwd=str(repo))
    text = patch.decode()
    runs: list[Run] = []

    async def drive() -> None:
        async with Client(params) as client:
            for _ in range(calls):
                target.write_bytes(original)
                start, cpu = time.perf_counter(), time.process_time()
                result = await client.call_tool("apply_patch", {"patch": text})
                seconds, own = time.perf_counter() - start, time.process_time() - cpu
                said = getattr(result, "structured_content", None) or getattr(
                    result, "structuredContent", None) or {}
                ok = not result.is_error if hasattr(result, "is_error") else not getattr(
                    result, "isError", False)
                ok = ok and said.get("status", "applied") == "applied" and \
                    target.read_bytes() == expected
                runs.append(Run(seconds, 0, ok, "" if ok else str(result)[:300], cpu=own))

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    anyio.run(drive)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / calls
    inproc = []
    for _ in range(calls):
        target.write_bytes(original)
        inproc.append(timed(lambda: apply_patch(patch, repo).ok))
    target.write_bytes(original)
    mcp_cell, in_cell = Cell(runs=runs), Cell(runs=inproc)

    def spread(cell: Cell) -> str:
        if not cell.ok:
            return "failed"
        times = [r.seconds for r in cell.runs]
        return (f"p50 {format_seconds(percentile(times, 0.5))}, "
                f"p99 {format_seconds(percentile(times, 0.99))}")

    detail = f"{calls:,} calls, 3 hunks, 2,000-line file, after {history:,} applies"
    return [Row("MCP: apply_patch() round trip", f"{detail}; {spread(mcp_cell)}; server CPU "
                f"{format_seconds(server_cpu)} a call, start-up included", {HOLON: mcp_cell},
                memory=False),
            Row("MCP: in-process apply_patch(), same repository",
                f"{detail}; {spread(in_cell)}", {HOLON: in_cell}, memory=False)]


def run(cache: Path, options: Options) -> list[Row]:
    return scenario_mcp(cache, options.mcp_calls, options.history)
