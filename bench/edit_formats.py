"""The applybench corpora carried over to the edit formats agents send (issue 44, item 4).

Every case of a corpus (a repository, a unified diff, the expected tree or a refusal) is
written again with its patch converted to

- ``edits``: a JSON list of ``str_replace`` edits, one per hunk, each hunk's old side as
  ``old_str`` and its new side as ``new_str`` (the file patch's hunks one after another in the
  list, as the text editor tool sends them); an added file is a ``create`` edit;
- ``blocks``: the same edits as aider's SEARCH/REPLACE blocks (a file-name line, a fence,
  ``<<<<<<< SEARCH`` / ``=======`` / ``>>>>>>> REPLACE``), as a model's reply holds them.

The case's mistake is kept: a hunk whose context was invented, skipped, re-indented, written
with other line endings or whitespace, keeps exactly those lines in ``old_str``. What the
conversion cannot carry is left out, each with its reason (``--list-left-out`` prints them):

- file patches that are not a change or an addition (deletions, renames, binary parts, copies,
  mode changes): no edit says them;
- pure insertions (a hunk with no old side): ``old_str`` would be empty; in the ``edits``
  format they become the text editor tool's ``insert`` at the hunk's line number only when the
  case's category says that number is right (``u0_insert``); else left out;
- cases whose outcome rests on what the diff's syntax says and an edit has no room for: the
  line number that picks one of several copies (``ambiguous_hinted``, ``u0_insert_trap``), a
  diff cut short (``refuse_truncated``), binary parts without data;
- cases the project's parser cannot read (the conversion reads the patch with it).

Everything else keeps its ``expect``: the edit meant is the same, or still uncertain.

Usage (the harness is applybench's; the converted corpora go to a scratch folder):

    python bench/edit_formats.py convert --corpora ../shared/applybench --out /tmp/edit-corpora
    python bench/edit_formats.py run --out /tmp/edit-corpora --jobs 2

``run`` converts when needed, then runs holon-git on each converted corpus (``git holon-apply
{patch}``, the format detected from the text) and the baselines of ``edit_baselines.py``
(exact-once, the text editor tool's rule; aider's and Cline's fallback chains, written from
their documented rules), and prints correct / refused / wrong for each.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from holon_git.core.model import ADD, CONTEXT, REMOVE, FileKind, Hunk  # noqa: E402
from holon_git.errors import PatchError  # noqa: E402
from holon_git.parse import parse_patch  # noqa: E402

CORPORA = ("public", "stalebase", "realpatches", "modelshapes", "staleshapes")
FORMATS = ("edits", "blocks")
# categories whose expected outcome rests on the diff's line numbers or syntax alone
MARKERS = (b"<<<<<<< SEARCH", b"=======", b">>>>>>> REPLACE")
LEFT_OUT_CATEGORIES = {
    "ambiguous_hinted": "only the hunk's line number picks the copy; an edit has no line number",
    "u0_insert_trap": "the header's contradictory numbers are the mistake; an edit has none",
    "refuse_truncated": "the diff is cut short; the conversion would make a whole edit of it",
    "refuse_binary_without_data": "a binary part without data has no edit",
    "section_trap": "the @@ section text is what points at the place; an edit has none",
    "u0_index_trap": "the index line is what names the version; an edit has none",
}


@dataclass
class Edit:
    path: str
    old: bytes
    new: bytes
    command: str = "str_replace"
    insert_line: int = 0


class LeftOut(Exception):
    """The case cannot be carried by the edit formats; the message says why."""


def _sides(hunk: Hunk) -> tuple[bytes, bytes]:
    """The hunk's old and new text. A last line without its newline is a whole line unless
    a no-newline marker says so (a patch whose own last line lacks one, as models leave it)."""
    def text(kinds: tuple[str, ...], no_newline: bool) -> bytes:
        lines = [line.text for line in hunk.lines if line.kind in kinds]
        if lines and not no_newline and not lines[-1].endswith(b"\n"):
            lines[-1] += b"\r\n" if lines[0].endswith(b"\r\n") else b"\n"
        return b"".join(lines)

    return (text((CONTEXT, REMOVE), hunk.old_no_newline),
            text((CONTEXT, ADD), hunk.new_no_newline))


def _trim_last_newline(old: bytes, new: bytes) -> tuple[bytes, bytes]:
    """As agents write old_str/new_str: without the last line's newline when both sides end
    with the same line ending (the edit is then the same)."""
    for ending in (b"\r\n", b"\n"):
        if old.endswith(ending) and new.endswith(ending):
            return old[: -len(ending)], new[: -len(ending)]
    return old, new


def edits_of(patch_bytes: bytes, category: str) -> list[Edit]:
    if category in LEFT_OUT_CATEGORIES:
        raise LeftOut(LEFT_OUT_CATEGORIES[category])
    try:
        patch = parse_patch(patch_bytes)
    except PatchError as error:
        if error.code in ("path_escape", "invalid_path"):
            # a hostile path stays hostile in an edit: read the hunks plainly, keep the path
            return _plain_edits(patch_bytes)
        raise LeftOut(f"the patch does not parse ({error.code})") from None
    edits: list[Edit] = []
    for fp in patch.files:
        if fp.kind is FileKind.ADD and fp.new_path:
            if fp.executable:
                raise LeftOut("an executable new file: 'create' has no mode")
            text = b"".join(line.text for h in fp.hunks for line in h.lines if line.kind == ADD)
            edits.append(Edit(fp.new_path, b"", text, "create"))
            continue
        if fp.kind is not FileKind.MODIFY or not fp.old_path:
            raise LeftOut(f"a {fp.kind.value} file patch has no edit")
        if fp.old_path != fp.new_path and fp.new_path is not None:
            raise LeftOut("a rename has no edit")
        shift = 0  # lines the file's earlier edits added: each edit sees what they left
        for hunk in fp.hunks:
            old, new = _sides(hunk)
            shift_here = shift
            shift += new.count(b"\n") - old.count(b"\n")
            if not old:
                if category != "u0_insert" or hunk.old_start is None:
                    raise LeftOut("a pure insertion placed by its line number alone")
                edits.append(Edit(fp.old_path, b"", new, "insert", hunk.old_start + shift_here))
                continue
            if old == new:
                continue
            old, new = _trim_last_newline(old, new)
            edits.append(Edit(fp.old_path, old, new))
    if not edits:
        raise LeftOut("the patch holds no change")
    return edits


def _plain_edits(patch_bytes: bytes) -> list[Edit]:
    """A diff's hunks read line by line, its path from the '+++' line less one component:
    for the patches the project's parser refuses for their paths."""
    edits: list[Edit] = []
    path = ""
    old: list[bytes] = []
    new: list[bytes] = []

    def flush() -> None:
        if path and (old or new) and old != new:
            edits.append(Edit(path, *_trim_last_newline(b"".join(old), b"".join(new))))
        old.clear()
        new.clear()

    for line in patch_bytes.splitlines(keepends=True):
        if line.startswith(b"+++ "):
            flush()
            name = line[4:].rstrip(b"\r\n").split(b"\t")[0].decode("utf-8", "replace")
            path = name.split("/", 1)[1] if name.startswith(("a/", "b/")) else name
        elif line.startswith(b"@@") or line.startswith(b"--- ") or line.startswith(b"diff "):
            flush()
        elif line[:1] == b"-":
            old.append(line[1:])
        elif line[:1] == b"+":
            new.append(line[1:])
        elif line[:1] == b" ":
            old.append(line[1:])
            new.append(line[1:])
    flush()
    if not edits:
        raise LeftOut("the patch holds no change")
    return edits


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise LeftOut("text that is not UTF-8 cannot be a JSON string") from None


def render_edits(edits: list[Edit]) -> bytes:
    out: list[dict[str, object]] = []
    for edit in edits:
        if edit.command == "create":
            out.append({"command": "create", "path": edit.path, "file_text": _text(edit.new)})
        elif edit.command == "insert":
            out.append({"command": "insert", "path": edit.path,
                        "insert_line": edit.insert_line, "new_str": _text(edit.new)})
        else:
            out.append({"path": edit.path, "old_str": _text(edit.old), "new_str": _text(edit.new)})
    return json.dumps(out, indent=1, ensure_ascii=False).encode("utf-8") + b"\n"


def render_blocks(edits: list[Edit]) -> bytes:
    """aider's SEARCH/REPLACE blocks, with a line of prose before them as a reply has."""
    parts = [b"Here are the changes.\n\n"]
    for edit in edits:
        if edit.command == "insert":
            raise LeftOut("an insertion by line number has no SEARCH/REPLACE block")
        search = edit.old
        replace = edit.new
        for side in (search, replace):
            if any(marker in side for marker in MARKERS):
                raise LeftOut("the text holds a block marker")
            if b"```" in side:
                raise LeftOut("the text holds a code fence")
        if search and replace and search.endswith(b"\n") != replace.endswith(b"\n"):
            raise LeftOut("a block cannot say that the file's last newline is added or taken")
        # a block's sides are whole lines: the last one ends at the marker's line
        search = search if not search or search.endswith(b"\n") else search + b"\n"
        replace = replace if not replace or replace.endswith(b"\n") else replace + b"\n"
        if edit.command == "create":
            search = b""
        parts += [edit.path.encode(), b"\n```\n<<<<<<< SEARCH\n", search, b"=======\n",
                  replace, b">>>>>>> REPLACE\n```\n\n"]
    data = b"".join(parts)
    if b"\r" in data:
        raise LeftOut("a block cannot keep a CR line ending apart from the reply's own")
    return data


def convert_case(case: Path, fmt: str, out: Path) -> str | None:
    """Writes the converted case under out; returns why it was left out, or None."""
    meta = json.loads((case / "case.json").read_text())
    try:
        edits = edits_of((case / "patch.diff").read_bytes(), meta.get("category", ""))
        data = render_edits(edits) if fmt == "edits" else render_blocks(edits)
    except LeftOut as why:
        return str(why)
    target = out / case.name
    shutil.copytree(case, target, symlinks=True)
    (target / "patch.diff").write_bytes(data)
    (target / "edits.json").write_bytes(render_edits(edits))
    return None


def convert(corpora: Path, out: Path) -> dict[str, dict[str, str]]:
    """Every corpus in both formats; returns the cases left out, with why, per converted corpus."""
    left: dict[str, dict[str, str]] = {}
    for corpus in CORPORA:
        source = corpora / f"corpus-{corpus}"
        for fmt in FORMATS:
            name = f"{corpus}-{fmt}"
            target = out / name
            if target.exists():
                shutil.rmtree(target)
            target.mkdir(parents=True)
            left[name] = {}
            for case in sorted(p for p in source.iterdir() if (p / "case.json").is_file()):
                why = convert_case(case, fmt, target)
                if why:
                    left[name][case.name] = why
    (out / "left_out.json").write_text(json.dumps(left, indent=1, sort_keys=True))
    return left


def _run(bench: Path, cases: Path, tool: str, command: list[str], results: Path, jobs: int) -> dict:
    result = results / f"{cases.name}--{tool}.json"
    subprocess.run([sys.executable, str(bench / "applybench.py"), "run", "--cases", str(cases),
                    "--tool", tool, "--jobs", str(jobs), "--out", str(result), "--", *command],
                   check=True, stdout=subprocess.DEVNULL)
    data = json.loads(result.read_text())
    counts = {"correct": 0, "refused": 0, "wrong": 0}
    for case in data["cases"]:
        counts[case["verdict"]] = counts.get(case["verdict"], 0) + 1
    return counts


TOOLS = {
    "holon": ["git", "holon-apply", "{patch}"],
    "exact-once": [sys.executable, str(HERE / "edit_baselines.py"), "exact-once", "{case}"],
    "aider-chain": [sys.executable, str(HERE / "edit_baselines.py"), "aider", "{case}"],
    "cline-chain": [sys.executable, str(HERE / "edit_baselines.py"), "cline", "{case}"],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("convert", "run", "left-out"))
    parser.add_argument("--corpora", type=Path,
                        default=HERE.parent.parent / "shared" / "applybench")
    parser.add_argument("--out", type=Path, default=Path("/tmp/holon-edit-corpora"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--only", default="", help="corpora to run, e.g. public,stalebase")
    args = parser.parse_args(argv)
    converted = (args.out / "left_out.json").exists()
    if args.action == "convert" or (args.action == "run" and not converted):
        left = convert(args.corpora, args.out)
        for name, cases in left.items():
            print(f"{name}: {len(cases)} left out")
    left = json.loads((args.out / "left_out.json").read_text())
    if args.action == "left-out":
        for name, cases in left.items():
            for case, why in cases.items():
                print(f"{name}\t{case}\t{why}")
        return 0
    if args.action != "run":
        return 0
    results = args.out / "results"
    results.mkdir(exist_ok=True)
    only = [c for c in args.only.split(",") if c]
    tools = [t for t in args.tools.split(",") if t]
    heads = " | ".join(f"{t} C/R/W" for t in tools)
    print(f"| corpus | format | cases | left out | {heads} |")
    print("|---|---|---:|---:|" + "---|" * len(tools))
    for corpus in CORPORA:
        if only and corpus not in only:
            continue
        for fmt in FORMATS:
            cases = args.out / f"{corpus}-{fmt}"
            n = sum(1 for p in cases.iterdir() if (p / "case.json").is_file())
            cells = []
            for tool in tools:
                c = _run(args.corpora, cases, tool, TOOLS[tool], results, args.jobs)
                cells.append(f"{c['correct']}/{c['refused']}/{c['wrong']}")
            n_left = len(left[f"{corpus}-{fmt}"])
            print(f"| {corpus} | {fmt} | {n} | {n_left} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
