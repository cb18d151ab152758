"""The Codex-style '*** Begin Patch' envelope, parsed into the same Patch model as unified diffs.

    *** Begin Patch
    *** Add File: PATH            then '+' lines, optionally '\\ No newline at end of file'
    *** Update File: PATH         optionally '*** Move to: NEW', then '@@' hunks
    *** Delete File: PATH         no body
    *** Move File: OLD -> NEW     optionally '@@' hunks
    *** End Patch

Hunks carry no line numbers (old_start is None), so the planner places them by context alone;
'*** End of File' after a hunk sets Hunk.anchor_end. The rules are in docs/envelope.md.
"""

from __future__ import annotations

import re

from ..core import paths
from ..core.model import (
    ADD,
    CONTEXT,
    REMOVE,
    Diagnostic,
    FileKind,
    FilePatch,
    Hunk,
    HunkLine,
    Patch,
)
from ..errors import PatchError
from .checks import check_duplicates
from .limits import Tally
from .text import Lines, header_text

BEGIN = b"*** Begin Patch"
END = b"*** End Patch"
END_OF_FILE = b"*** End of File"
_SECTION = re.compile(rb"^\*\*\* (Add File|Update File|Delete File|Move File|Move to):[ \t]*(.*)$")
_MOVE_ARROW = " -> "
_NO_NEWLINE = b"\\"
_BLANK = (b"\n", b"\r\n")

_HUNK_HINT = ("each body line of an '@@' hunk starts with ' ' (context), '-' (remove) or '+' "
              "(add); a hunk ends at the next '@@' or '***' line")
_ADD_HINT = "every body line of '*** Add File' starts with '+'"


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _marker(line: bytes) -> bytes:
    """A marker line without its line ending or surrounding whitespace (models pad them)."""
    return header_text(line).strip()


def _is_directive(line: bytes) -> bool:
    return line.startswith(b"***")


class EnvelopeParser:
    def __init__(self, lines: Lines) -> None:
        self.items = lines.items
        self.numbers = lines.numbers
        self.pos = 0
        self.diagnostics: list[Diagnostic] = []
        self.tally = Tally()  # file patches and hunks, against the caps

    # -- helpers -----------------------------------------------------------------------------
    def _no(self, index: int) -> int:
        if index < len(self.numbers):
            return self.numbers[index]
        return (self.numbers[-1] + 1) if self.numbers else 1

    def _error(self, code: str, message: str, index: int | None = None, *,
               path: str | None = None, hunk: int | None = None, hint: str = "") -> PatchError:
        where = self.pos if index is None else index
        return PatchError(code, message, hint, self._no(where), path, hunk)

    def _skip_blank(self) -> None:
        while self.pos < len(self.items) and not self.items[self.pos].strip():
            self.pos += 1

    def _path(self, raw: bytes) -> str:
        try:
            return paths.normalize(_decode(raw).strip())
        except PatchError as err:
            raise err.located(patch_line=self._no(self.pos)) from None

    # -- top level ---------------------------------------------------------------------------
    def parse(self) -> Patch:
        self._skip_blank()
        if self.pos == len(self.items):
            raise PatchError("empty_patch", "the input is empty", patch_line=1,
                             hint="an envelope starts with '*** Begin Patch'")
        if _marker(self.items[self.pos]) != BEGIN:
            raise self._error("patch_parse_error", "text before '*** Begin Patch'",
                              hint="send only the envelope: nothing may come before "
                              "'*** Begin Patch' or after '*** End Patch'")
        begin = self.pos
        self.pos += 1
        self._normalize_end_marker()
        files: list[FilePatch] = []
        while True:
            self._skip_blank()
            if self.pos == len(self.items):
                raise self._error("patch_parse_error", "the envelope has no '*** End Patch' line",
                                  hint="close the envelope with '*** End Patch' on a line of "
                                  "its own")
            text = _marker(self.items[self.pos])
            if text == END:
                break
            self.tally.file(self._no(self.pos))
            files.append(self._section(text))
        self.pos += 1
        self._skip_blank()
        if self.pos < len(self.items):
            raise self._error("patch_parse_error", "text after '*** End Patch'",
                              hint="send only the envelope: nothing may come before "
                              "'*** Begin Patch' or after '*** End Patch'")
        if not files:
            raise self._error("empty_patch", "the envelope holds no file section", begin,
                              hint="put at least one '*** Add File:', '*** Update File:', "
                              "'*** Delete File:' or '*** Move File:' section between "
                              "'*** Begin Patch' and '*** End Patch'")
        check_duplicates(files)
        return Patch(files, "envelope", self.diagnostics)

    def _normalize_end_marker(self) -> None:
        """A padded '*** End Patch' as the last line still closes the envelope.

        Only the last non-blank line is read this way: elsewhere in a hunk body a line
        ' *** End Patch' is a context line whose text is '*** End Patch'.
        """
        last = len(self.items) - 1
        while last > self.pos and not self.items[last].strip():
            last -= 1
        if last >= self.pos and _marker(self.items[last]) == END:
            self.items = [*self.items[:last], END + b"\n", *self.items[last + 1:]]

    def _section(self, text: bytes) -> FilePatch:
        m = _SECTION.match(text)
        if not m or m.group(1) == b"Move to":
            what = "'*** Move to:' must directly follow an '*** Update File:' line" if m else (
                f"expected a file section ('*** Add File:', '*** Update File:', "
                f"'*** Delete File:', '*** Move File:') or '*** End Patch', found "
                f"'{_decode(text[:60])}'")
            raise self._error("patch_parse_error", what,
                              hint="a file section starts with '*** Add File: PATH', "
                              "'*** Update File: PATH', '*** Delete File: PATH' or "
                              "'*** Move File: OLD -> NEW'")
        kind, rest = m.group(1), m.group(2)
        line_no = self._no(self.pos)
        if kind == b"Move File":
            old, new = self._move_paths(rest)
            self.pos += 1
            fp = FilePatch(FileKind.RENAME, old, new, [], patch_line=line_no)
            self._hunks(fp)
            return fp
        path = self._path(rest)
        self.pos += 1
        if kind == b"Add File":
            fp = FilePatch(FileKind.ADD, None, path, [], patch_line=line_no)
            self._add_body(fp)
            return fp
        if kind == b"Delete File":
            self._no_body(path)
            return FilePatch(FileKind.DELETE, path, None, [], patch_line=line_no,
                             check_deleted_content=False)
        fp = FilePatch(FileKind.MODIFY, path, path, [], patch_line=line_no)
        if self.pos < len(self.items):
            moved = _SECTION.match(_marker(self.items[self.pos]))
            if moved and moved.group(1) == b"Move to":
                fp.kind, fp.new_path = FileKind.RENAME, self._path(moved.group(2))
                self._same_path_check(path, fp.new_path)
                self.pos += 1
        self._hunks(fp)
        if not fp.hunks and fp.kind is FileKind.MODIFY:
            raise PatchError("missing_hunks", f"'*** Update File: {path}' has no '@@' hunk",
                             hint="give each '*** Update File:' at least one '@@' hunk "
                             "(or a '*** Move to:' line)", patch_line=line_no, path=path)
        return fp

    def _move_paths(self, rest: bytes) -> tuple[str, str]:
        text = _decode(rest)
        if text.count(_MOVE_ARROW) != 1:
            raise self._error("patch_parse_error",
                              f"cannot read '{text[:80]}' as 'OLD -> NEW'",
                              hint="write a move as '*** Move File: old/path -> new/path' "
                              "(one ' -> ' between the two paths)")
        old_raw, new_raw = text.split(_MOVE_ARROW)
        old = self._path(old_raw.encode("utf-8", "surrogateescape"))
        new = self._path(new_raw.encode("utf-8", "surrogateescape"))
        self._same_path_check(old, new)
        return old, new

    def _same_path_check(self, old: str, new: str) -> None:
        if old == new:
            raise self._error("rename_path_mismatch", f"move of {old!r} onto itself",
                              path=old, hint="a move names two different paths; to edit a "
                              "file in place use '*** Update File:'")

    def _no_body(self, path: str) -> None:
        self._skip_blank()
        if self.pos < len(self.items) and not _is_directive(self.items[self.pos]):
            raise self._error("patch_parse_error", f"'*** Delete File: {path}' has a body",
                              path=path, hint="'*** Delete File:' takes no body: the whole "
                              "file is deleted, whatever it holds")

    # -- Add File ----------------------------------------------------------------------------
    def _add_body(self, fp: FilePatch) -> None:
        lines: list[HunkLine] = []
        blanks: list[bytes] = []
        no_newline = False
        while self.pos < len(self.items):
            line = self.items[self.pos]
            if _is_directive(line):
                if _marker(line) != END_OF_FILE:
                    break
                fp.diagnostics.append(Diagnostic(
                    "end_of_file_in_add", "'*** End of File' in an '*** Add File' section was "
                    "ignored: an added file's body always ends its file", self._no(self.pos)))
            elif line in _BLANK:
                blanks.append(line)
            elif no_newline:
                raise self._error("malformed_hunk", "'\\ No newline at end of file' must be the "
                                  "last line of the file's body", self.pos - 1, path=fp.path,
                                  hint=_ADD_HINT)
            elif line.startswith(_NO_NEWLINE):
                if not lines:
                    raise self._error("malformed_hunk", "'\\ No newline at end of file' must "
                                      "follow a '+' line", path=fp.path, hint=_ADD_HINT)
                no_newline = True
                lines[-1] = HunkLine(ADD, _strip_ending(lines[-1].text, line))
            elif line.startswith(b"+"):
                if blanks:
                    lines.extend(HunkLine(ADD, blank) for blank in blanks)
                    fp.diagnostics.append(Diagnostic(
                        "blank_added_line", f"{len(blanks)} empty line(s) inside an added file "
                        "were read as empty added lines ('+' missing)",
                        self._no(self.pos - len(blanks))))
                    blanks.clear()
                lines.append(HunkLine(ADD, line[1:]))
            else:
                raise self._error("hunk_kind_mismatch", "an added file's body has only '+' "
                                  f"lines, found '{_decode(header_text(line)[:60])}'",
                                  path=fp.path, hint=_ADD_HINT)
            self.pos += 1
        # '+' alone on the last line stands for the final newline, not for another line.
        ends_in_newline = not no_newline
        last = lines[-1].text if lines else None
        if last is not None and last.rstrip(b"\r\n") == b"" and (not no_newline or last == b""):
            lines.pop()
            ends_in_newline = True
        if lines:
            self.tally.hunk(fp.patch_line)
            fp.hunks.append(Hunk(None, None, None, None, lines, fp.patch_line,
                                 new_no_newline=not ends_in_newline))

    # -- Update File / Move File hunks -------------------------------------------------------
    def _hunks(self, fp: FilePatch) -> None:
        while True:
            self._skip_blank()
            if self.pos == len(self.items):
                return
            line = self.items[self.pos]
            number = len(fp.hunks) + 1
            if line.startswith(b"@@"):
                section = _decode(header_text(line)[2:]).strip()
                hunk = Hunk(None, None, None, None, [], self._no(self.pos), section,
                            anchor_text=section)
                self.pos += 1
            elif _is_directive(line):
                if _marker(line) == END_OF_FILE:
                    raise self._error("malformed_hunk", "'*** End of File' must follow the "
                                      "last line of an '@@' hunk", path=fp.path, hint=_HUNK_HINT)
                return
            elif not fp.hunks and line[:1] in (b" ", b"-", b"+"):
                hunk = Hunk(None, None, None, None, [], self._no(self.pos))
                fp.diagnostics.append(Diagnostic(
                    "hunk_without_header", "the first hunk has no '@@' line; it starts at its "
                    "first body line", self._no(self.pos)))
            else:
                raise self._error("malformed_hunk", f"expected an '@@' hunk, found "
                                  f"'{_decode(header_text(line)[:60])}'", path=fp.path,
                                  hunk=number, hint=_HUNK_HINT)
            self.tally.hunk(hunk.patch_line)
            self._hunk_body(hunk, fp, number)
            fp.hunks.append(hunk)

    def _hunk_body(self, hunk: Hunk, fp: FilePatch, number: int) -> None:
        blanks: list[bytes] = []  # empty lines not yet known to be context
        while self.pos < len(self.items):
            line = self.items[self.pos]
            if line.startswith(b"@@"):
                break
            if _is_directive(line):
                if _marker(line) == END_OF_FILE:
                    if not hunk.lines and not blanks:
                        break  # reported by the empty-hunk check below
                    hunk.anchor_end = True
                    self._take_blanks(hunk, blanks)
                    self.pos += 1
                break
            if line in _BLANK:
                blanks.append(line)
            elif line.startswith(_NO_NEWLINE):
                self._take_blanks(hunk, blanks)
                if not hunk.lines:
                    raise self._error("malformed_hunk", "'\\ No newline at end of file' must "
                                      "follow a body line", path=fp.path, hunk=number,
                                      hint=_HUNK_HINT)
                last = hunk.lines[-1]
                hunk.line_list()[-1] = HunkLine(last.kind, _strip_ending(last.text, line))
                if last.kind != ADD:
                    hunk.old_no_newline = True
                if last.kind != REMOVE:
                    hunk.new_no_newline = True
            elif line[:1] in (b" ", b"-", b"+"):
                self._take_blanks(hunk, blanks)
                hunk.line_list().append(HunkLine(line[:1].decode(), line[1:]))
            else:
                raise self._error("malformed_hunk", f"line '{_decode(header_text(line)[:60])}' "
                                  f"in hunk {number} is not a context, removed or added line",
                                  path=fp.path, hunk=number, hint=_HUNK_HINT)
            self.pos += 1
        if blanks:  # trailing empty lines: context, but the matcher may drop them as separators
            hunk.optional_tail = len(blanks)
            self._take_blanks(hunk, blanks)
        if len(hunk.lines) == hunk.blank_context_lines:
            raise PatchError("malformed_hunk", f"hunk {number} has no body lines", _HUNK_HINT,
                             hunk.patch_line, fp.path, number)
        if hunk.blank_context_lines:
            fp.diagnostics.append(Diagnostic(
                "blank_context_line",
                f"hunk {number}: {hunk.blank_context_lines} empty line(s) read as blank "
                "context lines (leading space missing)", hunk.patch_line))

    def _take_blanks(self, hunk: Hunk, blanks: list[bytes]) -> None:
        hunk.line_list().extend(HunkLine(CONTEXT, blank) for blank in blanks)
        hunk.blank_context_lines += len(blanks)
        blanks.clear()


def _strip_ending(text: bytes, marker: bytes) -> bytes:
    """Drop the line ending a '\\ No newline at end of file' marker says is not there; a CR
    before the newline is transport, not content, when the marker line has one too."""
    ending = b"\r\n" if marker.endswith(b"\r\n") and text.endswith(b"\r\n") else b"\n"
    return text[: -len(ending)] if text.endswith(ending) else text


def parse_envelope(lines: Lines) -> Patch:
    return EnvelopeParser(lines).parse()
