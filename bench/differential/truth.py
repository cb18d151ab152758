"""The truth rule: what each case must come to, or that it must be refused.

- A fresh file (the repository's HEAD, index and working tree all hold the patch's base): the
  edit meant is certain when the evidence the patch carries points at one place only.
  Patches that are exact apart from their headers (counts, header shape) are certain: a
  fresh file's line numbers are true. For a patch with a slip (an invented, dropped or added
  line, indentation or tabs off), the "genuine window" is the stretch of the file from the
  first to the last old-side line the patch kept unaltered (whitespace aside): the edit is
  certain only when that window, compared with all whitespace collapsed, occurs once in the
  file, and the patch's old side as written (exactly, or with whitespace collapsed) occurs
  nowhere else. A patch whose numbers are wrong (a placeholder or shifted header) is certain
  only when its old side occurs once. A slip of whitespace alone (indentation or tabs off,
  every line kept) keeps the true numbers of a fresh file: it is certain unless its old side
  as written occurs exactly at another place (then the numbers and the text disagree). A
  patch with no genuine line, or cut off so that a change may be lost, is not certain; one
  cut in its last context lines only (every change arrived) is the edit meant.
- A stale file (the patch's base differs from the file): the edit meant is what
  `git merge-file <file> <base> <base+edit>` gives when it merges cleanly; a conflict means
  the outcome is not certain.
- A case whose outcome is not certain expects refusal; applying anything is wrong.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path


def collapse(line: str) -> str:
    return " ".join(line.split())


def occurrences(needle: list[str], haystack: list[str]) -> list[int]:
    """Start indexes of needle as a run of consecutive lines of haystack."""
    if not needle:
        return []
    first = needle[0]
    size = len(needle)
    return [
        start
        for start in range(len(haystack) - size + 1)
        if haystack[start] == first and haystack[start : start + size] == needle
    ]


def slip_is_certain(
    old_lines: list[str],
    genuine: list[int],
    written_old: list[str],
    true_start: int,
    whitespace_only: bool = False,
    change_at: tuple[int, int] | None = None,
) -> bool:
    """Whether a slipped patch still names one place (see the module docstring).

    old_lines: the file; genuine: indexes of file lines the patch kept (whitespace aside);
    written_old: the patch's old side as written; true_start: index of the place meant;
    change_at: (lines of written_old before its first change, file index of the change
    meant): an occurrence of written_old is the place meant when its change falls there
    (a skipped blank line beside another blank shifts the old side, not the edit)."""

    def meant(start: int) -> bool:
        if change_at is None:
            return start == true_start
        return start + change_at[0] == change_at[1]

    if whitespace_only:
        return all(meant(start) for start in occurrences(written_old, old_lines))
    if not genuine:
        return False
    window = old_lines[min(genuine) : max(genuine) + 1]
    if not any(line.strip() for line in window):
        return False
    collapsed_file = [collapse(line) for line in old_lines]
    if len(occurrences([collapse(line) for line in window], collapsed_file)) != 1:
        return False
    if written_old:
        exact = occurrences(written_old, old_lines)
        loose = occurrences([collapse(line) for line in written_old], collapsed_file)
        if not all(meant(start) for start in exact + loose):
            return False
    return True


def merged(current: str, base: str, edited: str) -> str | None:
    """git merge-file's clean merge of base->edited into current, or None on a conflict."""
    with tempfile.TemporaryDirectory(prefix="holon-merge-") as folder:
        paths = [Path(folder, name) for name in ("current", "base", "edited")]
        for path, text in zip(paths, (current, base, edited), strict=True):
            path.write_text(text)
        done = subprocess.run(
            ["git", "merge-file", "-p", "--quiet", *map(str, paths)],
            capture_output=True,
            text=True,
        )
    return done.stdout if done.returncode == 0 else None
