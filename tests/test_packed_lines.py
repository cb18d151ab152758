"""Hunk bodies kept packed: one bytes object per hunk, read back as the same HunkLines."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import apply_edits, difflib_patch, edits, file_lines, join

from holon_git.core.model import (
    ADD,
    CONTEXT,
    REMOVE,
    Hunk,
    HunkLine,
    PackedLines,
    new_side,
    old_side,
    sides,
)
from holon_git.parse import parse_patch

PREFIX = {CONTEXT: b" ", REMOVE: b"-", ADD: b"+"}

texts = st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"") + b"\n")
hunk_lines = st.lists(st.builds(HunkLine, st.sampled_from([CONTEXT, REMOVE, ADD]), texts),
                      min_size=1, max_size=30)


def pack(lines: list[HunkLine]) -> PackedLines:
    return PackedLines(b"".join(PREFIX[line.kind] + line.text for line in lines))


@given(hunk_lines, st.booleans())
def test_packed_lines_read_back_as_written(lines: list[HunkLine], cut_last_newline: bool):
    if cut_last_newline:  # a patch's last line may lack its newline
        lines[-1] = HunkLine(lines[-1].kind, lines[-1].text[:-1])
    packed = pack(lines)
    assert list(packed) == lines and packed == lines and lines == packed
    assert len(packed) == len(lines)
    assert packed[-1] == lines[-1] and packed[1:] == lines[1:]
    as_list = Hunk(1, None, 1, None, lines)
    as_packed = Hunk(1, None, 1, None, packed)
    for kind in (CONTEXT, REMOVE, ADD):
        assert as_packed.count_kind(kind) == as_list.count_kind(kind) == \
            sum(line.kind == kind for line in lines)
    assert as_packed.kinds() == as_list.kinds() == {line.kind for line in lines}
    assert as_packed.old_lines == as_list.old_lines
    assert as_packed.new_lines == as_list.new_lines
    assert as_packed.reversed() == as_list.reversed()
    assert isinstance(as_packed.reversed().lines, PackedLines)  # -R keeps a body packed
    # the plan reads both sides straight from the bytes
    expected = ([line.text for line in lines if line.kind != ADD],
                [line.text for line in lines if line.kind != REMOVE])
    assert packed.sides() == sides(packed) == sides(lines) == expected
    assert (old_side(lines), new_side(lines)) == expected


def test_an_empty_body_has_no_lines():
    assert len(PackedLines(b"")) == 0 and list(PackedLines(b"")) == []


def test_a_different_body_is_not_equal_and_packed_lines_are_unhashable():
    one = pack([HunkLine(CONTEXT, b"a\n"), HunkLine(ADD, b"b\n")])
    assert one != pack([HunkLine(CONTEXT, b"a\n"), HunkLine(REMOVE, b"b\n")])
    assert one != [HunkLine(CONTEXT, b"a\n")]
    assert one != "not lines"
    with pytest.raises(TypeError):
        hash(one)


@st.composite
def edited(draw: st.DrawFn) -> tuple[bytes, bytes]:
    lines = draw(file_lines())
    return join(lines), join(apply_edits(lines, draw(edits(lines))))


@pytest.mark.slow
@given(edited(), st.integers(0, 4))
def test_parsed_hunks_hold_exactly_the_body_lines_of_the_patch(files, context):
    """Whether the parser packed a body or built its lines one by one, they are the lines
    after each '@@' header, prefix split off, in order."""
    old, new = files
    assume(old != new)  # an edit may write a line as it was: no patch to parse then
    patch = difflib_patch("f.txt", old, new, context)
    bodies: list[list[bytes]] = []
    for line in patch.splitlines(keepends=True)[2:]:
        if line.startswith(b"@@"):
            bodies.append([])
        else:
            bodies[-1].append(line)
    parsed = [[PREFIX[line.kind] + line.text for line in hunk.lines]
              for fp in parse_patch(patch).files for hunk in fp.hunks]
    assert parsed == bodies


def test_the_common_case_is_packed_and_a_repaired_body_is_not():
    plain = parse_patch(b"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n")
    assert isinstance(plain.files[0].hunks[0].lines, PackedLines)
    # a blank context line without its leading space: the body is read line by line
    repaired = parse_patch(b"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n")
    hunk = repaired.files[0].hunks[0]
    assert isinstance(hunk.lines, list) and hunk.blank_context_lines == 1
