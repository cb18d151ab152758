"""SEARCH/REPLACE blocks read from a model's reply as it is, into the Patch model.

    src/app.py                  aider: the file's name on the line before the block (or
    ```python                   before the fence that holds it); a block without one is
    <<<<<<< SEARCH              for the file of the block before it
    old lines
    =======
    new lines
    >>>>>>> REPLACE
    ```

Cline writes ``------- SEARCH`` / ``=======`` / ``+++++++ REPLACE`` (and aider's markers too),
Roo Code aider's markers with ``:start_line:N`` (and ``:end_line:N``) and a ``-------`` line
after ``<<<<<<< SEARCH``; both name the file in a ``<path>...</path>`` line before the blocks.
Prose, fences and tool-call tags around the blocks are skipped. Each block is one edit by its
text (parse/edits.py): its SEARCH text replaced by its REPLACE text where it occurs exactly
once, and an empty SEARCH creates the file or, when it exists, appends to it as aider does.
The rules are in docs/blocks.md. Nothing here reads a file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..core import paths
from ..core.model import ADD, FileKind, FilePatch, Hunk, HunkLine, Patch, text_lines
from ..errors import PatchError
from .checks import check_duplicates
from .edits import Edit, edits_patch
from .limits import Tally

_START = re.compile(rb"^(?:<{5,9}|-{3,}) SEARCH>?[ \t]*\r?\n?$")
_DIVIDER = re.compile(rb"^={5,9}[ \t]*\r?\n?$")
_END = re.compile(rb"^(?:>{5,9}|\+{3,}) REPLACE[ \t]*\r?\n?$")
_ROO_LINE = re.compile(rb"^:(start|end)_line:[ \t]*(\d+)[ \t]*\r?\n?$")
_ROO_SEPARATOR = re.compile(rb"^-{3,}[ \t]*\r?\n?$")
_PATH_TAG = re.compile(rb"^[ \t]*<path>([^<]+)</path>[ \t]*\r?\n?$")
_FENCE = re.compile(rb"^[ \t]*(`{3,}|~{3,})")
# a line that opens a block anywhere, and one that starts a diff or an envelope
_ANY_START = re.compile(rb"^(?:<{5,9}|-{3,}) SEARCH>?[ \t]*\r?$", re.M)
_DIFF_HEADER = re.compile(rb"^(?:diff --git |--- |\*\*\* Begin Patch)", re.M)
_HINT = ("write each block as the file's name on a line of its own, then '<<<<<<< SEARCH', "
         "the lines to find, '=======', the lines to put there, '>>>>>>> REPLACE' "
         "(docs/blocks.md)")


def looks_like_blocks(data: bytes) -> bool:
    """A SEARCH marker at the start of a line before any diff or envelope header."""
    start = _ANY_START.search(data)
    if start is None:
        return False
    header = _DIFF_HEADER.search(data, 0, start.start())
    return header is None


@dataclass
class _Block:
    path: str
    search: bytes
    replace: bytes
    line: int  # 1-based line of its SEARCH marker
    start_line: int | None


def parse_blocks(data: bytes) -> Patch:
    """The blocks in a model's reply as a Patch, or a coded refusal."""
    blocks = _read(text_lines(data))
    if not blocks:
        raise PatchError("empty_patch", "the text holds no SEARCH/REPLACE block", hint=_HINT)
    edits: list[Edit] = []
    lines: list[int] = []
    appends: dict[int, _Block] = {}
    for number, block in enumerate(blocks, 1):
        if not block.search.strip():
            appends[number] = block
            edits.append(Edit(block.path, old_str="", new_str=""))  # replaced below
        else:
            edits.append(Edit(block.path, old_str=_text(block.search),
                              new_str=_text(block.replace)))
        lines.append(block.line)
    patch = edits_patch(edits, "blocks", lines)
    for number, fp in enumerate(patch.files, 1):
        block = blocks[number - 1]
        if number in appends:
            patch.files[number - 1] = _append(fp, block, number)
        elif block.start_line is not None:
            hunk = fp.hunks[0]
            assert hunk.edit is not None
            fp.hunks[0] = replace(hunk, edit=replace(hunk.edit, line_hint=block.start_line))
    check_duplicates(patch.files)
    return patch


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")  # encoded back as it was (edits.py)


def _append(fp: FilePatch, block: _Block, number: int) -> FilePatch:
    """An empty SEARCH, as aider reads it: the REPLACE text appended to the file, which is
    created when it does not exist."""
    added = text_lines(block.replace)
    hunk = Hunk(None, 0, None, len(added), [HunkLine(ADD, line) for line in added],
                block.line, new_no_newline=bool(added) and not added[-1].endswith(b"\n"),
                anchor_end=True)
    return FilePatch(FileKind.MODIFY, fp.path, fp.path, [hunk], patch_line=block.line,
                     create_if_missing=True, edit=number)


def _read(items: list[bytes]) -> list[_Block]:
    blocks: list[_Block] = []
    tally = Tally()
    path: str | None = None
    i = 0
    while i < len(items):
        line = items[i]
        tag = _PATH_TAG.match(line)
        if tag:
            path = _path(tag.group(1), i + 1)
        if _END.match(line):
            raise PatchError("patch_parse_error", f"a '{_marker(line)}' line with no "
                             "'SEARCH' line before it", hint=_HINT, patch_line=i + 1)
        if not _START.match(line):
            i += 1
            continue
        named = _name_before(items, i)
        if named is not None:
            path = _path(named, i)
        if path is None:
            raise PatchError("patch_parse_error", "the block has no file name before it",
                             hint=_HINT, patch_line=i + 1)
        tally.file(i + 1)
        block, i = _block(items, i, path)
        blocks.append(block)
    return blocks


def _marker(line: bytes) -> str:
    return line.strip().decode("utf-8", "replace")


def _marker_line(items: list[bytes], i: int, marker: re.Pattern[bytes],
                 strays: tuple[re.Pattern[bytes], ...], start: int, name: str,
                 missing: str) -> int:
    """The index of the first line from ``i`` that ``marker`` matches, in the block that
    starts at line ``start`` (0-based); refused when another block marker (``strays``) comes
    first or the text ends before it."""
    while i < len(items) and not marker.match(items[i]):
        if any(stray.match(items[i]) for stray in strays):
            raise PatchError("patch_parse_error", f"the block that starts at line {start + 1} "
                             f"has no {name} line before line {i + 1}", hint=_HINT,
                             patch_line=start + 1)
        i += 1
    if i == len(items):
        raise PatchError("patch_parse_error", f"the block that starts at line {start + 1} "
                         f"{missing}",
                         hint=_HINT, patch_line=start + 1)
    return i



def _block(items: list[bytes], start: int, path: str) -> tuple[_Block, int]:
    """The block whose SEARCH marker is at ``start``, and the index after its end."""
    i = start + 1
    start_line = None
    while i < len(items) and _ROO_LINE.match(items[i]):
        found = _ROO_LINE.match(items[i])
        assert found is not None
        if found.group(1) == b"start":
            start_line = int(found.group(2))
        i += 1
    if i > start + 1 and i < len(items) and _ROO_SEPARATOR.match(items[i]):
        i += 1
    search_from = i
    divider = _marker_line(items, i, _DIVIDER, (_START, _END), start, "'======='",
                           "has no '=======' line")
    i = _marker_line(items, divider + 1, _END, (_START, _DIVIDER), start, "'>>>>>>> REPLACE'",
                     "is not closed: no '>>>>>>> REPLACE' line (was the reply cut off?)")
    search = b"".join(items[search_from:divider])
    replaced = b"".join(items[divider + 1:i])
    return _Block(path, search, replaced, start + 1, start_line), i + 1


def _name_before(items: list[bytes], start: int) -> bytes | None:
    """The file name aider writes on the line before a block, or before the fence that holds
    it: the line stripped of markdown (``#``, ``*``, backticks, a trailing ``:``), when it reads
    as a path (no blanks inside)."""
    i = start - 1
    if i >= 0 and _FENCE.match(items[i]):
        i -= 1
    if i < 0:
        return None
    name = items[i].strip().lstrip(b"#").strip().strip(b"*`").rstrip(b":").strip()
    if not name or any(ch in name for ch in b" \t<>|") or _FENCE.match(items[i]) \
            or _END.match(items[i]) or _DIVIDER.match(items[i]):
        return None
    return name


def _path(raw: bytes, line: int) -> str:
    try:
        return paths.normalize(raw.strip().decode("utf-8", "surrogateescape"))
    except PatchError as err:
        raise err.located(patch_line=line) from None


def blocks_text(edits: Sequence[Edit]) -> str:
    """``str_replace`` edits written as aider's SEARCH/REPLACE blocks, each after its file's
    name and inside a code fence (the inverse of ``parse_blocks``). A block holds whole lines,
    so each text must be empty or end with a newline, and hold no marker line; else
    ``usage_error``."""
    out = []
    for number, edit in enumerate(edits, 1):
        texts = (edit.old_str or "", edit.new_str)
        if edit.command != "str_replace" or edit.replace_all or edit.expected_replacements \
                or any(text and not text.endswith("\n") for text in texts) \
                or any(_START.match(line) or _DIVIDER.match(line) or _END.match(line)
                       for text in texts for line in text_lines(text.encode())):
            raise PatchError("usage_error", f"edit {number} cannot be a SEARCH/REPLACE block: "
                             "a block replaces whole lines, once, and holds no marker line")
        out.append(f"{edit.path}\n```\n<<<<<<< SEARCH\n{texts[0]}=======\n{texts[1]}"
                   ">>>>>>> REPLACE\n```\n")
    return "\n".join(out)
