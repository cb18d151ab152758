"""One file patch's hunks applied to a file's content, in order: each placed (core/place/),
checked against being there already (applied.py), and spliced in. Raises the first hunk's
refusal, located; the plan decides what a refusal leads to (the rescue, rescue.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from ...errors import PatchError
from ..change import HunkResult
from ..model import (
    ADD,
    CONTEXT,
    Diagnostic,
    FilePatch,
    Hunk,
    HunkLine,
    new_side,
    sides,
)
from ..place.edges import claimed_edges
from ..place.match import (
    LEVELS,
    WHITESPACE,
    Found,
    Matches,
    RunningFile,
    choose,
    near_miss,
    split_lines,
)
from ..place.splice import dominant_eol, new_window
from .applied import HunkCheck

if TYPE_CHECKING:
    from ..place.reindent import FileIndent


# A file is searched on its bytes while hunks x size stays under this: each hunk's search
# reads the whole file (in C), where the line search splits and indexes it once.
BYTES_FIRST_BUDGET = 8 << 20


def apply_hunks(fp: FilePatch, content: bytes, reverse: bool, matching: str = "auto",
                 seek_elsewhere: bool = False
                 ) -> tuple[bytes, list[HunkResult], list[Diagnostic]]:
    """The file patch's hunks applied to ``content``: the new content, where each hunk went,
    and the notes; raises the first hunk's refusal, located.

    ``matching``: "auto" places on the file's bytes first (exact.py) and falls back to the
    line search for anything unusual; "lines" uses the line search only; "exhaustive" also
    lists every copy of an old side before deciding (the reference the tests compare with).
    """
    if matching == "auto" and _bytes_first(fp, content):
        from ..place.exact import ByteFile, Unusual

        try:
            return apply_on(ByteFile(content), fp, content, reverse, seek_elsewhere)
        except (Unusual, PatchError):
            pass  # the line search decides, and words any refusal
    running = RunningFile(split_lines(content))
    running.exhaustive = matching == "exhaustive"
    try:
        return apply_on(running, fp, content, reverse, seek_elsewhere)
    except PatchError as err:
        from ..advice import advise  # a refusal only: say what most likely went wrong

        raise advise(err, fp, running.original) from None


def _bytes_first(fp: FilePatch, content: bytes) -> bool:
    return (content.endswith(b"\n") and len(fp.hunks) * len(content) <= BYTES_FIRST_BUDGET
            and not any(h.anchor_text or h.anchor_end or h.old_no_newline or h.new_no_newline
                        or h.unfinished for h in fp.hunks))


def apply_on(running: RunningFile, fp: FilePatch, content: bytes, reverse: bool,
              seek_elsewhere: bool = False) -> tuple[bytes, list[HunkResult], list[Diagnostic]]:
    applier = _HunkApplier(running, content, reverse)
    applier.check.seek_elsewhere = seek_elsewhere
    applier.hunks = fp.hunks
    results = []
    for number, hunk in enumerate(fp.hunks, 1):
        try:
            results.append(applier.apply(hunk, number))
        except PatchError as err:
            raise err.located(hunk=number, patch_line=hunk.patch_line) from None
    return running.content(), results, applier.diagnostics


class _HunkApplier:
    """Applies the hunks of one file in order, carrying the drift between hint and match."""

    def __init__(self, running: RunningFile, content: bytes, reverse: bool) -> None:
        self.running = running
        self.content = content
        self.reverse = reverse
        self.drift = 0
        self.diagnostics: list[Diagnostic] = []
        self.check = HunkCheck(running, reverse)  # is a hunk's change there already?
        self.hunks: Sequence[Hunk] = ()  # the file patch's hunks (punctuation evidence)

    @cached_property
    def eol(self) -> bytes | None:
        """The file's usual line ending; needed only when a tolerance matched or a line must
        gain an ending, so most files are never scanned for it."""
        return dominant_eol(self.content)

    @cached_property
    def indent_style(self) -> FileIndent:
        """How the file indents (read only when a hunk matched with whitespace ignored)."""
        from ..place.reindent import indent_style

        return indent_style(self.content)

    @cached_property
    def typographic(self) -> frozenset[str]:
        """The file's typographic characters (read only when a hunk matched loosely)."""
        from ..place.punctuation import typographic_characters

        return typographic_characters(self.content)

    @cached_property
    def smartened(self) -> dict[str, str]:
        """Typographic characters a transport put into the whole file patch, to ASCII
        (punctuation.py; read only for a hunk adding a non-ASCII line)."""
        from ..place.punctuation import smartened_mapping

        return smartened_mapping(self.hunks, self.typographic)

    def fill_eol(self) -> bytes:
        return self.eol or b"\n"

    def apply(self, hunk: Hunk, number: int) -> HunkResult:
        running = self.running
        self.check.next_hunk()
        lines: Sequence[HunkLine] = hunk.lines  # a packed body stays packed unless needed
        old, new = sides(lines)
        raw_hint = None
        if hunk.old_start is not None:
            raw_hint = max(hunk.old_start - (1 if old else 0), 0)
        hints = [raw_hint, None if raw_hint is None else raw_hint + self.drift]
        at_end = (hunk.old_no_newline or hunk.new_no_newline or hunk.anchor_end
                  or hunk.unfinished)
        tolerances: list[str] = []
        by_anchor = False
        last_line = running.last_line()
        # a hunk with no context says nothing about the file's line endings (see below)
        no_context = not old and running.length > 0
        if not old and hunk.anchor_end and last_line and not last_line.endswith(b"\n"):
            # Appending after a last line that has no line ending: that line gains one, so it
            # joins the hunk as context (and is found at the end like any other).
            lines = [HunkLine(CONTEXT, last_line), *lines]
            old, new = [last_line], [last_line, *new]
        if not old:
            if running.length:
                self.check.insertion(hunk, lines, new)
            if running.length and not hunk.anchor_end:
                raise PatchError("ambiguous_context", "the hunk has no context or removed "
                                 "lines, so nothing anchors it in a non-empty file",
                                 hint="add a few unchanged lines around the insertion as "
                                 "context (in an envelope, '*** End of File' after the hunk "
                                 "appends it at the end)")
            start = running.length  # an empty file, or after the last line
            original, level, by_hint = running.to_original(start, 0), 0, False
            assert original is not None
        else:
            near = hints[1]
            found = running.search(old, at_end, near=near)
            if not found and 0 < hunk.optional_tail < len(old):
                lines = list(lines)[: len(lines) - hunk.optional_tail]
                old, new = sides(lines)
                found = running.search(old, at_end, near=near)
                tolerances.append("trailing_blank_lines_as_separator")
            if not found:
                refusal = self._not_found(hunk, number, new, old, hints[1])
                if hunk.unfinished and refusal.code == "context_not_found" \
                        and running.search(old):
                    raise _cut_off(hunk)  # found, but not where a cut-off hunk may end
                raise refusal
            self.check.claimed(hunk, lines, old, new, found, hints[1], self.drift)
            if not new and raw_hint is not None and len(old) < running.length:
                found = _at_hint_only(found, hints)
            if hunk.anchor_text and len(some := found.some(2)) == 1:
                from ..place.anchor import refuse_copy_before_anchor

                refuse_copy_before_anchor(running.lines(), some[0], len(old), hunk.anchor_text)
            try:
                candidate, by_hint = choose(found, hints)
            except PatchError as err:
                if not hunk.anchor_text or err.code != "ambiguous_context":
                    raise
                from ..place.anchor import copy_after_anchor

                candidate, anchor_line = copy_after_anchor(
                    running.lines(), found.candidates, hunk.anchor_text, err)
                by_hint, by_anchor = False, True
                self.diagnostics.append(Diagnostic(
                    "placed_by_anchor", f"hunk {number}: its old lines occur "
                    f"{len(found.candidates)} times; the first copy after line "
                    f"{anchor_line + 1}, which matches its '@@ {hunk.anchor_text}' line, was "
                    "used", hunk.patch_line))
            if candidate.original is None:
                earlier = running.hunks_in_current(candidate.start, len(old))
                raise _overlapping(earlier, number)
            start, original, level = candidate.start, candidate.original, found.level
            self.check.at_match(hunk, old, new, candidate, level, hints[1], by_hint)
        if level:
            tolerances.append(LEVELS[level])
        size = len(old)
        off_edge = bool(old) and not claimed_edges(hunk, lines).hold(start, size,
                                                                     running.length)
        window = running.window(start, size)
        if level >= WHITESPACE:  # the added lines are written the file's way
            self.check.loose(old, new, at_end)
            from ..place.reindent import adapt_added_lines

            lines, rewritten = adapt_added_lines(list(lines), window, level, original + 1,
                                                 self.indent_style, self.typographic)
            tolerances.extend(rewritten)
            new = new_side(lines)
        if new != old and not all(line.isascii() for line in new) and self.smartened:
            from ..place.punctuation import normalize_with

            lines, changed = normalize_with(lines, self.smartened)
            if changed:
                new = new_side(lines)
                if "punctuation_normalized" not in tolerances:
                    tolerances.append("punctuation_normalized")
        added_eol = self.eol if level else None
        if no_context and self._endings_differ(lines):
            # Its added lines take the file's usual ending, as under a tolerance: an LF
            # envelope's append to a CRLF file writes CRLF lines (and the reverse).
            added_eol = self.eol
            if LEVELS[1] not in tolerances:
                tolerances.append(LEVELS[1])
        if hunk.blank_context_lines:
            tolerances.append("blank_context_line")
        if hunk.unprefixed_context_lines:
            tolerances.append("unprefixed_context_line")
        at_end_now = start + size == running.length
        # an empty file does not "lack" a final newline: only a last line can
        last = running.last_line()
        had_newline = last is None or last.endswith(b"\n")
        final_newline = had_newline
        if hunk.old_no_newline != hunk.new_no_newline:
            final_newline = hunk.old_no_newline
        new = new_window(
            window, lines,
            added_eol=added_eol,
            fill_eol=self.fill_eol,
            at_end=at_end_now,
            final_newline=final_newline,
            new=new,
        )
        running.replace(start, size, new, number)
        if raw_hint is not None:
            self.drift = original - raw_hint
        if by_hint:
            self.diagnostics.append(Diagnostic(
                "placed_by_line_number",
                f"hunk {number}: its old lines occur more than once; the copy at the hinted "
                f"line {original + 1} was used", hunk.patch_line))
        hinted = hunk.old_start
        return HunkResult(number, hinted, original + 1, tolerances, by_hint, by_anchor,
                          self.check.new_side_elsewhere, off_edge)

    def _endings_differ(self, lines: Sequence[HunkLine]) -> bool:
        """Does an added line end other than the file's usual way (LF in a CRLF file, or
        CRLF in an LF file)?"""
        eol = self.eol
        return eol is not None and any(
            line.kind == ADD and line.text.endswith(b"\n")
            and line.text.endswith(b"\r\n") != (eol == b"\r\n") for line in lines)

    def _not_found(self, hunk: Hunk, number: int, new: list[bytes], old: list[bytes],
                   hint: int | None) -> PatchError:
        at_end = (hunk.old_no_newline or hunk.new_no_newline or hunk.anchor_end
                  or hunk.unfinished)
        running = self.running
        for start in running.find_original(old, at_end):
            earlier = running.hunks_in_original(start, len(old))
            if earlier:
                return _overlapping(earlier, number)
        applied = self.check.not_found(old, new, at_end)
        if applied is not None:
            return applied
        # near misses are shown in the file as it is on disk, never as earlier hunks left it
        details = near_miss(running.original, old, hint)
        diff = details.get("first_difference")
        message = "the hunk's old lines were not found"
        if diff:
            message += (f"; nearest match at line {details['nearest_line']}, first difference "
                        f"at line {diff['line']}: expected {diff['expected']!r}, found "
                        + ("the end of the file" if diff["found"] is None
                           else repr(diff["found"])))
        return PatchError("context_not_found", message, details=details)


def _cut_off(hunk: Hunk) -> PatchError:
    """A hunk the input ended inside (Hunk.unfinished) whose old side does not reach the end
    of the file: lines after it may be missing."""
    return PatchError(
        "truncated_patch", f"the patch ends inside this hunk, after a change line, with "
        f"{hunk.old_count} old lines in its header but fewer in its body; the hunk's lines do "
        "not reach the end of the file, so the rest of it looks cut off",
        details={"header": [hunk.old_count, hunk.new_count]})


def _at_hint_only(found: Matches, hints: Sequence[int | None]) -> Found:
    """A hunk that only removes lines, with no context (diff -U0), leaves nothing behind to
    recognise it by: sent again, it would remove the next copy of its lines. So when it has
    a line number, it is placed only where that number (or the drift-corrected one) says
    (unless it removes the whole file, which has no second copy)."""
    at_hint = [c for h in sorted({h for h in hints if h is not None})
               if (c := found.at_original(h)) is not None]
    if not at_hint:
        lines = ", ".join(str((c.original if c.original is not None else c.start) + 1)
                          for c in found.candidates[:10])
        raise PatchError("ambiguous_context", "the hunk only removes lines and has no context; "
                         f"its line number does not hold them (they are at line {lines}), so "
                         "nothing says which lines are meant",
                         hint="add a few unchanged lines around the removed lines as context")
    return Found(sorted(at_hint), found.level)


def _overlapping(earlier: list[int], number: int) -> PatchError:
    hunks = [*earlier, number]
    named = ", ".join(map(str, earlier))
    return PatchError("overlapping_edits", f"hunk {number} changes lines that hunk"
                      f"{'s' if len(earlier) > 1 else ''} {named} of this file also "
                      "change", details={"hunks": hunks})
