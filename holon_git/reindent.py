"""A hunk placed with whitespace or punctuation ignored: its added lines written the file's way.

The matched lines pair each of the hunk's old lines with the file's line there. They show how
the patch's indentation maps to the file's: the same, a constant shift (the patch dedented or
indented everything by k spaces or tabs), or tabs against N spaces. Added lines take the one
mapping they show ('reindented'); when they show none, the added lines' indentation cannot be
known and the hunk is refused (indentation_mismatch). A file indented with tabs only never gets
a line that starts with a space. Likewise, typographic characters the matched lines show were
"smartened" from the file's ASCII (a ’ in the patch where the file has ') are written back as
ASCII in the added lines ('punctuation_normalized'). Context lines always keep the file's bytes
(splice.py); only added lines change here. Pure; bytes only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import PatchError
from .match import PUNCTUATION, TYPOGRAPHIC
from .model import ADD, HunkLine, old_side

_INDENT = re.compile(rb"[ \t]*")
# Characters that come in families: a transport that smartened one member smartened all.
_FAMILIES = [set("\u2018\u2019\u201a\u201b"), set("\u201c\u201d\u201e\u201f"),
             set("\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), {"\u2026"},
             {ch for ch, ascii_form in TYPOGRAPHIC.items() if ascii_form == " "}]


@dataclass(frozen=True)
class Mapping:
    """From the patch's indentation to the file's: ``kind`` is 'shift' (``char`` repeated
    ``amount`` more, or fewer, times; no char: nothing to map), 'to_tabs' (N spaces are one
    tab) or 'to_spaces' (one tab is N spaces)."""

    kind: str
    amount: int = 0
    char: bytes = b""

    def apply(self, indent: bytes) -> bytes | None:
        """The file's indentation for a patch indentation, or None when it has none."""
        if self.kind == "shift":
            if not self.char or not self.amount:
                return indent
            if indent.strip(self.char):
                return None  # another character: no rule for it
            count = len(indent) + self.amount
            return self.char * count if count >= 0 else None
        columns = indent.count(b" ") + indent.count(b"\t") * self.amount
        if self.kind == "to_spaces":
            return b" " * columns
        tabs, spaces = divmod(columns, self.amount)
        return b"\t" * tabs + b" " * spaces


def _indent(line: bytes) -> bytes:
    match = _INDENT.match(line)
    return match.group(0) if match else b""


def _blank(line: bytes) -> bool:
    return not line.strip()


def indentation_mapping(pairs: Sequence[tuple[bytes, bytes]]) -> Mapping | None:
    """The one mapping (patch indentation -> file indentation) every non-blank matched pair
    agrees with, or None."""
    indents = [(_indent(p), _indent(f)) for p, f in pairs if not _blank(p) and not _blank(f)]
    used = set(b"".join(p + f for p, f in indents))
    if len(used) <= 1:  # one character (or none) on both sides: a constant shift
        shifts = {len(f) - len(p) for p, f in indents}
        if len(shifts) > 1:
            return None
        return Mapping("shift", shifts.pop() if shifts else 0, bytes(used))
    patch_chars = set(b"".join(p for p, _ in indents))
    file_chars = set(b"".join(f for _, f in indents))
    if patch_chars == {ord(" ")} and file_chars == {ord("\t")}:
        ratio = _ratio([(len(p), len(f)) for p, f in indents])
        return Mapping("to_tabs", ratio) if ratio else None
    if patch_chars == {ord("\t")} and file_chars == {ord(" ")}:
        ratio = _ratio([(len(f), len(p)) for p, f in indents])
        return Mapping("to_spaces", ratio) if ratio else None
    return None


def _ratio(sizes: list[tuple[int, int]]) -> int | None:
    """The one N with wide == N * narrow for every pair (N spaces per tab)."""
    ratios = set()
    for wide, narrow in sizes:
        if narrow == 0:
            if wide:
                return None
            continue
        if wide % narrow:
            return None
        ratios.add(wide // narrow)
    return ratios.pop() if len(ratios) == 1 and min(ratios) > 0 else None


def tab_indented(content: bytes) -> bool:
    """Every indented line of the file starts with a tab (a Makefile's recipes, Go)."""
    starts = {line[:1] for line in content.splitlines() if line[:1] in (b" ", b"\t")
              and line.strip()}
    return starts == {b"\t"}


def _region(window: Sequence[bytes], first_line: int) -> list[dict[str, object]]:
    return [{"line": first_line + i, "text": line.rstrip(b"\r\n").decode("utf-8", "replace")}
            for i, line in enumerate(window[:200])]


def reindent(lines: Sequence[HunkLine], window: Sequence[bytes], first_line: int,
             file_is_tab_indented: bool) -> tuple[list[HunkLine], bool]:
    """The hunk's lines with its added lines in the file's indentation, and whether any
    changed; raises indentation_mismatch when the matched lines show no mapping."""
    added = [line for line in lines if line.kind == ADD and not _blank(line.text)]
    if not added:
        return list(lines), False
    mapping = indentation_mapping(list(zip(old_side(lines), window, strict=True)))
    out: list[HunkLine] = []
    for line in lines:
        if line.kind != ADD:
            out.append(line)
            continue
        indent = _indent(line.text)
        new_indent = mapping.apply(indent) if mapping is not None else None
        if _blank(line.text):
            new_indent = b"" if new_indent is None else new_indent
        elif new_indent is None or (file_is_tab_indented and new_indent[:1] == b" "):
            if mapping is None:
                why = "they show no one mapping (tabs for N spaces, or a constant shift)"
            elif new_indent is None:
                why = "an added line's indentation has no counterpart in them"
            else:
                why = "the file is indented with tabs only and an added line would start " \
                      "with spaces"
            raise PatchError(
                "indentation_mismatch",
                f"the hunk's old lines match lines {first_line}-{first_line + len(window) - 1} "
                f"only with whitespace ignored, and their indentation does not say how to "
                f"indent the added lines: {why}",
                details={"region": _region(window, first_line),
                         "added": line.text.rstrip(b"\r\n").decode("utf-8", "replace")})
        out.append(HunkLine(ADD, new_indent + line.text[len(indent):]))
    return out, any(a != b for a, b in zip(out, lines, strict=True))


def _typographic_mapping(pairs: Sequence[tuple[bytes, bytes]]) -> dict[str, str]:
    """Typographic characters of the patch's old lines that the file has in ASCII at the
    same places, widened to their families (‘ with ’), unless the file keeps one of them."""
    to_ascii: set[str] = set()
    kept: set[str] = set()
    for patch_line, file_line in pairs:
        ours, theirs = _spelled(patch_line), _spelled(file_line)
        if len(ours) != len(theirs):
            continue
        for (_, mine), (_, found) in zip(ours, theirs, strict=True):
            if mine in TYPOGRAPHIC:
                (kept if found == mine else to_ascii).add(mine)
            elif found in TYPOGRAPHIC and found != mine:
                kept.add(found)
    chars = set()
    for family in _FAMILIES:
        if family & to_ascii and not family & kept:
            chars |= family
    odd_spaces = _FAMILIES[-1]  # blanks are not compared one for one: any at all counts
    if any(_has(patch_line, odd_spaces) for patch_line, _ in pairs) \
            and not any(_has(file_line, odd_spaces) for _, file_line in pairs):
        chars |= odd_spaces
    return {ch: TYPOGRAPHIC[ch] for ch in chars}


def _has(line: bytes, chars: set[str]) -> bool:
    return not line.isascii() and any(ch in chars
                                      for ch in line.decode("utf-8", "surrogateescape"))


def _spelled(line: bytes) -> list[tuple[str, str]]:
    """(ASCII form, character as written) for each non-blank character, an ellipsis counted
    as its three dots."""
    out = []
    for ch in line.decode("utf-8", "surrogateescape"):
        plain = TYPOGRAPHIC.get(ch, ch)
        if plain.isspace() or ch.isspace():
            continue
        out.extend((dot, ch) for dot in plain)
    return out


def normalize_punctuation(lines: Sequence[HunkLine], window: Sequence[bytes]
                          ) -> tuple[list[HunkLine], bool]:
    """The hunk's lines with typographic characters in its added lines written as the ASCII
    the matched lines show the file uses, and whether any changed."""
    mapping = str.maketrans(_typographic_mapping(list(zip(old_side(lines), window,
                                                          strict=True))))
    out = []
    for line in lines:
        if line.kind == ADD and not line.text.isascii():
            text = line.text.decode("utf-8", "surrogateescape").translate(mapping)
            line = HunkLine(ADD, text.encode("utf-8", "surrogateescape"))
        out.append(line)
    return out, any(a != b for a, b in zip(out, lines, strict=True))


def adapt_added_lines(lines: Sequence[HunkLine], window: Sequence[bytes], level: int,
                      first_line: int, file_is_tab_indented: bool
                      ) -> tuple[list[HunkLine], list[str]]:
    """For a hunk placed at the whitespace or punctuation level: its lines with the added ones
    rewritten, and the tolerances that rewriting adds."""
    out, tolerances = list(lines), []
    if level >= PUNCTUATION:
        out, changed = normalize_punctuation(out, window)
        if changed:
            tolerances.append("punctuation_normalized")
    out, changed = reindent(out, window, first_line, file_is_tab_indented)
    if changed:
        tolerances.append("reindented")
    return out, tolerances
