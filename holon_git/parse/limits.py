"""What one patch may hold. The caps lie far above any real patch (the Django 4.2 -> 5.0 diff:
1,112 files, 4,430 hunks, 105,000 lines) and are checked while parsing, before the memory a
patch beyond them would take is spent: a million empty file additions are refused after the
first hundred thousand, not after a few gigabytes."""

from __future__ import annotations

from ..errors import PatchError

MAX_LINES = 10_000_000  # lines of patch text
MAX_FILES = 100_000  # file patches
MAX_HUNKS = 1_000_000  # hunks, over all file patches


def too_large(what: str, count: int, limit: int, patch_line: int | None = None) -> PatchError:
    return PatchError("patch_too_large", f"the patch holds {count:,} {what} or more; one patch "
                      f"may hold at most {limit:,}", patch_line=patch_line,
                      details={"limit": what, "at_most": limit})


def check_text(data: bytes) -> None:
    """Refuse patch text of more than MAX_LINES lines, before it is split (counted in C)."""
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    if lines > MAX_LINES:
        raise too_large("lines", lines, MAX_LINES)


class Tally:
    """Counts the file patches and hunks a parser makes; refuses the one past a cap."""

    def __init__(self) -> None:
        self.files = self.hunks = 0

    def file(self, patch_line: int) -> None:
        self.files += 1
        if self.files > MAX_FILES:
            raise too_large("file patches", self.files, MAX_FILES, patch_line)

    def hunk(self, patch_line: int) -> None:
        self.hunks += 1
        if self.hunks > MAX_HUNKS:
            raise too_large("hunks", self.hunks, MAX_HUNKS, patch_line)


def check_totals(files: int, hunks: int) -> None:
    """Several patches applied as one count together."""
    if files > MAX_FILES:
        raise too_large("file patches", files, MAX_FILES)
    if hunks > MAX_HUNKS:
        raise too_large("hunks", hunks, MAX_HUNKS)
