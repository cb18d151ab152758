"""Unified diffs of one file as git writes them, and the parsed hunk the slips rewrite.

A diff is made by `git diff --no-index` (so the section text after `@@` is git's own), then
given the header `git diff` writes inside a repository (`diff --git`, `index` with the two
blobs' abbreviated ids, `---`, `+++`).
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")


def blob_id(text: str) -> str:
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class BodyLine:
    """One hunk body line: its tag (' ', '-', '+'), its text with newline, and for ' ' and '-'
    lines the 0-based index of the old file's line it stands for (None once invented)."""

    tag: str
    text: str
    old_index: int | None


@dataclass
class Hunk:
    old_start: int
    new_start: int
    section: str
    body: list[BodyLine] = field(default_factory=list)

    def counts(self) -> tuple[int, int]:
        old = sum(1 for line in self.body if line.tag in " -")
        new = sum(1 for line in self.body if line.tag in " +")
        return old, new

    def render(self, old_count: int | None = None, new_count: int | None = None) -> str:
        counted_old, counted_new = self.counts()
        old = counted_old if old_count is None else old_count
        new = counted_new if new_count is None else new_count
        header = f"@@ -{self.old_start},{old} +{self.new_start},{new} @@"
        if self.section:
            header += " " + self.section
        return header + "\n" + "".join(line.tag + line.text for line in self.body)


def git_header(path: str, old: str, new: str) -> str:
    return (
        f"diff --git a/{path} b/{path}\n"
        f"index {blob_id(old)[:7]}..{blob_id(new)[:7]} 100644\n"
        f"--- a/{path}\n+++ b/{path}\n"
    )


def git_hunks(old: str, new: str, context: int) -> list[Hunk]:
    """The hunks `git diff -U<context>` writes from old to new, parsed."""
    with tempfile.TemporaryDirectory(prefix="holon-diff-") as folder:
        old_path, new_path = Path(folder, "old"), Path(folder, "new")
        old_path.write_text(old)
        new_path.write_text(new)
        done = subprocess.run(
            ["git", "diff", "--no-index", "--no-color", f"-U{context}", "old", "new"],
            cwd=folder,
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "HOME": folder},
        )
    hunks: list[Hunk] = []
    old_index = 0
    for line in done.stdout.splitlines(keepends=True):
        match = HUNK_HEADER.match(line.rstrip("\n"))
        if match:
            old_start = int(match.group(1))
            hunks.append(Hunk(old_start, int(match.group(3)), match.group(5)))
            # A zero-length old side names the line before the place.
            old_index = old_start - 1 if (match.group(2) or "1") != "0" else old_start
            continue
        if not hunks or line[:1] not in " -+":
            continue
        tag, text = line[0], line[1:]
        if tag == "+":
            hunks[-1].body.append(BodyLine(tag, text, None))
        else:
            hunks[-1].body.append(BodyLine(tag, text, old_index))
            old_index += 1
    return hunks
