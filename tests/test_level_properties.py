"""Properties of the two loose levels (hypothesis): a level never places a hunk that an earlier
level found more than once; re-indented added lines are the file's indentation and round-trip
through -R."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from holon_git.core.change import SourceFile
from holon_git.core.place.ladder import LAST_RUNGS
from holon_git.core.place.match import LEVELS, WHITESPACE, RunningFile, split_lines
from holon_git.core.plan.plan import plan_patch
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

PATH = "m.txt"
# Few distinct lines, so copies (exact, or once blanks or punctuation are ignored) are common.
WORDS = ["x = 1", "return x", "if y:", "print('it's')", "a - b", "pass", "f(a,  b)"]
SMART = str.maketrans({"'": "\u2019", "-": "\u2013"})


def render(level: int, text: str, indent: str) -> bytes:
    return (indent * level + text + "\n").encode()


@st.composite
def file_and_hunk(draw: st.DrawFn) -> tuple[bytes, list[bytes]]:
    """A file of indented lines, and a hunk's old side: a window of it, each line maybe
    re-indented, smartened, or with blanks changed."""
    style = draw(st.sampled_from(["    ", "\t", "  "]))
    rows = draw(st.lists(st.tuples(st.integers(0, 2), st.sampled_from(WORDS)), min_size=1,
                         max_size=14))
    content = b"".join(render(level, text, style) for level, text in rows)
    start = draw(st.integers(0, len(rows) - 1))
    size = draw(st.integers(1, min(4, len(rows) - start)))
    old = []
    for level, text in rows[start:start + size]:
        change = draw(st.sampled_from(["same", "indent", "smart", "blanks", "trailing"]))
        if change == "indent":
            old.append(render(level, text, draw(st.sampled_from(["\t", "  ", "        ", ""]))))
        elif change == "smart":
            old.append(render(level, text.translate(SMART), style))
        elif change == "blanks":
            old.append(render(level, text.replace(" ", "   "), style))
        elif change == "trailing":
            old.append(render(level, text + " \t", style))
        else:
            old.append(render(level, text, style))
    return content, old


def bare_patch(old: list[bytes], added: list[bytes]) -> bytes:
    body = b"".join(b" " + line for line in old) + b"".join(b"+" + line for line in added)
    return f"--- a/{PATH}\n+++ b/{PATH}\n@@ @@\n".encode() + body


@given(file_and_hunk())
def test_a_level_never_places_what_a_stricter_level_found_twice(case) -> None:
    content, old = case
    running = RunningFile(split_lines(content))
    copies = [len(running.find(old, level)) for level in range(len(LEVELS))]
    try:
        plan = plan_patch(parse_patch(bare_patch(old, [b"added\n"])),
                          {PATH: SourceFile(content)}.get)
    except PatchError as err:
        if err.code == "ambiguous_context":
            level = LEVELS.index(err.details["level"])
            assert copies[level] >= 2 and not any(copies[:level])
        elif err.code == "context_not_found":
            assert not any(copies)
        else:
            assert err.code in ("indentation_mismatch", "already_applied"), err
        return
    (hunk,) = plan.changes[0].hunks
    last = [t for t in hunk.tolerances if t in {rung.name for rung in LAST_RUNGS}]
    if last:
        # a last rung, tried once every level refused the hunk: no strict level found it, and
        # the whole old side occurs once with whitespace ignored (context_indent, whose
        # reading that is: it decides) or not at all (a rung reading the hunk otherwise)
        assert not any(copies[:WHITESPACE])
        assert copies[WHITESPACE] == (1 if last == ["context_indent"] else 0)
        return
    used = [LEVELS.index(t) for t in hunk.tolerances if t in LEVELS]
    level = max(used, default=0)
    assert copies[level] == 1 and not any(copies[:level])


@st.composite
def reindent_case(draw: st.DrawFn):
    """A file in one indentation style, an edit (lines inserted and removed inside a block),
    and the same edit written in another style (a tab for N spaces, another width) or
    shifted by a level: the mappings the matched lines can show."""
    file_unit = draw(st.sampled_from(["    ", "\t", "  "]))
    patch_unit = draw(st.sampled_from(["    ", "\t", "  ", "        "]))
    shift = draw(st.integers(-1, 1))
    if shift:
        patch_unit = file_unit
    count = draw(st.integers(3, 10))
    levels = [draw(st.integers(1, 3)) for _ in range(count)]
    rows = [(level, f"line{i} = {i}") for i, level in enumerate(levels)]
    at = draw(st.integers(0, count - 2))
    width = draw(st.integers(1, min(3, count - at)))
    removed = draw(st.integers(0, width - 1))
    added = [(draw(st.integers(1, 3)), f"new{i} = {i}") for i in range(draw(st.integers(1, 3)))]
    return file_unit, patch_unit, shift, rows, at, width, removed, added


def render_rows(rows, unit: str, shift: int = 0) -> list[bytes]:
    return [render(level + shift, text, unit) for level, text in rows]


@given(reindent_case())
def test_reindented_added_lines_take_the_file_style_and_round_trip(case) -> None:
    file_unit, patch_unit, shift, rows, at, width, removed, added = case
    assume(patch_unit != file_unit or shift)
    original = b"".join(render_rows(rows, file_unit))
    window = rows[at:at + width]
    context, gone = window[: width - removed], window[width - removed:]
    # the hunk: the window's first lines as context, its last ones removed, new ones added
    patch = (f"--- a/{PATH}\n+++ b/{PATH}\n@@ @@\n".encode()
             + b"".join(b" " + line for line in render_rows(context, patch_unit, shift))
             + b"".join(b"-" + line for line in render_rows(gone, patch_unit, shift))
             + b"".join(b"+" + line for line in render_rows(added, patch_unit, shift)))
    try:
        forward = plan_patch(parse_patch(patch), {PATH: SourceFile(original)}.get)
    except PatchError as err:
        assert err.code in ("indentation_mismatch", "ambiguous_context"), err
        return
    result = forward.changes[0].after
    assert result is not None
    indented_context = any(level + shift for level, _ in window)
    if indented_context:  # the matched lines show the mapping: the file's own style
        expected = rows[:at] + context + added + rows[at + width:]
        assert result == b"".join(render_rows(expected, file_unit))
    backward = plan_patch(parse_patch(patch).reversed(), {PATH: SourceFile(result)}.get,
                          reverse=True)
    assert backward.changes[0].after == original
