"""A plan as a git-style unified diff: real line numbers, exact bytes. Pure; nothing on disk.

`holon-apply convert --to unified` plans a patch (an envelope, typically) against the current
tree and prints this, so stored patches can be migrated; applying the output to the same tree
gives the same result as applying the original patch.
"""

from __future__ import annotations

from collections.abc import Iterator
from difflib import SequenceMatcher

from .change import REGULAR, FileChange, Plan
from .model import FileKind
from .place.match import split_lines

CONTEXT_LINES = 3
_NO_NEWLINE = b"\\ No newline at end of file\n"


def plan_to_unified(plan: Plan) -> bytes:
    return b"".join(part for change in plan.changes for part in file_diff(change))


def _quote(path: str) -> str:
    """Quote a path the way git does when a plain header would not read back as the path."""
    if not (path != path.strip(" ") or '"' in path or "\t" in path):
        return path
    escaped = path.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    return f'"{escaped}"'


def _prefixed(prefix: str, path: str) -> str:
    quoted = _quote(path)
    return f'"{prefix}{quoted[1:]}' if quoted.startswith('"') else f"{prefix}{quoted}"


def file_diff(change: FileChange) -> Iterator[bytes]:
    before = change.before.data if change.before is not None else b""
    after = change.after if change.after is not None else b""
    old_path = change.old_path if change.old_path is not None else change.path
    new_path = change.new_path if change.new_path is not None else change.path
    hunks = list(_hunks(split_lines(before), split_lines(after)))
    if change.kind is FileKind.MODIFY and not hunks:
        return
    header = [f"diff --git {_prefixed('a/', old_path)} {_prefixed('b/', new_path)}"]
    old_name = "/dev/null" if change.kind is FileKind.ADD else _prefixed("a/", old_path)
    new_name = "/dev/null" if change.kind is FileKind.DELETE else _prefixed("b/", new_path)
    if change.kind is FileKind.ADD:
        header.append(f"new file mode {change.mode or REGULAR:o}")
    elif change.kind is FileKind.DELETE:
        mode = change.before.mode if change.before is not None else REGULAR
        header.append(f"deleted file mode {mode:o}")
    elif change.kind is FileKind.RENAME:
        header += [f"rename from {_quote(old_path)}", f"rename to {_quote(new_path)}"]
    if hunks:
        header += [f"--- {old_name}", f"+++ {new_name}"]
    yield "".join(line + "\n" for line in header).encode("utf-8", "surrogateescape")
    yield from hunks


def _range(start: int, stop: int) -> str:
    """'start,count' as in a hunk header: count 1 is left out, an empty range names the line
    before it."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def _line(prefix: bytes, line: bytes) -> bytes:
    return prefix + line if line.endswith(b"\n") else prefix + line + b"\n" + _NO_NEWLINE


def _hunks(old: list[bytes], new: list[bytes]) -> Iterator[bytes]:
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        if all(op[0] == "equal" for op in group):
            continue  # identical contents (difflib still offers one group)
        first, last = group[0], group[-1]
        yield (f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
               .encode())
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (_line(b" ", line) for line in old[i1:i2])
                continue
            yield from (_line(b"-", line) for line in old[i1:i2])
            yield from (_line(b"+", line) for line in new[j1:j2])
