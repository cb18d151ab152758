"""GNU diff -N: a file missing on one side is named by its path, dated at the epoch, where
git writes /dev/null. Read as an add or a delete only when the hunk agrees."""

from __future__ import annotations

import re

from ..core.model import ADD, REMOVE, Diagnostic, FileKind, FilePatch

# The epoch in local time, as GNU diff writes it (compiled on first use: start-up counts).
_STAMP = (rb"\t(19(?:70-01-01|69-12-31)) ([0-2]\d):([0-5]\d):([0-5]\d)(?:\.0+)? "
          rb"([-+])([0-2]\d):?([0-5]\d)[ \t]*$")


def epoch_stamp(raw: bytes) -> bool:
    """Is the date after a '---'/'+++' path the epoch (1970-01-01 00:00:00 UTC)?"""
    m = re.search(_STAMP, raw) if b"\t19" in raw else None
    if m is None:
        return False
    day, hour, minute, second, sign, zone_h, zone_m = m.groups()
    local = (0 if day == b"1970-01-01" else -86400) + int(hour) * 3600 + int(minute) * 60
    zone = (int(zone_h) * 3600 + int(zone_m) * 60) * (1 if sign == b"+" else -1)
    return int(second) == 0 and local - zone == 0


def missing_side(fp: FilePatch, old_side_missing: bool) -> None:
    """As in git apply, a modify whose old (or new) side is dated at the epoch is an add (or
    a delete), but only when the body agrees: one hunk of added lines from line 0 (or of
    removed lines down to line 0)."""
    hunk = fp.hunks[0] if len(fp.hunks) == 1 else None
    if hunk is None:
        return
    kinds = hunk.kinds()
    if old_side_missing and kinds == {ADD} and (hunk.old_start, hunk.old_count) == (0, 0):
        fp.kind, fp.old_path = FileKind.ADD, None
    elif not old_side_missing and kinds == {REMOVE} and (hunk.new_start, hunk.new_count) == (0, 0):
        fp.kind, fp.new_path = FileKind.DELETE, None
    else:
        return
    fp.diagnostics.append(Diagnostic(
        "epoch_timestamp", f"'{'---' if old_side_missing else '+++'}' is dated at the epoch "
        f"(GNU diff -N) and the hunk {'adds' if fp.kind is FileKind.ADD else 'removes'} every "
        f"line: read as {'an add' if fp.kind is FileKind.ADD else 'a delete'}", fp.patch_line))
