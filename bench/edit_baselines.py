"""The matchers agent runtimes use for text edits, as baselines for bench/edit_formats.py.

Each is written here from its project's documented rules (none of their code is copied):

- ``exact-once``: the text editor tool's rule: ``old_str`` must occur exactly once in the file,
  byte for byte; it is replaced there. ``create`` needs a file that does not exist; ``insert``
  puts the text after line ``insert_line``.
- ``aider``: aider's SEARCH/REPLACE chain: the search text's whole lines found exactly (the first
  place they occur), else the same lines with their leading whitespace taken off evenly and the
  file's own (one common prefix) put back on the replacement, else the same after dropping a
  blank first search line.
- ``cline``: Cline's chain: the search text (whole lines) found exactly from the end of the
  previous replacement in the file, else line by line with each line trimmed (blank file lines
  between skipped), else, for three lines or more, its first and last lines (trimmed) as
  anchors at the block's length, else found exactly anywhere in the file.

Usage, as an applybench tool command (the case's ``edits.json`` is the converted edits):
``python bench/edit_baselines.py RULE {case}``, run in the repository. Every edit of the case
is computed first and the files are written only when all apply (all or nothing, so that a
refusal changes nothing, as the harness requires). Exit 1 on any failure.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


class NoMatch(Exception):
    pass


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def exact_once(content: str, old: str, new: str) -> str:
    if content.count(old) != 1:
        raise NoMatch(f"old_str occurs {content.count(old)} times")
    return content.replace(old, new, 1)


def _with_newline(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def _leading_match(window: list[str], part: list[str]) -> str | None:
    """The one prefix that, put before each non-blank part line, gives the window's line."""
    if any(w.lstrip() != p.lstrip() for w, p in zip(window, part, strict=True)):
        return None
    prefixes = {w[: len(w) - len(p)] for w, p in zip(window, part, strict=True) if p.strip()}
    return prefixes.pop() if len(prefixes) == 1 else None


def _aider_lines(whole: list[str], part: list[str], replace: list[str]) -> str | None:
    n = len(part)
    for i in range(len(whole) - n + 1):
        if whole[i: i + n] == part:
            return "".join(whole[:i] + replace + whole[i + n:])
    indents = [len(line) - len(line.lstrip()) for line in part + replace if line.strip()]
    cut = min(indents) if indents else 0
    part = [line[cut:] if line.strip() else line for line in part]
    replace = [line[cut:] if line.strip() else line for line in replace]
    for i in range(len(whole) - n + 1):
        prefix = _leading_match(whole[i: i + n], part)
        if prefix is not None:
            moved = [prefix + line if line.strip() else line for line in replace]
            return "".join(whole[:i] + moved + whole[i + n:])
    return None


def aider(content: str, old: str, new: str) -> str:
    whole = _lines(_with_newline(content))
    part, replace = _lines(_with_newline(old)), _lines(_with_newline(new))
    result = _aider_lines(whole, part, replace)
    if result is None and len(part) > 2 and not part[0].strip():
        result = _aider_lines(whole, part[1:], replace)
    if result is None:
        raise NoMatch("no aider match")
    if not content.endswith("\n") and result.endswith("\n"):
        result = result[:-1]
    return result


def _trimmed_match(lines: list[str], search: list[str], start: int) -> tuple[int, int] | None:
    for i in range(start, len(lines) - len(search) + 1):
        j = i
        ok = True
        for line in search:
            while line.strip() and j < len(lines) and not lines[j].strip():
                j += 1
            if j >= len(lines) or lines[j].strip() != line.strip():
                ok = False
                break
            j += 1
        if ok:
            return i, j
    return None


def _anchor_match(lines: list[str], search: list[str], start: int) -> tuple[int, int] | None:
    if len(search) < 3:
        return None
    for i in range(start, len(lines) - len(search) + 1):
        last = lines[i + len(search) - 1]
        if lines[i].strip() == search[0].strip() and last.strip() == search[-1].strip():
            return i, i + len(search)
    return None


class Cline:
    """One file's blocks in order: each search starts where the previous replacement ended."""

    def __init__(self) -> None:
        self.after: dict[str, int] = {}

    def __call__(self, path: str, content: str, old: str, new: str) -> str:
        search = _with_newline(old)
        replace = _with_newline(new) if new else new
        start = min(self.after.get(path, 0), len(content))
        index = content.find(search, start)
        if index >= 0:
            begin, end = index, index + len(search)
        else:
            lines = content.split("\n")
            offsets = [0]
            for line in lines:
                offsets.append(offsets[-1] + len(line) + 1)
            start_line = next((k for k, off in enumerate(offsets) if off >= start), len(lines))
            search_lines = search.split("\n")[:-1]
            found = (_trimmed_match(lines, search_lines, start_line)
                     or _anchor_match(lines, search_lines, start_line))
            if found:
                begin, end = offsets[found[0]], min(offsets[found[1]], len(content))
            else:
                index = content.find(search)
                if index < 0:
                    raise NoMatch("no cline match")
                begin, end = index, index + len(search)
        self.after[path] = begin + len(replace)
        return content[:begin] + replace + content[end:]


def apply_case(rule: str, case: Path, repo: Path) -> None:
    edits = json.loads((case / "edits.json").read_text(encoding="utf-8"))
    files: dict[str, str | None] = {}
    cline = Cline()

    def read(path: str) -> str | None:
        if path not in files:
            target = repo / path
            files[path] = (target.read_bytes().decode("utf-8", "surrogateescape")
                           if target.is_file() else None)
        return files[path]

    for edit in edits:
        path = edit["path"]
        if ".." in Path(path).parts or Path(path).is_absolute() or ".git" in Path(path).parts:
            raise NoMatch("path outside the repository")
        content = read(path)
        command = edit.get("command", "str_replace")
        if command == "create":
            if content is not None:
                raise NoMatch("file exists")
            files[path] = edit["file_text"]
            continue
        if content is None:
            raise NoMatch("no such file")
        if command == "insert":
            lines = _lines(content)
            n = edit["insert_line"]
            if n > len(lines):
                raise NoMatch("insert_line past the end")
            files[path] = "".join(lines[:n]) + _with_newline(edit["new_str"]) + "".join(lines[n:])
            continue
        old, new = edit["old_str"], edit["new_str"]
        if rule == "exact-once":
            files[path] = exact_once(content, old, new)
        elif rule == "aider":
            files[path] = aider(content, old, new)
        else:
            files[path] = cline(path, content, old, new)
    for path, text in files.items():
        if text is not None:
            target = repo / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8", "surrogateescape"))


def main(argv: list[str]) -> int:
    rule, case = argv[0], Path(argv[1])
    try:
        apply_case(rule, case, Path.cwd())
    except (NoMatch, KeyError, OSError, UnicodeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
