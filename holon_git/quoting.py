"""Paths and messages made safe for UTF-8 output, as git quotes them.

A path is bytes; this tool holds it as text decoded with ``surrogateescape``, so a byte that
is not UTF-8 (``caf\\351.txt`` in Latin-1) is a lone surrogate, which no UTF-8 encoder, JSON
writer or MCP SDK accepts. Whatever leaves the process — receipts, refusals, MCP results, the
command line's text — goes through here: a path with such bytes (or, in text for a terminal,
control characters) is quoted as git quotes it (``"caf\\351.txt"``), and any other text has
each such byte written as git's octal escape. Text that is valid UTF-8 is returned as it is.
"""

from __future__ import annotations

import re
from ast import literal_eval
from typing import Any

PATH_KEYS = frozenset({"path", "old_path", "new_path"})
_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSAFE_FOR_TERMINAL = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")
_C_ESCAPES = {'"': '\\"', "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n",
              "\v": "\\v", "\f": "\\f", "\r": "\\r"}


def _octal(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte surrogateescape kept
        return f"\\{code - 0xDC00:03o}"
    if code >= 0xD800:  # a lone surrogate from elsewhere (a JSON "\ud800" escape)
        return f"\\u{code:04x}"
    return f"\\{code:03o}"


# A Python literal ('caf\\udce9.txt', or "it's\\udce9" when it holds a quote), as a message's
# f"{path!r}" writes a path holding a byte that is not UTF-8: such a byte is the only way a
# \\udc80-\\udcff escape gets into a repr, and a literal cannot hold its own unescaped quote,
# so an apostrophe elsewhere in the message ("the hunk's") never starts one.
_ESCAPED_BYTE = r"\\udc[89a-f][0-9a-f]"
_REPR_WITH_BYTE = re.compile(
    rf"'(?:[^'\\\n]|\\.)*?{_ESCAPED_BYTE}(?:[^'\\\n]|\\.)*'"
    rf'|"(?:[^"\\\n]|\\.)*?{_ESCAPED_BYTE}(?:[^"\\\n]|\\.)*"')


def _requoted(match: re.Match[str]) -> str:
    try:
        value = literal_eval(match.group(0))
    except (ValueError, SyntaxError):
        return match.group(0)
    return quote_path(value) if isinstance(value, str) else match.group(0)


def requote(text: str) -> str:
    """``text`` with each path a message wrote as a Python literal holding a byte that is not
    UTF-8 (``'caf\\udce9.txt'``) written as git quotes it (``"caf\\351.txt"``) instead."""
    if "\\udc" not in text:
        return text
    return _REPR_WITH_BYTE.sub(_requoted, text)


def safe_text(text: str) -> str:
    """``text`` with every byte that is not UTF-8 written as an octal escape (``\\351``), and
    a path written as a Python literal holding one quoted as git quotes it (``requote``)."""
    text = requote(text)
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: _octal(m.group(0)), text)


def quote_path(path: str, terminal: bool = False) -> str:
    """``path`` as git quotes it when it holds bytes that are not UTF-8 (or, ``terminal``,
    control characters): in double quotes, with C escapes; otherwise unchanged."""
    unsafe = _UNSAFE_FOR_TERMINAL if terminal else _SURROGATE
    if (path.isascii() and not terminal) or not unsafe.search(path):
        return path
    return '"' + "".join(_C_ESCAPES.get(ch) or (_octal(ch) if unsafe.fullmatch(ch) else ch)
                         for ch in path) + '"'


# git's quote_c_style: the bytes it writes as a letter escape; other bytes it quotes, octal
_C_LETTER_ESCAPES = {7: b"a", 8: b"b", 9: b"t", 10: b"n", 11: b"v", 12: b"f", 13: b"r",
                     0x22: b'"', 0x5C: b"\\"}


def _must_quote(byte: int, fully: bool) -> bool:
    return byte < 0x20 or byte in (0x22, 0x5C, 0x7F) or (byte >= 0x80 and fully)


def c_quoted(path: str, quote_fully: bool = True) -> bytes:
    """``path``'s bytes as git's --stat and --numstat write a path (quote_c_style): in double
    quotes with C escapes when it holds a control character, '"' or '\\', or, when
    ``quote_fully`` (git's core.quotePath, true by default), a byte of 0x80 or more, which is
    written as an octal escape (``"na\\303\\257ve.txt"``); otherwise as it is."""
    raw = path.encode("utf-8", "surrogateescape")
    if not any(_must_quote(byte, quote_fully) for byte in raw):
        return raw
    out = bytearray(b'"')
    for byte in raw:
        if not _must_quote(byte, quote_fully):
            out.append(byte)
        elif byte in _C_LETTER_ESCAPES:
            out += b"\\" + _C_LETTER_ESCAPES[byte]
        else:
            out += b"\\%03o" % byte
    out += b'"'
    return bytes(out)


def safe(value: Any, key: str | None = None) -> Any:
    """A JSON-like value (dicts, lists, strings) with every string made UTF-8-safe: a path
    (under a key named path, old_path or new_path) quoted, any other text escaped."""
    if isinstance(value, str):
        return quote_path(value) if key in PATH_KEYS else safe_text(value)
    if isinstance(value, dict):
        return {safe_text(k) if isinstance(k, str) else k: safe(v, k if isinstance(k, str)
                                                                else None)
                for k, v in value.items()}
    if isinstance(value, list):
        return [safe(item, key) for item in value]
    if isinstance(value, tuple):
        return tuple(safe(item, key) for item in value)
    return value
