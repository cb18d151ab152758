"""git's whitespace rules on the lines a patch adds (--whitespace=ACTION, git's default
``warn``): find them, fix them, or refuse the patch.

The rules are git's default ``core.whitespace``: ``blank-at-eol`` (spaces or tabs before the
line ending; a CRLF ending is a line ending here, not trailing whitespace, since holon-git keeps
every file's line endings), ``space-before-tab`` (a space right before a tab in the
indentation) and ``blank-at-eof`` (blank lines added at the end of a file: an added file's
last lines, or a hunk's last lines when it has leading context and no trailing context, which
git takes as the end of the file). Only added lines are judged: context and removed lines are
what the file already holds.

``fix`` (git's ``strip`` too) rewrites the added lines before the plan places them: trailing
whitespace dropped, spaces before a tab in the indentation folded into it as git folds them,
blank lines at the end of a file dropped. ``error`` refuses the patch (``whitespace_error``),
``error-all`` too, listing every line; ``nowarn`` says nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import NamedTuple

from .core.model import ADD, CONTEXT, FilePatch, Hunk, HunkLine, PackedLines, Patch
from .errors import PatchError

ACTIONS = ("nowarn", "warn", "fix", "strip", "error", "error-all")
DEFAULT = "warn"
_BLANKS = b" \t\f\v"
TAB_WIDTH = 8
# an added line of a packed hunk body that may break a rule, found without decoding the
# body's lines (a large patch has hundreds of thousands): a blank right before its line ending
# (or the body's end), or a space before a tab in its indentation. Added lines only: a blank
# context line is written " \n", so a search of every line would suspect most hunks. Searched
# in the body after a newline, so that every line starts after one (a literal the regular
# expression engine scans for quickly).
_SUSPECT_ADDED = re.compile(rb"\n\+(?:[^\n]*[ \t\f\v]\r?(?:\n|\Z)|[ \t]* \t)")


class Problem(NamedTuple):
    path: str
    patch_line: int | None
    what: str  # git's words: "trailing whitespace", "space before tab in indent", ...
    text: bytes  # the added line as the patch has it, without its line ending


def _ending(text: bytes) -> int:
    """The length of the line ending of ``text`` (CRLF, LF or none)."""
    if text.endswith(b"\r\n"):
        return 2
    return 1 if text.endswith(b"\n") else 0


def _body(text: bytes) -> bytes:
    end = _ending(text)
    return text[:-end] if end else text


def _indent(body: bytes) -> bytes:
    return body[:len(body) - len(body.lstrip(b" \t"))]


def line_problems(text: bytes) -> list[str]:
    """What git's default rules find wrong with one added line (blank-at-eof aside)."""
    body = _body(text)
    found = []
    if body and body[-1:] in (b" ", b"\t", b"\f", b"\v"):
        found.append("trailing whitespace")
    if b" \t" in _indent(body):
        found.append("space before tab in indent")
    return found


def fix_line(text: bytes) -> bytes:
    """The added line as --whitespace=fix writes it (git's ws_fix_copy for the default
    rules): no trailing whitespace; in the indentation up to its last tab, every run of
    TAB_WIDTH spaces becomes a tab and shorter runs before a tab are dropped."""
    end = _ending(text)
    body, ending = (text[:-end], text[-end:]) if end else (text, b"")
    body = body.rstrip(_BLANKS)
    indent = _indent(body)
    last_tab = indent.rfind(b"\t")
    if b" \t" in indent:
        folded, spaces = bytearray(), 0
        for byte in indent[:last_tab + 1]:
            if byte == 0x09:
                folded.append(0x09)
                spaces = 0
            else:
                spaces += 1
                if spaces == TAB_WIDTH:
                    folded.append(0x09)
                    spaces = 0
        body = bytes(folded) + body[last_tab + 1:]
    return body + ending


def _line_numbers(hunk: Hunk) -> list[int | None]:
    """Each body line's line in the patch: after the header, counting the "\\ No newline"
    marker that follows a line without an ending (exact for the lines as written)."""
    if not hunk.patch_line:
        return [None] * len(hunk.lines)
    numbers: list[int | None] = []
    at = hunk.patch_line + 1
    for line in hunk.lines:
        numbers.append(at)
        at += 1 if line.text.endswith(b"\n") else 2
    return numbers


def _blank_tail(fp: FilePatch, hunk: Hunk, lines: list[HunkLine]) -> int:
    """How many of the hunk's last lines are blank lines added at the end of the file."""
    if fp.new_path is None or not lines or lines[-1].kind != ADD:
        return 0
    last_hunk = hunk is fp.hunks[-1]
    at_end = last_hunk and (fp.old_path is None or lines[0].kind == CONTEXT)
    if not at_end:
        return 0
    count = 0
    for line in reversed(lines):
        if line.kind != ADD or _body(line.text).strip(_BLANKS):
            break
        count += 1
    return count if count < len(lines) else 0  # a file of blank lines only: warned, kept


def _clean(fp: FilePatch, hunk: Hunk) -> bool:
    """Surely without whitespace errors, told without decoding a packed body: no suspect
    added line, and no added line at its end when it may end the file."""
    if not isinstance(hunk.lines, PackedLines):
        return False
    packed = hunk.lines.packed
    if _SUSPECT_ADDED.search(b"\n" + packed):
        return False  # look closer
    last = packed[packed.rfind(b"\n", 0, len(packed) - 1) + 1:]
    if last[-1:] in (b" ", b"\t", b"\f", b"\v"):
        return False  # a last line without a line ending
    return not (hunk is fp.hunks[-1] and last.startswith(b"+") and not last[1:].strip())


def problems(patch: Patch) -> list[Problem]:
    """Every whitespace error the patch's added lines have, in patch order."""
    found: list[Problem] = []
    for fp in patch.files:
        for hunk in fp.hunks:
            if _clean(fp, hunk):
                continue
            lines = list(hunk.lines)
            numbers = _line_numbers(hunk)
            tail_from = len(lines) - _blank_tail(fp, hunk, lines)
            for index, line in enumerate(lines):
                if line.kind != ADD:
                    continue
                whats = line_problems(line.text)
                if index == tail_from:  # the run's first line only, as git reports it
                    whats.append(AT_EOF)
                found.extend(Problem(fp.path, numbers[index], what, _body(line.text))
                             for what in whats)
    return found


def fixed(patch: Patch) -> Patch:
    """The patch with its added lines fixed; file patches with nothing to fix are kept as
    they are (the same objects)."""
    files = []
    for fp in patch.files:
        hunks = []
        for hunk in fp.hunks:
            if _clean(fp, hunk):
                hunks.append(hunk)
                continue
            lines = list(hunk.lines)
            tail = _blank_tail(fp, hunk, lines)
            kept = lines[:len(lines) - tail] if tail else lines
            new = [HunkLine(ADD, fix_line(line.text)) if line.kind == ADD else line
                   for line in kept]
            if tail or new != lines:
                hunk = replace(hunk, lines=new,
                               new_count=None if hunk.new_count is None
                               else hunk.new_count - tail,
                               new_no_newline=hunk.new_no_newline and not tail)
            hunks.append(hunk)
        changed = any(a is not b for a, b in zip(hunks, fp.hunks, strict=True))
        files.append(replace(fp, hunks=hunks) if changed else fp)
    return replace(patch, files=files)


AT_EOF = "new blank line at EOF"


def git_count(found: Iterable[tuple[object, str]]) -> int:
    """How many whitespace errors git counts ('N lines add whitespace errors'), of
    (line, what) pairs: each added line with an error in it once, and each run of blank
    lines at the end of a file once more, even when its first line is already counted for
    trailing whitespace, as git's apply.c counts them."""
    found = list(found)
    return len({line for line, what in found if what != AT_EOF}) + \
        sum(what == AT_EOF for _, what in found)


def refusal(found: list[Problem], action: str) -> PatchError:
    """--whitespace=error (the first error named) or error-all (every one in details)."""
    first = found[0]
    count = git_count(((p.path, p.patch_line), p.what) for p in found)
    shown = found if action == "error-all" else found[:1]
    return PatchError(
        "whitespace_error",
        f"{count} added line{'s' if count != 1 else ''} "
        f"{'have' if count != 1 else 'has'} whitespace errors (--whitespace={action}); "
        f"first: {first.what}", path=first.path, patch_line=first.patch_line,
        details={"errors": [{"path": p.path, "patch_line": p.patch_line, "error": p.what}
                            for p in shown]})
