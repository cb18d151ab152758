"""The top rung (core/plan/fast.py) against the ladder's line search (hypothesis, differential).

The fast path places a file patch on bytes in one pass when every hunk is the common case (an
exact, unique copy of its old side, after the hunk before it, a new side found nowhere), and
hands anything else back to the ladder. Wherever it answers, it must answer exactly as the
reference does: the same new bytes, the same hunk results (places, tolerances, what chose
them, the marks the plan reads: off a claimed edge, new side elsewhere) and the same notes.
Where the reference refuses, the fast path must not answer at all.

The generated files mix unique lines with repeated ones (blank lines, braces, a repeated
block), LF and CRLF endings, sometimes no final newline and tab or space indentation; the
patches have hunks in and out of order, overlapping, at both edges of the file, with headers
off by a few lines (drift, as after an edit above), stale or repeated context, added lines that
already occur in the file, tabs in a spaces file, and a missing final newline on either side.
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from holon_git.core.plan.fast import apply_fast
from holon_git.core.plan.hunks import apply_hunks
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

REPEATED = [b"", b"}", b"    pass", b"\treturn x", b"    x = 1"]


@st.composite
def file_lines(draw: st.DrawFn) -> list[bytes]:
    """Lines with their endings: mostly unique, some repeated, perhaps a repeated block."""
    count = draw(st.integers(1, 50))
    block = [b"b%d" % i for i in range(draw(st.integers(1, 3)))]
    indent = draw(st.sampled_from([b"    ", b"\t"]))
    lines: list[bytes] = []
    while len(lines) < count:
        roll = draw(st.integers(0, 9))
        if roll == 0:
            lines.extend(block)
        elif roll <= 2:
            lines.append(draw(st.sampled_from(REPEATED)))
        else:
            lines.append(indent * draw(st.integers(0, 2)) + b"u%d" % len(lines))
    endings = draw(st.sampled_from(["lf", "lf", "crlf", "mixed"]))
    out = [line + (b"\r\n" if endings == "crlf" or (endings == "mixed" and draw(st.booleans()))
                   else b"\n") for line in lines]
    if draw(st.integers(0, 5)) == 0:
        out[-1] = out[-1].rstrip(b"\r\n")  # no final newline
    return out


@st.composite
def added_line(draw: st.DrawFn, lines: list[bytes], eol: bytes) -> bytes:
    roll = draw(st.integers(0, 9))
    if roll == 0 and lines:
        return draw(st.sampled_from(lines)).rstrip(b"\r\n") + eol  # a line the file has
    if roll == 1:
        return draw(st.sampled_from(REPEATED)) + eol
    if roll == 2:
        return b"\tnew%d" % draw(st.integers(0, 3)) + eol  # a tab, perhaps in a spaces file
    return b"n%d" % draw(st.integers(0, 1000)) + eol


@st.composite
def hunk(draw: st.DrawFn, lines: list[bytes], start: int) -> tuple[int, int, bytes, int]:
    """A hunk over ``lines`` from ``start``: (start, old count, body, new count)."""
    before = draw(st.integers(0, 3))
    removed = draw(st.integers(0, 3))
    after = draw(st.integers(0, 3))
    size = min(before + removed + after, len(lines) - start)
    old = lines[start : start + size]
    kinds = [" "] * min(before, size) + ["-"] * max(min(removed, size - before), 0)
    kinds += [" "] * (size - len(kinds))
    if old and draw(st.integers(0, 7)) == 0:  # stale context: not found, or found elsewhere
        i = draw(st.integers(0, len(old) - 1))
        old = [*old[:i], draw(st.sampled_from(REPEATED)) + b"\n", *old[i + 1 :]]
    eol = b"\r\n" if old and old[0].endswith(b"\r\n") else b"\n"
    added = draw(st.lists(added_line(lines, eol), max_size=3))
    body: list[bytes] = []
    where = draw(st.integers(0, len(old)))
    new_count = 0
    for i, (kind, line) in enumerate(zip(kinds, old, strict=True)):
        if i == where:
            body += [b"+" + text for text in added]
            new_count += len(added)
        body.append(kind.encode() + (line if line.endswith(b"\n") else line + b"\n"))
        if not line.endswith(b"\n"):
            body.append(b"\\ No newline at end of file\n")
        new_count += kind == " "
    if where == len(old):
        body += [b"+" + text for text in added]
        new_count += len(added)
        if added and draw(st.integers(0, 5)) == 0:
            body[-1] = body[-1].rstrip(b"\r\n") + b"\n\\ No newline at end of file\n"
    return start, len(old), b"".join(body), new_count


@st.composite
def file_and_patch(draw: st.DrawFn) -> tuple[bytes, bytes]:
    lines = draw(file_lines())
    starts: list[int] = []
    at = 0
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.integers(0, 5)) == 0:
            starts.append(draw(st.integers(0, len(lines))))  # anywhere: overlapping, out of order
        elif at <= len(lines):
            at = draw(st.integers(at, len(lines)))
            starts.append(at)
            at += draw(st.integers(1, 8))
    if draw(st.booleans()):
        starts.append(len(lines) - draw(st.integers(0, 2)))  # at the end of the file
    hunks = []
    moved = 0
    drift = draw(st.sampled_from([0, 0, 0, 1, -2, 5]))
    for start in starts:
        start = max(min(start, len(lines)), 0)
        start, old_count, body, new_count = draw(hunk(lines, start))
        if not body:
            continue
        jitter = drift + draw(st.sampled_from([0, 0, 0, 0, 1, -1, 3]))
        old_start = max(start + 1 + jitter, 0 if not old_count else 1)
        new_start = max(old_start + moved + draw(st.sampled_from([0, 0, 0, 2])), 0)
        hunks.append(b"@@ -%d,%d +%d,%d @@\n" % (old_start, old_count, new_start, new_count)
                     + body)
        moved += new_count - old_count
        if draw(st.integers(0, 7)) == 0:  # the same hunk again (a re-sent hunk)
            hunks.append(hunks[-1])
    return b"".join(lines), b"--- a/f.py\n+++ b/f.py\n" + b"".join(hunks)


def outcome(run) -> tuple:  # type: ignore[no-untyped-def]
    try:
        after, results, notes = run()
    except PatchError as err:
        return ("refused", err.code)
    return ("applied", after, [(r.to_dict(), r.new_side_elsewhere, r.off_edge) for r in results],
            [n.to_dict() for n in notes])


def parsed(patch: bytes, reverse: bool):  # type: ignore[no-untyped-def]
    try:
        (fp,) = parse_patch(patch).files
    except PatchError:
        return None
    return fp.reversed() if reverse else fp


@pytest.mark.slow
@given(file_and_patch(), st.booleans(), st.booleans())
def test_the_fast_path_plans_as_the_ladder_does(case: tuple[bytes, bytes], reverse: bool,
                                                 seek: bool) -> None:
    """``seek``: the history log could tell a re-send (the ladder then also looks for the new
    side away from the hunk's line number, and marks it: new_side_elsewhere)."""
    content, patch = case
    fp = parsed(patch, reverse)
    if fp is None:
        return
    if reverse:  # undone on what the patch made of the file, where it applies
        with contextlib.suppress(PatchError):
            content = apply_hunks(parsed(patch, False), content, False)[0]
    reference = outcome(lambda: apply_hunks(fp, content, reverse, "exhaustive", seek))
    assert outcome(lambda: apply_hunks(fp, content, reverse, "lines", seek)) == reference
    assert outcome(lambda: apply_hunks(fp, content, reverse, "auto", seek)) == reference
    fast = apply_fast(fp, content)
    event(f"fast path: {'answered' if fast is not None else 'handed to the ladder'}"
          f"; reference {reference[0]} {reference[1] if reference[0] == 'refused' else ''}")
    if fast is not None:
        assert outcome(lambda: fast) == reference


def _apply(content: bytes, patch: bytes) -> tuple:
    fp = parsed(patch, False)
    fast = apply_fast(fp, content)
    assert outcome(lambda: apply_hunks(fp, content, False, "exhaustive")) == outcome(
        lambda: fast if fast is not None else apply_hunks(fp, content, False))
    return fast


def test_the_common_case_is_taken_by_the_fast_path() -> None:
    content = b"".join(b"line %d\r\n" % i for i in range(40))
    patch = (b"--- a/f\n+++ b/f\n"
             b"@@ -3,3 +3,3 @@\n line 2\r\n-line 3\r\n+three\r\n line 4\r\n"
             b"@@ -20,2 +20,3 @@\n line 19\r\n+new\r\n line 20\r\n"
             b"@@ -38,3 +39,2 @@\n line 37\r\n-line 38\r\n line 39\r\n")
    got = _apply(content, patch)
    assert got is not None
    after, results, notes = got
    assert [r.applied_line for r in results] == [3, 20, 38] and notes == []
    assert after.count(b"three\r\n") == 1 and b"line 38\r\n" not in after
    assert results[2].off_edge is False  # claims the end, and ends the file


def test_drifted_headers_do_not_matter_to_a_unique_copy() -> None:
    content = b"".join(b"u%d\n" % i for i in range(30))
    patch = b"--- a/f\n+++ b/f\n@@ -17,3 +17,3 @@\n u9\n-u10\n+ten\n u11\n"
    after, results, _ = _apply(content, patch)
    assert results[0].applied_line == 10 and results[0].offset == -7


def test_the_uncommon_cases_go_to_the_ladder() -> None:
    content = b"a\nb\nc\na\nb\nc\nz\n"
    twice = b"--- a/f\n+++ b/f\n@@ -4,2 +4,2 @@\n a\n-b\n+B\n"  # two copies: the hint decides
    assert _apply(content, twice) is None
    there = b"--- a/f\n+++ b/f\n@@ -6,2 +6,2 @@\n c\n-z\n+a\n"  # its new side is in the file
    assert _apply(content, there) is None
    assert _apply(b"a\nb", b"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n") is None
    tab = b"--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n+\tx = 1\n b\n"
    # an exact match applies as written, a tab into a spaces file too (as git applies it)
    assert _apply(b"a\nb\n    y\n", tab) is not None
    assert _apply(b"a\nb\n\ty\n", tab) is not None  # a tabs file takes it
    order = (b"--- a/f\n+++ b/f\n@@ -6,2 +6,2 @@\n u5\n-u6\n+six\n"
             b"@@ -2,2 +2,2 @@\n u1\n-u2\n+two\n")
    assert _apply(b"".join(b"u%d\n" % i for i in range(9)), order) is None  # out of order


def test_a_copy_made_by_an_earlier_hunk_is_seen() -> None:
    """The second hunk's old side occurs once in the original, but the first hunk's new
    lines make a second copy (inside them, or reaching from them into the original lines
    after them): the ladder places the hunk by its line number, and so must the plan."""
    inside = (b"a\nb\nc\nd\ne\nk\nm\nz\n",
              b"--- a/f\n+++ b/f\n@@ -1,2 +1,4 @@\n a\n+k\n+m\n b\n"
              b"@@ -6,2 +8,2 @@\n k\n-m\n+M\n")
    across = (b"a\nb\nc\nk\nb\nz\n",
              b"--- a/f\n+++ b/f\n@@ -1,1 +1,2 @@\n a\n+k\n"
              b"@@ -4,2 +5,2 @@\n k\n-b\n+B\n")
    for content, patch in (inside, across):
        fp = parsed(patch, False)
        reference = outcome(lambda: apply_hunks(fp, content, False, "exhaustive"))  # noqa: B023
        assert reference[0] == "applied" and reference[2][1][0]["by_line_number"]
        assert outcome(lambda: apply_hunks(fp, content, False)) == reference  # noqa: B023
        assert apply_fast(fp, content) is None


def test_a_new_side_inside_the_copy_is_asked_about_at_the_hinted_line() -> None:
    """A deletion whose new side is part of its old side (the middle 'b' of three taken out):
    the new side sits inside the copy, which says nothing, unless the hunk's line number
    points inside the copy, where the new side sits too: then the ladder's rules decide (a
    re-sent deletion among repeated lines looks so)."""
    content = b"x\nb\nb\nb\ny\n"
    at_copy = b"--- a/f\n+++ b/f\n@@ -2,3 +2,2 @@\n b\n-b\n b\n"
    assert _apply(content, at_copy) is not None
    inside = b"--- a/f\n+++ b/f\n@@ -3,3 +3,2 @@\n b\n-b\n b\n"
    assert _apply(content, inside) is None
    fp = parsed(inside, False)
    assert outcome(lambda: apply_hunks(fp, content, False, "exhaustive"))[0] == "refused"


def test_a_new_side_reaching_into_the_lines_an_earlier_hunk_wrote_is_seen() -> None:
    """The same insertion above a line, sent twice in one patch: the second hunk's new side
    ('}' then 'a') sits where it goes, made of the line the first hunk added and the line
    after it."""
    content = b"a\n"
    patch = b"--- a/f\n+++ b/f\n@@ -1,1 +1,2 @@\n+}\n a\n@@ -1,1 +1,2 @@\n+}\n a\n"
    assert _apply(content, patch) is None
    assert outcome(lambda: apply_hunks(parsed(patch, False), content, False))[0] == "refused"
