"""The differential suite's truth rule (bench/differential/truth.py), on small texts: it must
call an edit certain only where the lines a patch kept point at one place."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from differential.truth import merged, slip_is_certain  # noqa: E402

FILE = ["def a():\n", "    x = 1\n", "    return x\n", "\n", "def b():\n", "    x = 1\n",
        "    return x\n"]


def test_a_window_that_occurs_twice_is_not_certain() -> None:
    # the kept lines "x = 1 / return x" are in both functions
    assert not slip_is_certain(FILE, [1, 2], ["    y = 0\n", "    x = 1\n", "    return x\n"], 0)


def test_a_window_with_its_distinctive_line_is_certain() -> None:
    assert slip_is_certain(FILE, [4, 5, 6], ["def b():\n", "    x = 1\n", "    return x\n"], 4)


def test_an_old_side_written_exactly_elsewhere_is_not_certain() -> None:
    # whitespace only, but the text as written is exactly the other copy
    assert not slip_is_certain(FILE, [5, 6], ["    x = 1\n", "    return x\n"], 5, True)
    assert slip_is_certain(FILE, [4, 5], ["\tdef b():\n", "\t    x = 1\n"], 4, True)


def test_a_stale_file_is_judged_by_git_merge_file() -> None:
    base = "".join(f"line {n}\n" for n in range(10))
    ours = base.replace("line 1\n", "line one\n")
    assert merged(ours, base, base.replace("line 8\n", "line eight\n")) == ours.replace(
        "line 8\n", "line eight\n")
    assert merged(ours, base, base.replace("line 1\n", "line uno\n")) is None


def test_a_skipped_blank_beside_another_blank_shifts_the_old_side_not_the_edit() -> None:
    text = ["a = 1\n", "\n", "\n", "def b():\n", "    return 2\n"]
    # the patch kept one of the two blanks: its old side now starts a line further down
    written = ["\n", "def b():\n", "    return 2\n"]
    assert not slip_is_certain(text, [1, 3, 4], written, 1)
    assert slip_is_certain(text, [1, 3, 4], written, 1, change_at=(2, 4))
