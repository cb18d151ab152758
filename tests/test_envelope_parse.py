"""The '*** Begin Patch' envelope parser: the Patch model it builds and the errors it raises."""

from __future__ import annotations

import pytest

from holon_git.core.model import ADD, CONTEXT, REMOVE, FileKind, HunkLine
from holon_git.errors import PatchError
from holon_git.parse import detect_format, parse_patch


def env(*body: str) -> bytes:
    return ("\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n").encode()


def refused(data: bytes, code: str) -> PatchError:
    with pytest.raises(PatchError) as info:
        parse_patch(data)
    assert info.value.code == code, info.value
    return info.value


# -- detection -----------------------------------------------------------------------------------

def test_detects_envelope_and_unified() -> None:
    assert detect_format(env("*** Delete File: a")) == "envelope"
    assert detect_format(b"\n\n" + env("*** Delete File: a")) == "envelope"
    assert detect_format(b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n") == "unified"
    # prose before the envelope: still the envelope, so the envelope parser refuses the prose
    assert detect_format(b"Here you go:\n" + env("*** Delete File: a")) == "envelope"
    # a unified diff whose preamble mentions the envelope marker after its header stays unified
    unified = b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-*** Begin Patch\n+b\n"
    assert detect_format(unified) == "unified"


def test_forced_format_overrides_detection() -> None:
    with pytest.raises(PatchError) as info:
        parse_patch(b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", format="envelope")
    assert info.value.code == "patch_parse_error"
    patch = parse_patch(env("*** Delete File: a"), format="envelope")
    assert patch.format == "envelope"


# -- the four sections ---------------------------------------------------------------------------

def test_add_file_lines_and_final_newline() -> None:
    patch = parse_patch(env("*** Add File: dir/new.txt", "+first", "+", "+third"))
    (fp,) = patch.files
    assert patch.format == "envelope"
    assert (fp.kind, fp.old_path, fp.new_path) == (FileKind.ADD, None, "dir/new.txt")
    (hunk,) = fp.hunks
    assert hunk.old_start is None
    assert [line.text for line in hunk.lines] == [b"first\n", b"\n", b"third\n"]
    assert {line.kind for line in hunk.lines} == {ADD}
    assert not hunk.new_no_newline


def test_add_file_last_empty_plus_line_stands_for_the_final_newline() -> None:
    (fp,) = parse_patch(env("*** Add File: a", "+x", "+")).files
    assert [line.text for line in fp.hunks[0].lines] == [b"x\n"]
    assert not fp.hunks[0].new_no_newline
    (fp,) = parse_patch(env("*** Add File: a", "+x", "+", "+")).files
    assert [line.text for line in fp.hunks[0].lines] == [b"x\n", b"\n"]


def test_add_file_no_newline_marker() -> None:
    (fp,) = parse_patch(env("*** Add File: a", "+x", "+y", "\\ No newline at end of file")).files
    hunk = fp.hunks[0]
    assert [line.text for line in hunk.lines] == [b"x\n", b"y"]
    assert hunk.new_no_newline
    # after an empty last line the marker has nothing to take away
    (fp,) = parse_patch(env("*** Add File: a", "+x", "+", "\\ No newline at end of file")).files
    assert [line.text for line in fp.hunks[0].lines] == [b"x\n"]
    assert not fp.hunks[0].new_no_newline


def test_add_file_crlf_empty_last_line() -> None:
    # In a CRLF envelope '+' CRLF is an empty line too: the last one stands for the final newline.
    body = b"*** Begin Patch\r\n*** Add File: a\r\n+x\r\n+\r\n+\r\n*** End Patch\r\n"
    (fp,) = parse_patch(body).files
    assert [line.text for line in fp.hunks[0].lines] == [b"x\r\n", b"\r\n"]
    assert not fp.hunks[0].new_no_newline
    # A lone CR kept by '\\ No newline at end of file' is content, not an empty line.
    (fp,) = parse_patch(b"*** Begin Patch\n*** Add File: a\n+x\n+\r\n"
                        b"\\ No newline at end of file\n*** End Patch\n").files
    assert [line.text for line in fp.hunks[0].lines] == [b"x\n", b"\r"]
    assert fp.hunks[0].new_no_newline


def test_add_file_empty_body_is_an_empty_file() -> None:
    (fp,) = parse_patch(env("*** Add File: empty.txt")).files
    assert fp.kind is FileKind.ADD and fp.hunks == []


def test_add_file_blank_line_inside_body_is_an_empty_added_line() -> None:
    (fp,) = parse_patch(env("*** Add File: a", "+x", "", "+y", "")).files
    assert [line.text for line in fp.hunks[0].lines] == [b"x\n", b"\n", b"y\n"]
    assert [d.code for d in fp.diagnostics] == ["blank_added_line"]


def test_update_file_hunks_carry_no_line_numbers() -> None:
    patch = parse_patch(env(
        "*** Update File: src/foo.py",
        "@@ def f():",
        " context",
        "-old",
        "+new",
        "@@",
        "-x",
        "+y",
    ))
    (fp,) = patch.files
    assert (fp.kind, fp.old_path, fp.new_path) == (FileKind.MODIFY, "src/foo.py", "src/foo.py")
    first, second = fp.hunks
    assert (first.old_start, first.old_count, first.new_start, first.new_count) == (None,) * 4
    assert first.section == "def f():"
    assert first.lines == [HunkLine(CONTEXT, b"context\n"), HunkLine(REMOVE, b"old\n"),
                           HunkLine(ADD, b"new\n")]
    assert first.patch_line == 3 and second.patch_line == 7
    assert second.lines == [HunkLine(REMOVE, b"x\n"), HunkLine(ADD, b"y\n")]
    assert not first.anchor_end


def test_update_file_with_move_to_is_a_rename() -> None:
    (fp,) = parse_patch(env("*** Update File: a.py", "*** Move to: b/c.py", "@@", "-1",
                            "+2")).files
    assert (fp.kind, fp.old_path, fp.new_path) == (FileKind.RENAME, "a.py", "b/c.py")
    assert len(fp.hunks) == 1
    (fp,) = parse_patch(env("*** Update File: a.py", "*** Move to: b.py")).files
    assert (fp.kind, fp.hunks) == (FileKind.RENAME, [])


def test_end_of_file_marker_anchors_the_hunk() -> None:
    (fp,) = parse_patch(env("*** Update File: a", "@@", " last", "+appended",
                            "*** End of File")).files
    assert fp.hunks[0].anchor_end
    assert [line.kind for line in fp.hunks[0].lines] == [CONTEXT, ADD]


def test_no_newline_marker_in_update_hunk() -> None:
    (fp,) = parse_patch(env("*** Update File: a", "@@", "-x", "\\ No newline at end of file",
                            "+y")).files
    hunk = fp.hunks[0]
    assert hunk.lines == [HunkLine(REMOVE, b"x"), HunkLine(ADD, b"y\n")]
    assert hunk.old_no_newline and not hunk.new_no_newline


def test_blank_lines_in_hunks_are_context_and_trailing_ones_optional() -> None:
    (fp,) = parse_patch(env("*** Update File: a", "@@", " a", "", "-b", "+c", "",
                            "*** Delete File: z")).files[:1]
    hunk = fp.hunks[0]
    assert hunk.lines[1] == HunkLine(CONTEXT, b"\n")
    assert hunk.lines[-1] == HunkLine(CONTEXT, b"\n")
    assert (hunk.blank_context_lines, hunk.optional_tail) == (2, 1)
    assert "blank_context_line" in [d.code for d in fp.diagnostics]


def test_first_hunk_without_header_is_accepted_with_a_diagnostic() -> None:
    (fp,) = parse_patch(env("*** Update File: a", " ctx", "-b", "+c")).files
    assert len(fp.hunks) == 1
    assert [d.code for d in fp.diagnostics] == ["hunk_without_header"]


def test_delete_file_has_no_body_and_skips_the_content_check() -> None:
    (fp,) = parse_patch(env("*** Delete File: old.txt")).files
    assert (fp.kind, fp.old_path, fp.new_path, fp.hunks) == (FileKind.DELETE, "old.txt",
                                                             None, [])
    assert fp.check_deleted_content is False


def test_move_file_with_and_without_hunks() -> None:
    (fp,) = parse_patch(env("*** Move File: old/p.py -> new/p.py")).files
    assert (fp.kind, fp.old_path, fp.new_path, fp.hunks) == (FileKind.RENAME, "old/p.py",
                                                             "new/p.py", [])
    (fp,) = parse_patch(env("*** Move File: a -> b", "@@", "-x", "+y")).files
    assert len(fp.hunks) == 1


def test_several_sections_keep_their_order_and_lines() -> None:
    patch = parse_patch(env("*** Add File: n", "+1", "*** Delete File: d",
                            "*** Update File: u", "@@", "-a", "+b", "*** Move File: m -> m2"))
    assert [(fp.kind.value, fp.path, fp.patch_line) for fp in patch.files] == [
        ("add", "n", 2), ("delete", "d", 4), ("modify", "u", 5), ("rename", "m2", 9)]


def test_crlf_envelope() -> None:
    data = env("*** Update File: a", "@@", " x", "-y", "+z").replace(b"\n", b"\r\n")
    (fp,) = parse_patch(data).files
    assert fp.hunks[0].lines[0] == HunkLine(CONTEXT, b"x\r\n")


def test_markdown_fence_around_the_envelope_is_tolerated() -> None:
    data = b"Here is the patch:\n```\n" + env("*** Delete File: a") + b"```\nThanks!\n"
    patch = parse_patch(data)
    assert patch.format == "envelope"
    assert [d.code for d in patch.diagnostics] == ["markdown_fence"]


# -- refusals ------------------------------------------------------------------------------------

def test_text_before_begin_is_a_parse_error() -> None:
    err = refused(b"Sure, here it is:\n" + env("*** Delete File: a"), "patch_parse_error")
    assert err.patch_line == 1
    assert "before" in err.message


def test_text_after_end_is_a_parse_error() -> None:
    err = refused(env("*** Delete File: a") + b"\nHope this helps\n", "patch_parse_error")
    assert err.patch_line == 5
    assert "after" in err.message


def test_missing_end_patch() -> None:
    err = refused(b"*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n", "patch_parse_error")
    assert "End Patch" in err.message


def test_empty_envelope() -> None:
    refused(b"*** Begin Patch\n*** End Patch\n", "empty_patch")


def test_unknown_directive() -> None:
    err = refused(env("*** Copy File: a -> b"), "patch_parse_error")
    assert err.patch_line == 2


def test_move_to_must_follow_update_file() -> None:
    refused(env("*** Move to: b"), "patch_parse_error")


def test_update_file_without_hunks() -> None:
    err = refused(env("*** Update File: a.py"), "missing_hunks")
    assert err.path == "a.py"


def test_delete_file_with_a_body() -> None:
    err = refused(env("*** Delete File: a.py", "-x"), "patch_parse_error")
    assert err.patch_line == 3


def test_add_file_with_non_plus_lines() -> None:
    err = refused(env("*** Add File: a", "+x", " y"), "hunk_kind_mismatch")
    assert (err.patch_line, err.path) == (4, "a")
    refused(env("*** Add File: a", "+x", "-y"), "hunk_kind_mismatch")


def test_add_file_lines_after_the_no_newline_marker() -> None:
    refused(env("*** Add File: a", "+x", "\\ No newline at end of file", "+y"),
            "malformed_hunk")


def test_bad_line_in_hunk() -> None:
    err = refused(env("*** Update File: a", "@@", " ok", "oops", "+x"), "malformed_hunk")
    assert (err.patch_line, err.hunk) == (5, 1)


def test_empty_hunk() -> None:
    refused(env("*** Update File: a", "@@", "@@", "-x", "+y"), "malformed_hunk")
    refused(env("*** Update File: a", "@@", "", "*** End of File"), "malformed_hunk")


def test_end_of_file_without_a_hunk() -> None:
    refused(env("*** Update File: a", "*** End of File"), "malformed_hunk")


def test_move_onto_itself() -> None:
    refused(env("*** Move File: a.py -> a.py"), "rename_path_mismatch")
    refused(env("*** Update File: a.py", "*** Move to: ./a.py"), "rename_path_mismatch")


def test_move_needs_an_arrow() -> None:
    refused(env("*** Move File: a.py b.py"), "patch_parse_error")


def test_paths_are_checked() -> None:
    refused(env("*** Add File: ../escape", "+x"), "path_escape")
    refused(env("*** Delete File: .git/config"), "path_escape")
    refused(env("*** Move File: a -> /etc/passwd"), "path_escape")
    refused(env("*** Update File: ", "@@", "-x"), "invalid_path")


def test_paths_in_several_sections_apply_in_sequence() -> None:
    # Codex's replace-a-file idiom and an edit after a move are sequences, not duplicates
    kinds = [fp.kind.value for fp in parse_patch(
        env("*** Delete File: a", "*** Add File: a", "+x")).files]
    assert kinds == ["delete", "add"]
    assert len(parse_patch(env("*** Move File: a -> b", "*** Update File: b", "@@", "-x",
                               "+y")).files) == 2
    # what can never apply in order is refused
    refused(env("*** Add File: a", "+x", "*** Add File: a", "+y"), "duplicate_file_patch")
    refused(env("*** Delete File: a", "*** Update File: a", "@@", "-x", "+y"),
            "duplicate_file_patch")


def test_reversing_a_bodyless_delete_is_refused() -> None:
    patch = parse_patch(env("*** Delete File: a"))
    with pytest.raises(PatchError) as info:
        patch.reversed()
    assert info.value.code == "usage_error"
    assert "cat-file" in info.value.hint


@pytest.mark.parametrize("text", [
    " *** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** End Patch \n",
    "*** Begin Patch \n*** Update File: f\n@@\n-a\n+b\n *** End Patch\n\n",
    "*** Begin Patch\n  *** Update File: f\n@@\n-a\n+b\n*** End Patch\n",
])
def test_markers_padded_with_whitespace(text: str) -> None:
    assert detect_format(text.encode()) == "envelope"
    fp = parse_patch(text).files[0]
    assert fp.path == "f" and fp.hunks[0].lines == [HunkLine(REMOVE, b"a\n"), HunkLine(ADD, b"b\n")]


def test_padded_end_marker_inside_a_hunk_is_context() -> None:
    text = "*** Begin Patch\n*** Update File: f\n@@\n *** End Patch\n-a\n+b\n*** End Patch\n"
    hunk = parse_patch(text).files[0].hunks[0]
    assert hunk.lines[0] == HunkLine(CONTEXT, b"*** End Patch\n")
