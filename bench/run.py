"""holon-git against `git apply`, GNU patch and pygit2 on the same inputs, in one run.

    python bench/run.py                 # everything (first run downloads two Django sdists)
    python bench/run.py --only startup --reps 3
    python bench/run.py --json results.json

See bench/README.md for the scenarios, the method and the targets.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import floor  # noqa: E402
import inputs  # noqa: E402
from inputs import git, git_env  # noqa: E402

HOLON = "holon-git"
GIT = "git apply"
PATCH = "GNU patch"
PYGIT2 = "pygit2"
FLOOR = "plain Python"  # bench/floor.py: the least a correct applier does, in Python
TOOLS = (HOLON, GIT, PATCH, PYGIT2, FLOOR)
SCENARIOS = ("large", "bigfile", "repeats", "limits", "searchbound", "startup", "inprocess",
             "mcp", "commit", "budgets")

PYGIT2_APPLY = """\
import sys, pygit2
repo = pygit2.Repository(sys.argv[1])
diff = pygit2.Diff.parse_diff(open(sys.argv[2], "rb").read())
where = {"worktree": pygit2.enums.ApplyLocation.WORKDIR,
         "index": pygit2.enums.ApplyLocation.INDEX}[sys.argv[3]]
if sys.argv[4] == "check":
    sys.exit(0 if repo.applies(diff, where) else 1)
repo.apply(diff, where)
"""


# -- measuring ---------------------------------------------------------------------------------
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


# -- the tools ---------------------------------------------------------------------------------
def holon_argv() -> list[str]:
    script = Path(sys.executable).with_name("holon-apply")
    return [str(script)] if script.exists() else [sys.executable, "-m", "holon_git"]


def holon_flags() -> set[str]:
    """The options `holon-apply apply` has in this checkout (the git targets may not exist)."""
    out = subprocess.run([*holon_argv(), "apply", "--help"], capture_output=True, text=True,
                         check=False).stdout
    return {word.strip(",") for word in out.split() if word.startswith("--")}


def compile_holon() -> None:
    """Byte-compile holon_git as pip does for a regular install: an editable install under
    PYTHONDONTWRITEBYTECODE would otherwise compile every module at every start."""
    import compileall

    import holon_git

    compileall.compile_dir(os.path.dirname(holon_git.__file__), quiet=1)


def have_pygit2() -> bool:
    return subprocess.run([sys.executable, "-c", "import pygit2"],
                          capture_output=True, check=False).returncode == 0


def pygit2_argv(repo: Path, patch: Path, where: str, mode: str = "apply") -> list[str]:
    return [sys.executable, "-c", PYGIT2_APPLY, str(repo), str(patch), where, mode]


def floor_argv(patch: Path | str) -> list[str]:
    """bench/floor.py as a command (the same interpreter, no site packages of note)."""
    return [sys.executable, str(Path(floor.__file__).resolve()), str(patch)]


def skipped(reason: str) -> Cell:
    return Cell(note=reason)


NOT_AVAILABLE = "skipped (target not available)"


# -- scenarios ---------------------------------------------------------------------------------
def settle() -> None:
    """Write the reset files' data to disk before a timed run. A repository being patched
    was written long ago; files rewritten a moment before cost every tool about 0.4 s more
    on the large patch (their blocks are allocated and written back while it runs), which
    hid most of the difference between the tools."""
    os.sync()


def clean_checkout(repo: Path, commit: str) -> None:
    git(repo, "reset", "-q", "--hard", commit)
    git(repo, "clean", "-qfdx")
    settle()


def tree_of_worktree(repo: Path) -> str:
    git(repo, "add", "-A")
    return git(repo, "write-tree").strip()


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


# Repeated lines (issue 23): (kind, lines, hunks, label). The first of each kind is the base;
# the others double its hunks or its repetitions (the growth check).
REPEATS = (
    ("identical3", 100_000, 64, "100k identical lines, 64 hunks with 3 lines of context"),
    ("identical", 100_000, 5_000, "100k identical lines, 5,000 one-line-context hunks"),
    ("identical", 100_000, 10_000, "100k identical lines, 10,000 one-line-context hunks"),
    ("identical", 200_000, 5_000, "200k identical lines, 5,000 one-line-context hunks"),
    ("identical_added", 100_000, 5_000,
     "100k identical lines and added copies, 5,000 hunks each adding one"),
    ("identical_added", 100_000, 10_000,
     "100k identical lines and added copies, 10,000 hunks each adding one"),
    ("blank", 100_000, 1_000, "blank lines of a 100k-line file, 1,000 zero-context hunks"),
    ("blank", 100_000, 2_000, "blank lines of a 100k-line file, 2,000 zero-context hunks"),
    ("blank", 200_000, 1_000, "blank lines of a 200k-line file, 1,000 zero-context hunks"),
)


def scenario_repeats(cache: Path, reps: int, pyg: bool) -> list[Row]:
    """Files whose lines repeat: every line of a hunk's old side occurs thousands of times,
    and only the line numbers say which copy is meant."""
    rows = []
    for kind, n, hunks, label in REPEATS:
        case = inputs.repeat_case(cache, kind, n, hunks)
        repo, target, patch = case.repo, case.repo / case.name, str(case.patch)
        original = target.read_bytes()
        zero = ["--unidiff-zero"] if case.zero_context else []
        tools: dict[str, Callable[[], Run]] = {
            GIT: lambda p=patch, r=repo, z=zero: run_process(["git", "apply", *z, p], r),
            # a -U0 case: numbers alone place its repeated lines, trusted as git is told to
            HOLON: lambda p=patch, r=repo, z=zero: run_process(
                [*holon_argv(), "apply", "-q", *z, p], r),
            PATCH: lambda p=patch, r=repo: run_process(
                ["patch", "-p1", "-s", "--batch", "--no-backup-if-mismatch", "-i", p], r),
        }
        if pyg:
            tools[PYGIT2] = lambda p=case.patch, r=repo: run_process(
                pygit2_argv(r, p, "worktree"), r)
        expected: dict[str, bytes] = {}

        def reset(_: str, target: Path = target, original: bytes = original) -> None:
            target.write_bytes(original)
            for leftover in target.parent.glob(f"{target.name}.*"):
                leftover.unlink()
            settle()

        def verify(tool: str, target: Path = target,
                   expected: dict[str, bytes] = expected) -> str:
            got = target.read_bytes()
            if tool == GIT:
                expected[GIT] = got
            reference = expected.get(GIT)
            return "" if reference is None or got == reference else "content differs"

        cells = alternate(tools, reps, reset, verify)  # git apply first: the reference
        reset("")
        rows.append(Row(label, f"{case.patch.stat().st_size / 1e3:.0f} KB patch, {reps} rounds"
                        + (", git apply --unidiff-zero" if zero else ""), cells))
    return rows


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


# Issue 35, item 5: (kind, lines, context lines on each side, label)
SEARCH_BOUND = (
    ("absent", 40_000, 400, "search bound: 40k repeated lines, 400 + 400 context lines around "
     "a line the file lacks"),
    ("absent", 80_000, 800, "search bound: 80k repeated lines, 800 + 800 context lines around "
     "a line the file lacks"),
    ("blocks", 40_000, 400, "search bound: 40k lines in blocks of 798 repeated lines, a hunk "
     "of 801"),
)


def refusal_is_the_answer(got: Run, holon: bool) -> Run:
    """A refusal is the expected outcome here: a run is good when the tool refused (git: exit
    1; holon-git: a receipt with a code, which the cell notes)."""
    if holon:
        try:
            code = (json.loads(got.stdout).get("error") or {}).get("code")
        except ValueError:
            return got
        if code:
            return Run(got.seconds, got.peak_kb, True, stdout=f"refused {code}", cpu=got.cpu)
        return got
    return Run(got.seconds, got.peak_kb, not got.ok and "does not apply" in got.error,
               got.error, "refused", got.cpu)


def scenario_searchbound(cache: Path, reps: int) -> list[Row]:
    """--check of a hunk whose context lines repeat throughout the file (issue 35): answered
    in well under a second, or refused by the search's budget (search_too_costly)."""
    rows = []
    for kind, n, context, label in SEARCH_BOUND:
        repo, patch = inputs.search_bound_case(cache, n, context, kind)
        p = str(patch)
        tools: dict[str, Callable[[], Run]] = {
            HOLON: lambda p=p, r=repo: refusal_is_the_answer(run_process(
                [*holon_argv(), "apply", "--check", "--json", p], r), True),
            GIT: lambda p=p, r=repo: refusal_is_the_answer(run_process(
                ["git", "apply", "--check", p], r), False),
        }
        cells = alternate(tools, reps)
        outcome = next((r.stdout for r in cells[HOLON].runs if r.stdout.startswith("refused")),
                       "planned")
        for tool in (PATCH, PYGIT2):
            cells[tool] = skipped("n/a")
        rows.append(Row(f"{label} (holon-git: {outcome})",
                        f"{patch.stat().st_size / 1e3:.0f} KB patch, --check, {reps} rounds",
                        cells))
    return rows


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


TMPFS_CACHE = f"/dev/shm/holon-git-bench-{os.getuid()}"  # --tmpfs
HISTORY_APPLIES = 1_000  # applies made in the in-process repository before it is timed


def timed(call: Callable[[], bool]) -> Run:
    """A call in this process: its wall time and this process's CPU time meanwhile."""
    start, cpu = time.perf_counter(), time.process_time()
    ok = call()
    return Run(time.perf_counter() - start, 0, ok, cpu=time.process_time() - cpu)


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


def percentile(values: Sequence[float], share: float) -> float:
    """The value ``share`` (0..1) of the way up the sorted values (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


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


# -- report ------------------------------------------------------------------------------------
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


@dataclass
class Target:
    name: str
    goal: str
    value: str
    met: bool | None  # None: not measured in this run


def find(rows: list[Row], prefix: str) -> Row | None:
    return next((r for r in rows if r.scenario.startswith(prefix)), None)


def median_of(rows: list[Row], prefix: str, tool: str = HOLON, cpu: bool = False
              ) -> float | None:
    """The median wall time (``cpu``: CPU time) of ``tool`` in the first row named so."""
    row = find(rows, prefix)
    if row is None:
        return None
    cell = row.cells.get(tool, Cell())
    return cell.cpu_median if cpu else cell.median


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


def targets(rows: list[Row], touched_bytes: int | None, filesystem: str = "") -> list[Target]:
    """Issue 23's targets (issue 9's where it set none). On tmpfs the working-tree row is
    judged by the tmpfs goal, where CPU decides."""
    out = []

    def add(name: str, goal: str, value: float | None, limit: float, unit: str = "x") -> None:
        if value is None:
            out.append(Target(name, goal, "not measured", None))
        else:
            out.append(Target(name, goal, f"{value:.2f}{unit}", value <= limit))

    tmpfs = filesystem == "tmpfs"
    for prefix, label, limit in (
            ("large patch, working tree",
             "large patch, working tree" + (" (on tmpfs)" if tmpfs else ""), 3.5 if tmpfs else 1.6),
            ("large patch, --cached", "large patch, --cached", 2.5)):
        add(label, f"<= {limit:.2f}x git apply",
            ratio(median_of(rows, prefix), median_of(rows, prefix, GIT)), limit)
    for small, large in ((10_000, 100_000), (100_000, 1_000_000)):
        add(f"growth {small:,} -> {large:,} lines (drifted)", "<= 12x for 10x lines",
            ratio(median_of(rows, f"one file, {large:,} lines, drifted"),
                  median_of(rows, f"one file, {small:,} lines, drifted")), 12)
    add("drifted / exact at 100,000 lines", "<= 2.00x",
        ratio(median_of(rows, "one file, 100,000 lines, drifted"),
              median_of(rows, "one file, 100,000 lines, exact")), 2)
    add("startup --check / import click", "<= 1.30x",
        ratio(median_of(rows, "startup: --check"), median_of(rows, "baseline: python -c 'import "
                                                                   "click'")), 1.3)
    inproc = median_of(rows, "in process: apply_patch()")
    add("in-process apply_patch median", "<= 0.50 ms",
        None if inproc is None else inproc * 1000, 0.5, " ms")
    durable = median_of(rows, "in process: apply_patch(durable=True)")
    add("in-process apply_patch(durable=True) median (opt-in fsync, not the target)",
        "<= 0.50 ms", None if durable is None else durable * 1000, 0.5, " ms")
    add("100k identical lines, 5,000 one-line-context hunks", "<= 2.00 s",
        median_of(rows, "100k identical lines, 5,000"), 2.0, " s")
    for label, double, base_prefix in (
            ("growth, identical lines: 2x hunks", "100k identical lines, 10,000",
             "100k identical lines, 5,000"),
            ("growth, identical lines: 2x repetitions", "200k identical lines, 5,000",
             "100k identical lines, 5,000"),
            ("growth, identical lines and added copies: 2x hunks",
             "100k identical lines and added copies, 10,000",
             "100k identical lines and added copies, 5,000"),
            ("growth, blank lines: 2x hunks", "blank lines of a 100k-line file, 2,000",
             "blank lines of a 100k-line file, 1,000"),
            ("growth, blank lines: 2x repetitions", "blank lines of a 200k-line file, 1,000",
             "blank lines of a 100k-line file, 1,000")):
        add(label, "<= 2.00x", ratio(median_of(rows, double), median_of(rows, base_prefix)), 2)
    adds = find(rows, "1M empty envelope adds")
    if adds is not None and adds.cells[HOLON].median is not None:
        cell = adds.cells[HOLON]
        refused = "refused" in adds.scenario
        seconds, mb = cell.median, (cell.peak_kb or 0) / 1024
        out.append(Target("1M empty envelope adds, --check",
                          "refused patch_too_large, or <= 5 s and <= 500 MB",
                          f"{'refused, ' if refused else ''}{seconds:.2f} s, {mb:.0f} MB",
                          refused or (seconds <= 5 and mb <= 500)))
    else:
        out.append(Target("1M empty envelope adds, --check",
                          "refused patch_too_large, or <= 5 s and <= 500 MB", "not measured",
                          None))
    out += targets_29(rows, tmpfs)
    out += targets_37(rows, tmpfs)
    large = find(rows, "large patch, working tree")
    base = find(rows, "startup: apply")
    if large and base and touched_bytes and large.cells[HOLON].peak_kb and \
            base.cells[HOLON].peak_kb:
        above = (large.cells[HOLON].peak_kb - base.cells[HOLON].peak_kb) * 1024
        add("peak memory above baseline / touched bytes", "<= 1.50x", above / touched_bytes, 1.5)
    else:
        add("peak memory above baseline / touched bytes", "<= 1.50x", None, 1.5)
    return out


IDENTICAL = ("100k identical lines, 64", "100k identical lines, 5,000",
             "100k identical lines, 10,000", "200k identical lines, 5,000",
             "100k identical lines and added copies, 5,000",
             "100k identical lines and added copies, 10,000")


def targets_29(rows: list[Row], tmpfs: bool) -> list[Target]:
    """Issue 29's targets, judged on CPU time (user + system), which a shared machine's load
    disturbs less than wall time: every ratio is of medians of one run."""
    out = []

    def add(name: str, goal: str, value: float | None, limit: float | None,
            unit: str = "x") -> None:
        out.append(Target(name, goal, "not measured" if value is None else
                          f"{value:.2f}{unit}",
                          None if value is None or limit is None else value <= limit))

    def cpu_ratio(prefix: str, over: str = GIT, prefix_over: str | None = None
                  ) -> float | None:
        return ratio(median_of(rows, prefix, cpu=True),
                     median_of(rows, prefix_over or prefix, over, cpu=True))

    where = " (on tmpfs)" if tmpfs else " (not on tmpfs: see --tmpfs)"
    add("issue 29: large patch, working tree, CPU" + where, "<= 3.00x git apply",
        cpu_ratio("large patch, working tree"), 3.0)
    add("issue 29: large patch, working tree, CPU over the plain-Python floor",
        "(no goal: reported)", cpu_ratio("large patch, working tree", FLOOR), None)
    add("issue 29: large patch, --cached, CPU", "<= 3.00x git apply",
        cpu_ratio("large patch, --cached"), 3.0)
    add("issue 29: in process, apply_patch() over the plain-Python floor, CPU", "<= 3.00x",
        cpu_ratio("in process: apply_patch()", FLOOR), 3.0)
    for label in IDENTICAL:
        row = find(rows, label)
        add(f"issue 29: {row.scenario if row else label}, CPU", "<= 5.00x git apply",
            cpu_ratio(label), 5.0)
    for label, double, base in (
            ("2x hunks", "100k identical lines, 10,000", "100k identical lines, 5,000"),
            ("2x hunks, added copies", "100k identical lines and added copies, 10,000",
             "100k identical lines and added copies, 5,000")):
        add(f"issue 29: identical lines, {label}, CPU", "<= 2.00x the time",
            cpu_ratio(double, HOLON, base), 2.0)
    add("issue 29: startup --check / import click, CPU", "<= 1.25x",
        cpu_ratio("startup: --check", HOLON, "baseline: python -c 'import click'"), 1.25)
    return out


def targets_37(rows: list[Row], tmpfs: bool) -> list[Target]:
    """Issue 37's targets (an agent's call) and issue 35's search bound, on CPU time but for
    the MCP round trip (the wall time the client waits, median)."""
    out = []

    def add(name: str, goal: str, value: float | None, limit: float, unit: str = "x") -> None:
        out.append(Target(name, goal, "not measured" if value is None else
                          f"{value:.2f}{unit}", None if value is None else value <= limit))

    def cpu(prefix: str, tool: str = HOLON) -> float | None:
        return median_of(rows, prefix, tool, cpu=True)

    small, big = "in process: apply_patch()", f"in process, {BIG_INPROCESS:,}-line file: "
    add("issue 37: in process, apply_patch() over the floor, CPU", "<= 3.00x",
        ratio(cpu(small), cpu(small, FLOOR)), 3.0)
    add("issue 37: in process, apply_patch() over git apply as a subprocess, CPU", "<= 0.50x",
        ratio(cpu(small), cpu(small, GIT)), 0.5)
    add("issue 37: in process, check_patch() over the floor's apply, CPU", "<= 2.00x",
        ratio(cpu("in process: check_patch()"), cpu(small, FLOOR)), 2.0)
    figures = (cpu(big + "apply_patch()"), cpu(small), cpu(big + "apply_patch()", FLOOR),
               cpu(small, FLOOR))
    holon_big, holon_small, floor_big, floor_small = figures
    add(f"issue 37: per line, {BIG_INPROCESS:,} over 2,000 lines, holon-git's extra over the "
        "floor's, CPU", "<= 2.00x",
        None if holon_big is None or holon_small is None or floor_big is None
        or floor_small is None else ratio(holon_big - holon_small, floor_big - floor_small),
        2.0)
    add("issue 37: startup --check / import click, CPU", "<= 1.25x",
        ratio(cpu("startup: --check"), cpu("baseline: python -c 'import click'")), 1.25)
    add("issue 37: MCP apply_patch() p50 over in process (wall)", "<= 2.00x",
        ratio(median_of(rows, "MCP: apply_patch() round trip"),
              median_of(rows, "MCP: in-process apply_patch()")), 2.0)
    where = " (on tmpfs)" if tmpfs else " (not on tmpfs: see --tmpfs)"
    add("issue 37: large patch, working tree, CPU" + where, "<= 4.00x git apply",
        ratio(cpu("large patch, working tree"), cpu("large patch, working tree", GIT)), 4.0)
    for *_, label in SEARCH_BOUND:
        row = find(rows, label)
        cell = row.cells.get(HOLON, Cell()) if row else Cell()
        budget = row is not None and "search_too_costly" in row.scenario
        seconds = cell.cpu_median
        out.append(Target(f"issue 35: {label}", "<= 1 s CPU, or refused search_too_costly",
                          "not measured" if seconds is None else
                          f"{format_seconds(seconds)}{', refused by the budget' if budget else ''}",
                          None if seconds is None else seconds <= 1 or budget))
    return out


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=SCENARIOS,
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
    chosen = args.only or list(SCENARIOS)
    compile_holon()
    flags = holon_flags()
    pyg = have_pygit2()
    rows: list[Row] = []
    later: list[str] = []
    touched = None
    started = time.time()
    for name in SCENARIOS:
        if name not in chosen:
            continue
        print(f"running {name} ...", file=sys.stderr, flush=True)
        if name == "large":
            rows += scenario_large(cache, args.reps, flags, pyg)
            touched = inputs.large_patch(cache).touched_bytes
        elif name == "bigfile":
            sizes = [int(s) for s in args.sizes.split(",") if s]
            rows += scenario_bigfile(cache, args.reps, pyg, sizes, args.big_reps)
        elif name == "repeats":
            rows += scenario_repeats(cache, args.reps, pyg)
        elif name == "limits":
            rows += scenario_limits(cache, args.reps)
        elif name == "startup":
            rows += scenario_startup(cache, args.startup_reps, pyg)
        elif name == "inprocess":
            rows += scenario_inprocess(cache, args.inprocess_reps, pyg, args.history)
            rows += scenario_inprocess(cache, max(5, args.inprocess_reps // 4), pyg,
                                       history=max(1, args.history // 10), size=BIG_INPROCESS)
        elif name == "mcp":
            rows += scenario_mcp(cache, args.mcp_calls, args.history)
        elif name == "searchbound":
            rows += scenario_searchbound(cache, args.reps)
        elif name == "commit":
            rows += scenario_commit(cache, args.reps, flags)
        elif name == "budgets":  # bench/budgets.py: its own table, printed after this one's
            import budgets

            later.append(budgets.report(cache, reps=args.reps))
    if "large" not in chosen and "startup" in chosen:
        touched = None
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = " ".join(["python", "bench/run.py", *(sys.argv[1:] if argv is None else argv)])
    print(f"\n## holon-git benchmark, {stamp}\n\n`{command}`\n\n{machine()}\n")
    print(f"Medians; {args.reps} rounds (startup {args.startup_reps}, in-process "
          f"{args.inprocess_reps}), tools alternating; took {time.time() - started:.0f} s. "
          f"Each cell: wall time (CPU time, user + system). Inputs in {cache} "
          f"({filesystem_of(cache) or 'filesystem unknown'}).\n")
    print(table(rows))
    for text in later:
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
