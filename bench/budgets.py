"""Call-wide budgets (issue 42, items 7 and 8): holon-git beside `git apply` on the shapes
that took minutes while each file patch had a budget of its own.

    python bench/budgets.py                  # every shape, 3 rounds; a Markdown table
    python bench/budgets.py --reps 1 --only rescue

- **rescue**: 200 file patches (about 33 KB), each with a stale `index` line and a hunk
  whose old side is in no version of its file, against 200 files committed under 1,100
  commits of history: each file patch walked up to 1,050 commits of HEAD's history (171 s).
- **search**: 60 file patches, each of its own 300,000-line file of one repeated line with a
  block boundary every 46 lines, each one hunk whose every line is that line, a near miss
  at every place: each just under the per-file budget (20 s in all).
- **onemb**: a 1 MB patch of such near-miss hunks, all to one of those files.
- **spread**: a 1 MB patch of such near-miss hunks, spread over the 60 files.

Each is run with `--check` (holon-git answers with `--json`; `git apply --check` beside
it, `-3` for the rescue shape). holon-git's answer should come in under 2 s, or be
`search_too_costly` (judged on CPU time, user + system: on a shared machine the wall time
is mostly the others' load). Not a test: nothing here asserts a time (tests/security/
test_call_budgets.py counts the work instead). `bench/run.py --only budgets` runs this too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from inputs import default_cache, git, git_env  # noqa: E402

SHAPES = ("rescue", "search", "onemb", "spread")
RESCUE_FILES, RESCUE_COMMITS = 200, 1_100
SEARCH_FILES, SEARCH_LINES, SEARCH_CONTEXT = 60, 300_000, 23
LINE = b"x = 1\n"


@dataclass
class Timed:
    seconds: float
    cpu: float
    answer: str  # holon-git's status and code, or git's exit status


def timed(argv: Sequence[str], cwd: Path) -> Timed:
    """Wall and CPU time (user + system, the child's own) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, check=False, env=git_env())
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timed(seconds, cpu, _answer(argv, done))


def _answer(argv: Sequence[str], done: subprocess.CompletedProcess[bytes]) -> str:
    if argv[0] == "git":
        return f"exit {done.returncode}"
    try:
        receipt = json.loads(done.stdout)
    except ValueError:
        return f"exit {done.returncode}, no receipt"
    error = receipt.get("error") or {}
    return f"{receipt.get('status')} {error.get('code', '')}".strip()


def holon_argv() -> list[str]:
    script = Path(sys.executable).with_name("holon-apply")
    return [str(script)] if script.exists() else [sys.executable, "-m", "holon_git"]


# -- the inputs ----------------------------------------------------------------------------------
def _fresh(root: Path) -> Path:
    if root.exists():
        shutil.rmtree(root)
    repo = root / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    return repo


def _fast_import(repo: Path, commits: Sequence[dict[str, bytes]]) -> None:
    """Commit each of ``commits`` ({path: content} written over the tree before it) on main,
    in one `git fast-import`, then check main out."""
    stream = bytearray()
    for number, files in enumerate(commits):
        message = b"commit %d\n" % number
        stream += (b"commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\n"
                   % (1_700_000_000 + number))
        stream += b"data %d\n%s" % (len(message), message)
        for path, data in files.items():
            stream += b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data)
    git(repo, "fast-import", "--quiet", input=bytes(stream))
    git(repo, "checkout", "-q", "-f", "main")


def rescue_case(cache: Path) -> tuple[Path, Path]:
    """(repository, patch): RESCUE_FILES files committed first, then RESCUE_COMMITS commits of
    another file; a file patch per file with a stale index line and a missing old side."""
    root = cache / f"budgets-rescue-{RESCUE_FILES}-{RESCUE_COMMITS}-v2"
    patch = root / "stale.patch"
    if not (root / "ready").exists():
        repo = _fresh(root)
        first = {f"src/f{n:03d}.txt": b"".join(b"file %d line %d\n" % (n, k) for k in range(8))
                 for n in range(RESCUE_FILES)}
        _fast_import(repo, [first, *({"log.txt": b"%d\n" % k} for k in range(RESCUE_COMMITS))])
        patch.write_bytes(b"".join(
            b"diff --git a/src/f%03d.txt b/src/f%03d.txt\nindex 1234567..89abcde 100644\n"
            b"--- a/src/f%03d.txt\n+++ b/src/f%03d.txt\n@@ -2,3 +2,3 @@\n file %d line 1\n"
            b"-file %d line two\n+file %d line 2, changed\n file %d line 3\n" % ((n,) * 8)
            for n in range(RESCUE_FILES)))
        (root / "ready").write_text("")
    return root / "repo", patch


def near_miss_hunk(path: str, context: int) -> bytes:
    """One hunk of ``context`` + 1 + ``context`` copies of LINE, its middle one removed."""
    side = b" " + LINE
    return (b"@@ -1000,%d +1000,%d @@\n" % (2 * context + 1, 2 * context)
            + side * context + b"-" + LINE + side * context)


def search_case(cache: Path, shape: str) -> tuple[Path, Path]:
    """(repository, patch): SEARCH_FILES files of SEARCH_LINES lines, blocks of 2 * context
    - 2 copies of LINE each closed by another line, so every place of a near-miss hunk is
    read far before it fails. ``shape`` 'search': one such hunk per file; 'onemb': a 1 MB
    patch of them, all to the first file."""
    root = cache / f"budgets-search-{SEARCH_FILES}-{SEARCH_LINES}-{SEARCH_CONTEXT}-v1"
    if not (root / "ready").exists():
        repo = _fresh(root)
        block = LINE * (2 * SEARCH_CONTEXT - 2) + b"y = 2\n"
        text = block * (SEARCH_LINES // (2 * SEARCH_CONTEXT - 1))
        _fast_import(repo, [{f"big/f{n:02d}.txt": text for n in range(SEARCH_FILES)}])
        header = b"diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n"
        one = [header % ((f"big/f{n:02d}.txt".encode(),) * 4)
               + near_miss_hunk(f"big/f{n:02d}.txt", SEARCH_CONTEXT)
               for n in range(SEARCH_FILES)]
        (root / "search.patch").write_bytes(b"".join(one))
        hunk = near_miss_hunk("big/f00.txt", SEARCH_CONTEXT)
        (root / "onemb.patch").write_bytes(header % ((b"big/f00.txt",) * 4)
                                           + hunk * (1_000_000 // len(hunk) + 1))
        each = 1_000_000 // SEARCH_FILES // len(hunk) + 1
        (root / "spread.patch").write_bytes(b"".join(
            header % ((f"big/f{n:02d}.txt".encode(),) * 4) + hunk * each
            for n in range(SEARCH_FILES)))
        (root / "ready").write_text("")
    return root / "repo", root / f"{shape}.patch"


# -- the run -------------------------------------------------------------------------------------
@dataclass
class Row:
    shape: str
    detail: str
    holon: list[Timed]
    git: list[Timed]
    git_label: str

    def line(self) -> str:
        def cell(runs: list[Timed]) -> str:
            wall = statistics.median(r.seconds for r in runs)
            cpu = statistics.median(r.cpu for r in runs)
            return f"{wall:.2f} s ({cpu:.2f} s CPU)"

        answer = self.holon[0].answer
        # CPU decides: on a shared machine the wall time is mostly the others' load
        within = ("yes" if statistics.median(r.cpu for r in self.holon) < 2
                  or "search_too_costly" in answer else "no")
        return (f"| {self.shape} | {self.detail} | {cell(self.holon)} | {answer} | "
                f"{cell(self.git)} ({self.git_label}: {self.git[0].answer}) | {within} |")


def measure(cache: Path, shapes: Sequence[str], reps: int) -> list[Row]:
    rows = []
    for shape in shapes:
        if shape == "rescue":
            repo, patch = rescue_case(cache)
            git_args, label = ["git", "apply", "-3", "--check", str(patch)], "git apply -3"
            detail = (f"{RESCUE_FILES} file patches with stale index lines, "
                      f"{RESCUE_COMMITS + 1} commits")
        else:
            repo, patch = search_case(cache, shape)
            git_args, label = ["git", "apply", "--check", str(patch)], "git apply"
            detail = {"search": f"{SEARCH_FILES} near-miss file patches, {SEARCH_LINES:,} "
                                "lines each",
                      "onemb": f"1 MB of near-miss hunks, one {SEARCH_LINES:,}-line file",
                      "spread": f"1 MB of near-miss hunks over {SEARCH_FILES} files of "
                                f"{SEARCH_LINES:,} lines"}[shape]
        detail += f", {patch.stat().st_size / 1e3:,.0f} KB, --check, {reps} rounds"
        holon_args = [*holon_argv(), "apply", "--check", "--json", str(patch)]
        holon, other = [], []
        for _ in range(reps):
            holon.append(timed(holon_args, repo))
            other.append(timed(git_args, repo))
        rows.append(Row(shape, detail, holon, other, label))
    return rows


def report(cache: Path, shapes: Sequence[str] = SHAPES, reps: int = 3) -> str:
    """The Markdown table of ``shapes`` (what bench/run.py prints for --only budgets)."""
    rows = measure(cache, shapes, reps)
    head = ("| shape | input | holon-git | holon-git's answer | git | under 2 s of CPU, or "
            "search_too_costly |\n|---|---|---|---|---|---|")
    return "\n".join([head, *(row.line() for row in rows)])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--only", action="append", choices=SHAPES)
    parser.add_argument("--cache", type=Path, default=None)
    args = parser.parse_args(argv)
    cache = (args.cache or default_cache()).resolve()
    cache.mkdir(parents=True, exist_ok=True)
    print(f"`python bench/budgets.py {' '.join(sys.argv[1:] if argv is None else argv)}` "
          f"on {os.cpu_count()} CPUs\n")
    print(report(cache, args.only or SHAPES, args.reps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
