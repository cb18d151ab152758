"""A hunk placed with whitespace or punctuation ignored: its added lines written the file's way.

The matched lines pair each of the hunk's old lines with the file's line there. They show how
the patch's indentation maps to the file's: the same, a constant shift (the patch dedented or
indented everything by k spaces or tabs), another unit (a tab for N spaces, 2 spaces for 4), or,
when the patch mixed tabs and spaces, columns (a tab is N spaces, wherever it appears).
Added lines take the one mapping they show ('reindented'); when they show none, or two that
disagree about the added lines, or one the reversed hunk could not learn again, the added
lines' indentation cannot be known and the hunk is refused (indentation_mismatch). A file
indented with tabs only never gets a line that starts with a space, nor one indented with
spaces a tab; the latter whatever level the hunk matched at (``refuse_tabs_in_spaces``).
Typographic characters are punctuation.py's. Context lines always keep the file's bytes
(splice.py); only added lines change here. Pure; bytes only.
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

    kind: str  # "shift", "scale" or "columns"
    char: int  # the file's indentation character (ord)
    shift: int = 0
    ratio: Fraction = Fraction(1)
    patch_char: int = 0
    tab: int = 0  # "columns": the width of a tab (a tab is N spaces)

    def apply(self, indent: bytes) -> bytes | None:
        """The file's indentation for a patch indentation, or None when it has none."""
        if self.kind == "columns":
            return _in_columns(_width(indent, self.tab), self.char, self.tab)
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


def _width(indent: bytes, tab: int) -> int:
    """The columns an indentation takes, a tab reaching the next multiple of ``tab``."""
    return len(indent.expandtabs(tab))


def _in_columns(width: int, char: int, tab: int) -> bytes:
    """``width`` columns of indentation the file's way: spaces, or tabs then spaces."""
    if char == SPACE:
        return b" " * width
    return b"\t" * (width // tab) + b" " * (width % tab)


def _columns(indents: Sequence[tuple[bytes, bytes]]) -> Mapping | None:
    """The one tab width N under which every patch indentation takes the columns its file
    line's does, the file's lines being written one way (spaces only, or tabs then spaces):
    the patch mixed tabs and spaces where "a tab is N spaces" maps every old line."""
    files = [f for _, f in indents]
    char = TAB if any(b"\t" in f for f in files) else SPACE
    widths = [n for n in range(1, 9)
              if all(_width(p, n) == _width(f, n) and _in_columns(_width(f, n), char, n) == f
                     for p, f in indents)]
    if len(widths) != 1:
        return None
    return Mapping("columns", char, tab=widths[0])


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
    if TAB in used:
        columns = _columns(indents)
        if columns is not None:
            found.append(columns)
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
    pairs = list(zip(old_side(lines), window, strict=True))
    mappings = indentation_mappings(pairs)
    out: list[HunkLine] = []
    for line in lines:
        if line.kind != ADD or not line.text.rstrip(b"\r\n"):
            out.append(line)  # an empty added line stays empty: no indentation to map
            continue
        indent = _indent(line.text)
        results = _mapped(mappings, indent)
        disagree = len(results) > 1
        new_indent = None if disagree else results.pop()
        if _blank(line.text):
            new_indent = b"" if new_indent is None else new_indent
        elif new_indent is None or not style.allows(new_indent, units=mappings is None):
            raise _mismatch(line.text, window, first_line,
                            _why(mappings, disagree, pairs, first_line))
        out.append(HunkLine(ADD, new_indent + line.text[len(indent):]))
    _check_reversible(lines, out, window, first_line)
    return out, out != lines


def _mapped(mappings: list[Mapping] | None, indent: bytes) -> set[bytes | None]:
    """What the candidate mappings make of an indentation (several results: they disagree).
    With nothing indented to learn from, an indentation is kept (if the file's style
    allows it: the caller checks). Columns (a tab is N spaces) answer where the others have
    no rule: the spaces of a line written the file's way, beside tabs in the context."""
    if mappings is None:
        return {indent}
    others = {mapping.apply(indent) for mapping in mappings if mapping.kind != "columns"}
    columns = {mapping.apply(indent) for mapping in mappings if mapping.kind == "columns"}
    if not columns:
        return others or {None}
    if others <= {None}:  # a unit of one character has no rule for the other: columns do
        return columns
    return others | columns


def learned_indent(pairs: Sequence[tuple[bytes, bytes]], indent: bytes, style: FileIndent
                   ) -> bytes | None:
    """The file's indentation for a patch indentation no matched line holds, by the one
    mapping every matched pair (patch line, file line) agrees with (a constant shift, a tab
    for N spaces, ...) whose answer the file's ``style`` allows (pairs at one depth fit
    both "four spaces too deep" and "eight-space units for four": the file's unit tells);
    None when the pairs show none, or mappings that disagree about it."""
    answers = {answer for answer in _mapped(indentation_mappings(pairs), indent)
               if answer is None or style.allows(answer)}
    return answers.pop() if len(answers) == 1 else None


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
                            "the hunk undone (-R) would not indent this removed line the "
                            "file's way again: add context lines at other indentation levels")


def transport_of(lines: Sequence[HunkLine], window: Sequence[bytes]) -> list[Mapping] | None:
    """What a hunk written with tabs, matched with whitespace ignored at ``window``, shows a
    tab stands for (issue 43, class 6: a file patch is one transport): the mappings its
    matched lines agree with. None when none of its old lines is indented with a tab, or
    its matched lines show no mapping."""
    old = old_side(lines)
    if not any(line[:1] == b"\t" for line in old):
        return None
    return indentation_mappings(list(zip(old, window, strict=True))) or None


def by_transport(lines: Sequence[HunkLine], transports: Sequence[Sequence[Mapping]],
                 style: FileIndent) -> tuple[list[HunkLine], bool] | None:
    """A hunk whose lines matched as written, its added lines indented with tabs, in a file
    patch whose other hunks were written with tabs for the file's spaces (``transports``:
    what each of them shows a tab stands for): its added lines mapped back the same way,
    and whether any changed. None when an added line's indentation does not map to one
    indentation in the file's style under every hunk's reading (they disagree, or one has
    no rule for it): the transport is not one."""
    out: list[HunkLine] = []
    for line in lines:
        if line.kind != ADD or not line.text.rstrip(b"\r\n"):
            out.append(line)
            continue
        indent = _indent(line.text)
        results: set[bytes | None] = set()
        for mappings in transports:
            results |= _mapped(list(mappings), indent)
        new_indent = results.pop() if len(results) == 1 else None
        if _blank(line.text):
            new_indent = b"" if new_indent is None else new_indent
        elif new_indent is None or not style.allows(new_indent, units=False):
            return None
        out.append(HunkLine(ADD, new_indent + line.text[len(indent):]))
    return out, out != list(lines)


def refuse_tabs_in_spaces(lines: Sequence[HunkLine], window: Sequence[bytes], first_line: int,
                          style: FileIndent) -> None:
    """A file indented with spaces only never gets an added line indented with a tab: a hunk
    matched without the whitespace level (its context unindented, or not indented at all)
    says nothing of what a tab is there (reindent maps it when the matched lines show it).
    The caller leaves out a hunk that only re-indents its lines (old and new sides equal
    with blanks ignored): its tabs are what it is for."""
    if style.char != SPACE:
        return
    for line in lines:
        if line.kind == ADD and b"\t" in _indent(line.text):
            raise PatchError(
                "indentation_mismatch",
                "an added line is indented with a tab, in a file indented with spaces only, "
                f"and the hunk's old lines (matched at lines {first_line}-"
                f"{first_line + len(window) - 1}) do not show what a tab is there",
                hint="re-emit the hunk with the file's indentation: spaces, as many as the "
                "lines around it use",
                details={"region": _region(window, first_line),
                         "line": line.text.rstrip(b"\r\n").decode("utf-8", "replace")})


def _why(mappings: list[Mapping] | None, disagree: bool,
         pairs: Sequence[tuple[bytes, bytes]], first_line: int) -> str:
    """Which rule the matched lines broke, in a few words."""
    if mappings == []:
        return _uneven(pairs, first_line)
    if disagree:
        return ("their indentation fits both a constant shift and a change of width, which "
                "indent the added lines differently")
    if mappings is None:
        return ("none of them is indented, and an added line's indentation is not in the "
                "file's style (a space first where the file indents with tabs; a tab, or a "
                "width not a multiple of the file's, where it indents with spaces)")
    return ("an added line's indentation has no counterpart under the mapping they show, or is "
            "not in the file's style")


def _uneven(pairs: Sequence[tuple[bytes, bytes]], first_line: int) -> str:
    """The matched line whose indentation keeps the others from showing one mapping (the
    same, a constant shift, another unit), said as its two indentations: the one line without
    which they show one, among those indented unlike the file (a few: this is a refusal's
    path); else the first line that breaks the mapping the lines before it show."""
    indents = [(_indent(ours), _indent(theirs)) for ours, theirs in pairs]
    differing = [i for i, (ours, theirs) in enumerate(indents)
                 if ours != theirs and not _blank(pairs[i][0]) and not _blank(pairs[i][1])]
    if len(differing) <= 20:
        odd = [i for i in differing
               if indentation_mappings([*pairs[:i], *pairs[i + 1:]]) != []]
        if len(odd) == 1:
            return _line_indented(odd[0], indents, first_line, "the others")
    for end in range(1, len(pairs) + 1):
        if indentation_mappings(pairs[:end]) == []:
            return _line_indented(end - 1, indents, first_line, "the lines before it")
    return "their indentation shows no one mapping"  # unreachable: all of them show none


def _line_indented(i: int, indents: Sequence[tuple[bytes, bytes]], first_line: int,
                   unlike: str) -> str:
    ours, theirs = indents[i]
    return (f"line {first_line + i} is indented {_said(ours)} in the hunk, {_said(theirs)} in "
            f"the file, unlike {unlike}")


def _said(indent: bytes) -> str:
    """An indentation in words: '4 spaces', '1 tab', '1 tab and 2 spaces', 'not at all'."""
    tabs, spaces = indent.count(b"\t"), indent.count(b" ")
    words = [f"{n} {name}{'s' if n != 1 else ''}"
             for n, name in ((tabs, "tab"), (spaces, "space")) if n]
    return " and ".join(words) or "not at all"


def _mismatch(text: bytes, window: Sequence[bytes], first_line: int, why: str) -> PatchError:
    return PatchError(
        "indentation_mismatch",
        f"its old lines match lines {first_line}-{first_line + len(window) - 1} only with "
        f"whitespace ignored, and {why}",
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
    from .spacing import keep_file_spacing  # the file's spacing inside its lines is kept

    out, changed = keep_file_spacing(out, window, first_line)
    if changed:
        tolerances.append("spacing_kept")
    return out, tolerances
