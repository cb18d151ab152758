"""Placement on bytes against the line search, and the bounded search against the exhaustive
one (hypothesis, differential).

Three ways place a file patch's hunks (hunks.apply_hunks): on the file's bytes first
(exact.ByteFile), the line search that seeks only as many copies as a decision needs, and
the exhaustive reference that lists every copy first. On generated files (repeated blocks,
CRLF and LF mixed, no final newline) and hunks (hinted copies, wrong hints, stale lines,
drift, overlapping and out-of-order hunks, edits at both ends), all three must give the same
new content, the same places and notes, or the same refusal.
"""

from __future__ import annotations

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from holon_git.core.place.exact import ByteFile, Unusual
from holon_git.core.plan.hunks import apply_hunks, apply_on
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

PATH = "f.txt"
WORDS = [b"a", b"b", b"}", b"", b"    x = 1", b"  a", b"a "]  # repeats, and near-repeats


@st.composite
def file_content(draw: st.DrawFn) -> bytes:
    count = draw(st.integers(1, 40))
    block = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
    lines: list[bytes] = []
    while len(lines) < count:
        if draw(st.integers(0, 3)) == 0:
            lines.extend(block)  # a repeated block: copies that only a hint tells apart
        elif draw(st.booleans()):
            lines.append(b"u%d" % len(lines))
        else:
            lines.append(draw(st.sampled_from(WORDS)))
    endings = draw(st.sampled_from(["lf", "crlf", "mixed"]))
    out = []
    for line in lines:
        crlf = endings == "crlf" or (endings == "mixed" and draw(st.booleans()))
        out.append(line + (b"\r\n" if crlf else b"\n"))
    if draw(st.integers(0, 4)) == 0:
        out[-1] = out[-1].rstrip(b"\r\n")  # no final newline
    return b"".join(out)


@st.composite
def hunk_text(draw: st.DrawFn, lines: list[bytes], shift: int) -> bytes:
    """One hunk taken from ``lines`` (a stretch as context and removed lines), perhaps with a
    stale line, a wrong hint, or no old side; its text and its old and new line counts."""
    start = draw(st.integers(0, max(len(lines) - 1, 0)))
    size = 0 if draw(st.integers(0, 9)) == 0 else draw(st.integers(2, 6))
    size = min(size, len(lines) - start)
    old = list(lines[start : start + size])
    if old and draw(st.integers(0, 5)) == 0:  # a stale line: not found, or found elsewhere
        old[draw(st.integers(0, len(old) - 1))] = draw(st.sampled_from(WORDS)) + b"\n"
    if old and draw(st.integers(0, 6)) == 0:  # the patch's own endings differ from the file's
        old = [line.rstrip(b"\r\n") + b"\n" for line in old]
    kinds = [draw(st.sampled_from(" -")) for _ in old]
    body = []
    added = draw(st.lists(st.sampled_from(WORDS + [b"new"]), min_size=0 if old else 1,
                          max_size=3))
    where = draw(st.integers(0, len(old)))
    for i, (kind, line) in enumerate(zip(kinds, old, strict=True)):
        if i == where:
            body.extend(b"+" + word + b"\n" for word in added)
        body.append(kind.encode() + (line if line.endswith(b"\n") else line + b"\n"))
        if not line.endswith(b"\n"):
            body.append(b"\\ No newline at end of file\n")
    if where == len(old):
        body.extend(b"+" + word + b"\n" for word in added)
    old_count = len(old)
    new_count = kinds.count(" ") + len(added)
    hint = start + 1 + draw(st.sampled_from([0, 0, 0, 1, -1, 3, -5, 40]))
    hint = max(hint, 0 if not old_count else 1)
    header = b"@@ -%d,%d +%d,%d @@\n" % (hint, old_count, max(hint + shift, 1), new_count)
    return header + b"".join(body)


@st.composite
def file_and_patch(draw: st.DrawFn) -> tuple[bytes, bytes]:
    content = draw(file_content())
    lines = content.splitlines(keepends=True)
    hunks = [draw(hunk_text(lines, draw(st.sampled_from([0, 0, 1, -2]))))
             for _ in range(draw(st.integers(1, 4)))]
    if draw(st.booleans()):
        hunks.sort(key=lambda h: int(h.split(b",")[0][4:]))  # in order, as a diff has them
    return content, b"--- a/f.txt\n+++ b/f.txt\n" + b"".join(hunks)


def outcome(run) -> tuple:  # type: ignore[no-untyped-def]
    try:
        after, results, notes = run()
    except PatchError as err:
        return ("refused", err.code, err.hunk, err.message, err.details)
    return ("applied", after, [r.to_dict() for r in results], [n.to_dict() for n in notes])


def parsed(patch: bytes):  # type: ignore[no-untyped-def]
    try:
        (fp,) = parse_patch(patch).files
    except PatchError:
        return None
    return fp


@pytest.mark.slow
@given(file_and_patch())
def test_bytes_lines_and_exhaustive_search_decide_alike(case: tuple[bytes, bytes]) -> None:
    content, patch = case
    fp = parsed(patch)
    if fp is None:
        return
    reference = outcome(lambda: apply_hunks(fp, content, False, "exhaustive"))
    event(f"reference: {reference[1] if reference[0] == 'refused' else 'applied'}")
    assert outcome(lambda: apply_hunks(fp, content, False, "lines")) == reference
    assert outcome(lambda: apply_hunks(fp, content, False, "auto")) == reference
    if not content.endswith(b"\n"):
        return
    try:  # the bytes path alone: where it answers, it answers as the reference does
        on_bytes = outcome(lambda: apply_on(ByteFile(content), fp, content, False))
    except Unusual:
        event("bytes: handed to the line search")
        return
    event(f"bytes: {on_bytes[0]}")
    if on_bytes[0] == "applied":
        event(f"bytes: by line number: {any(r.get('by_line_number') for r in on_bytes[2])}")
        assert on_bytes == reference
    else:  # a refusal on bytes hands the file to the line search, which must refuse too
        assert reference[0] == "refused" and on_bytes[1] == reference[1]


@pytest.mark.slow
@given(file_and_patch(), st.booleans())
def test_reversed_patches_decide_alike(case: tuple[bytes, bytes], reverse: bool) -> None:
    content, patch = case
    fp = parsed(patch)
    if fp is None:
        return
    fp = fp.reversed() if reverse else fp
    reference = outcome(lambda: apply_hunks(fp, content, reverse, "exhaustive"))
    assert outcome(lambda: apply_hunks(fp, content, reverse, "auto")) == reference


def _on_bytes(content: bytes, patch: bytes) -> tuple:
    fp = parsed(patch)
    assert fp is not None
    return outcome(lambda: apply_on(ByteFile(content), fp, content, False))


def test_bytes_place_a_unique_hunk_and_a_hinted_copy_without_the_line_search() -> None:
    content = b"".join(b"line %d\r\n" % i for i in range(50)) + b"x\ny\nx\ny\n" * 3
    unique = b"--- a/f\n+++ b/f\n@@ -10,3 +10,3 @@\n line 9\r\n-line 10\r\n+ten\r\n line 11\r\n"
    got = _on_bytes(content, unique)
    assert got[0] == "applied" and b"ten\r\n" in got[1] and got[2][0]["applied_line"] == 10
    hinted = b"--- a/f\n+++ b/f\n@@ -55,2 +55,2 @@\n x\n-y\n+z\n"
    got = _on_bytes(content, hinted)
    assert got[0] == "applied" and got[2][0]["by_line_number"] is True
    head = b"".join(b"line %d\r\n" % i for i in range(50))
    assert got[1] == head + b"x\ny\n" * 2 + b"x\nz\n" + b"x\ny\n" * 3
    assert got == outcome(lambda: apply_hunks(parsed(hinted), content, False, "exhaustive"))


def test_bytes_hand_unusual_files_to_the_line_search() -> None:
    content = b"a\nb\nc\n"
    loose = b"--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b  \n+B\n"  # only the trailing-space level finds it
    try:
        _on_bytes(content, loose)
    except Unusual:
        pass
    else:
        raise AssertionError("a tolerance level was searched on bytes")
    assert outcome(lambda: apply_hunks(parsed(loose), content, False, "auto"))[1] == b"a\nB\nc\n"


def test_a_last_line_without_newline_is_an_exact_copy_for_every_search() -> None:
    """The exact level ignores a missing final newline: the copy must not need the
    line-ending tolerance, whichever search finds it."""
    fp = parsed(b"--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+c\n")
    for matching in ("auto", "lines", "exhaustive"):
        after, results, _ = apply_hunks(fp, b"a\nb", False, matching)
        assert after == b"a\nc" and results[0].tolerances == [], matching
