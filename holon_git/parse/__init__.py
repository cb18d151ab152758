"""Patch text in, Patch model out. Knows nothing of git or files."""

from __future__ import annotations

from ..core.model import Diagnostic, Patch
from ..errors import PatchError
from . import limits
from .checks import check_duplicates
from .text import Lines, header_text, split_lines, unfence
from .unified import parse_unified

FORMATS = ("auto", "unified", "envelope", "edits", "blocks")
_BOM = b"\xef\xbb\xbf"


def detect_format(data: bytes) -> str:
    """'edits' for JSON (a list or an object: parse/edits.py); 'blocks' when a SEARCH marker
    starts a line before any diff header (parse/blocks.py); 'envelope' when a
    '*** Begin Patch' line comes before any unified file header; else 'unified'.

    Prose before the envelope then reaches the envelope parser, which refuses it, instead of
    being skipped as a unified diff's preamble would be.
    """
    data = _without_bom(data)[0]
    by_text = _edit_format_of(data)
    if by_text is not None:
        return by_text
    lines, _ = unfence(split_lines(data))
    return _format_of(lines)


def _edit_format_of(data: bytes) -> str | None:
    """'edits' or 'blocks' when the text is one of them (checked before any line is split)."""
    if data.lstrip()[:1] in (b"[", b"{"):  # JSON: a diff or a reply rarely starts so
        return "edits" if _json_rather_than_diff(data) else None
    if b" SEARCH" not in data:  # one search in C: most patches load no block parser
        return None
    from .blocks import looks_like_blocks

    return "blocks" if looks_like_blocks(data) else None


def _without_bom(data: bytes) -> tuple[bytes, bool]:
    """The patch without a leading UTF-8 byte order mark (Windows tools write one; it cannot
    be patch text), and whether there was one."""
    return (data[len(_BOM):], True) if data.startswith(_BOM) else (data, False)


def _format_of(lines: Lines) -> str:
    items = lines.items
    for i, line in enumerate(items):
        text = header_text(line).strip()
        if text == b"*** Begin Patch":
            return "envelope"
        if text.startswith(b"diff --git ") or (
            text.startswith(b"--- ") and i + 1 < len(items) and items[i + 1].startswith(b"+++ ")
        ):
            return "unified"
    return "unified"


def parse_patch(data: bytes | str, *, format: str = "auto", strip: int | None = None) -> Patch:
    """Parse patch text (bytes, or str encoded as UTF-8) into a Patch, or raise PatchError."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if format not in FORMATS:
        raise PatchError("usage_error", f"unknown patch format {format!r}")
    data, bom = _without_bom(data)
    limits.check_text(data)
    if format == "auto":
        format = _edit_format_of(data) or format
    if format in ("edits", "blocks"):
        return _parse_edit_format(data, format)
    lines, notes = unfence(split_lines(data))
    if bom:
        notes.insert(0, Diagnostic("byte_order_mark", "the UTF-8 byte order mark before the "
                                   "patch was ignored", 1))
    if format == "auto":
        format = _format_of(lines)
    if format == "envelope":
        from .envelope import parse_envelope

        patch = parse_envelope(lines)
    else:
        patch = parse_unified(lines, strip)
    patch.diagnostics[:0] = notes
    if format == "unified" and data.startswith((b"From ", b"From:")):
        from .mail import read_mails  # a git format-patch mail only

        read_mails(lines, patch)
    return patch


def _json_rather_than_diff(data: bytes) -> bool:
    """Text that starts as JSON does: JSON edits, unless a diff or envelope header starts a
    line of it and the text is no JSON (a diff whose preamble starts with a bracket)."""
    import re

    if re.search(rb"^(?:diff --git |--- |\*\*\* Begin Patch)", data, re.M) is None:
        return True
    import json

    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return False
    return True


def _parse_edit_format(data: bytes, format: str) -> Patch:
    """Edits by their text: JSON (parse/edits.py) or SEARCH/REPLACE blocks (parse/blocks.py)."""
    if format == "edits":
        from .edits import parse_edits

        return parse_edits(data)
    from .blocks import parse_blocks

    return parse_blocks(data)


def merge_patches(patches: list[Patch]) -> Patch:
    """Several patches applied as one: all or nothing, file patches of one path in sequence."""
    if len(patches) == 1:
        return patches[0]
    files = [fp for patch in patches for fp in patch.files]
    limits.check_totals(len(files), sum(len(fp.hunks) for fp in files))
    check_duplicates(files)
    formats = {patch.format for patch in patches}
    merged = Patch(files, formats.pop() if len(formats) == 1 else "mixed",
                   [d for patch in patches for d in patch.diagnostics])
    if all(patch.mails for patch in patches):  # mails, each file a series: one series
        for patch in patches:
            for fp in patch.files:
                fp.mail = None if fp.mail is None else fp.mail + len(merged.mails)
            merged.mails.extend(patch.mails)
    return merged
