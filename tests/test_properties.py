"""Properties of the core (hypothesis): generated edits round-trip, headers are only hints,
arbitrary bytes never crash, and reverse undoes apply."""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from strategies import (
    apply_edits,
    difflib_patch,
    edits,
    file_lines,
    git_diff_patch,
    join,
    repeat_is_true,
    shifted_headers,
)

from holon_git.core.change import SourceFile
from holon_git.core.plan.hunks import apply_hunks
from holon_git.core.plan.plan import plan_patch
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

PATH = "src/file.txt"


def plan_against(patch: bytes, content: bytes, *, reverse: bool = False):
    parsed = parse_patch(patch)
    if reverse:
        parsed = parsed.reversed()
    files = {PATH: SourceFile(content)}
    return plan_patch(parsed, files.get, reverse=reverse)


def check_ambiguous_repeat(err: PatchError, patch: bytes, content: bytes, wanted: bytes, *,
                           reverse: bool = False) -> None:
    """A refusal ``ambiguous_repeat`` (no history log here to tell a re-send) must be true,
    and the rule the history log enables (no record of the patch: the hunk goes where its
    line numbers fit exactly, which a difflib patch's do) must give exactly the intended
    file."""
    assert repeat_is_true(err, patch, content, reverse=reverse), err
    (fp,) = (parse_patch(patch).reversed() if reverse else parse_patch(patch)).files
    assert apply_hunks(fp, content, reverse, exact_repeats=True)[0] == wanted


def result_of(plan) -> bytes:
    (change,) = plan.changes
    assert change.after is not None
    return change.after


@st.composite
def edited_file(draw: st.DrawFn, duplicates: bool = True):
    lines = draw(file_lines(duplicates=duplicates))
    changes = draw(edits(lines, duplicates=duplicates))
    new = apply_edits(lines, changes)
    assume(new != lines)
    eol = draw(st.sampled_from([b"\n", b"\r\n"]))
    return join(lines, eol), join(new, eol)


# found by hypothesis: added lines that repeat their neighbours
REPEATING = [((b"\n\n", b"\n\n\n"), 1),
             ((b"\n" * 19, b"\n" * 9 + b"text\n" + b"\n" * 11), 1)]


@pytest.mark.slow
@given(edited_file(), st.integers(1, 5))
@example(*REPEATING[0])
@example(*REPEATING[1])
def test_difflib_patches_apply_exactly(files, context):
    """Or, where the lines the patch adds repeat their neighbours (a blank line among blank
    lines), refuses ambiguous_repeat truly (nothing tells a re-send without the CLI's
    history log), and then applies exactly by its line numbers where the log would vouch."""
    old, new = files
    patch = difflib_patch(PATH, old, new, context)
    try:
        assert result_of(plan_against(patch, old)) == new
    except PatchError as err:
        check_ambiguous_repeat(err, patch, old, new)


@settings(max_examples=25)
@given(file_lines(), st.data(), st.booleans(), st.booleans())
def test_git_diff_patches_apply_exactly(lines, data, old_eol, new_eol):
    changes = data.draw(edits(lines))
    new_lines = apply_edits(lines, changes)
    old = join(lines, final_newline=old_eol)
    new = join(new_lines, final_newline=new_eol)
    assume(old != new)
    patch = git_diff_patch(PATH, old, new)
    assert result_of(plan_against(patch, old)) == new
    assert result_of(plan_against(patch, new, reverse=True)) == old


@pytest.mark.slow
@given(edited_file(duplicates=False), st.data())
def test_shifted_line_numbers_do_not_matter_for_unique_context(files, data):
    old, new = files
    patch = data.draw(shifted_headers(difflib_patch(PATH, old, new)))
    assert result_of(plan_against(patch, old)) == new


@pytest.mark.slow
@given(edited_file(), st.data())
def test_a_placement_not_decided_by_line_number_is_never_wrong(files, data):
    old, new = files
    patch = data.draw(shifted_headers(difflib_patch(PATH, old, new)))
    try:
        plan = plan_against(patch, old)
    except PatchError as err:
        assert err.code in {"ambiguous_context", "overlapping_edits", "context_not_found",
                            "already_applied", "partly_applied", "ambiguous_repeat"}
        return
    hunks = plan.changes[0].hunks
    if not any(h.by_line_number for h in hunks):
        assert result_of(plan) == new


@pytest.mark.slow
@given(edited_file(), st.integers(1, 4))
@example(*REPEATING[0])
@example(*REPEATING[1])
def test_reverse_restores_the_original(files, context):
    """Or, where the lines the patch removed repeat their neighbours (a blank line among
    blank lines), refuses ambiguous_repeat truly: nothing in the file tells whether the patch
    is applied (only the CLI's history log could); by its line numbers it restores exactly."""
    old, new = files
    patch = difflib_patch(PATH, old, new, context)
    try:
        after = result_of(plan_against(patch, old))
    except PatchError as err:
        check_ambiguous_repeat(err, patch, old, new)
        after = new
    try:
        restored = result_of(plan_against(patch, after, reverse=True))
    except PatchError as err:
        check_ambiguous_repeat(err, patch, after, old, reverse=True)
        return
    assert restored == old


@settings(max_examples=200)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_parse_or_refuse_with_a_code(data):
    try:
        patch = parse_patch(data)
    except PatchError as err:
        assert err.code and err.hint
        return
    assert patch.files


LINE_PIECES = [b"--- a/f\n", b"+++ b/f\n", b"--- /dev/null\n", b"+++ /dev/null\n",
               b"diff --git a/f b/f\n", b"@@ -1,2 +1,2 @@\n", b"@@ @@\n", b"@@ -0,0 +1 @@\n",
               b" a\n", b"-a\n", b"+b\n", b"\n", b"\\ No newline at end of file\n",
               b"rename from f\n", b"rename to g\n", b"new file mode 100644\n", b"\r\n",
               b"```diff\n", b"```\n", b" b\r\n", b"-\xff\n", b"index 1..2\n"]


@pytest.mark.slow
@settings(max_examples=300)
@given(st.lists(st.sampled_from(LINE_PIECES), max_size=14),
       st.sampled_from([b"", b"a\nb\n", b"a\r\nb\r\n", b"a\nb", b"b\na\nb\n"]))
def test_near_valid_patches_plan_or_refuse_with_a_code(pieces, content):
    data = b"".join(pieces)
    files = {"f": SourceFile(content)}
    try:
        plan = plan_patch(parse_patch(data), files.get)
    except PatchError as err:
        assert err.code and err.hint
        return
    assert plan.changes
