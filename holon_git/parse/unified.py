"""Parse unified diffs (plain, and git's extended form) into the Patch model.

The body, not the header, decides where a hunk ends: header counts are hints, recorded as a
diagnostic when they disagree with the body. Nothing here knows about git repositories or files.
"""

from __future__ import annotations

import re

from ..core.model import (
    ADD,
    CONTEXT,
    KIND_OF_PREFIX,
    REMOVE,
    Diagnostic,
    FileKind,
    FilePatch,
    Hunk,
    HunkLine,
    PackedLines,
    Patch,
)
from ..core.paths import listing_only, normalize
from ..errors import PatchError
from .checks import check_duplicates
from .epoch import epoch_stamp, missing_side
from .header import FileHeader, HeaderResolver, git_header_path, split_git_header
from .left_out import BINARY_INSTEAD, BINARY_REFUSAL, hold_refusal, is_binary_body_line
from .limits import Tally
from .names import header_name, unquote
from .other_formats import COLOR_HINT, UNIFIED_HINT, other_format_hunk, other_format_of
from .text import Lines, header_text

_HUNK = re.compile(
    rb"^@@[ \t]+-(\d{1,18})(?:,(\d{1,18}))?[ \t]+\+(\d{1,18})(?:,(\d{1,18}))?[ \t]*@@(.*)$"
)
_KINDS = {**KIND_OF_PREFIX, b"\\": "\\"}
_BODY_STARTS = (b" ", b"-", b"+", b"\\")
# '@@', '@@ @@', and '@@ @@ def load(self):' (a section text after, as git writes one)
_BARE_HUNK = re.compile(rb"^@@(?:[ \t]*$| @@(?:[ \t]*$|[ \t]+(.*)$))")
# '@@ -...,... @@', '@@ -XXX,XXX +XXX,XXX @@', '@@ -N,M +N,M @@': fields that hold no digit
# (a model's stand-ins for numbers it did not know), with the optional section text after
_PLACEHOLDER_HUNK = re.compile(rb"^(@@[ \t]+-[^\d\s@]+(?:[ \t]+\+[^\d\s@]+)?[ \t]*@@)(.*)$")
_UNSUPPORTED_MODES = {"120000": "symbolic link", "160000": "submodule (gitlink)"}
_METADATA = (
    "old mode ",
    "new mode ",
    "deleted file mode ",
    "new file mode ",
    "similarity index ",
    "dissimilarity index ",
    "index ",
)
_BLOB_IDS = re.compile(r"index ([0-9a-fA-F]{4,64})\.\.([0-9a-fA-F]{4,64})(?: |$)")


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _binary_files_path(line: str) -> tuple[FileKind, str] | None:
    """What 'Binary files a/x and b/x differ' names: an add ('/dev/null and b/x'), a delete
    ('a/x and /dev/null') or a change, and its path (without git's prefix), when the line
    splits one way only."""
    names = line[len("Binary files "):].rstrip()[:-len(" differ")].split(" and ")
    if len(names) != 2:
        return None
    old, new = names
    kind = FileKind.ADD if old == "/dev/null" else FileKind.DELETE if new == "/dev/null" \
        else FileKind.MODIFY
    if kind is FileKind.DELETE:
        old, new = "/dev/null", old
        prefixed = new.startswith("a/")
    else:
        prefixed = new.startswith("b/") and (old == "/dev/null" or old.startswith("a/"))
    path = new[2:] if prefixed else new
    return (kind, path) if path else None


# Lines a model's header counts may overstate on one side of a hunk that ends on context
# (read as a miscount, not a cut: _cut_on_context).
MISCOUNT = 2


class UnifiedParser:
    def __init__(self, lines: Lines, strip: int | None = None) -> None:
        self.items = lines.items
        self.numbers = lines.numbers
        self.closed = lines.closed
        self._context_ahead = -1  # a context line known to continue the hunk lines here
        self.strip = strip
        self.pos = 0
        self.diagnostics: list[Diagnostic] = []
        self.tally = Tally()  # file patches and hunks, against the caps

    # -- helpers -----------------------------------------------------------------------------
    def _line(self, index: int) -> bytes | None:
        return self.items[index] if index < len(self.items) else None

    def _no(self, index: int) -> int:
        if index < len(self.numbers):
            return self.numbers[index]
        return (self.numbers[-1] + 1) if self.numbers else 1

    def _error(self, code: str, message: str, index: int, path: str | None = None,
               hunk: int | None = None) -> PatchError:
        return PatchError(code, message, patch_line=self._no(index), path=path, hunk=hunk)

    def _is_traditional_header(self, index: int) -> bool:
        line, nxt = self._line(index), self._line(index + 1)
        return bool(line and nxt and line.startswith(b"--- ") and nxt.startswith(b"+++ "))

    def _is_plus_line_only(self, index: int) -> bool:
        """A '+++' line straight before the first hunk, with no '---' line: after 'diff
        --git', as models write a header ('diff --git a/x b/x', '+++ b/x', '@@ ...')."""
        line, nxt = self._line(index), self._line(index + 1)
        return bool(line and nxt and line.startswith(b"+++ ")
                    and header_text(nxt).startswith(b"@@"))

    def _is_file_start(self, index: int) -> bool:
        line = self._line(index)
        return bool(line and line.startswith((b"diff --git ", b"Binary files ")) and (
            line.startswith(b"d") or self._binary_line_patch(index) is not None)) or \
            self._is_traditional_header(index) or self._is_lone_plus_line(index)

    def _is_lone_plus_line(self, index: int) -> bool:
        """A '+++' line straight before a hunk, with no '---' line before it and no 'diff
        --git' line (a model's one-path header: '+++ b/x', '@@ ...'): a change to that path."""
        before = self._line(index - 1) if index else None
        return self._is_plus_line_only(index) and not (
            before is not None and header_text(before).startswith((b"--- ", b"diff --git ")))

    # -- top level ---------------------------------------------------------------------------
    def parse(self) -> Patch:
        files: list[FilePatch] = []
        skipped_from: int | None = None
        while self.pos < len(self.items):
            line = self.items[self.pos]
            if self._is_file_start(self.pos):
                if skipped_from is not None:
                    self._note_skipped(skipped_from, self.pos)
                    skipped_from = None
                self.tally.file(self._no(self.pos))
                binary = self._binary_line_patch(self.pos)
                if binary is not None:
                    files.append(binary)
                    self.pos += 1
                else:
                    files.append(self._file_patch())
                continue
            self._refuse_stray(self.pos)
            if skipped_from is None and line.strip():
                skipped_from = self.pos
            self.pos += 1
        if skipped_from is not None and files:
            self._note_skipped(skipped_from, len(self.items))
        if not files:
            other = other_format_of(self.items)
            colored = not other and any(b"\x1b[" in item for item in self.items)
            raise PatchError("empty_patch", "no file patch found in the input"
                             + (f"; it looks like {other}, which is not supported" if other
                                else "; it holds terminal color codes" if colored else ""),
                             patch_line=1,
                             hint=UNIFIED_HINT if other else COLOR_HINT if colored else "")
        check_duplicates(files)
        _check_plus_path_typos(files)
        _mark_unidiff_zero(files)
        return Patch(files, "unified", self.diagnostics)

    def _note_skipped(self, start: int, end: int) -> None:
        where = "before the first file patch" if start == 0 else "between or after file patches"
        self.diagnostics.append(Diagnostic(
            "skipped_text", f"{end - start} line(s) of text {where} were ignored", self._no(start)
        ))

    def _refuse_stray(self, index: int) -> None:
        """Lines that only make sense inside a file patch must not be skipped as prose."""
        line = self.items[index]
        text = header_text(line)
        if text.startswith((b"diff --cc ", b"diff --combined ")):
            raise self._error("unsupported_git_patch_feature",
                              "combined (merge) diffs are not supported", index)
        self._refuse_binary_line(index)
        if _HUNK.match(text) or text.startswith(b"+++ "):
            raise self._error("missing_file_header",
                              f"'{_decode(text[:40])}' appears before any '---'/'+++' "
                              "file header", index)
        nxt = header_text(self._line(index + 1) or b"")
        if text.startswith(b"--- ") and nxt.startswith(b"@@"):
            raise self._error("missing_file_header",
                              "'---' line is not followed by a '+++' line", index + 1)
        self._refuse_other_format(index)

    def _refuse_binary_line(self, index: int) -> None:
        """diff -r's (or git's) line for a binary file whose path cannot be read: skipped as
        prose, its change would be lost while the rest applied."""
        text = header_text(self.items[index])
        if text.startswith(b"Binary files ") and text.rstrip().endswith(b" differ"):
            raise PatchError("unsupported_git_patch_feature",
                             "binary patches are not supported", patch_line=self._no(index),
                             hint=f"{BINARY_INSTEAD}: holon-git cannot tell which file it is")

    def _binary_line_patch(self, index: int) -> FilePatch | None:
        """diff -r's line for a binary file ('Binary files a/x and b/x differ', no 'diff
        --git' before it): a binary file patch of the path it names, held refused (not
        skipped as prose: its change would be lost while the rest applied)."""
        text = header_text(self.items[index])
        if not (text.startswith(b"Binary files ") and text.rstrip().endswith(b" differ")):
            return None
        named = _binary_files_path(_decode(text))
        if named is None:
            return None
        kind, path = named
        try:
            path = normalize(path)
        except PatchError:
            return None
        fp = FilePatch(kind, None if kind is FileKind.ADD else path,
                       None if kind is FileKind.DELETE else path, patch_line=self._no(index),
                       binary=True)
        return hold_refusal(fp, BINARY_REFUSAL, BINARY_INSTEAD)

    def _refuse_other_format(self, index: int) -> None:
        """Another diff format's hunk is not prose: skipping it would apply part of a patch."""
        text = header_text(self.items[index])
        other = other_format_hunk(text, header_text(self._line(index + 1) or b""))
        if other:
            raise PatchError("invalid_hunk_header", f"'{_decode(text[:40])}' starts a hunk of "
                             f"{other}, which is not supported", patch_line=self._no(index),
                             hint=UNIFIED_HINT)

    # -- one file patch ----------------------------------------------------------------------
    def _file_patch(self) -> FilePatch:
        header = FileHeader(start=self._no(self.pos))
        start = self.pos
        first = header_text(self.items[self.pos])
        if first.startswith(b"diff --git "):
            header.git_rest = _decode(first[len(b"diff --git "):])
            header.git = split_git_header(header.git_rest)
            header.lines["diff --git"] = (self._no(self.pos), _decode(first))
            self.pos += 1
            self._extended_header(header)
        if header.binary:
            pass  # its header ends the file patch: '---'/'+++' after it start the next one
        elif self._is_traditional_header(self.pos):
            old, new = (header_text(self.items[self.pos + i]) for i in (0, 1))
            header.lines["---"] = (self._no(self.pos), _decode(old))
            header.lines["+++"] = (self._no(self.pos + 1), _decode(new))
            header.old, header.new = header_name(_decode(old[4:])), header_name(_decode(new[4:]))
            if not header.is_git:
                header.old_epoch, header.new_epoch = epoch_stamp(old[4:]), epoch_stamp(new[4:])
            self.pos += 2
        elif self._is_plus_line_only(self.pos) and (header.is_git or self.pos == start):
            new = header_text(self.items[self.pos])
            header.lines["+++"] = (self._no(self.pos), _decode(new))
            header.new, header.plus_only = header_name(_decode(new[4:])), True
            self.pos += 1
        hunks_follow = header_text(self._line(self.pos) or b"").startswith(b"@@")
        fp = HeaderResolver(header, self.strip, hunks_follow).resolve()
        hold_refusal(fp, *(header.unsupported or (None, "")))
        self._hunks(fp)
        if fp.kind is FileKind.MODIFY and header.old_epoch != header.new_epoch:
            missing_side(fp, header.old_epoch)
        self._validate(fp, header)
        if not header.is_git and fp.kind is FileKind.MODIFY and len(fp.hunks) == 1 \
                and fp.hunks[0].kinds() == {ADD}:
            fp.create_if_missing = True  # git apply creates the file if it is missing
        return fp

    def _extended_header(self, header: FileHeader) -> None:
        while self.pos < len(self.items):
            text = _decode(header_text(self.items[self.pos]))
            if text.startswith(("rename from ", "rename old ")):
                header.rename_from = unquote(text.split(" ", 2)[2])
                header.lines["rename from"] = (self._no(self.pos), text)
            elif text.startswith(("rename to ", "rename new ")):
                header.rename_to = unquote(text.split(" ", 2)[2])
                header.lines["rename to"] = (self._no(self.pos), text)
            elif text.startswith(("copy from ", "copy to ")):
                raise self._error("unsupported_git_patch_feature",
                                  "copies ('copy from'/'copy to') are not supported", self.pos,
                                  path=git_header_path(header, self.strip))
            elif text.startswith(("GIT binary patch", "Binary files ", "Binary patch")):
                header.binary = True  # held, not raised: --exclude may leave it out
                header.unsupported = (BINARY_REFUSAL, BINARY_INSTEAD)
                self.pos += 1
                if text.startswith("GIT binary patch"):
                    while self.pos < len(self.items) and \
                            is_binary_body_line(self.items[self.pos]):
                        self.pos += 1
                return
            elif text.startswith(_METADATA):
                self._metadata(header, text)
            else:
                return
            self.pos += 1

    def _metadata(self, header: FileHeader, text: str) -> None:
        mode = text.rsplit(" ", 1)[-1]
        kind = _UNSUPPORTED_MODES.get(mode)
        if kind:
            raise self._error("unsupported_git_patch_feature",
                              f"{kind} entries (mode {mode}) are not supported", self.pos,
                              path=git_header_path(header, self.strip))
        if text.startswith(("new file mode ", "deleted file mode ")):
            role = "new file mode" if text.startswith("new") else "deleted file mode"
            header.lines.setdefault(role, (self._no(self.pos), text))
            header.new_file = header.new_file or role == "new file mode"
            header.deleted_file = header.deleted_file or role == "deleted file mode"
            if mode == "100755":
                header.executable = True
                return  # applied (the file is created executable), not ignored
        elif text.startswith(("old mode ", "new mode ")):
            header.mode_change = True
            if text.startswith("old"):
                header.old_mode = mode
            else:
                header.new_mode = mode
        elif text.startswith("index "):
            ids = _BLOB_IDS.match(text)
            if ids:  # the old blob is a version the three-way rescue may merge from
                header.blob_ids = (ids.group(1).lower(), ids.group(2).lower())
        header.metadata.append(text)

    def _validate(self, fp: FilePatch, header: FileHeader) -> None:
        if not fp.hunks:
            if fp.kind is FileKind.RENAME or (header.is_git and header.old is None) or \
                    header.unsupported is not None:
                return
            raise PatchError("missing_hunks", "file patch has no hunk",
                             patch_line=fp.patch_line, path=fp.path)
        forbidden = {FileKind.ADD: (REMOVE, CONTEXT), FileKind.DELETE: (ADD,)}.get(fp.kind, ())
        if not forbidden:  # a modify or rename may have lines of every kind
            return
        for number, hunk in enumerate(fp.hunks, 1):
            present = hunk.kinds()
            bad = [kind for kind in forbidden if kind in present]
            if bad:
                what = {REMOVE: "removed", CONTEXT: "context", ADD: "added"}[bad[0]]
                raise PatchError(
                    "hunk_kind_mismatch",
                    f"a {fp.kind.value} file patch cannot have {what} lines",
                    patch_line=hunk.patch_line, path=fp.path, hunk=number,
                )

    # -- hunks -------------------------------------------------------------------------------
    def _hunks(self, fp: FilePatch) -> None:
        while self.pos < len(self.items):
            text = header_text(self.items[self.pos])
            if not text.startswith(b"@@"):
                return
            self.tally.hunk(self._no(self.pos))
            hunk = self._hunk_header(text, fp, len(fp.hunks) + 1)
            self.pos += 1
            if self._plain_body(hunk):  # the header's counts are known and met
                assert hunk.old_count is not None and hunk.new_count is not None
                ended_cleanly = self._after_hunk(hunk, fp, hunk.old_count, hunk.new_count)
                fp.hunks.append(hunk)
            else:
                ended_cleanly = self._hunk_body(hunk, fp)
                fp.hunks.append(hunk)
                self._count_diagnostics(hunk, fp)
            if not ended_cleanly:
                return

    def _hunk_header(self, text: bytes, fp: FilePatch, number: int) -> Hunk:
        m = _HUNK.match(text)
        line_no = self._no(self.pos)
        if m:
            def count(raw: bytes | None) -> int:
                return 1 if raw is None else int(raw)

            return Hunk(int(m.group(1)), count(m.group(2)), int(m.group(3)), count(m.group(4)),
                        [], line_no, _decode(m.group(5)).strip())
        bare = _BARE_HUNK.match(text)
        if bare:
            fp.diagnostics.append(Diagnostic(
                "hunk_without_line_numbers",
                f"hunk {number} has no line numbers; it is placed by its context alone", line_no,
            ))
            return Hunk(None, None, None, None, [], line_no, _decode(bare.group(1) or b"").strip())
        placeholder = _PLACEHOLDER_HUNK.match(text)
        if placeholder:
            fp.diagnostics.append(Diagnostic(
                "hunk_without_line_numbers",
                f"hunk {number}'s header '{_decode(text[:placeholder.end(1)])}' holds "
                "placeholders, not line numbers; it is placed by its context alone", line_no,
            ))
            return Hunk(None, None, None, None, [], line_no,
                        _decode(placeholder.group(2)).strip())
        raise PatchError("invalid_hunk_header", f"cannot read hunk header "
                         f"'{_decode(text[:60])}'", patch_line=line_no, path=fp.path, hunk=number)

    def _counts_met(self, hunk: Hunk, old: int, new: int) -> bool:
        return hunk.old_count is not None and (old, new) == (hunk.old_count, hunk.new_count)

    def _plain_body(self, hunk: Hunk) -> bool:
        """The common case, read in one sweep: every body line has its prefix, the header
        counts are met exactly, and the line after the body cannot continue it. Then the
        general reader below would take the same lines the same way; anything else (blank or
        unprefixed lines, no-newline markers, '--' lines that may be headers or a signature)
        is left to it. Returns False, having consumed nothing, when it does not apply."""
        need_old, need_new = hunk.old_count, hunk.new_count
        if need_old is None or need_new is None:
            return False
        items, start = self.items, self.pos
        count, pos, old, new = len(items), start, 0, 0
        while old < need_old or new < need_new:
            if pos >= count:
                return False
            first = items[pos][:1]
            if first == b" ":
                old += 1
                new += 1
            elif first == b"+":
                new += 1
            elif first == b"-" and items[pos][1:2] != b"-":
                old += 1
            else:
                return False
            pos += 1
        if pos == start or old != need_old or new != need_new:
            return False
        if pos < count:
            following = items[pos]
            if following[:1] in _BODY_STARTS or following in (b"\n", b"\r\n"):
                return False
        hunk.lines = PackedLines(b"".join(items[start:pos]))
        self.pos = pos
        return True

    def _hunk_body(self, hunk: Hunk, fp: FilePatch) -> bool:
        """Read body lines; returns False when the file patch ends with this hunk."""
        lines = hunk.line_list()
        old = new = 0
        blanks: list[bytes] = []  # stripped blank lines not yet known to be context
        unprefixed_at: int | None = None
        # The hot loop of parsing: locals only (``pos`` is handed back to self.pos before any
        # helper that reads it, and when the loop ends).
        items, count, pos = self.items, len(self.items), self.pos
        append, kinds, make = lines.append, _KINDS, HunkLine
        while pos < count:
            line = items[pos]
            kind = kinds.get(line[:1])
            if line in (b"\n", b"\r\n"):
                blanks.append(line)
                pos += 1
                continue
            if kind == "\\":
                self.pos = pos
                self._no_newline_marker(hunk, line, blanks)
                pos += 1
                continue
            if kind is None:
                self.pos = pos
                if not self._lost_context_prefix(hunk, old, new):
                    break
                kind, line = CONTEXT, b" " + line
                hunk.unprefixed_context_lines += 1
                unprefixed_at = unprefixed_at if unprefixed_at is not None else pos
            if kind == REMOVE and line.startswith(b"--"):  # "-- " or "--- "
                self.pos = pos
                if line.rstrip(b"\r\n") == b"-- " and self._is_mail_signature(hunk, old, new):
                    break
                if self._is_traditional_header(pos) and (
                    self._counts_met(hunk, old, new)
                    or (self._line(pos + 2) or b"").startswith(b"@@")
                ):
                    break
            if blanks:
                if self._counts_met(hunk, old, new) and not self._continues(pos):
                    break  # the blank line ended a complete hunk: what follows is text
                old, new = self._take_blanks(hunk, blanks, old, new)
            append(make(kind, line[1:]))
            old += kind != ADD
            new += kind != REMOVE
            pos += 1
        self.pos = pos
        if pos >= count and lines and not self.closed:
            self._cut_off(hunk, fp, old, new, len(blanks))
        self._trailing_blanks(hunk, blanks, old, new)
        old += hunk.optional_tail
        new += hunk.optional_tail
        if not lines:
            raise self._error("malformed_hunk", "hunk has no body lines", self.pos,
                              fp.path, len(fp.hunks) + 1)
        if unprefixed_at is not None and not self._counts_met(hunk, old, new):
            raise self._error(
                "malformed_hunk",
                f"line '{_decode(header_text(self.items[unprefixed_at])[:60])}' inside hunk "
                f"{len(fp.hunks) + 1} is not a context, removed or added line",
                unprefixed_at, fp.path, len(fp.hunks) + 1,
            )
        return self._after_hunk(hunk, fp, old, new)

    def _continues(self, index: int) -> bool:
        """After a blank line that follows a hunk whose header counts are met: do the hunk
        lines from ``index`` on hold a context line before the next header, the end, or other
        text? Only then do they continue the hunk (the blank was stripped blank context);
        otherwise they are text after it, such as markdown bullets ('- ...', '+ ...')."""
        if index <= self._context_ahead:
            return True
        items = self.items
        while index < len(items):
            line = items[index]
            first = line[:1]
            if first == b" ":
                self._context_ahead = index
                return True
            if line not in (b"\n", b"\r\n") and (
                    first not in (b"-", b"+", b"\\") or self._is_file_start(index)):
                return False
            index += 1
        return False

    def _cut_off(self, hunk: Hunk, fp: FilePatch, old: int, new: int, blanks: int) -> None:
        """The input ended inside this hunk. When its last line is a change line and its
        header counts are not met, the text may have been cut off (a model's output limit):
        with the old side complete and added lines missing, it is refused; with old lines
        missing, the hunk is marked to apply only where its old side ends the file. When its
        last line is context and both counts are short, it is refused (_cut_on_context)."""
        if hunk.old_count is None or hunk.new_count is None:
            return
        last = hunk.lines[-1].kind
        if last == CONTEXT:
            # Stripped blank lines at the end may be the hunk's last context lines.
            self._cut_on_context(hunk, fp, old + blanks, new + blanks)
            return
        if old < hunk.old_count and not hunk.old_no_newline:
            hunk.unfinished = True
        elif old == hunk.old_count and new < hunk.new_count and not hunk.new_no_newline:
            number = len(fp.hunks) + 1
            kind = "an added" if last == ADD else "a removed"
            raise PatchError(
                "truncated_patch",
                f"the patch ends inside hunk {number}, after {kind} line: its header says "
                f"{hunk.new_count} new lines, the body has {new}, so its last lines look cut off",
                patch_line=hunk.patch_line, path=fp.path, hunk=number,
                details={"header": [hunk.old_count, hunk.new_count], "body": [old, new]})

    def _cut_on_context(self, hunk: Hunk, fp: FilePatch, old: int, new: int) -> None:
        """The input ended on a context line while both header counts still want lines.

        A cut in a `git diff` falls anywhere, also on a context line after the first change
        (the rest of the hunk, more changes included, lost) or before it (no change at all):
        applying the part that arrived makes half an edit, or none while saying it applied.
        A hunk with no change is refused here. The lines missing are only context, and the
        edit whole, when they are as many on both sides and would not make the context after
        the last change longer than the context before the first (git writes as many lines at
        both ends, fewer only at the file's start or end), or when only a line or two are
        missing on one side (a model's miscount, in any direction; a cut loses the rest of
        the hunk, trailing context included, on both sides): the hunk is read as the body
        says.
        Otherwise the hunk is marked unfinished, like one cut after a change line: it applies
        only where its old side ends the file (nothing can be missing after that), and is
        refused `truncated_patch` anywhere else."""
        old_count, new_count = hunk.old_count or 0, hunk.new_count or 0
        if old >= old_count or new >= new_count or hunk.old_no_newline or hunk.new_no_newline:
            return
        kinds = [line.kind for line in hunk.lines]
        changed = [i for i, kind in enumerate(kinds) if kind != CONTEXT]
        if not changed:
            number = len(fp.hunks) + 1
            raise PatchError(
                "truncated_patch",
                f"the patch ends inside hunk {number}, before its first change: its header "
                f"says {old_count} old and {new_count} new lines, the body has {old} and {new} "
                "and no removed or added line, so the rest of it looks cut off",
                patch_line=hunk.patch_line, path=fp.path, hunk=number,
                details={"header": [old_count, new_count], "body": [old, new]})
        missing = old_count - old
        leading = changed[0]
        # stripped blank lines at the end were counted in old and new but are not in kinds
        trailing = len(kinds) - 1 - changed[-1] + (old - sum(kind != ADD for kind in kinds))
        room = leading if (hunk.old_start or 0) > 1 else max(leading, 3)
        if min(missing, new_count - new) <= MISCOUNT or trailing >= room:
            # a miscount: a cut leaves the rest of the hunk out, its context too; a hunk whose
            # context after its last change is as long as before its first looks whole
            return
        if missing != new_count - new or trailing + missing > room:
            hunk.unfinished = True

    def _lost_context_prefix(self, hunk: Hunk, old: int, new: int) -> bool:
        """Is this unprefixed line an unchanged line whose leading space was lost?

        Only inside a hunk (more hunk lines follow before any header) whose header counts are
        not yet met; the caller then requires the counts to come out exact, so a line that lost
        a '-' or '+' (which would shift one count only) is still refused.
        """
        if hunk.old_count is None or old >= hunk.old_count or new >= (hunk.new_count or 0):
            return False
        index = self.pos
        while index < len(self.items):
            line = self.items[index]
            if self._is_file_start(index) or header_text(line).startswith(b"@@"):
                return False
            if line[:1] in (b" ", b"-", b"+", b"\\"):
                return True
            index += 1
        return False

    def _is_mail_signature(self, hunk: Hunk, old: int, new: int) -> bool:
        """git format-patch ends a mail with '-- ' and the git version: not a removed line
        when the hunk's counts are already met and no hunk line follows it."""
        following = self._line(self.pos + 1)
        return self._counts_met(hunk, old, new) and (
            following is None or following[:1] not in (b" ", b"-", b"+", b"\\")
        )

    def _take_blanks(self, hunk: Hunk, blanks: list[bytes], old: int, new: int) -> tuple[int, int]:
        for blank in blanks:
            hunk.line_list().append(HunkLine(CONTEXT, blank))
        hunk.blank_context_lines += len(blanks)
        count = len(blanks)
        blanks.clear()
        return old + count, new + count

    def _trailing_blanks(self, hunk: Hunk, blanks: list[bytes], old: int, new: int) -> None:
        """Blank lines at a hunk's end: context when the header counts need them, else
        separators. Dropping trailing context never changes the edit, only its anchoring, so
        the matcher may also retry without them."""
        if not blanks or hunk.old_count is None or hunk.new_count is None:
            return
        needed = min(hunk.old_count - old, hunk.new_count - new, len(blanks))
        if needed > 0:
            for blank in blanks[:needed]:
                hunk.line_list().append(HunkLine(CONTEXT, blank))
            hunk.blank_context_lines += needed
            hunk.optional_tail = needed

    def _no_newline_marker(self, hunk: Hunk, line: bytes, blanks: list[bytes]) -> None:
        if blanks:  # a stripped blank line directly before the marker is context
            hunk.line_list().extend(HunkLine(CONTEXT, b) for b in blanks)
            hunk.blank_context_lines += len(blanks)
            blanks.clear()
        if not hunk.lines:
            raise self._error("malformed_hunk", "'\\ No newline at end of file' must follow a "
                              "body line", self.pos)
        last = hunk.lines[-1]
        # A CR before the newline is transport, not content, when the marker line has one too.
        ending = b"\r\n" if line.endswith(b"\r\n") and last.text.endswith(b"\r\n") else b"\n"
        text = last.text[: -len(ending)] if last.text.endswith(ending) else last.text
        hunk.line_list()[-1] = HunkLine(last.kind, text)
        if last.kind != ADD:
            hunk.old_no_newline = True
        if last.kind != REMOVE:
            hunk.new_no_newline = True

    def _after_hunk(self, hunk: Hunk, fp: FilePatch, old: int, new: int) -> bool:
        """Decide what the line that ended the hunk means."""
        end = self.pos
        if end >= len(self.items) or self._is_file_start(end):
            return False
        if header_text(self.items[end]).startswith(b"@@"):
            return True
        nxt = end
        while nxt < len(self.items) and not self._is_file_start(nxt) and not header_text(
            self.items[nxt]
        ).startswith(b"@@"):
            nxt += 1
        junk = self.items[end:nxt]
        hunk_like = any(line[:1] in (b" ", b"-", b"+") and line.strip() for line in junk)
        if hunk_like and not self._counts_met(hunk, old, new):
            raise self._error(
                "malformed_hunk",
                f"line '{_decode(header_text(self.items[end])[:60])}' inside hunk "
                f"{len(fp.hunks) + 1} is not a context, removed or added line",
                end, fp.path, len(fp.hunks) + 1,
            )
        if any(line.strip() for line in junk):
            for index in range(end, nxt):
                self._refuse_other_format(index)
                self._refuse_binary_line(index)
            self._note_skipped(end, nxt)
        self.pos = nxt
        return nxt < len(self.items) and header_text(self.items[nxt]).startswith(b"@@")

    def _count_diagnostics(self, hunk: Hunk, fp: FilePatch) -> None:
        if hunk.old_count is None:
            return
        old = sum(1 for line in hunk.lines if line.kind != ADD)
        new = sum(1 for line in hunk.lines if line.kind != REMOVE)
        if (old, new) != (hunk.old_count, hunk.new_count):
            fp.diagnostics.append(Diagnostic(
                "hunk_count_mismatch",
                f"hunk {len(fp.hunks)} header says -{hunk.old_count} +{hunk.new_count} lines, "
                f"the body has -{old} +{new}; the body was used",
                hunk.patch_line,
            ))
        if hunk.unprefixed_context_lines:
            fp.diagnostics.append(Diagnostic(
                "unprefixed_context_line",
                f"hunk {len(fp.hunks)}: {hunk.unprefixed_context_lines} line(s) without a "
                "prefix read as context lines (leading space missing; the header counts agree)",
                hunk.patch_line,
            ))
        if hunk.blank_context_lines:
            fp.diagnostics.append(Diagnostic(
                "blank_context_line",
                f"hunk {len(fp.hunks)}: {hunk.blank_context_lines} empty line(s) read as blank "
                "context lines (leading space missing)",
                hunk.patch_line,
            ))


def _mark_unidiff_zero(files: list[FilePatch]) -> None:
    """A patch none of whose changes has a context line, every hunk with line numbers, was
    written with diff -U0: its pure insertions may go where their headers say (the plan's
    at_line_number, as git apply --unidiff-zero)."""
    changes = [fp for fp in files if fp.kind in (FileKind.MODIFY, FileKind.RENAME)]
    hunks = [hunk for fp in changes for hunk in fp.hunks]
    if hunks and all(hunk.old_start is not None and CONTEXT not in hunk.kinds()
                     for hunk in hunks):
        for fp in changes:
            fp.unidiff_zero = True


def _check_plus_path_typos(files: list[FilePatch]) -> None:
    """A '+++' path read as a typo (the plan checks it does not exist) must not be a path
    another file patch of the patch names."""
    named = {path for fp in files for path in fp.paths}
    for fp in files:
        if fp.plus_path_typo is not None and fp.plus_path_typo in named:
            raise PatchError("inconsistent_header", f"'---' names {fp.path!r} and '+++' names "
                             f"{fp.plus_path_typo!r}, which another file patch names too",
                             patch_line=fp.patch_line, path=fp.path)


def parse_unified(lines: Lines, strip: int | None = None) -> Patch:
    # a path git takes and holon-git applies none of (a tab, a backslash) is read, its file
    # patch held refused, so that --exclude may leave it out (left_out.py)
    with listing_only():
        return UnifiedParser(lines, strip).parse()
