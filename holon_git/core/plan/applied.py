"""Already applied, or not applied? The one module that says so.

A patch sent again must change nothing the second time, and a reversed patch (-R) that is not
applied has nothing to undo: both are refused, ``already_applied`` (``not_applied`` with -R),
rather than applied again at another copy. Every such refusal is built here, by
``applied_error()``.

The evidence, asked by the plan where it has it:

- the history log: this tool applied this very patch to the file, which still holds what it
  wrote (``refuse_a_recorded_resend``); a recorded pre-image, patched, is the current file
  (``repeat_by_history``, ``refuse_if_applied_before``);
- the file: an added file exists with the patch's content (``refuse_if_added``); a rename's
  source is gone and its destination there (``refuse_if_renamed``); a deleted file is gone and
  another version held exactly the deleted lines (``refuse_if_deleted_already``);
- the hunks, asked while a file's hunks are placed in order (``HunkCheck``): does a hunk's new
  side already sit where the hunk claims to go (its line numbers, its '@@' text, a file edge it
  claims by git's rules, the copy of its old side it was found at, nearer its line number than
  that copy), and not merely as lines its old side keeps? Is its new side in the file under a
  strict level while its old side matches only loosely? Is its old side nowhere and its new
  side there?
- the merge: the three-way rescue's merge changes nothing, or the file holds its change
  (``refuse_if_merged_in``); a merge conflicts while the whole patch, reversed, applies
  (``after_conflict``).

The rules that replay a file patch on another version are handed the replay
(hunks.apply_hunks) by the plan: this module imports nothing above it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from ...errors import PatchError, let_go
from ..change import FileChange, HunkResult, Reader
from ..model import (
    ADD,
    CONTEXT,
    REMOVE,
    Diagnostic,
    FilePatch,
    Hunk,
    HunkLine,
    Patch,
    sides,
)
from ..place.edges import away_from, claimed_edges
from ..place.match import (
    KEYS,
    WHITESPACE,
    Candidate,
    Found,
    Matches,
    RunningFile,
    equal_level,
    key_ws,
    split_lines,
    telling_levels,
)
from ..threeway import KnownVersions, Merged, Version


def applied_error(reverse: bool, message: str, *, hint: str = "", path: str | None = None,
                  patch_line: int | None = None, details: dict[str, Any] | None = None
                  ) -> PatchError:
    """The refusal of a change that is in the file already (``already_applied``), or, for a
    reversed patch, of one that is not (``not_applied``)."""
    code = "not_applied" if reverse else "already_applied"
    return PatchError(code, message, hint=hint, path=path, patch_line=patch_line,
                      details=details if details is not None else {})


def hunk_in_file(err: PatchError, reverse: bool) -> bool:
    """Is ``err`` the hunk rules' word that one hunk's change is in the file (with -R: is
    not)?"""
    return err.code == ("not_applied" if reverse else "already_applied")


def wholly_in(fp: FilePatch, there: Sequence[int]) -> bool:
    """Is every hunk of the file patch in the file (``there``, by the hunk rules), so that
    the whole change is? A patch only some of whose hunks are in is not applied already: an
    agent that re-sends its whole change since HEAD with one new hunk must not be told its
    edit is in (rescue.py merges it). Hunks --reject left out (``fp.left_out``) are not
    the patch's any more."""
    return not there or len(there) == len(fp.hunks) - len(fp.left_out)


def merge_may_tell(refusal: PatchError) -> bool:
    """Is ``refusal`` (a hunk's change is in) only the weakest evidence, its old side being
    nowhere and its new side somewhere (a first step's deletion, made, can leave the second
    step's context whole)? Then a clean merge from the version the patch was written against
    that changes the file says the change is not in (rescue.rescue_partly_applied)."""
    return refusal.details.get("old_lines_found") is False


def refuse_unless_merge_tells(refusal: PatchError, merged: bytes, ours: bytes,
                              theirs: bytes) -> None:
    """A merge offered against the hunk rules' word that the change is in must not hold a
    line more often, or less often, than both the current text and base + patch do (git's
    alignment among repeated lines can take one change, made on both sides, for two): then
    ``refusal`` stands."""
    if _merge_out_of_bounds(merged, ours, theirs):
        raise refusal


def partly_applied_error(fp: FilePatch, there: Sequence[int], reverse: bool) -> PatchError:
    """The refusal of a file patch some of whose hunks are in the file and some not, that no
    other version of the file takes whole (so no merge can tell what the rest should do)."""
    missing = [n for n in range(1, len(fp.hunks) + 1)
               if n not in set(there) and n not in fp.left_out]
    listed, rest = _numbered(there), _numbered(missing)
    if reverse:
        message = (f"the reversed patch's {listed} {'are' if len(there) > 1 else 'is'} not "
                   f"applied (nothing to undo) and its {rest} "
                   f"{'are' if len(missing) > 1 else 'is'}, and no other version of the file "
                   "takes the whole patch to merge from")
        hint = ("undo only the hunks whose change is in the file, with a patch written against "
                "its current text (re-read it)")
    else:
        message = (f"the patch's {listed} {'are' if len(there) > 1 else 'is'} already in the "
                   f"file, its {rest} {'are' if len(missing) > 1 else 'is'} not, and no other "
                   "version of the file (the index, HEAD, a version this tool recorded) takes "
                   "the whole patch to merge it from")
        hint = ("the file holds part of this patch: send only the hunks not in it yet, written "
                "against its current text (re-read it)")
    # in the file: the hunks whose change (forward) the file holds
    in_file, not_in_file = (missing, list(there)) if reverse else (list(there), missing)
    return PatchError("partly_applied", message, hint=hint, path=fp.path,
                      patch_line=fp.patch_line,
                      details={"hunks_in_file": in_file, "hunks_not_in_file": not_in_file})


def _numbered(hunks: Sequence[int]) -> str:
    return ("hunk " if len(hunks) == 1 else "hunks ") + ", ".join(map(str, hunks))


def nothing_to_ask(hunk: Hunk, inside: Sequence[int], hinted: int | None) -> bool:
    """May a hunk placed by the top rung (fast.py: found exactly, at the only copy of its old
    side in the current file) skip the hunk rules? ``inside``: where its new side sits in the
    file, as lines from the copy's start, every one inside the copy (a new side found
    anywhere else is left to the rules); ``hinted``: the line its number points to (moved by
    the hunks before it), from the copy's start, or None.

    Every rule of HunkCheck asks whether the new side sits somewhere (compared exactly, as the
    old side was found): at a place the hunk claims (its line numbers, a file edge), where the
    copy would put it, nearer its line number than the copy, anywhere else (which marks it,
    ``new_side_elsewhere``). A new side that sits nowhere meets none of them. One that sits
    only inside the copy, as lines the old side holds, says nothing (_first_applied), unless it
    sits at the hinted line and the copy does not, and not as the very lines a deletion keeps:
    then the rules decide."""
    if hinted is None or hinted == 0 or hinted not in inside:
        return True
    return _kept_run(hunk) == hinted


_FEW = 64  # copies of a new side's rarest line sought in the whole file, at most


class HunkCheck:
    """The hunk rules for one file's hunks, asked as each is placed (hunks.py), in order.

    Each question raises the refusal when the hunk's change is there already; a new side
    found only elsewhere, farther from the line number than the copy the hunk was placed at,
    is not refused but noted (``new_side_elsewhere``): the plan asks the history log.
    """

    def __init__(self, running: RunningFile, reverse: bool, seek_elsewhere: bool = False,
                 exact_repeats: bool = False) -> None:
        self.running = running
        self.reverse = reverse
        self.seek_elsewhere = seek_elsewhere  # look for that at all (the history log can answer)
        # let a hunk whose added lines repeat their neighbours through when its line numbers
        # fit the file exactly (repeat_by_line_numbers: only when the log tells it is no re-send)
        self.exact_repeats = exact_repeats
        self._sits: dict[tuple[int, int], bool] = {}  # (claim, levels): the new side is there
        # a hunk was placed away from its line number while its new side sits elsewhere,
        # farther from it: a re-send after a large shift looks so (_nearer)
        self.new_side_elsewhere = False
        self._fits = False  # the hunk's line numbers fit the file exactly (next_hunk)

    def next_hunk(self, fits: bool = False) -> None:
        """Forget what was found for the hunk before (the file has changed since); ``fits``:
        the hunk's old side is exactly at its line number, and its header's numbers agree
        with those of the hunks before it."""
        self._sits.clear()
        self.new_side_elsewhere = False
        self._fits = fits

    # -- the questions, in the order a hunk's placement asks them ----------------------------
    def insertion(self, hunk: Hunk, lines: Sequence[HunkLine], new: list[bytes]) -> None:
        """A hunk with no old side, in a non-empty file: its new side at a file edge it
        claims."""
        claims = claimed_edges(hunk, lines).places(self.running.length, len(new))
        self._refuse_at(hunk, new, claims)

    def claimed(self, hunk: Hunk, lines: Sequence[HunkLine], old: list[bytes],
                new: list[bytes], found: Matches, hint: int | None, drift: int) -> None:
        """Copies of the old side are found (``found``), none chosen yet: the new side at a
        place the hunk's line numbers, its '@@' text or its file edges claim."""
        if new == old:
            return
        running = self.running
        hinted = self._hint_claims(hunk, hint, new, drift)
        hinted += self._anchor_claims(hunk, new, found)
        edges = [at for at in claimed_edges(hunk, lines).places(running.length, len(new))
                 if at not in hinted]
        hinted_old = None if hint is None else running.to_current(hint)
        self._refuse_at(hunk, new, [*hinted, *edges], old, found, edges, hinted_old=hinted_old)

    def at_match(self, hunk: Hunk, old: list[bytes], new: list[bytes], candidate: Candidate,
                 level: int, hint: int | None, by_hint: bool) -> None:
        """The copy is chosen: the new side where this match would put it, or nearer the
        hinted line than the copy is."""
        if new == old:
            return
        start = candidate.start
        self._refuse_at(hunk, new, [start, start + len(old) - len(new)], old,
                        Found([candidate], level))
        if hint is not None:
            self._nearer(hunk, new, old, Found([candidate], level), hint, by_hint)

    def loose(self, old: list[bytes], new: list[bytes], at_end: bool) -> None:
        """A hunk found only with blanks or punctuation ignored, whose new side the file
        already has under a strict level: the patch was applied (a re-send), and the loose
        copy is another place that merely looks alike. Never edit that one."""
        strict = range(min(WHITESPACE, telling_levels(old, new)))
        if new and new != old and self.running.search(new, at_end, levels=strict):
            raise self._applied_error("the hunk's new lines are already in the file; its old "
                                      "lines match elsewhere only with whitespace or "
                                      "punctuation ignored")

    def not_found(self, old: list[bytes], new: list[bytes], at_end: bool) -> PatchError | None:
        """The old side is nowhere (and no earlier hunk changed it): the refusal when the new
        side is in the file."""
        if new and new != old and self.running.search(new, at_end):
            err = self._applied_error("the hunk's new lines are already in the file and its "
                                      "old lines are not")
            err.details["old_lines_found"] = False  # the weakest evidence: a merge may tell
            return err
        return None

    # -- the rules behind them -------------------------------------------------------------
    def _hint_claims(self, hunk: Hunk, hint: int | None, new: list[bytes],
                     drift: int) -> list[int]:
        """Where the hunk's line numbers say its new side goes, in the current file: the
        hinted old line (drift-corrected) and the new side's own line number."""
        claims = []
        if hint is not None:
            at = self.running.to_current(hint)
            if at is not None:
                claims.append(at)
        if hunk.new_start is not None:
            claims.append(max(hunk.new_start - (1 if new else 0), 0) + drift)
        return claims

    def _anchor_claims(self, hunk: Hunk, new: list[bytes], found: Matches) -> list[int]:
        """An envelope hunk's '@@ <text>' says where it goes: after the one line matching the
        text. Where its new side sits first after that line (before any copy of its old
        side), the hunk claims to be: a re-sent hunk is found there, not at another copy."""
        if not hunk.anchor_text or not new:
            return []
        from ..place.anchor import claim_after_anchor

        return claim_after_anchor(self.running, new, [c.start for c in found.candidates],
                                  hunk.anchor_text)

    def _refuse_at(self, hunk: Hunk, new: list[bytes], claims: Iterable[int],
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
        """The first claim where the new side counts as sitting (see _refuse_at),
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
                beside: int | None = inside[0]
            else:
                if at in edges and not any(map(match_at, range(at - len(olds) + 1, at + size))):
                    continue  # an edge the new side would reach only away from the old side
                beside = next((m for m in range(at - len(olds) + 1, at + size)
                               if match_at(m) and self._could_go(hunk, m, len(olds),
                                                                 loosest - 1)), None)
            if beside is not None and self.exact_repeats and self._fits:
                continue  # the line numbers tell, and the history log says it is no re-send
            return at, beside
        return None

    def _could_go(self, hunk: Hunk, start: int, size: int, level: int) -> bool:
        """Could a fresh hunk go at this match of its old side (found at ``level``), by its
        own edge claims (a hunk whose context runs out at the file's end or start matches only
        there, unless removed lines that occur once anchor it: edges.away_from)?"""
        return not away_from(hunk, hunk.lines, self.running, start, size, level)

    def _nearer(self, hunk: Hunk, new: list[bytes], old: list[bytes],
             found: Found, hint: int, by_hint: bool) -> None:
        """Where does the new side sit, seen from the hinted line (item 7e)?

        The old side was found (not by the line number) away from the hinted line: if the
        new side sits nearer to it, the hunk was applied there, and the match is another
        copy that an edit since moved away from it. A hunk placed by its line number among
        copies, re-sent after an unrelated edit above, must not edit the next copy. A fresh
        hunk is refused so only when the file already holds its new text nearer its line
        number than its old text. When the new side sits elsewhere, farther, the file alone
        cannot tell: the hunk is marked, and the plan asks the history log
        (refuse_if_applied_before)."""
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
            self._refuse_at(
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

    def salvaged_there(self, at: int) -> PatchError:
        """A hunk the ladder's last rungs read without the lines that are not in the file
        (place/salvage/): its new lines, read the same way, sit where it goes (0-based
        ``at``), as a re-sent salvaged patch leaves them."""
        return self._applied_error("read without the lines that are not in the file, the "
                                   f"hunk's new lines are already at line {at + 1}, where "
                                   "it goes")

    def _applied_error(self, message: str) -> PatchError:
        if self.reverse:
            message = ("the file has the hunk's old lines where the hunk goes, not its new ones: "
                       "the patch is not applied, so there is nothing to reverse")
        return applied_error(self.reverse, message)

    def _repeat_error(self, at: int, beside: int) -> PatchError:
        """The file holds the hunk's new lines where it goes, and its old lines overlapping
        them at a place it could go too: the lines the hunk adds equal the lines beside them
        (a fifth blank line after four). Applied or not, the file reads the same; so the hunk
        is refused, saying so (the plan may tell more: files._decide_repeat)."""
        return repeat_error(self.reverse, at, beside)


def repeat_error(reverse: bool, at: int, beside: int) -> PatchError:
    """``ambiguous_repeat``: nothing in the file tells whether the hunk's change is in (its
    added lines, or with -R the lines it puts back, repeat the lines beside them). Neither
    ``already_applied`` nor ``not_applied``: an agent told its edit is in moves on without it."""
    details = {"repeats": {"new_lines_at": at + 1, "old_lines_at": beside + 1}}
    if reverse:
        return PatchError(
            "ambiguous_repeat", f"the reversed hunk's new lines are already at line {at + 1}, "
            f"where it goes, and its old lines are there too, at line {beside + 1}: the lines "
            "it would put back repeat the lines beside them, so nothing in the file tells "
            "whether the patch is applied",
            hint="the file may or may not have this change: the lines the undo would put back "
            "repeat their neighbours; if it is applied, undo it with a hunk whose context tells "
            "the places apart", details=details)
    return PatchError(
        "ambiguous_repeat", f"the hunk's new lines are already at line {at + 1}, where the "
        f"hunk goes, but its old lines are there too, at line {beside + 1}: the lines it adds "
        "repeat the lines beside them, so a re-sent patch and a new insertion of those lines "
        "look the same", details=details)


def insertion_repeat_error(reverse: bool, at: int) -> PatchError:
    """``ambiguous_repeat`` for a hunk with no context that only inserts (diff -U0), whose
    lines equal the lines right after where they go: the file may be the one it was written
    against (the lines would then be doubled) or hold them already; nothing in it tells."""
    verb = "puts back" if reverse else "adds"
    return PatchError(
        "ambiguous_repeat", f"the hunk has no context lines and the lines it {verb} equal the "
        f"lines right after where they go (line {at + 1}): the file may be the version it was "
        "written against (the lines would then be doubled) or hold them already, and nothing "
        "in it (no index line naming this version) tells which",
        hint="send the hunk with a context line or two around the insertion",
        details={"repeats": {"new_lines_at": at + 1, "old_lines_at": at + 1}})


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


# -- file patches, merges, the history log -----------------------------------------------------
# What a file patch applied to another version of the file gives: the new content, where each
# hunk went, the notes (hunks.apply_hunks, which the plan passes in: it asks these rules)
Replay = Callable[[FilePatch, bytes, bool], tuple[bytes, list[HunkResult], list[Diagnostic]]]


class LogSays(NamedTuple):
    """What the history log says of a patch, for the repeat rules: the paths it shows this tool
    applied this very patch to (the file changed since), and whether the log would hold a
    record of the patch had this tool applied it through this target (so that none means it
    did not)."""

    resent: frozenset[str] = frozenset()
    vouches: bool = False
    # the patch's digest for each path it was taken for (resend.digest), which the history
    # log's record of this apply reuses rather than taking it again
    digests: Mapping[str, str] = MappingProxyType({})


NO_LOG = LogSays()  # no history log to ask (no target's versions, or a reversed replay)


def refuse_a_recorded_resend(patch: Patch, read: Reader, reverse: bool,
                             three_way: KnownVersions, recorded_files: int) -> LogSays:
    """Refuse when this tool applied this very patch to a file that still holds what it
    wrote then (the history log records a digest of the patch and of what it wrote). Returns
    what the log says of the patch otherwise (a patch of more than ``recorded_files`` files
    is never recorded)."""
    from .resend import digest, modified_in_place

    resent = set()
    digests = {}
    for path, file_patches in modified_in_place(patch).items():
        if not three_way.recorded(path):
            continue
        mine = digests[path] = digest(file_patches, reverse)
        if not three_way.applied(path, mine):
            continue
        resent.add(path)
        import hashlib  # loads OpenSSL: only for a patch the history log records

        existing = read(path)
        if existing is None or existing.content is None or not three_way.applied(
                path, mine, hashlib.sha256(existing.content).hexdigest()):
            continue
        raise applied_error(
            # the log tells what this tool wrote, not who wrote the file last: after a
            # reset and a git apply of the same patch the file holds the same bytes
            reverse, f"the history log (.git/holon-apply-history) records this very patch "
            f"applied to {path!r} {'(reversed) ' if reverse else ''}by holon-git, and the "
            "file holds what it wrote then: a re-send",
            path=path, details={"history": "same patch, same result"},
            hint=("the file already holds what undoing this patch gives (whatever undid it): "
                  "there is nothing to undo" if reverse
                  else "the file already holds what this patch gives (whatever applied it): "
                  "there is nothing to do; re-read the file before writing the next patch")
            + "; docs/cli.md, 'The history log', says what it is and how to clear it")
    return LogSays(frozenset(resent), len(patch.files) <= recorded_files, digests)


def refuse_a_logged_resend(fp: FilePatch, ours: bytes, reverse: bool, log: LogSays,
                           placed: Sequence[HunkResult]) -> None:
    """The history log shows this tool applied this very file patch to the path (the file
    changed since: ``log.resent``), and every hunk's new side is in the current text, line
    for line, whitespace aside, at a place other than where the hunk was ``placed`` now (so
    not merely left there by its old side: a deletion from a run of equal lines): a re-send,
    refused, however the hunks would place now (an edit that moved the lines can leave the
    old side at another copy, or put a -U0 insertion's line number on other lines). A hunk
    whose new side is not in the file apart from its place (the change was undone, or
    edited since) lets the patch apply."""
    path = fp.old_path
    if path is None or path not in log.resent or len(placed) != len(fp.hunks):
        return
    from ..place.blanks import copy_elsewhere  # sought on the bytes: no line keyed

    for hunk, result in zip(fp.hunks, placed, strict=True):
        old, new = sides(hunk.lines)  # as applied (a reversed patch comes reversed)
        here = range(result.applied_line - 1, result.applied_line + len(old))
        if not new or not copy_elsewhere(ours, new, here):
            return
    raise applied_error(
        reverse, f"the history log records this very patch applied to {path!r} "
        f"{'(reversed) ' if reverse else ''}by holon-git, and every hunk's new lines are in "
        "the file (the file changed since, so they may sit at other lines now): a re-send",
        path=path, details={"history": "same patch, its change in the file"},
        hint=("re-read the file: this patch was already undone, and nothing of it is left to "
              "undo" if reverse else "re-read the file: this patch was already applied and its "
              "change is there; send only what is still to change"))


def refuse_if_added(path: str, existing: bytes, content: bytes, reverse: bool) -> None:
    """A file the patch adds exists already, with the content the patch gives it."""
    if existing == content:
        # a whole file, not a hunk: the code's usual hint ('drop this hunk') does not fit
        raise applied_error(reverse, f"{path!r} already exists with this content", hint=(
            "the file this patch deletes is still there as it was: the patch is not applied "
            "here, so there is nothing to undo" if reverse else
            "the file this patch adds is already there, byte for byte: there is nothing to "
            f"do for it; drop this file patch (or leave it out: --exclude={path})"))


def refuse_if_renamed(fp: FilePatch, source_exists: bool, reverse: bool) -> None:
    """A rename whose destination exists (the caller knows), and whose source is gone."""
    if not source_exists:
        raise applied_error(reverse, f"cannot rename {fp.old_path!r} to {fp.new_path!r}: the "
                            "destination already exists", path=fp.new_path)


def refuse_if_deleted_already(fp: FilePatch, three_way: KnownVersions) -> None:
    """A missing file that another known version (the index, HEAD, a pre-image this tool
    recorded when it deleted it) held with exactly the lines the patch deletes: a re-sent
    deletion."""
    old = [line.text for hunk in fp.hunks for line in hunk.lines if line.kind != ADD]
    for version in three_way.versions(fp, fp.path):
        lines = split_lines(version.content)
        if len(lines) == len(old) and any(
                all(key(a) == key(b) for a, b in zip(old, lines, strict=True)) for key in KEYS):
            raise applied_error(False, f"cannot delete {fp.path!r}: it does not exist, and it "
                                f"held exactly these lines in {version.label}: the deletion is "
                                "done already")


def after_conflict(err: PatchError, reverse: bool, undo_applies: Callable[[], bool]
                   ) -> PatchError | None:
    """A merge that conflicts (``err``) while the whole patch, reversed, applies to the current
    text (``undo_applies``, asked only then): the change is in. A re-sent series whose later
    file patches changed the lines around the earlier ones' looks so (git merge-file conflicts
    on changes next to each other, where the reversed series places every hunk). The refusal,
    or None when ``err`` stands."""
    if err.code != "merge_conflict" or not undo_applies():
        return None
    return applied_error(
        reverse, f"merged from {err.details.get('base')}, the patch conflicts with the current "
        "text, but the whole patch, reversed, applies to it: "
        + ("its edit is not there" if reverse else "its edit is there already"),
        path=err.path, patch_line=err.patch_line)


def refuse_if_merged_in(three_way: KnownVersions, version: Version, ours: bytes, theirs: bytes,
                        merged: Merged, marker_size: int, reverse: bool,
                        slides: Callable[[], bool]) -> None:
    """The rescue merged the file patch, applied to ``version`` (``theirs``), with the current
    text (``ours``): refuse when that changes nothing (a patch against HEAD, re-sent), or
    when the current text holds the change already. A change that ``slides`` (asked only
    then: ``change_slides``) is never shown held by merging: the merge conflicts with an edit
    next to it, and undoing and redoing it may pair it with the other copy of its line (a
    blank line deleted where the agent deleted the function beside it, with one of its blank
    lines, looks held by the text though it is not: git merge-file calls it a conflict)."""
    if merged.clean and merged.content == ours:
        raise _written_against(version, reverse, "merged with the current text it changes "
                               "nothing")
    if not merged.clean and not slides() and _holds_change(three_way, version.content, ours,
                                                           theirs, marker_size):
        raise _written_against(version, reverse, "the current text holds its change already "
                               "(undone and done again by merging, it gives the current text "
                               "back)")


def change_slides(fp: FilePatch, results: Sequence[HunkResult], base: bytes) -> bool:
    """Does some change of the file patch, as placed in ``base`` (``results``), slide: a run
    of removed lines with nothing added beside it (or of added lines with nothing removed)
    whose first line equals the line just after the run, or whose last line the one just
    before (trailing whitespace aside)? The same change then fits one line up or down, as
    diff's sliding hunks do: which of two equal lines it removed (or next to which it added
    one), no text can tell. A placement that does not fit ``base`` slides too (nothing is
    claimed from it)."""
    lines = [line.rstrip() for line in split_lines(base)]
    if len(results) != len(fp.hunks):
        return True
    for hunk, result in zip(fp.hunks, results, strict=True):
        at = result.applied_line - 1  # in base, the next line the hunk reads
        removed: list[bytes] = []
        added: list[bytes] = []
        for kind, text in [*hunk.lines, (CONTEXT, b"")]:
            if kind == REMOVE:
                removed.append(text.rstrip())
            elif kind == ADD:
                added.append(text.rstrip())
            elif removed or added:
                start = at - len(removed)  # where the run stood in base
                if start < 0 or at > len(lines) or (removed and lines[start:at] != removed):
                    return True
                run = added if not removed else removed if not added else None
                if run is not None and ((start > 0 and lines[start - 1] == run[-1]) or (
                        start + len(removed) < len(lines)
                        and lines[start + len(removed)] == run[0])):
                    return True
                removed, added = [], []
            if kind != ADD:
                at += 1
    return False


def _holds_change(three_way: KnownVersions, base: bytes, ours: bytes, theirs: bytes,
                  size: int) -> bool:
    """Does the current text already hold the patch's change (a re-send after the rescue
    merged it, when the lines around it changed too)? Undoing the change (theirs -> base)
    merges cleanly into ours and changes it, and redoing it on that result gives ours back.

    An undo takes each line from ours or from the base: one that holds a line more often
    than either does has the merge's alignment gone astray among repeated lines (it kept the
    current text's copy and put the base's back beside it), and then redoing it proves
    nothing (a stale patch that removes a line the current text still has would pass)."""
    undone = three_way.merge(theirs, ours, base, size)
    if not undone.clean or undone.content == ours or _invents_copies(undone.content, ours, base):
        return False
    redone = three_way.merge(base, undone.content, theirs, size)
    return redone.clean and redone.content == ours


def _invents_copies(merged: bytes, ours: bytes, base: bytes) -> bool:
    """Does ``merged`` hold some line more times than ``ours`` and ``base`` each do?"""
    mine, theirs = Counter(split_lines(ours)), Counter(split_lines(base))
    return any(count > max(mine[line], theirs[line])
               for line, count in Counter(split_lines(merged)).items())


def _merge_out_of_bounds(merged: bytes, one: bytes, other: bytes) -> bool:
    """Does ``merged`` hold some line more often than ``one`` and ``other`` both do, or less
    often than both?"""
    counts = Counter(split_lines(merged))
    first, second = Counter(split_lines(one)), Counter(split_lines(other))
    return any(not min(first[line], second[line]) <= counts[line]
               <= max(first[line], second[line]) for line in {*counts, *first, *second})


def _written_against(version: Version, reverse: bool, why: str) -> PatchError:
    return applied_error(reverse, f"the patch was written against {version.label}; {why}: "
                         + ("its edit is not in the file" if reverse
                            else "its edit is already there"))


def repeat_by_history(fp: FilePatch, change: FileChange, ours: bytes,
                      three_way: KnownVersions, reverse: bool, replay: Replay, log: LogSays
                      ) -> FileChange | None:
    """A hunk refused because its added lines repeat their neighbours (``ambiguous_repeat``:
    the file reads the same applied or not): what the history log tells, first (a re-send
    must change nothing). The plan then asks the merge (rescue.rescue_repeat), then the line
    numbers (``repeat_by_line_numbers``).

    - the newest pre-image this tool recorded for the path, with the (forward) patch applied,
      gives exactly the current text: this tool applied this patch and nothing changed the
      file since. A re-send is refused (already_applied); -R is no re-send (a -R through this
      tool would have been recorded after it): it restores that pre-image (the change);
    - the log records this very patch (``log.resent``: its digest, sent the same way) for
      the path, though the file changed since: a re-send, refused.

    None when the log tells neither."""
    assert fp.old_path is not None
    restored = _undone_from_history(fp, change, ours, three_way, reverse, replay)
    if restored is not None:
        return restored
    if fp.old_path in log.resent:
        raise applied_error(
            reverse, f"the history log records this very patch applied to "
            f"{fp.old_path!r} by holon-git; the file changed since, and the lines the patch "
            f"{'would put back' if reverse else 'adds'} repeat the lines beside them: a "
            "re-send", details={"history": "same patch"})
    return None


def repeat_by_line_numbers(fp: FilePatch, change: FileChange, ours: bytes,
                           three_way: KnownVersions, reverse: bool, refusal: PatchError,
                           replay_exact: Replay, log: LogSays) -> FileChange:
    """The last word on a hunk whose added lines repeat their neighbours, when neither the
    history log's records nor a merge decided it: when the target records every apply in the
    log (and would have recorded this patch's: ``log.vouches``) and the log holds no record
    of the patch, this tool did not apply it, and the hunk is no re-send of its own. It is
    applied where its line numbers fit the file exactly (``replay_exact``: its old side at its
    line number, its header agreeing with the hunks before it), the place it was written for.
    Otherwise (no log: --cached, --ref, the library without a repository; or line numbers
    that do not fit) ``refusal`` stands."""
    if not (log.vouches and three_way.records_applies()):
        raise refusal
    try:
        change.after, change.hunks, notes = replay_exact(fp, ours, reverse)
    except PatchError:
        raise refusal from None
    change.diagnostics.extend(notes)
    change.diagnostics.append(Diagnostic(
        "repeat_applied", "the lines a hunk "
        f"{'puts back' if reverse else 'adds'} repeat the lines beside them, so the file alone "
        "cannot tell a re-send from a new edit; the history log, which records this tool's "
        "applies, holds no record of this patch, and the hunk's line numbers fit the file "
        "exactly: applied there", fp.patch_line))
    return change


def _undone_from_history(fp: FilePatch, change: FileChange, ours: bytes,
                         three_way: KnownVersions, reverse: bool, replay: Replay
                         ) -> FileChange | None:
    """The newest recorded pre-image, patched, is the current text: a re-send is refused;
    -R gives that pre-image back (the change); None when the log does not show it."""
    assert fp.old_path is not None
    newest = next((v for v in three_way.versions(fp, fp.old_path) if v.recorded), None)
    if newest is None:
        return None
    forward = fp.reversed() if reverse else fp
    try:
        result, placed, notes = replay(forward, newest.content, False)
    except PatchError as err:
        let_go(err)
        return None
    if result != ours:
        return None
    if not reverse:
        raise applied_error(False, f"this tool applied this patch to {fp.old_path!r}: the "
                            "newest pre-image it recorded for the path "
                            f"({newest.label}) with the patch applied is the file as it is now "
                            "(the added lines repeat their neighbours, but the history log "
                            "tells)", details={"history": newest.label})
    hunks, moved = [], 0
    applying = [(hunk, done) for number, (hunk, done)
                in enumerate(zip(fp.hunks, forward.hunks, strict=True), 1)
                if number not in fp.left_out]  # --reject leaves some out: the replay did too
    for result_line, (hunk, done) in zip(placed, applying, strict=True):
        hunks.append(HunkResult(result_line.index, hunk.old_start,
                                result_line.applied_line + moved, list(result_line.tolerances)))
        moved += done.added - done.removed
    change.after, change.hunks = newest.content, hunks
    change.diagnostics.extend(notes)
    change.diagnostics.append(Diagnostic(
        "undone_from_history", "the lines the reversed patch puts back repeat their "
        f"neighbours; the history log shows this tool applied the patch to {newest.label}, "
        "and the file is still its result: that pre-image was restored", fp.patch_line))
    return change


def refuse_if_applied_before(fp: FilePatch, ours: bytes, three_way: KnownVersions,
                             reverse: bool, replay: Replay) -> None:
    """A hunk was placed away from its line number while its new side sits elsewhere,
    farther from it (a re-send after an edit moved a hint-placed copy more than half-way to
    another): refuse if the history log shows this tool applied this very file patch to the
    path (one recorded pre-image, patched, is the next recorded one, or the current file).
    Without such a record nothing tells a re-send from a fresh patch, and it applies."""
    assert fp.old_path is not None
    later = ours
    for version in three_way.versions(fp, fp.old_path):
        if not version.recorded:
            continue
        try:
            result: bytes | None = replay(fp, version.content, reverse)[0]
        except PatchError as err:
            let_go(err)
            result = None
        if result == later:
            raise applied_error(
                reverse, f"this tool applied this patch to {fp.old_path!r} before (to "
                f"{version.label}); its old lines, found now away from its line number, are "
                "another copy, and its new lines are elsewhere in the file",
                details={"history": version.label})
        later = version.content
