"""Run the differential suite: holon-git beside `git apply` and GNU patch on every case.

    python bench/differential/run.py                    # every case, 2 jobs
    python bench/differential/run.py --sample 500       # a seeded random sample
    python bench/differential/run.py --kind trap_ --show-wrong holon --json /tmp/diff.json

Each case is a fresh repository in a temporary folder: the case's texts committed in turn,
then its working-tree text written. Each tool runs there as a separate process; between tools
the working tree is put back. A tool's outcome is `correct` (the expected text, or a refusal
where refusal is expected: exit status not 0 and the file untouched), `refused` (a certain edit
not made, the file untouched) or `wrong` (anything else: another text, a partial edit, a file
left behind). See truth.py for what each case expects.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from differential.cases import Case, generate  # noqa: E402
from differential.sources import load_sources  # noqa: E402

CASES: list[Case] = []
TOOLS: dict[str, list[str]] = {}


def _env(home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        HOME=home,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="b@example.com",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="b@example.com",
        LC_ALL="C",
    )
    return env


IN_PROCESS = "<in-process>"


def _holon_in_process(patch: Path, repo: Path, env: dict[str, str]) -> int:
    """holon-git's library call (api.apply_patch), as the CLI makes it, without a process
    start per case (on a loaded machine that start is most of a case's time)."""
    from holon_git.api import apply_patch

    os.environ.clear()
    os.environ.update(env)
    try:
        receipt = apply_patch(patch, repo=str(repo))
    except Exception:  # noqa: BLE001 - any escape is a failed run; the file decides the outcome
        return 2
    return 0 if receipt.ok else 1


def _files(repo: Path) -> set[str]:
    return {
        str(path.relative_to(repo))
        for path in repo.rglob("*")
        if path.is_file() and ".git" not in path.relative_to(repo).parts
    }


def run_case(index: int) -> tuple[int, dict[str, str]]:
    case = CASES[index]
    outcomes: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="holon-differential-") as folder:
        env = _env(folder)
        repo = Path(folder, "repo")
        target = repo / case.path
        target.parent.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
        for n, text in enumerate(case.commits):
            target.write_text(text)
            subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
            subprocess.run(["git", "commit", "-q", "-m", f"v{n}"], cwd=repo, check=True, env=env)
        patch = Path(folder, "change.patch")
        patch.write_text(case.patch)
        for tool, command in TOOLS.items():
            target.write_text(case.work)
            if command == [IN_PROCESS]:
                status = _holon_in_process(patch, repo, env)
            else:
                try:
                    done = subprocess.run(
                        [part.replace("{patch}", str(patch)) for part in command],
                        cwd=repo,
                        env=env,
                        capture_output=True,
                        timeout=120,
                    )
                    status = done.returncode
                except subprocess.TimeoutExpired:
                    status = -1
            text = target.read_text() if target.exists() else None
            files = _files(repo)
            untouched = text == case.work and files == {case.path}
            if status == 0 and text == case.expected and files == {case.path}:
                outcome = "correct"
            elif status != 0 and untouched:
                outcome = "correct" if case.expected is None else "refused"
            else:
                outcome = "wrong"
            outcomes[tool] = outcome
            for name in files - {case.path}:
                (repo / name).unlink()
            subprocess.run(["git", "reset", "-q"], cwd=repo, env=env)
    return index, outcomes


def _table(results: dict[int, dict[str, str]], by: str) -> str:
    tools = list(TOOLS)
    counts: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    certain: Counter[str] = Counter()
    for index, outcomes in results.items():
        case = CASES[index]
        key = getattr(case, by)
        certain[key] += case.expected is not None
        for tool, outcome in outcomes.items():
            counts[key][tool][outcome] += 1
            counts["TOTAL"][tool][outcome] += 1
    certain["TOTAL"] = sum(certain.values())
    head = f"| {by} | cases | certain | " + " | ".join(f"{t} ok/ref/wrong" for t in tools) + " |"
    rows = [head, "|" + "---|" * (3 + len(tools))]
    for key in sorted(counts, key=lambda k: (k == "TOTAL", k)):
        total = sum(counts[key][tools[0]].values())
        cells = [
            f"{c['correct']}/{c['refused']}/{c['wrong']}" for c in (counts[key][t] for t in tools)
        ]
        rows.append(f"| {key} | {total} | {certain[key]} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument("--sample", type=int, help="run a seeded random sample of this many cases")
    parser.add_argument("--limit", type=int, help="run only the first N cases")
    parser.add_argument("--kind", action="append", default=[], help="only kinds starting with this")
    parser.add_argument("--id", action="append", default=[], help="only the case with this id")
    parser.add_argument("--fresh-edits", type=int, default=2)
    parser.add_argument("--stale-edits", type=int, default=4)
    parser.add_argument("--traps", type=int, default=3)
    parser.add_argument("--holon", default=str(Path(sys.executable).with_name("git-holon-apply")))
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="call holon-git's library API in the worker instead of its command",
    )
    parser.add_argument(
        "--tool",
        action="append",
        choices=["holon", "git-apply", "gnu-patch"],
        help="run only this tool (repeat for several); every tool when not given",
    )
    parser.add_argument("--json", help="write every case's outcomes here")
    parser.add_argument("--log", help="append each case's outcomes to this file as it finishes")
    parser.add_argument(
        "--show-wrong", action="append", default=[], help="print wrong cases of this tool"
    )
    parser.add_argument(
        "--dump", help="write the cases (repositories and patches) under this folder"
    )
    parser.add_argument(
        "--as",
        dest="form",
        choices=["diff", "edits", "blocks"],
        default="diff",
        help="send each case's patch as str_replace edits or SEARCH/REPLACE blocks (holon only)",
    )
    args = parser.parse_args()
    every = {
        "holon": [IN_PROCESS] if args.in_process else [args.holon, "{patch}"],
        "git-apply": ["git", "apply", "{patch}"],
        "gnu-patch": [
            "patch",
            "-p1",
            "--fuzz=3",
            "--batch",
            "--no-backup-if-mismatch",
            "-r",
            "-",
            "-i",
            "{patch}",
        ],
    }
    if args.form != "diff":
        args.tool = ["holon"]  # the other tools read no edits
    TOOLS.update({name: every[name] for name in dict.fromkeys(args.tool or every)})
    CASES.extend(
        generate(load_sources(), args.seed, args.fresh_edits, args.stale_edits, args.traps)
    )
    if args.form != "diff":
        _convert(args.form)
    chosen = [
        i for i, case in enumerate(CASES) if not args.kind or case.kind.startswith(tuple(args.kind))
    ]
    if args.id:
        chosen = [i for i in chosen if CASES[i].id in args.id]
    if args.sample is not None:
        chosen = sorted(random.Random(args.seed).sample(chosen, min(args.sample, len(chosen))))
    if args.limit is not None:
        chosen = chosen[: args.limit]
    if args.dump:
        _dump(Path(args.dump), chosen)
    results: dict[int, dict[str, str]] = {}
    log = open(args.log, "a") if args.log else None  # noqa: SIM115 - kept open for the run
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        for done, (index, outcomes) in enumerate(
            pool.imap_unordered(run_case, chosen, chunksize=4), 1
        ):
            results[index] = outcomes
            if log is not None:
                log.write(
                    json.dumps(
                        {
                            "id": CASES[index].id,
                            "certain": CASES[index].expected is not None,
                            **outcomes,
                        }
                    )
                    + "\n"
                )
                log.flush()
            if done % 250 == 0:
                print(f"... {done}/{len(chosen)}", file=sys.stderr, flush=True)
    print(_table(results, "kind"))
    print()
    print(_table(results, "family"))
    for tool in args.show_wrong:
        for index in sorted(results):
            if results[index].get(tool) == "wrong":
                print(f"wrong ({tool}): {CASES[index].id}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    CASES[i].id: {
                        "kind": CASES[i].kind,
                        "certain": CASES[i].expected is not None,
                        **o,
                    }
                    for i, o in results.items()
                },
                indent=1,
            )
        )


# kinds an edit cannot say: a diff cut short (the conversion would make a whole edit of it)
# and context-less hunks (an edit's text is its only claim; merge-file's verdict on the
# lines beside it is not the edit's meaning)
_DIFF_ONLY = ("truncated_", "u0_insertion")


def _convert(form: str) -> None:
    """Every case's patch as the edits an agent sends (bench/edit_formats.py's conversion:
    each hunk's old side as the old text, its mistakes kept); cases it cannot carry are
    dropped, counted on stderr."""
    from edit_formats import LeftOut, edits_of, render_blocks, render_edits

    render = render_edits if form == "edits" else render_blocks
    kept: list[Case] = []
    left_out: Counter[str] = Counter()
    for case in CASES:
        try:
            if case.kind.startswith(_DIFF_ONLY) or "_u0" in case.kind:
                raise LeftOut("diff only")
            if case.kind.endswith("_noindex"):
                raise LeftOut("an edit has no index line: the same edit as its indexed case")
            edits = edits_of(case.patch.encode(), case.kind)
            text = render(edits).decode()
        except LeftOut:
            left_out[case.kind] += 1
            continue
        kept.append(dataclasses.replace(case, patch=text, expected=_as_sent(case, edits)))
    CASES[:] = kept
    print(f"as {form}: {len(kept)} cases; left out {sum(left_out.values())}", file=sys.stderr)


def _as_sent(case: Case, edits: list) -> str | None:
    """What the edits mean: an old text found exactly once is its own claim, whatever
    `git merge-file` says of the lines beside it (the text editor tool's rule); where one is
    not, the case's own truth (the edit meant, or a refusal)."""
    text = case.work
    for edit in edits:
        old, new = edit.old.decode(), edit.new.decode()
        if not old or text.count(old) != 1:
            return case.expected
        text = text.replace(old, new, 1)
    return text


def _dump(folder: Path, chosen: list[int]) -> None:
    """Each case as files, to replay one by hand: commits, work, patch, expected."""
    for index in chosen:
        case = CASES[index]
        where = folder / case.id.replace(":", "__")
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        for n, text in enumerate(case.commits):
            (where / f"commit{n}.py").write_text(text)
        (where / "work.py").write_text(case.work)
        (where / "change.patch").write_text(case.patch)
        (where / "meta.json").write_text(
            json.dumps({"path": case.path, "certain": case.expected is not None})
        )
        if case.expected is not None:
            (where / "expected.py").write_text(case.expected)


if __name__ == "__main__":
    main()
