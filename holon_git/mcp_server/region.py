"""read_region: numbered lines of a working-tree file, read as a patch would read it.

The same path rules as patches (holon_git.paths, protected paths) and the same reader as the
working-tree target (fsops.Tree: symbolic links refused on the way and at the end, only regular
files). Bounded: at most MAX_LINES lines and MAX_CHARS characters a call, each line clipped at
MAX_LINE_CHARS; the answer says where to continue.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from ..errors import PatchError
from ..paths import normalize
from ..policy import check_protected_path

MAX_LINES = 400
MAX_CHARS = 40_000
MAX_LINE_CHARS = 4_000

PROTECTED_HINT = "the path is protected by git config holon.protect or .holon/protect; " \
    "read_region does not show it"


@dataclass
class Region:
    path: str
    start_line: int
    total_lines: int
    sha256: str
    line_endings: str  # lf | crlf | mixed | none
    final_newline: bool
    lines: list[tuple[int, str]] = field(default_factory=list)
    next_line: int | None = None  # where to continue when a cap stopped the region early
    notes: list[str] = field(default_factory=list)

    @property
    def end_line(self) -> int:
        return self.lines[-1][0] if self.lines else self.start_line - 1

    def to_dict(self) -> dict[str, Any]:
        return {"status": "read", "path": self.path, "start_line": self.start_line,
                "end_line": self.end_line, "total_lines": self.total_lines,
                "lines": [{"line": number, "text": text} for number, text in self.lines],
                "next_line": self.next_line, "sha256": self.sha256,
                "line_endings": self.line_endings, "final_newline": self.final_newline,
                "notes": self.notes, "error": None}

    def text(self) -> str:
        """The answer for the model: a heading, number|text lines, then notes."""
        if not self.total_lines:
            head = [f"{self.path} is empty (0 lines)."]
        elif not self.lines:
            head = [f"{self.path} has {self.total_lines} lines; nothing at line "
                    f"{self.start_line} or after."]
        else:
            head = [f"{self.path}, lines {self.start_line}-{self.end_line} of "
                    f"{self.total_lines} (number|text):"]
            head.extend(f"{number}|{text}" for number, text in self.lines)
        return "\n".join([*head, *self.notes, f"sha256: {self.sha256}"])


def read_region(repo: str, path: str, start_line: int = 1,
                end_line: int | None = None) -> Region:
    """Lines ``start_line``..``end_line`` (1-based, inclusive; None: up to the caps) of
    ``path`` in ``repo``'s working tree; raises a coded PatchError."""
    from ..targets import open_target

    clean = normalize(path)
    target = open_target("worktree", repo)
    try:
        check_protected_path(clean, target.protection(), hint=PROTECTED_HINT)
        source = target.read(clean)
    finally:
        target.close()
    if source is None:
        raise PatchError("not_found", f"{clean!r} does not exist", path=clean,
                         hint="check the path: it is relative to the repository root")
    content = source.data
    if b"\0" in content:
        raise PatchError("binary_file", f"{clean!r} holds binary data (NUL bytes)", path=clean)
    raw = content.split(b"\n")
    final_newline = content.endswith(b"\n")
    if final_newline or not content:
        raw.pop()
    breaks = len(raw) if final_newline else max(len(raw) - 1, 0)  # lines a newline ends
    crlf = sum(1 for line in raw[:breaks] if line.endswith(b"\r"))
    endings = "none" if breaks <= 0 else "crlf" if crlf == breaks else "lf" if not crlf \
        else "mixed"
    region = Region(clean, start_line, len(raw), hashlib.sha256(content).hexdigest(), endings,
                    final_newline)
    _take_lines(region, raw, breaks, end_line)
    return region


def _take_lines(region: Region, raw: list[bytes], breaks: int, end_line: int | None) -> None:
    last = len(raw) if end_line is None else min(end_line, len(raw))
    chars, clipped, undecodable = 0, [], False
    for number in range(region.start_line, last + 1):
        if len(region.lines) == MAX_LINES or chars >= MAX_CHARS:
            region.next_line = number
            break
        line = raw[number - 1]
        if number <= breaks and line.endswith(b"\r"):
            line = line[:-1]
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            text, undecodable = line.decode("utf-8", "replace"), True
        if len(text) > MAX_LINE_CHARS:
            text = f"{text[:MAX_LINE_CHARS]}[... {len(text) - MAX_LINE_CHARS} more characters]"
            clipped.append(number)
        region.lines.append((number, text))
        chars += len(text)
    notes = region.notes
    if region.next_line is not None:
        notes.append(f"stopped at the cap of {MAX_LINES} lines or {MAX_CHARS} characters a "
                     f"call: call read_region with start_line={region.next_line} for more")
    if region.line_endings in ("crlf", "mixed"):
        notes.append(f"line endings: {region.line_endings.upper()} (shown without the '\\r'; "
                     "a patch may use either)")
    if region.lines and not region.final_newline and region.end_line == region.total_lines:
        notes.append("no newline at the end of the file")
    if undecodable:
        notes.append("not valid UTF-8: undecodable bytes are shown as U+FFFD")
    if clipped:
        notes.append(f"lines clipped at {MAX_LINE_CHARS} characters: "
                     f"{', '.join(map(str, clipped))}")
