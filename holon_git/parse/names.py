"""Reading the path of a '---'/'+++' line, and choosing one name when a traditional diff's
two lines differ, by the rules `git apply` uses (apply.c: find_name_traditional)."""

from __future__ import annotations

import re

# A date after the name, as diff -u, svn and others write it: "2010-08-18 20:13:31.5 -0500",
# "2005-04-12 02:14:06 -07:00", a bare "2010-08-18"; after a tab, or after spaces when a
# transport expanded the tab (git's diff_timestamp_len, read from the end of the line).
_TIMESTAMP = re.compile(
    r"(?:\t| +)(?:\d\d)?\d\d-\d\d-\d\d(?: \d\d:\d\d:\d\d(?:\.\d+)?)?"
    r"(?: [-+](?:\d{4}|\d\d:\d\d))?$"
)
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote(text: str) -> str:
    """Decode a C-style quoted path as git writes it ("a/caf\\303\\251")."""
    body = text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 == len(body):
            out += ch.encode("utf-8", "surrogateescape")
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif len(body[i + 1 : i + 4]) == 3 and all(c in "01234567" for c in body[i + 1 : i + 4]):
            out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
            i += 4
        else:
            out += nxt.encode("utf-8", "surrogateescape")
            i += 2
    return out.decode("utf-8", "surrogateescape")


def quoted_token(text: str) -> tuple[str, str] | None:
    """Split a leading C-quoted token off ``text``: (decoded token, rest), else None."""
    if not text.startswith('"'):
        return None
    i = 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return unquote(text[: i + 1]), text[i + 1 :]
        else:
            i += 1
    return None


def header_name(text: str) -> str:
    """The path of a '---'/'+++' line (the text after '--- '), as git reads it.

    A quoted name ends at its closing quote. Otherwise a date at the end of the line, after a
    tab or (whitespace damage) spaces, is cut off and the name is everything before it, spaces
    and tabs included; with no date the name ends at the first tab. Trailing spaces are
    dropped (editors and transports add them; a name that ends in a space is not supported).
    """
    quoted = quoted_token(text)
    if quoted is not None:
        return quoted[0]
    stamp = _TIMESTAMP.search(text)
    if stamp is not None and stamp.start() > 0:
        return text[: stamp.start()].rstrip(" ")
    return text.split("\t", 1)[0].rstrip(" ")


def traditional_choice(old: str, new: str) -> str:
    """The one name git's rule gives a traditional diff whose '---' and '+++' name different
    files: the shorter '---' name when the '+++' name only adds to its end ('file' and
    'file.new'), else the '+++' name ('file.orig' and 'file': the file the diff was made for).
    """
    return old if len(old) < len(new) and new.startswith(old) else new


def without_first_component(old: str, new: str) -> str | None:
    """'old/src/x.py' and 'new/src/x.py' (diff -ruN old new): the path both name once their
    first component is dropped, as git's default -p1 reads them; None if they do not."""
    old_rest, new_rest = old.partition("/")[2], new.partition("/")[2]
    return old_rest if old_rest and old_rest == new_rest else None
