"""How every figure of the benchmark is taken: a run of a child process (wall time, CPU time,
peak memory) or of a call in this process, the tools alternated round by round, and the
medians a table cell shows. Nothing here knows a scenario.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HOLON = "holon-git"
GIT = "git apply"
PATCH = "GNU patch"
PYGIT2 = "pygit2"
FLOOR = "plain Python"  # bench/floor.py: the least a correct applier does, in Python
TOOLS = (HOLON, GIT, PATCH, PYGIT2, FLOOR)  # the table's columns, in this order


@dataclass
class Run:
    seconds: float
    peak_kb: int  # ru_maxrss of the process (the largest of a pipeline's steps)
    ok: bool
    error: str = ""
    stdout: str = ""
    # CPU seconds, user + system: of the child process (its rusage, from wait4), or of this
    # process during an in-process call (every thread's); a pipeline's steps add up
    cpu: float = 0.0


TIME = "/usr/bin/time"
PROBE = {"memory": False}  # set during the warm-up round of alternate()


def run_process(argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None,
                input: bytes | None = None) -> Run:
    """Wall time and CPU time (user + system) of one child process; in the warm-up round,
    its peak RSS instead.

    Peak RSS comes from GNU time run around the command: a child forked from this (large)
    Python process would report this process's RSS as its own peak.
    """
    if PROBE["memory"] and os.path.exists(TIME):
        return _probe_memory(argv, cwd, env, input)
    start = time.perf_counter()
    proc = subprocess.Popen(list(argv), cwd=cwd, env=env,
                            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = _communicate(proc, input)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    ok = proc.returncode == 0
    return Run(seconds, usage.ru_maxrss, ok,
               "" if ok else err.decode(errors="replace").strip()[-300:],
               out.decode(errors="replace"), usage.ru_utime + usage.ru_stime)


def _probe_memory(argv: Sequence[str], cwd: Path, env: dict[str, str] | None,
                  input: bytes | None) -> Run:
    import tempfile

    with tempfile.NamedTemporaryFile("r", suffix=".rss") as out:
        PROBE["memory"] = False
        try:
            got = run_process([TIME, "-f", "%M", "-o", out.name, *argv], cwd, env, input)
        finally:
            PROBE["memory"] = True
        text = out.read().strip().splitlines()
    got.peak_kb = int(text[-1]) if text and text[-1].isdigit() else 0
    return got


def _communicate(proc: subprocess.Popen[bytes], input: bytes | None) -> tuple[bytes, bytes]:
    """Feed stdin and drain stdout and stderr without reaping the child (wait4 does that)."""
    import threading

    assert proc.stdout is not None and proc.stderr is not None
    got: dict[str, bytes] = {}
    reader = threading.Thread(target=lambda: got.setdefault("err", proc.stderr.read()))
    reader.start()
    if input is not None:
        assert proc.stdin is not None
        proc.stdin.write(input)
        proc.stdin.close()
    out = proc.stdout.read()
    reader.join()
    proc.stdout.close()
    proc.stderr.close()
    return out, got["err"]


@dataclass
class Cell:
    runs: list[Run] = field(default_factory=list)
    note: str = ""  # why there is no figure ("n/a", "skipped (...)")
    mismatch: str = ""  # the result differed from git apply's
    probe: Run | None = None  # the warm-up run, which measured peak memory

    @property
    def ok(self) -> bool:
        return (bool(self.runs) and all(r.ok for r in self.runs) and not self.mismatch
                and (self.probe is None or self.probe.ok))

    @property
    def median(self) -> float | None:
        return statistics.median(r.seconds for r in self.runs) if self.ok else None

    @property
    def cpu_median(self) -> float | None:
        """The median CPU time (user + system); None when no run measured any."""
        if not self.ok or not any(r.cpu for r in self.runs):
            return None
        return statistics.median(r.cpu for r in self.runs)

    @property
    def peak_kb(self) -> int | None:
        return self.probe.peak_kb if self.ok and self.probe and self.probe.ok else None

    def describe(self) -> str:
        if self.note:
            return self.note
        if not self.runs:
            return "-"
        if self.mismatch:
            return f"wrong result ({self.mismatch})"
        failed = next((r for r in [self.probe, *self.runs] if r and not r.ok), None)
        if failed:
            lines = failed.error.strip().splitlines()
            # a traceback's last line says what went wrong; git's and patch's first line does
            said = lines[-1] if lines and lines[0].startswith("Traceback") else (
                lines[0] if lines else "exit status != 0")
            return f"failed: {said[:70]}"
        cpu = self.cpu_median
        return format_seconds(self.median) + ("" if cpu is None else
                                              f" (CPU {format_seconds(cpu)})")


@dataclass
class Row:
    scenario: str
    detail: str
    cells: dict[str, Cell]
    memory: bool = True  # peak RSS means something here (one process per run)


def format_seconds(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 0.01:
        return f"{value * 1000:.2f} ms"
    if value < 1:
        return f"{value * 1000:.1f} ms"
    return f"{value:.2f} s"


def ratio(num: float | None, den: float | None) -> float | None:
    if num is None or den is None or den <= 0:
        return None
    return num / den


def alternate(tools: dict[str, Callable[[], Run]], reps: int,
              reset: Callable[[str], None] | None = None,
              verify: Callable[[str], str] | None = None) -> dict[str, Cell]:
    """Run every tool once per round, rotating which goes first, for ``reps`` rounds.

    ``reset(tool)`` restores the input before each run (not timed); ``verify(tool)`` checks the
    result after it (not timed) and returns a description of any difference.
    """
    cells = {name: Cell() for name in tools}
    names = list(tools)
    for rnd in range(-1, reps):  # round -1 warms up, verifies and measures memory
        order = names[rnd % len(names):] + names[:rnd % len(names)] if rnd >= 0 else names
        for name in order:
            if reset:
                reset(name)
            PROBE["memory"] = rnd < 0
            try:
                got = tools[name]()
            finally:
                PROBE["memory"] = False
            if rnd < 0:
                cells[name].probe = got
                if got.ok and verify:
                    cells[name].mismatch = verify(name)
                continue
            cells[name].runs.append(got)
    return cells


def percentile(values: Sequence[float], share: float) -> float:
    """The value ``share`` (0..1) of the way up the sorted values (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def timed(call: Callable[[], bool]) -> Run:
    """A call in this process: its wall time and this process's CPU time meanwhile."""
    start, cpu = time.perf_counter(), time.process_time()
    ok = call()
    return Run(time.perf_counter() - start, 0, ok, cpu=time.process_time() - cpu)


@dataclass
class Options:
    """What the command line asked of the scenarios (bench/run.py's options), and what one
    scenario leaves for the targets (the large patch's touched bytes)."""

    reps: int = 5
    startup_reps: int = 50
    inprocess_reps: int = 200
    mcp_calls: int = 1000
    history: int = 1000
    sizes: Sequence[int] = (10_000, 100_000, 1_000_000)
    big_reps: int = 2
    flags: set[str] = field(default_factory=set)  # holon-apply's options in this checkout
    pyg: bool = False  # pygit2 importable: its column is measured
    touched_bytes: int | None = None  # set by the large scenario
    later: list[str] = field(default_factory=list)  # tables of their own (budgets), printed last
