"""What the three-way rescue adds to a failing hunk, and what the history log costs an apply.

    python bench/rescue.py              # 2,000-line file, 200 rounds in process, 20 CLI runs
    python bench/rescue.py --lines 20000 --reps 50

A repository holds a file of N lines (committed); the working tree has the agent's own edit
of line N/2 (uncommitted); the patch, written against HEAD, changes line N/2 + 2. Timed side
by side, in process (apply_patch with check=True, so every round sees the same files) and as
the CLI (a fresh process: the rescue then also pays for importing pygit2):

- refusal:  --no-3way, the plain context_not_found refusal;
- merged:   the rescue merges from the index (clean);
- conflict: the patch changes line N/2 itself: the rescue's merge conflicts;
- no base:  the patch's context is in no version at all: the rescue tries them and refuses.

Then the history log: an in-process working-tree apply of 3 hunks to the file (each round a
new pre-image, so each writes a new loose object), with and without recording.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from inputs import git, git_env  # noqa: E402

from holon_git import apply_patch  # noqa: E402
from holon_git.git import history  # noqa: E402


def make(root: Path, lines: int) -> tuple[Path, dict[str, str]]:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    text = [f"line {i} of the file\n" for i in range(1, lines + 1)]
    (repo / "f.txt").write_text("".join(text))
    git(repo, "add", "f.txt")
    git(repo, "commit", "-qm", "base")
    mid = lines // 2
    edited = list(text)
    edited[mid - 1] = "the agent's own edit\n"
    (repo / "f.txt").write_text("".join(edited))

    def hunk(at: int, new: str, context: list[str] | None = None) -> str:
        ctx = context or text
        body = "".join(f" {ctx[i]}" for i in range(at - 4, at - 1))
        body += f"-{text[at - 1]}+{new}\n"
        body += "".join(f" {ctx[i]}" for i in range(at, at + 3))
        return f"--- a/f.txt\n+++ b/f.txt\n@@ -{at - 3},7 +{at - 3},7 @@\n{body}"

    nowhere = [f"no such line {i}\n" for i in range(lines)]
    patches = {"refusal": hunk(mid + 2, "changed"), "merged": hunk(mid + 2, "changed"),
               "conflict": hunk(mid, "changed"), "no base": hunk(mid + 2, "x", nowhere)}
    return repo, patches


def timed(call, reps: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cli(repo: Path, patch: str, *flags: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "holon_git", "--check", *flags, "-"], cwd=repo,
                   input=patch.encode(), capture_output=True, env=git_env())
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--cli-reps", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo, patches = make(Path(tmp), args.lines)
        expected = {"refusal": "context_not_found", "merged": None,
                    "conflict": "merge_conflict", "no base": "context_not_found"}
        print(f"file of {args.lines} lines; median of {args.reps} in-process rounds, "
              f"{args.cli_reps} CLI runs")
        print(f"{'case':<10} {'in process':>12} {'CLI':>10}  outcome")
        for case, patch in patches.items():
            flags = ("--no-3way",) if case == "refusal" else ()
            receipt = apply_patch(patch, repo, check=True, three_way=case != "refusal")
            code = receipt.error.code if receipt.error else None
            assert code == expected[case], (case, code)
            inproc = timed(lambda p=patch, c=case: apply_patch(
                p, repo, check=True, three_way=c != "refusal"), args.reps)
            cmd = statistics.median(cli(repo, patch, *flags) for _ in range(args.cli_reps))
            print(f"{case:<10} {inproc * 1e3:>9.2f} ms {cmd * 1e3:>7.1f} ms  {code or 'merged'}")

        git(repo, "checkout", "--", "f.txt")
        three = "".join(
            f"@@ -{at},1 +{at},1 @@\n-line {at} of the file\n+line {at} changed\n"
            for at in (args.lines // 4, args.lines // 2, 3 * args.lines // 4))
        patch = "--- a/f.txt\n+++ b/f.txt\n" + three.replace("@@ -", "@@ -")
        original = (repo / "f.txt").read_bytes()
        results = {}
        for label, limit in (("recorded", history.MAX_FILES), ("not recorded", 0)):
            history.MAX_FILES = limit
            times = []
            for n in range(args.reps):
                (repo / "f.txt").write_bytes(b"round %d\n" % n + original[original.find(b"\n")
                                                                          + 1:])
                start = time.perf_counter()
                receipt = apply_patch(patch, repo)
                times.append(time.perf_counter() - start)
                assert receipt.ok, receipt.error
            results[label] = statistics.median(times)
        history.MAX_FILES = 64
        cost = results["recorded"] - results["not recorded"]
        print(f"3 hunks, working tree: {results['recorded'] * 1e3:.2f} ms recorded, "
              f"{results['not recorded'] * 1e3:.2f} ms not: the history log costs "
              f"{cost * 1e3:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
