"""The matcher: pure functions over lines. Exact, drifted, missing and ambiguous context."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from holon_git.core.place.ladder import choose
from holon_git.core.place.match import (
    KEYS,
    LEVELS,
    RunningFile,
    equal_level,
    near_miss,
    split_lines,
)
from holon_git.errors import PatchError

# One text in the forms the levels tell apart: endings, trailing and inner blanks, tabs,
# typographic quotes; and a different text.
LINE_FORMS = [b"a 'b'\n", b"a 'b'\r\n", b"a 'b'", b"a 'b'  \n", b"a  'b'\n", b"\ta 'b'\n",
              "a \u2018b\u2019\n".encode(), "a\u00a0'b'\n".encode(), b"a 'c'\n", b"\n", b""]


def lines(*items: str) -> list[bytes]:
    return [item.encode() + b"\n" for item in items]


def test_split_lines_keeps_endings():
    assert split_lines(b"a\r\nb\nc") == [b"a\r\n", b"b\n", b"c"]
    assert split_lines(b"") == [] and split_lines(b"\n") == [b"\n"]
    assert split_lines(b"a\rb\n") == [b"a\rb\n"]


def test_exact_unique_match_anywhere_in_the_file():
    rf = RunningFile(lines(*[f"line {i}" for i in range(100)]))
    found = rf.search(lines("line 40", "line 41"))
    assert [c.start for c in found.candidates] == [40] and found.level == 0


def test_levels_are_tried_in_order():
    rf = RunningFile([b"a\r\n", b"b  \n", b"c\n"])
    assert rf.search([b"a\n"]).level == 1
    assert rf.search([b"b\n"]).level == 2
    assert rf.search([b"a\r\n", b"b  \n"]).level == 0


def test_exact_match_wins_over_tolerant_copies():
    rf = RunningFile([b"x \n", b"y\n", b"x\n", b"y\n"])
    found = rf.search([b"x\n", b"y\n"])
    assert [c.start for c in found.candidates] == [2] and found.level == 0


def test_missing_final_newline_does_not_prevent_a_match():
    rf = RunningFile([b"a\n", b"b"])
    assert [c.start for c in rf.search([b"a\n", b"b\n"]).candidates] == [0]


def test_end_anchored_search():
    rf = RunningFile(lines("x", "y", "x", "y"))
    assert [c.start for c in rf.search(lines("x", "y"), at_end=True).candidates] == [2]


def test_choose_unique_and_ambiguous():
    rf = RunningFile(lines("a", "b", "c", "a", "b", "c"))
    found = rf.search(lines("a", "b"))
    with pytest.raises(PatchError) as info:
        choose(found, [None])
    assert info.value.code == "ambiguous_context"
    assert info.value.details["candidate_lines"] == [1, 4]
    assert choose(found, [3])[0].start == 3 and choose(found, [3])[1] is True
    with pytest.raises(PatchError):
        choose(found, [1])  # points at neither copy (midway): refused
    with pytest.raises(PatchError):
        choose(found, [0, 3])  # the two hints disagree: refused


def test_running_file_sees_earlier_edits():
    rf = RunningFile(lines("a", "b", "c", "d", "e"))
    rf.replace(1, 1, lines("B1", "B2"))  # b -> B1 B2
    assert rf.current == lines("a", "B1", "B2", "c", "d", "e")
    found = rf.search(lines("d", "e"))
    assert [(c.start, c.original) for c in found.candidates] == [(4, 3)]
    assert rf.to_current(1) is None and rf.to_current(0) == 0 and rf.to_current(3) == 4
    # a window touching the replaced lines is not clean
    overlapping = rf.search(lines("B2", "c"))
    assert overlapping.candidates[0].original is None
    # unchanged context of the earlier edit stays usable
    assert rf.search(lines("a")).candidates[0].original == 0


def test_running_file_counts_copies_created_by_earlier_hunks():
    rf = RunningFile(lines("x", "target", "y"))
    rf.replace(0, 1, lines("target"))
    found = rf.search(lines("target"))
    assert len(found.candidates) == 2


def test_deletion_point_splits_windows():
    rf = RunningFile(lines("a", "b", "c"))
    rf.replace(1, 1, [])
    assert rf.current == lines("a", "c")
    assert rf.search(lines("a", "c")).candidates[0].original is None
    assert rf.search(lines("c")).candidates[0].original == 2


def test_many_edits_keep_coordinates_consistent():
    original = lines(*[f"l{i}" for i in range(50)])
    rf = RunningFile(original)
    for i in (40, 10, 25):  # out of order
        found = rf.search(lines(f"l{i}"))
        cand = found.candidates[0]
        assert cand.original == i
        rf.replace(cand.start, 1, lines(f"L{i}a", f"L{i}b"))
    for i in range(50):
        if i in (10, 25, 40):
            continue
        cur = rf.to_current(i)
        assert rf.current[cur] == original[i]


def test_near_miss_names_the_first_difference():
    current = lines("def f():", "    return 1", "", "def g():", "    return 2")
    info = near_miss(current, lines("def g():", "    return 3"), None)
    assert info["nearest_line"] == 4
    assert info["first_difference"] == {"line": 5, "expected": "    return 3",
                                         "found": "    return 2"}
    assert [r["line"] for r in info["region"]] == [4, 5]


def test_near_miss_with_nothing_similar_points_at_the_hint():
    info = near_miss(lines("a", "b", "c"), lines("zzz"), 2)
    assert info["nearest_line"] == 3


@given(st.lists(st.tuples(st.sampled_from(LINE_FORMS), st.sampled_from(LINE_FORMS)),
                max_size=6), st.integers(0, len(LEVELS)))
def test_equal_level_is_the_first_level_that_makes_every_pair_equal(pairs, limit):
    first, second = [a for a, _ in pairs], [b for _, b in pairs]
    naive = next((level for level, key in enumerate(KEYS[:limit])
                  if all(key(a) == key(b) for a, b in pairs)), limit)
    assert equal_level(first, second, limit) == naive
