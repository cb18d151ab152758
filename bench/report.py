"""The benchmark's report: the table of every row (each tool's medians and holon-git's ratios
over the others), the filesystem the inputs are on, and the machine it ran on.
"""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

from measure import FLOOR, GIT, HOLON, PATCH, TOOLS, Cell, Row, ratio

RATIOS = ((GIT, "wall"), (GIT, "cpu"), (PATCH, "cpu"), (FLOOR, "cpu"))


def ratio_label(tool: str, kind: str) -> str:
    return f"holon / {'git' if tool == GIT else 'patch' if tool == PATCH else 'floor'}" + (
        " CPU" if kind == "cpu" else "")


def ratios(row: Row) -> list[str]:
    """holon-git's median over each other tool's, in wall time and in CPU time."""
    holon = row.cells.get(HOLON, Cell())
    out = []
    for tool, kind in RATIOS:
        other = row.cells.get(tool, Cell())
        r = (ratio(holon.median, other.median) if kind == "wall"
             else ratio(holon.cpu_median, other.cpu_median))
        out.append(f"{r:.2f}x" if r is not None else "-")
    return out


def table(rows: list[Row]) -> str:
    head = ["scenario", *TOOLS, *(ratio_label(t, k) for t, k in RATIOS), "peak RSS holon",
            "peak RSS git"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        holon, gitc = row.cells.get(HOLON, Cell()), row.cells.get(GIT, Cell())
        mem = [f"{c.peak_kb / 1024:.0f} MB" if row.memory and c.peak_kb else "-"
               for c in (holon, gitc)]
        out.append("| " + " | ".join([
            f"{row.scenario} ({row.detail})",
            *(row.cells.get(t, Cell()).describe() for t in TOOLS),
            *ratios(row), *mem]) + " |")
    return "\n".join(out)


def filesystem_of(path: Path) -> str:
    """The type of the filesystem ``path`` is on (its longest mount point in /proc/mounts);
    '' when that cannot be read."""
    best, kind = "", ""
    try:
        with open("/proc/mounts") as fh:
            for line in fh:
                fields = line.split()
                if len(fields) < 3:
                    continue
                point = fields[1].replace("\\040", " ")
                inside = str(path) == point or str(path).startswith(point.rstrip("/") + "/")
                if inside and len(point) >= len(best):
                    best, kind = point, fields[2]
    except OSError:
        return ""
    return kind


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    git_version = subprocess.run(["git", "--version"], capture_output=True, text=True,
                                 check=False).stdout.strip()
    patch_version = subprocess.run(["patch", "--version"], capture_output=True, text=True,
                                   check=False).stdout.splitlines()[:1]
    return (f"{platform.node()}: {cpu}, {os.cpu_count()} CPUs, {platform.system()} "
            f"{platform.release()}; Python {platform.python_version()}; {git_version}; "
            f"{patch_version[0] if patch_version else 'no patch'}")
