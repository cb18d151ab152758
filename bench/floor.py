"""The plain-Python floor: what a correct applier of a git diff costs in Python, done plainly.

    python bench/floor.py PATCH        # applies PATCH to the working tree of the current folder

It parses the unified diff, reads each file, places every hunk at the only copy of its old side
(whole lines, compared as bytes; a second copy, or none, refuses the patch), splices the file
once, and writes it to a temporary file renamed over the old one; added files are written the
same way, deleted ones removed. The whole patch is planned before anything is written. No
tolerance, no line numbers, no journal, no history, no checks on paths beyond what the diff
says: the least any correct applier must do, as a yardstick for holon-git's own cost
(bench/run.py runs it beside holon-git, as a process and in process).
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

_HUNK = re.compile(rb"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class Refused(Exception):
    """The patch does not apply (a hunk with no copy, or several, or a file missing)."""


@dataclass
class Hunk:
    old_start: int
    old: list[bytes] = field(default_factory=list)
    new: list[bytes] = field(default_factory=list)


@dataclass
class FileDiff:
    old_path: str | None  # None: an added file
    new_path: str | None  # None: a deleted file
    mode: int | None = None  # the new mode, when the diff gives one
    hunks: list[Hunk] = field(default_factory=list)


def _path(raw: bytes) -> str | None:
    text = raw.rstrip(b"\r\n").split(b"\t", 1)[0].decode("utf-8", "surrogateescape")
    if text == "/dev/null":
        return None
    return text[2:] if text[:2] in ("a/", "b/") else text


def parse(patch: bytes) -> list[FileDiff]:
    """The file diffs of a git diff (or a plain unified diff)."""
    lines = patch.splitlines(keepends=True)
    files: list[FileDiff] = []
    current: FileDiff | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(b"diff --git "):
            current = FileDiff(None, None)
            files.append(current)
            words = line.split()
            current.old_path = current.new_path = _path(words[-1])
        elif current is not None and line.startswith((b"new file mode ", b"new mode ")):
            current.mode = int(line.split()[-1], 8)
            if line.startswith(b"new file"):
                current.old_path = None
        elif current is not None and line.startswith(b"deleted file mode "):
            current.new_path = None
        elif line.startswith(b"--- ") and i + 1 < len(lines) \
                and lines[i + 1].startswith(b"+++ "):
            if current is None or current.hunks:
                current = FileDiff(None, None)
                files.append(current)
            current.old_path = _path(line[4:])
            current.new_path = _path(lines[i + 1][4:])
            i += 1
        elif line.startswith(b"@@ ") and current is not None:
            i = _read_hunk(lines, i, current)
            continue
        i += 1
    return files


def _read_hunk(lines: list[bytes], i: int, into: FileDiff) -> int:
    m = _HUNK.match(lines[i])
    if m is None:
        raise Refused(f"bad hunk header {lines[i][:60]!r}")
    old_left = 1 if m.group(2) is None else int(m.group(2))
    new_left = 1 if m.group(4) is None else int(m.group(4))
    hunk = Hunk(int(m.group(1)))
    into.hunks.append(hunk)
    i += 1
    last: list[bytes] = []
    while i < len(lines) and (old_left or new_left or lines[i].startswith(b"\\")):
        line = lines[i]
        kind, text = line[:1], line[1:]
        if kind == b" ":
            hunk.old.append(text)
            hunk.new.append(text)
            old_left, new_left, last = old_left - 1, new_left - 1, [hunk.old, hunk.new]
        elif kind == b"-":
            hunk.old.append(text)
            old_left, last = old_left - 1, [hunk.old]
        elif kind == b"+":
            hunk.new.append(text)
            new_left, last = new_left - 1, [hunk.new]
        elif kind == b"\\":  # "\ No newline at end of file": the line before has no ending
            for side in last:
                side[-1] = side[-1][:-1] if side[-1].endswith(b"\n") else side[-1]
        else:
            raise Refused(f"bad hunk line {line[:60]!r}")
        i += 1
    return i


def patched(content: bytes, hunks: list[Hunk]) -> bytes:
    """``content`` with every hunk placed at the only copy of its old side, in order; among
    several copies, at the one its line number (moved as far as the hunk before it was)
    points to."""
    pieces = []
    done = line = drift = 0  # bytes and lines consumed; how far the last hunk moved
    for hunk in hunks:
        old, new = b"".join(hunk.old), b"".join(hunk.new)
        if not old:
            if content:
                raise Refused("a hunk with no old lines in a non-empty file")
            pieces.append(new)
            continue
        copies = _copies(content, old)
        if len(copies) != 1:  # the copy at the hunk's line, if one is there
            hinted = hunk.old_start - 1 + drift
            copies = [at for at in copies if at >= done
                      and line + content.count(b"\n", done, at) == hinted]
            if len(copies) != 1:
                raise Refused("the old lines occur more than once, none at the hunk's line")
        at = copies[0]
        if at < done:
            raise Refused("hunks out of order or overlapping")
        at_line = line + content.count(b"\n", done, at)
        drift = at_line - (hunk.old_start - 1)
        pieces += [content[done:at], new]
        done = at + len(old)
        line = at_line + len(hunk.old)
    pieces.append(content[done:])
    return b"".join(pieces)


def _copies(content: bytes, old: bytes) -> list[int]:
    """Where copies of ``old`` (whole lines) start a line of ``content``."""
    copies = [0] if content.startswith(old) else []
    at = content.find(b"\n" + old)
    while at >= 0:
        copies.append(at + 1)
        at = content.find(b"\n" + old, at + 1)
    if not old.endswith(b"\n"):  # a last line without a newline: only at the end
        copies = [at for at in copies if at + len(old) == len(content)]
    return copies


def plan(files: list[FileDiff], root: Path) -> list[tuple[FileDiff, bytes | None]]:
    """Every file's new content (None: deleted), computed before anything is written."""
    out: list[tuple[FileDiff, bytes | None]] = []
    for fd in files:
        if fd.new_path is None:
            assert fd.old_path is not None
            if not (root / fd.old_path).is_file():
                raise Refused(f"{fd.old_path} does not exist")
            out.append((fd, None))
        elif fd.old_path is None:
            if (root / fd.new_path).exists():
                raise Refused(f"{fd.new_path} exists")
            out.append((fd, patched(b"", fd.hunks)))
        else:
            out.append((fd, patched((root / fd.old_path).read_bytes(), fd.hunks)))
    return out


def write(planned: list[tuple[FileDiff, bytes | None]], root: Path) -> None:
    for fd, content in planned:
        if content is None:
            assert fd.old_path is not None
            (root / fd.old_path).unlink()
            continue
        assert fd.new_path is not None
        target = root / fd.new_path
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = fd.mode if fd.mode is not None else (
            target.stat().st_mode & 0o777 if fd.old_path is not None else 0o644)
        temp = target.with_name(f".{target.name}.floor-{os.getpid()}")
        with open(temp, "wb") as fh:
            fh.write(content)
        os.chmod(temp, mode & 0o777)
        os.replace(temp, target)


def apply(patch: bytes, root: Path) -> None:
    """Apply a git diff to the files under ``root``, all files or none (Refused)."""
    write(plan(parse(patch), root), root)


if __name__ == "__main__":
    try:
        apply(Path(sys.argv[1]).read_bytes(), Path.cwd())
    except Refused as err:
        print(f"refused: {err}", file=sys.stderr)
        sys.exit(1)
