"""Properties of the core (hypothesis): generated edits round-trip, headers are only hints,
arbitrary bytes never crash, and reverse undoes apply."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import (
    apply_edits,
    difflib_patch,
    edits,
    file_lines,
    git_diff_patch,
    join,
    shifted_headers,
)

from holon_git.core.change import SourceFile
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


@given(edited_file(), st.integers(1, 5))
def test_difflib_patches_apply_exactly(files, context):
    old, new = files
    patch = difflib_patch(PATH, old, new, context)
    assert result_of(plan_against(patch, old)) == new


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


@given(edited_file(duplicates=False), st.data())
def test_shifted_line_numbers_do_not_matter_for_unique_context(files, data):
    old, new = files
    patch = data.draw(shifted_headers(difflib_patch(PATH, old, new)))
    assert result_of(plan_against(patch, old)) == new


@given(edited_file(), st.data())
def test_a_placement_not_decided_by_line_number_is_never_wrong(files, data):
    old, new = files
    patch = data.draw(shifted_headers(difflib_patch(PATH, old, new)))
    try:
        plan = plan_against(patch, old)
    except PatchError as err:
        assert err.code in {"ambiguous_context", "overlapping_edits", "context_not_found",
                            "already_applied"}
        return
    hunks = plan.changes[0].hunks
    if not any(h.by_line_number for h in hunks):
        assert result_of(plan) == new


@given(edited_file(), st.integers(1, 4))
def test_reverse_restores_the_original(files, context):
    """Or, where the lines the patch removed repeat their neighbours (a blank line among
    blank lines), refuses not_applied saying so: nothing in the file tells whether the patch
    is applied (only the CLI's history log could)."""
    old, new = files
    patch = difflib_patch(PATH, old, new, context)
    after = result_of(plan_against(patch, old))
    try:
        restored = result_of(plan_against(patch, after, reverse=True))
    except PatchError as err:
        assert err.code == "not_applied" and "repeats" in err.details, err
        repeats = err.details["repeats"]
        lines = after.splitlines(keepends=True)
        assert lines[repeats["new_lines_at"] - 1] == lines[repeats["old_lines_at"] - 1]
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
