"""Building a hunk's new lines from the file's matched lines. Pure; bytes only.

Rules (docs/patch-format.md, "What gets written"):
- context lines keep the file's own bytes, whatever tolerance matched them;
- added lines take the file's line ending when the match needed a tolerance (the patch's
  endings then say nothing about the file); on an exact match they are written as the patch has
  them, as git does;
- only the last line of a file may lack a line ending; whether it has one changes only when the
  patch's old and new sides disagree about it ("\\ No newline at end of file" on one side).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..model import ADD, CONTEXT, HunkLine, new_side, whole_lines


def dominant_eol(content: bytes) -> bytes | None:
    """The line ending most lines of ``content`` use, or None if it has no line ending."""
    crlf = content.count(b"\r\n") if b"\r" in content else 0  # the search is the slow part
    lf = content.count(b"\n") - crlf
    if crlf + lf == 0:
        return None
    return b"\r\n" if crlf > lf else b"\n"


def body_of(line: bytes) -> bytes:
    if line.endswith(b"\r\n"):
        return line[:-2]
    if line.endswith(b"\n"):
        return line[:-1]
    return line


def with_eol(line: bytes, eol: bytes) -> bytes:
    return body_of(line) + eol


def new_window(
    window: Sequence[bytes],
    hunk_lines: Sequence[HunkLine],
    *,
    added_eol: bytes | None,
    fill_eol: Callable[[], bytes],
    at_end: bool,
    final_newline: bool,
    new: list[bytes] | None = None,
) -> list[bytes]:
    """The lines that replace ``window`` (the file's lines matched by the hunk's old side).

    added_eol: ending to give added lines, or None to keep the patch's.
    fill_eol: gives the ending for a line that must gain one (it lacked one but is no longer
    last); called only then, as finding the file's usual ending reads the whole file.
    at_end: the window ends at the end of the file; final_newline then says whether the
    file's last line ends with a newline afterwards.
    new: the hunk's new side (``new_side(hunk_lines)``) when the caller has it already.
    """
    if added_eol is None and (not at_end or final_newline):
        # An exact match of whole lines: the context lines are byte for byte the file's, so
        # the new side is the hunk's own text; only endings may need filling in.
        if new is None:
            new = new_side(hunk_lines)
        if whole_lines(new) and whole_lines(window):
            return new
    out: list[bytes] = []
    at = 0
    for line in hunk_lines:
        if line.kind == CONTEXT:
            out.append(window[at])
            at += 1
        elif line.kind == ADD:
            text = line.text
            if added_eol is not None and text.endswith(b"\n"):
                text = with_eol(text, added_eol)
            out.append(text)
        else:
            at += 1
    last = len(out) - 1
    for i, text in enumerate(out):
        if not text.endswith(b"\n") and (i < last or not at_end):
            out[i] = text + fill_eol()
    if at_end and out:
        if final_newline and not out[-1].endswith(b"\n"):
            out[-1] += fill_eol()
        elif not final_newline and out[-1].endswith(b"\n"):
            out[-1] = body_of(out[-1])
    return out
