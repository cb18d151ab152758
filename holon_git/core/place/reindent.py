"""A hunk placed with whitespace or punctuation ignored: its added lines written the file's way.

The matched lines pair each of the hunk's old lines with the file's line there. They show how
the patch's indentation maps to the file's: the same, a constant shift (the patch dedented or
indented everything by k spaces or tabs), or another unit (a tab for N spaces, 2 spaces for 4).
Added lines take the one mapping they show ('reindented'); when they show none, or two that
disagree about the added lines, or one the reversed hunk could not learn again, the added
lines' indentation cannot be known and the hunk is refused (indentation_mismatch). A file
indented with tabs only never gets a line that starts with a space, nor one indented with
spaces a tab. Typographic characters are punctuation.py's. Context lines always keep the
file's bytes (splice.py); only added lines change here. Pure; bytes only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import gcd

from ...errors import PatchError
from ..model import ADD, REMOVE, HunkLine, old_side
from .match import PUNCTUATION

_INDENT = re.compile(rb"[ \t]*")


@dataclass(frozen=True)
class Mapping:
    """From the patch's indentation to the file's: a constant shift (``shift`` more, or
    fewer, of ``char``), or a change of unit (``ratio`` of the file's ``char`` for each of the
    patch's ``patch_char``: a tab for 4 spaces is 1/4, 2 spaces to 4 is 2)."""

    kind: str  # "shift" or "scale"
    char: int  # the file's indentation character (ord)
    shift: int = 0
    ratio: Fraction = Fraction(1)
    patch_char: int = 0

    def apply(self, indent: bytes) -> bytes | None:
        """The file's indentation for a patch indentation, or None when it has none."""
        if self.kind == "shift":
            if not self.shift:
                return indent
            if indent.strip(bytes([self.char])):
                return None  # another character: no rule for it
            count = len(indent) + self.shift
            return bytes([self.char]) * count if count >= 0 else None
        if indent.strip(bytes([self.patch_char])):
            return None
        width = len(indent) * self.ratio
        if width.denominator == 1:
            return bytes([self.char]) * int(width)
        if self.char == TAB and self.patch_char == SPACE and self.ratio.numerator == 1:
            tabs, spaces = divmod(len(indent), self.ratio.denominator)  # alignment after tabs
            return b"\t" * tabs + b" " * spaces
        return None


TAB, SPACE = ord("\t"), ord(" ")


def _indent(line: bytes) -> bytes:
    match = _INDENT.match(line)
    return match.group(0) if match else b""


def _blank(line: bytes) -> bool:
    return not line.strip()


def indentation_mappings(pairs: Sequence[tuple[bytes, bytes]]) -> list[Mapping] | None:
    """Every mapping (patch indentation -> file indentation) all non-blank matched pairs agree
    with: a constant shift, a change of unit, or both (they then must agree on the added
    lines). None when the pairs hold no indentation at all: they say nothing."""
    indents = [(_indent(p), _indent(f)) for p, f in pairs if not _blank(p) and not _blank(f)]
    if not any(p or f for p, f in indents):
        return None
    found = []
    if all(p == f for p, f in indents):
        # the same indentation, byte for byte, whatever mix of tabs and spaces it holds
        # (`\t    ` continuation lines): only inner blanks differed, so nothing maps
        return [Mapping("shift", SPACE, 0)]
    used = set(b"".join(p + f for p, f in indents))
    shifts = {len(f) - len(p) for p, f in indents}
    if len(used) == 1 and len(shifts) == 1:
        found.append(Mapping("shift", used.pop(), shifts.pop()))
    patch_chars = set(b"".join(p for p, _ in indents))
    file_chars = set(b"".join(f for _, f in indents))
    ratios = {Fraction(len(f), len(p)) for p, f in indents if p}
    if len(patch_chars) == len(file_chars) == 1 and len(ratios) == 1 \
            and all(p or not f for p, f in indents):
        ratio = ratios.pop()
        if ratio and 1 in (ratio.numerator, ratio.denominator):  # N units for one, or one for N
            found.append(Mapping("scale", file_chars.pop(), ratio=ratio,
                                 patch_char=patch_chars.pop()))
    return found


@dataclass(frozen=True)
class FileIndent:
    """How a file indents: ``char`` TAB when every indented line starts with a tab (a
    Makefile's recipes, Go), SPACE when no indentation holds a tab (``unit``: the width every
    indentation is a multiple of), None when mixed or nothing is indented."""

    char: int | None
    unit: int = 1

    def allows(self, indent: bytes, units: bool = True) -> bool:
        """No leading space in a file indented with tabs; no tab, and (with ``units``) whole
        units, in one indented with spaces."""
        if self.char == TAB:
            return indent[:1] != b" "
        if self.char == SPACE:
            return b"\t" not in indent and (not units or len(indent) % self.unit == 0)
        return True


def indent_style(content: bytes) -> FileIndent:
    indents = {_indent(line) for line in content.splitlines() if line[:1] in (b" ", b"\t")
               and line.strip()}
    if indents and all(indent[:1] == b"\t" for indent in indents):
        return FileIndent(TAB)
    if indents and not any(b"\t" in indent for indent in indents):
        return FileIndent(SPACE, gcd(*map(len, indents)))
    return FileIndent(None)


def _region(window: Sequence[bytes], first_line: int) -> list[dict[str, object]]:
    return [{"line": first_line + i, "text": line.rstrip(b"\r\n").decode("utf-8", "replace")}
            for i, line in enumerate(window[:200])]


def reindent(lines: Sequence[HunkLine], window: Sequence[bytes], first_line: int,
             style: FileIndent) -> tuple[list[HunkLine], bool]:
    """The hunk's lines with its added lines in the file's indentation, and whether any
    changed; raises indentation_mismatch when the matched lines show no one mapping, or when
    the reversed hunk (-R) would not give the file's removed lines back."""
    lines = list(lines)
    mappings = indentation_mappings(list(zip(old_side(lines), window, strict=True)))
    out: list[HunkLine] = []
    for line in lines:
        if line.kind != ADD:
            out.append(line)
            continue
        indent = _indent(line.text)
        results = _mapped(mappings, indent)
        disagree = len(results) > 1
        new_indent = None if disagree else results.pop()
        if _blank(line.text):
            new_indent = b"" if new_indent is None else new_indent
        elif new_indent is None or not style.allows(new_indent, units=mappings is None):
            raise _mismatch(line.text, window, first_line, _why(mappings, disagree))
        out.append(HunkLine(ADD, new_indent + line.text[len(indent):]))
    _check_reversible(lines, out, window, first_line)
    return out, out != lines


def _mapped(mappings: list[Mapping] | None, indent: bytes) -> set[bytes | None]:
    """What the candidate mappings make of an indentation (several results: they disagree).
    With nothing indented to learn from, an indentation is kept (if the file's style
    allows it: the caller checks)."""
    if mappings is None:
        return {indent}
    return {mapping.apply(indent) for mapping in mappings} or {None}


def _check_reversible(lines: Sequence[HunkLine], out: Sequence[HunkLine],
                      window: Sequence[bytes], first_line: int) -> None:
    """The reversed hunk, matched against the result, must map its added lines (these
    removed ones) back to the file's exact indentation: -R gives the original bytes back."""
    pairs, removed = [], []
    file_lines = iter(window)
    for line, written in zip(lines, out, strict=True):
        if line.kind == ADD:
            pairs.append((line.text, written.text))
        elif line.kind == REMOVE:
            removed.append((line.text, next(file_lines)))
        else:
            pairs.append((line.text, next(file_lines)))
    mappings = indentation_mappings(pairs)
    for patch_line, file_line in removed:
        if not _blank(patch_line) and _mapped(mappings, _indent(patch_line)) \
                != {_indent(file_line)}:
            raise _mismatch(patch_line, window, first_line,
                            "they show a mapping, but the hunk's other lines would not show it "
                            "again to undo it (-R): add context lines at other indentation "
                            "levels")


def _why(mappings: list[Mapping] | None, disagree: bool) -> str:
    if mappings == []:
        return "they show no one mapping (the same, a constant shift, or tabs for N spaces)"
    if disagree:
        return ("they fit both a constant shift and a change of width, which indent the added "
                "lines differently")
    if mappings is None:
        return ("none of them is indented, and the added line's indentation is not in the "
                "file's style (a space first in a file indented with tabs; a tab, or a width "
                "not a multiple of the file's, in one indented with spaces)")
    return ("an added line's indentation has no counterpart under their mapping, or is not in "
            "the file's style")


def _mismatch(text: bytes, window: Sequence[bytes], first_line: int, why: str) -> PatchError:
    return PatchError(
        "indentation_mismatch",
        f"the hunk's old lines match lines {first_line}-{first_line + len(window) - 1} only "
        f"with whitespace ignored, and their indentation does not say how to indent the "
        f"hunk's lines: {why}",
        details={"region": _region(window, first_line),
                 "line": text.rstrip(b"\r\n").decode("utf-8", "replace")})


def adapt_added_lines(lines: Sequence[HunkLine], window: Sequence[bytes], level: int,
                      first_line: int, style: FileIndent,
                      typographic: frozenset[str] = frozenset()
                      ) -> tuple[list[HunkLine], list[str]]:
    """For a hunk placed at the whitespace or punctuation level: its lines with the added ones
    rewritten, and the tolerances that rewriting adds (``typographic``: the typographic
    characters the file holds)."""
    out, tolerances = list(lines), []
    if level >= PUNCTUATION:
        from .punctuation import normalize_punctuation

        out, changed = normalize_punctuation(out, window, typographic)
        if changed:
            tolerances.append("punctuation_normalized")
    out, changed = reindent(out, window, first_line, style)
    if changed:
        tolerances.append("reindented")
    return out, tolerances
