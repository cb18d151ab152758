"""Hypothesis strategies for files, edits and patches."""

from __future__ import annotations

import difflib
import subprocess
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from hypothesis import strategies as st

from holon_git.core.model import sides
from holon_git.core.place.match import key_ws
from holon_git.core.plan.hunks import apply_hunks
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

# A small vocabulary makes duplicated lines (the hard case for placement) common.
COMMON = [b"", b"}", b"pass", b"    return None", b"else:", b"# comment", b"    x = 1"]


@dataclass(frozen=True)
class Edit:
    """Replace old[start:start+remove] with ``insert``."""

    start: int
    remove: int
    insert: tuple[bytes, ...]


def unique_line(draw: st.DrawFn, used: set[bytes]) -> bytes:
    while True:
        line = b"line-" + draw(st.binary(min_size=1, max_size=6)).hex().encode()
        if line not in used:
            used.add(line)
            return line


@st.composite
def file_lines(draw: st.DrawFn, *, duplicates: bool = True, max_lines: int = 60) -> list[bytes]:
    """Lines without endings; unique ones, plus common ones when ``duplicates``."""
    used: set[bytes] = set()
    size = draw(st.integers(0, max_lines))
    out = []
    for _ in range(size):
        if duplicates and draw(st.integers(0, 3)) == 0:
            out.append(draw(st.sampled_from(COMMON)))
        else:
            out.append(unique_line(draw, used))
    return out


@st.composite
def edits(draw: st.DrawFn, lines: list[bytes], *, duplicates: bool = True) -> list[Edit]:
    """Non-overlapping edits, in order, separated by enough lines to be realistic."""
    used = set(lines)
    out: list[Edit] = []
    pos = 0
    for _ in range(draw(st.integers(1, 4))):
        if pos > len(lines):
            break
        start = draw(st.integers(pos, len(lines)))
        remove = draw(st.integers(0, min(3, len(lines) - start)))
        count = draw(st.integers(0 if remove else 1, 3))
        insert = []
        for _ in range(count):
            if duplicates and draw(st.booleans()):
                insert.append(draw(st.sampled_from(COMMON)))
            else:
                insert.append(unique_line(draw, used))
        out.append(Edit(start, remove, tuple(insert)))
        pos = start + remove + 1
    return out


def apply_edits(lines: list[bytes], changes: list[Edit]) -> list[bytes]:
    out: list[bytes] = []
    pos = 0
    for edit in changes:
        out.extend(lines[pos:edit.start])
        out.extend(edit.insert)
        pos = edit.start + edit.remove
    out.extend(lines[pos:])
    return out


def join(lines: list[bytes], eol: bytes = b"\n", final_newline: bool = True) -> bytes:
    if not lines:
        return b""
    body = eol.join(lines)
    return body + eol if final_newline else body


def difflib_patch(path: str, old: bytes, new: bytes, context: int = 3) -> bytes:
    """A unified diff made by difflib (needs both sides to end with a newline)."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    body = b"".join(difflib.diff_bytes(difflib.unified_diff, a, b, b"a/" + path.encode(),
                                       b"b/" + path.encode(), n=context))
    return body


def git_diff_patch(path: str, old: bytes, new: bytes) -> bytes:
    """The diff `git diff --no-index` makes, with headers naming ``path``."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "old").write_bytes(old)
        (Path(tmp) / "new").write_bytes(new)
        done = subprocess.run(["git", "diff", "--no-index", "--no-color", "old", "new"],
                              cwd=tmp, capture_output=True, check=False)
    out = done.stdout
    hunks = out[out.find(b"\n@@") + 1:] if b"\n@@" in out else b""
    return f"--- a/{path}\n+++ b/{path}\n".encode() + hunks


@st.composite
def shifted_headers(draw: st.DrawFn, patch: bytes) -> bytes:
    """The same patch with every hunk header's line numbers moved by a random amount."""
    out = []
    for line in patch.split(b"\n"):
        if line.startswith(b"@@ -"):
            head, _, tail = line[4:].partition(b" @@")
            old, new = head.split(b" +")
            shift = draw(st.integers(-40, 40))

            def move(spec: bytes, shift: int = shift) -> bytes:
                start, sep, count = spec.partition(b",")
                return str(max(int(start) + shift, 0)).encode() + sep + count

            line = b"@@ -" + move(old) + b" +" + move(new) + b" @@" + tail
        out.append(line)
    return b"\n".join(out)


def repeat_is_true(err: PatchError, patch: bytes, content: bytes, *,
                   reverse: bool = False) -> bool:
    """Is a refusal ``ambiguous_repeat`` true: in the file as the hunks before left it (those
    whose change is in the file already left out, as the plan's survey of a partly applied
    patch leaves them), the refused hunk's new side sits where the details say, and a copy
    of its old side overlaps it (so the file reads the same whether its change is in)?"""
    if err.code != "ambiguous_repeat" or err.hunk is None:
        return False
    parsed = parse_patch(patch)
    (fp,) = (parsed.reversed() if reverse else parsed).files
    before = list(fp.hunks[: err.hunk - 1])
    while True:
        try:
            done = apply_hunks(replace(fp, hunks=before), content, reverse)[0]
            break
        except PatchError as earlier:
            if earlier.code != ("not_applied" if reverse else "already_applied"):
                return False
            assert earlier.hunk is not None
            del before[earlier.hunk - 1]
    running = done.splitlines(keepends=True)
    old, new = sides(fp.hunks[err.hunk - 1].lines)
    at, beside = (err.details["repeats"][k] - 1 for k in ("new_lines_at", "old_lines_at"))
    return ([key_ws(x) for x in running[at : at + len(new)]] == [key_ws(x) for x in new]
            and [key_ws(x) for x in running[beside : beside + len(old)]]
            == [key_ws(x) for x in old]
            and beside < at + len(new) and at < beside + len(old))
