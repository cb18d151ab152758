"""One file patch's hunks applied to a file's content, in order: each placed (core/place/),
checked against being there already (applied.py), and spliced in. Raises the first hunk's
refusal, located; the plan decides what a refusal leads to (the rescue, rescue.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from ...errors import PatchError
from ..change import HunkResult
from ..model import (
    ADD,
    CONTEXT,
    REMOVE,
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
    equal_level,
    key_ws,
    near_miss,
    split_lines,
    telling_levels,
)
from ..place.splice import dominant_eol, new_window

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
    applier.seek_elsewhere = seek_elsewhere
    applier.hunks = fp.hunks
    results = []
    for number, hunk in enumerate(fp.hunks, 1):
        try:
            results.append(applier.apply(hunk, number))
        except PatchError as err:
            raise err.located(hunk=number, patch_line=hunk.patch_line) from None
    return running.content(), results, applier.diagnostics


def _kept_run(hunk: Hunk) -> int | None:
    """Where a deletion's new side lies in its old side as one run of the same lines: after
    the removed lines when they open the hunk, at 0 when they close it; None otherwise (added
    lines, or removed lines between context)."""
    kinds = [line.kind for line in hunk.lines if line.kind in (CONTEXT, REMOVE, ADD)]
    if ADD in kinds:
        return None
    removed = kinds.count(REMOVE)
    if kinds[:removed] == [REMOVE] * removed:
        return removed
    if kinds[len(kinds) - removed:] == [REMOVE] * removed:
        return 0
    return None


_FEW = 64  # copies of a new side's rarest line sought in the whole file, at most


class _HunkApplier:
    """Applies the hunks of one file in order, carrying the drift between hint and match."""

    def __init__(self, running: RunningFile, content: bytes, reverse: bool) -> None:
        self.running = running
        self.content = content
        self.reverse = reverse
        self.drift = 0
        self.diagnostics: list[Diagnostic] = []
        self._sits: dict[tuple[int, int], bool] = {}  # (claim, levels): the new side is there
        # a hunk was placed away from its line number while its new side sits elsewhere,
        # farther from it: a re-send after a large shift looks so (_refuse_if_nearer)
        self.new_side_elsewhere = False
        self.seek_elsewhere = False  # look for that at all (the history log can answer)
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
        self._sits.clear()
        self.new_side_elsewhere = False
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
            claims = claimed_edges(hunk, lines).places(running.length, len(new))
            if running.length:
                self._refuse_if_applied(hunk, new, claims)
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
            if new != old:
                hinted = self._hint_claims(hunk, hints[1], new)
                hinted += self._anchor_claims(hunk, new, found)
                edges = [at for at in claimed_edges(hunk, lines).places(running.length, len(new))
                         if at not in hinted]
                hinted_old = None if hints[1] is None else running.to_current(hints[1])
                self._refuse_if_applied(hunk, new, [*hinted, *edges], old, found, edges,
                                        hinted_old=hinted_old)
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
            if new != old:  # the new side where this match would put it
                self._refuse_if_applied(hunk, new, [start, start + len(old) - len(new)], old,
                                        Found([candidate], level))
                if hints[1] is not None:
                    self._refuse_if_nearer(hunk, new, old, Found([candidate], level), hints[1],
                                           by_hint)
        if level:
            tolerances.append(LEVELS[level])
        size = len(old)
        off_edge = bool(old) and not claimed_edges(hunk, lines).hold(start, size,
                                                                     running.length)
        window = running.window(start, size)
        if level >= WHITESPACE:  # the added lines are written the file's way
            self._refuse_if_applied_strictly(old, new, at_end)
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
                          self.new_side_elsewhere, off_edge)

    def _endings_differ(self, lines: Sequence[HunkLine]) -> bool:
        """Does an added line end other than the file's usual way (LF in a CRLF file, or
        CRLF in an LF file)?"""
        eol = self.eol
        return eol is not None and any(
            line.kind == ADD and line.text.endswith(b"\n")
            and line.text.endswith(b"\r\n") != (eol == b"\r\n") for line in lines)

    def _refuse_if_applied_strictly(self, old: list[bytes], new: list[bytes],
                                    at_end: bool) -> None:
        """A hunk found only with blanks or punctuation ignored, whose new side the file
        already has under a strict level: the patch was applied (a re-send), and the loose
        copy is another place that merely looks alike. Never edit that one."""
        strict = range(min(WHITESPACE, telling_levels(old, new)))
        if new and new != old and self.running.search(new, at_end, levels=strict):
            raise self._applied_error("the hunk's new lines are already in the file; its old "
                                      "lines match elsewhere only with whitespace or "
                                      "punctuation ignored")

    def _refuse_if_nearer(self, hunk: Hunk, new: list[bytes], old: list[bytes],
                          found: Found, hint: int, by_hint: bool) -> None:
        """Where does the new side sit, seen from the hinted line (item 7e)?

        The old side was found (not by the line number) away from the hinted line: if the
        new side sits nearer to it, the hunk was applied there, and the match is another
        copy that an edit since moved away from it. A hunk placed by its line number among
        copies, re-sent after an unrelated edit above, must not edit the next copy. A fresh
        hunk is refused so only when the file already holds its new text nearer its line
        number than its old text. When the new side sits elsewhere, farther, the file alone
        cannot tell: the hunk is marked, and the plan asks the history log (rescue.py)."""
        running = self.running
        center = running.to_current(hint)
        (candidate,) = found.candidates
        if center is None or not new:
            return
        radius = 0 if by_hint else abs(candidate.start - center)
        levels = found.level + 1
        if len(old) == len(new):  # only the levels that tell the new side from the old
            levels = equal_level(old, new, levels)
        claims: list[int] = []
        if radius:
            claims = sorted({at for level in range(levels)
                             for at in running.starts_near(new, level, center, radius) or ()},
                            key=lambda at: abs(at - center))
            self._refuse_if_applied(
                hunk, new, claims, old, found,
                where=f"nearer its line number ({center + 1}) than its old lines, at line "
                f"{candidate.start + 1}: an edit since moved the lines, and the old lines "
                "there are another copy")
        if not self.seek_elsewhere:
            return
        farther: set[int] = set()
        for level in range(levels):
            # a new side made of lines repeated throughout the file is not sought everywhere
            starts = running.starts_near(new, level, center, running.length + 1, _FEW)
            if starts is None:
                return
            farther.update(starts)
        if self._first_applied(hunk, new, sorted(farther - set(claims)), old, found, ()):
            self.new_side_elsewhere = True

    def _anchor_claims(self, hunk: Hunk, new: list[bytes], found: Found) -> list[int]:
        """An envelope hunk's '@@ <text>' says where it goes: after the one line matching the
        text. Where its new side sits first after that line (before any copy of its old
        side), the hunk claims to be: a re-sent hunk is found there, not at another copy."""
        if not hunk.anchor_text or not new:
            return []
        from ..place.anchor import claim_after_anchor

        return claim_after_anchor(self.running, new, [c.start for c in found.candidates],
                                  hunk.anchor_text)

    def _applied_error(self, message: str) -> PatchError:
        if self.reverse:
            return PatchError("not_applied", "the file has the hunk's old lines where the hunk "
                              "goes, not its new ones: the patch is not applied, so there is "
                              "nothing to reverse")
        return PatchError("already_applied", message)

    def _hint_claims(self, hunk: Hunk, hint: int | None, new: list[bytes]) -> list[int]:
        """Where the hunk's line numbers say its new side goes, in the current file: the
        hinted old line (drift-corrected) and the new side's own line number."""
        claims = []
        if hint is not None:
            at = self.running.to_current(hint)
            if at is not None:
                claims.append(at)
        if hunk.new_start is not None:
            claims.append(max(hunk.new_start - (1 if new else 0), 0) + self.drift)
        return claims

    def _refuse_if_applied(self, hunk: Hunk, new: list[bytes], claims: Iterable[int],
                           old: Sequence[bytes] = (), matches: Matches | None = None,
                           edges: Sequence[int] = (),
                           where: str = "where the hunk goes",
                           hinted_old: int | None = None) -> None:
        """Refuse when the hunk's new side already sits at a place the hunk claims.

        New lines that lie inside a match of the old side and equal its lines there say
        nothing (a deletion's new side is part of its old side), so they do not count. An
        edge claim (``edges``) counts only where the new side there overlaps a match of the
        old side: a hunk whose context was cut short in the middle of a file does not claim
        the file's end. A hunk that changes whether the file ends with a newline sits only at
        the end, with the ending its new side has (the comparison levels ignore a missing
        final newline). Only the matches near a claim where the new side sits are sought.

        The new side is compared no more loosely than the old side was found: an apply at a
        level writes the new side so that it matches there, and a looser level would take a
        fresh hunk's new lines for lines that only look like them (a deletion's trailing
        context '    )' for the ')' before it, with indentation ignored). A hunk with no old
        side was never placed loosely.
        """
        found = self._first_applied(hunk, new, claims, old, matches, edges, hinted_old)
        if found is None:
            return
        at, beside = found
        if beside is not None:
            raise self._repeat_error(at, beside)
        raise self._applied_error(f"the hunk's new lines are already at line {at + 1}, {where}")

    def _first_applied(self, hunk: Hunk, new: list[bytes], claims: Iterable[int],
                       old: Sequence[bytes], matches: Matches | None,
                       edges: Sequence[int], hinted_old: int | None = None
                       ) -> tuple[int, int | None] | None:
        """The first claim where the new side counts as sitting (see _refuse_if_applied),
        and where a copy of the old side overlaps it at a place the hunk could go (its added
        lines repeat their neighbours), if one does.

        A new side inside a match of the old side says nothing, unless that match is off the
        hinted line (``hinted_old``), the old side is not there, the new side sits at a
        hinted claim, and not as the very lines the deletion keeps (``_kept_run``): a deletion
        among lines that repeat (a blank line out of a run of blanks), re-sent, looks so, and
        the file cannot tell it from a fresh one."""
        if not new or not claims:
            return None
        running = self.running
        ending = None if hunk.old_no_newline == hunk.new_no_newline else not hunk.new_no_newline
        wanted = olds = None
        loosest = WHITESPACE if matches is None else matches.level + 1
        size, telling = len(new), min(telling_levels(old, new), loosest)

        def match_at(start: int) -> bool:
            return matches is not None and matches.at(start) is not None

        for at in dict.fromkeys(claims):
            if ending is not None and (at + size != running.length or ending != (
                    running.last_line() or b"").endswith(b"\n")):
                continue
            sits = self._sits.get((at, telling))
            if sits is None:
                sits = self._sits[at, telling] = running.sits_at(at, new, telling) is not None
            if not sits:
                continue
            if wanted is None:
                wanted, olds = [key_ws(line) for line in new], [key_ws(line) for line in old]
            assert olds is not None
            inside = [m for m in range(at + size - len(olds), at + 1)
                      if olds[at - m : at - m + size] == wanted and match_at(m)]
            if inside:
                if hinted_old is None or hinted_old in inside or at != hinted_old \
                        or match_at(hinted_old) or _kept_run(hunk) in {at - m for m in inside}:
                    continue
                return at, inside[0]
            if at in edges and not any(map(match_at, range(at - len(olds) + 1, at + size))):
                continue  # an edge the new side would reach only away from the old side
            beside = next((m for m in range(at - len(olds) + 1, at + size)
                           if match_at(m) and self._could_go(hunk, m, len(olds))), None)
            return at, beside
        return None

    def _could_go(self, hunk: Hunk, start: int, size: int) -> bool:
        """Could a fresh hunk go at this match of its old side, by its own edge claims (a
        hunk whose context runs out at the file's end or start matches only there)?"""
        return claimed_edges(hunk, hunk.lines).hold(start, size, self.running.length)

    def _repeat_error(self, at: int, beside: int) -> PatchError:
        """The file holds the hunk's new lines where it goes, and its old lines overlapping
        them at a place it could go too: the lines the hunk adds equal the lines beside them
        (a fifth blank line after four). Applied or not, the file reads the same; so the hunk
        is refused, saying so (the plan may tell more from the history log: rescue.py)."""
        details = {"repeats": {"new_lines_at": at + 1, "old_lines_at": beside + 1}}
        if self.reverse:
            return PatchError(
                "not_applied", f"the reversed hunk's new lines are already at line {at + 1}, "
                f"where it goes, and its old lines are there too, at line {beside + 1}: the "
                "lines it would put back repeat the lines beside them, so nothing in the file "
                "tells whether the patch is applied",
                hint="the lines repeat their neighbours, so nothing in the file tells whether "
                "the patch is applied; if it is, undo it with a hunk whose context tells the "
                "places apart", details=details)
        return PatchError(
            "already_applied", f"the hunk's new lines are already at line {at + 1}, where the "
            f"hunk goes, but its old lines are there too, at line {beside + 1}: the lines it "
            "adds repeat the lines beside them, so a re-sent patch and a new insertion of "
            "those lines look the same",
            hint="the file may or may not hold your edit: the added lines equal their "
            "neighbours, so a re-send and a new insertion look the same; if the edit is not in "
            "yet, add a context line that tells the places apart", details=details)

    def _not_found(self, hunk: Hunk, number: int, new: list[bytes], old: list[bytes],
                   hint: int | None) -> PatchError:
        at_end = (hunk.old_no_newline or hunk.new_no_newline or hunk.anchor_end
                  or hunk.unfinished)
        running = self.running
        for start in running.find_original(old, at_end):
            earlier = running.hunks_in_original(start, len(old))
            if earlier:
                return _overlapping(earlier, number)
        if new and new != old and running.search(new, at_end):
            return self._applied_error("the hunk's new lines are already in the file and its "
                                       "old lines are not")
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
