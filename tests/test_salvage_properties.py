"""Properties of the rungs below the ladder (hypothesis): a real edit whose patch had context
written from memory (one side, or both, replaced by lines the file does not have; a context
line left out; a blank line added) applies exactly as the edit meant, or is refused; never
anywhere else. And sent again to its own result, it is refused."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import apply_edits, difflib_patch, edits, file_lines, join

from holon_git.core.change import SourceFile
from holon_git.core.place.salvage.reading import distinctive
from holon_git.core.plan.plan import plan_patch
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

PATH = "src/file.txt"


def hunks_of(patch: bytes) -> tuple[list[bytes], list[list[bytes]]]:
    """(the header lines, each hunk's lines: its '@@' line and body) of a one-file patch."""
    lines = patch.split(b"\n")
    first = next(j for j, line in enumerate(lines) if line.startswith(b"@@"))
    hunks: list[list[bytes]] = []
    for line in lines[first:]:
        if line.startswith(b"@@"):
            hunks.append([line])
        elif line:
            hunks[-1].append(line)
    return lines[:first], hunks


def rejoin(header: list[bytes], hunks: list[list[bytes]]) -> bytes:
    return b"\n".join([*header, *(line for hunk in hunks for line in hunk)]) + b"\n"


def side(hunk: list[bytes], which: str) -> list[int]:
    """Indexes (in the hunk, its '@@' line at 0) of its leading or trailing context."""
    body = range(1, len(hunk))
    changes = [j for j in body if hunk[j][:1] in (b"-", b"+")]
    if which == "leading":
        return [j for j in body if j < changes[0]]
    return [j for j in body if j > changes[-1]]


@st.composite
def mutated(draw: st.DrawFn):
    """A file, its edited version, and the edit's patch with one model-like mistake."""
    lines = draw(file_lines(max_lines=40))
    changes = draw(edits(lines))
    new = apply_edits(lines, changes)
    assume(new != lines)
    old_text, new_text = join(lines), join(new)
    header, hunks = hunks_of(difflib_patch(PATH, old_text, new_text, draw(st.integers(1, 3))))
    number = draw(st.integers(0, len(hunks) - 1))
    hunk = hunks[number]
    mistake = draw(st.sampled_from(["invent leading", "invent trailing", "invent both",
                                    "skip a line", "extra blank"]))
    if mistake.startswith("invent"):
        which = ["leading", "trailing"] if mistake == "invent both" else [mistake.split()[1]]
        places = [j for name in which for j in side(hunk, name)]
        assume(places)
        for k, j in enumerate(places):
            hunk[j] = b" invented-" + draw(st.binary(min_size=2, max_size=4)).hex().encode() \
                + str(k).encode()
    elif mistake == "skip a line":
        inner = [j for j in range(2, len(hunk) - 1)
                 if hunk[j][:1] == b" " and hunk[j - 1][:1] == b" " and hunk[j + 1][:1] == b" "]
        assume(inner)
        del hunk[draw(st.sampled_from(inner))]
    else:
        pairs = [j for j in range(2, len(hunk)) if hunk[j][:1] == hunk[j - 1][:1] == b" "]
        assume(pairs)
        hunk.insert(draw(st.sampled_from(pairs)), b" ")
    return old_text, new_text, rejoin(header, hunks), mistake


def plan(patch: bytes, content: bytes) -> bytes:
    (change,) = plan_patch(parse_patch(patch), {PATH: SourceFile(content)}.get).changes
    assert change.after is not None
    return change.after


@pytest.mark.slow
@settings(max_examples=300)
@given(mutated())
def test_a_patch_with_context_from_memory_applies_as_meant_or_not_at_all(case):
    old, new, patch, _ = case
    try:
        result = plan(patch, old)
    except PatchError:
        return
    assert result == new


def _deletes_from_a_run(patch: bytes, result: bytes) -> bool:
    """Does a hunk remove lines that ``result`` still holds right after the hunk's leading
    context (its removed lines were one copy of a run)?"""
    lines, body = result.splitlines(keepends=True), patch.splitlines(keepends=True)
    removed = [line[1:] for line in body if line.startswith(b"-") and not line.startswith(b"---")]
    lead = [line[1:] for line in body if line.startswith(b" ")][:1]
    if not removed or not lead:
        return False
    return any(lines[at:at + 1] == lead and lines[at + 1:at + 1 + len(removed)] == removed
               for at in range(len(lines)))


def _removes_a_common_line_still_there(patch: bytes, result: bytes) -> bool:
    """Does a hunk remove only lines that say nothing of where they are (``return None``,
    ``}``: none distinctive) and that ``result`` still holds elsewhere?"""
    lines = set(result.splitlines(keepends=True))
    removed = [line[1:] for line in patch.splitlines(keepends=True)
               if line.startswith(b"-") and not line.startswith(b"---")]
    return bool(removed) and all(line in lines and not distinctive(line) for line in removed)


@pytest.mark.slow
@settings(max_examples=200)
@given(mutated())
def test_a_salvaged_patch_sent_again_is_refused(case):
    old, new, patch, _ = case
    try:
        result = plan(patch, old)
    except PatchError:
        return
    assume(result == new)
    # a deletion from a run of equal lines (a '}' of '}\n}') whose other side was invented:
    # the file after it looks like one where the patch is fresh, and only the history log
    # tells the re-send (test_resend_history.py replays it through a repository)
    assume(not _deletes_from_a_run(patch, result))
    # the same for a common line ('return None') removed with one side read as written from
    # memory, while another copy of it stays: sent again, the hunk's kept side fits that copy
    # and its other side reads as invented; the history log refuses the re-send there
    # (test_resend_history.py: test_the_resend_guard_stands_without_the_rescue)
    assume(not _removes_a_common_line_still_there(patch, result))
    try:
        again = plan(patch, result)
    except PatchError as err:
        assert err.code in ("already_applied", "context_not_found", "ambiguous_context",
                            "indentation_mismatch", "ambiguous_repeat", "partly_applied"), err
        return
    raise AssertionError(f"applied twice: {again!r}")
