"""The V1 unified-diff parser: every accepted form and every parse-time refusal."""

from __future__ import annotations

import pytest

from holon_git.core.model import ADD, CONTEXT, REMOVE, FileKind
from holon_git.errors import PatchError
from holon_git.parse import detect_format, merge_patches, parse_patch


def parse_error(text: str | bytes, **kwargs: object) -> PatchError:
    with pytest.raises(PatchError) as info:
        parse_patch(text, **kwargs)  # type: ignore[arg-type]
    return info.value


MODIFY = """\
--- a/src/app.py
+++ b/src/app.py
@@ -10,3 +10,4 @@ def main():
 one
-two
+TWO
+three
 four
"""


def test_modify_with_prefixes():
    patch = parse_patch(MODIFY)
    (fp,) = patch.files
    assert fp.kind is FileKind.MODIFY
    assert (fp.old_path, fp.new_path) == ("src/app.py", "src/app.py")
    (hunk,) = fp.hunks
    assert (hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count) == (10, 3, 10, 4)
    assert hunk.section == "def main():"
    assert [(line.kind, line.text) for line in hunk.lines] == [
        (CONTEXT, b"one\n"), (REMOVE, b"two\n"), (ADD, b"TWO\n"), (ADD, b"three\n"),
        (CONTEXT, b"four\n"),
    ]
    assert hunk.old_lines == [b"one\n", b"two\n", b"four\n"]
    assert hunk.new_lines == [b"one\n", b"TWO\n", b"three\n", b"four\n"]
    assert fp.patch_line == 1 and hunk.patch_line == 3
    assert not fp.diagnostics


def test_paths_without_prefixes_are_taken_as_written():
    fp = parse_patch(MODIFY.replace("a/src", "src").replace("b/src", "src")).files[0]
    assert fp.path == "src/app.py"


def test_git_header_without_prefixes():
    text = "diff --git src/x.py src/x.py\nindex 1..2 100644\n--- src/x.py\n+++ src/x.py\n" \
           "@@ -1 +1 @@\n-a\n+b\n"
    fp = parse_patch(text).files[0]
    assert fp.path == "src/x.py" and fp.ignored_metadata == ["index 1..2 100644"]


def test_mnemonic_prefixes_are_stripped():
    text = "diff --git i/x.py w/x.py\n--- i/x.py\n+++ w/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert parse_patch(text).files[0].path == "x.py"


def test_strip_option_forces_component_count():
    text = "--- old/project/x.py\n+++ new/project/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    # diff -ruN old new: git's default -p1 reads both as project/x.py
    fp = parse_patch(text).files[0]
    assert fp.path == "project/x.py" and fp.header_paths == ("old/project/x.py",
                                                             "new/project/x.py")
    assert [d.code for d in fp.diagnostics] == ["traditional_file_names"]
    assert parse_patch(text, strip=2).files[0].path == "x.py"
    # -p0 keeps a/ and b/: two names, and git's rule takes the '+++' one
    kept = parse_patch(MODIFY, strip=0).files[0]
    assert kept.path == "b/src/app.py" and kept.header_paths == ("a/src/app.py",
                                                                 "b/src/app.py")
    assert parse_error(MODIFY, strip=5).code == "usage_error"  # git's fatal error: exit 2


def test_add_plain_and_git():
    plain = "--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1,2 @@\n+line 1\n+line 2\n"
    fp = parse_patch(plain).files[0]
    assert fp.kind is FileKind.ADD and fp.old_path is None and fp.new_path == "docs/new.md"
    git_form = "diff --git a/run.sh b/run.sh\nnew file mode 100755\nindex 0000000..e69de29\n" \
               "--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1 @@\n+echo hi\n"
    fp = parse_patch(git_form).files[0]
    assert fp.kind is FileKind.ADD and fp.path == "run.sh"
    assert fp.ignored_metadata == ["index 0000000..e69de29"] and fp.executable
    regular = parse_patch(git_form.replace("100755", "100644")).files[0]
    assert regular.ignored_metadata == ["new file mode 100644", "index 0000000..e69de29"]
    assert not regular.executable


def test_delete_plain():
    fp = parse_patch("--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n").files[0]
    assert fp.kind is FileKind.DELETE and fp.new_path is None and fp.path == "old.txt"


def test_git_empty_file_add_and_delete_have_no_hunks():
    text = (
        "diff --git a/pkg/__init__.py b/pkg/__init__.py\nnew file mode 100644\n"
        "index 0000000..e69de29\n"
        "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\nindex e69de29..0000000\n"
    )
    add, delete = parse_patch(text).files
    assert add.kind is FileKind.ADD and add.path == "pkg/__init__.py" and add.hunks == []
    assert delete.kind is FileKind.DELETE and delete.path == "gone.txt" and delete.hunks == []


def test_rename_only_and_with_edits():
    text = (
        "diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\n"
        "rename to new.txt\n"
        "diff --git a/a.py b/pkg/b.py\nsimilarity index 80%\nrename from a.py\n"
        "rename to pkg/b.py\nindex 1..2 100644\n--- a/a.py\n+++ b/pkg/b.py\n"
        "@@ -1,2 +1,2 @@\n x\n-y\n+z\n"
    )
    pure, edited = parse_patch(text).files
    assert pure.kind is FileKind.RENAME and (pure.old_path, pure.new_path) == ("old.txt",
                                                                                "new.txt")
    assert pure.hunks == [] and pure.ignored_metadata == ["similarity index 100%"]
    assert edited.kind is FileKind.RENAME and edited.new_path == "pkg/b.py"
    assert len(edited.hunks) == 1


def test_rename_paths_must_agree_with_file_lines():
    text = ("diff --git a/a.py b/b.py\nrename from a.py\nrename to b.py\n--- a/a.py\n"
            "+++ b/c.py\n@@ -1 +1 @@\n-x\n+y\n")
    err = parse_error(text)
    assert err.code == "inconsistent_header" and err.patch_line == 1
    assert [line["line"] for line in err.details["lines"]] == [2, 3, 4, 5]
    onto_itself = "diff --git a/a b/a\nrename from a\nrename to a\n"
    assert parse_error(onto_itself).code == "rename_path_mismatch"


def test_several_files_and_hunks():
    text = MODIFY + "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-x\n+y\n@@ -9 +9 @@\n-p\n+q\n"
    first, second = parse_patch(text).files
    assert first.path == "src/app.py" and second.path == "b.txt"
    assert [h.old_start for h in second.hunks] == [1, 9]
    assert second.patch_line == 9


def test_no_newline_markers_on_each_side():
    text = ("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n"
            "\\ No newline at end of file\n")
    hunk = parse_patch(text).files[0].hunks[0]
    assert hunk.old_no_newline and hunk.new_no_newline
    assert hunk.lines[1].text == b"b" and hunk.lines[2].text == b"B"
    only_new = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+b\n\\ No newline at end of file\n"
    hunk = parse_patch(only_new).files[0].hunks[0]
    assert hunk.new_no_newline and not hunk.old_no_newline


def test_bytes_survive_untouched():
    body = b"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n caf\xe9\r\n-\xff\xfe\r\n+ok\r\n"
    lines = parse_patch(body).files[0].hunks[0].lines
    assert [line.text for line in lines] == [b"caf\xe9\r\n", b"\xff\xfe\r\n", b"ok\r\n"]


def test_whole_patch_in_crlf_reads_headers_and_keeps_content_crlf():
    text = MODIFY.replace("\n", "\r\n").encode()
    fp = parse_patch(text).files[0]
    assert fp.path == "src/app.py"
    assert fp.hunks[0].lines[0].text == b"one\r\n"


def test_crlf_marker_strips_the_transport_cr():
    text = b"--- a/f\r\n+++ b/f\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n\\ No newline at end of file\r\n"
    assert parse_patch(text).files[0].hunks[0].lines[-1].text == b"b"


def test_quoted_and_tab_terminated_paths():
    text = ('diff --git "a/caf\\303\\251 x.txt" "b/caf\\303\\251 x.txt"\n'
            '--- "a/caf\\303\\251 x.txt"\n+++ "b/caf\\303\\251 x.txt"\n@@ -1 +1 @@\n-a\n+b\n')
    assert parse_patch(text).files[0].path == "café x.txt"
    dated = "--- a/x.c\t2024-01-01 10:00:00\n+++ b/x.c\t2024-01-02 10:00:00\n@@ -1 +1 @@\n-a\n+b\n"
    assert parse_patch(dated).files[0].path == "x.c"


def test_git_header_with_spaces_in_name():
    text = "diff --git a/my file.txt b/my file.txt\n--- a/my file.txt\n+++ b/my file.txt\n" \
           "@@ -1 +1 @@\n-a\n+b\n"
    assert parse_patch(text).files[0].path == "my file.txt"


def test_metadata_is_recorded_not_applied():
    text = ("diff --git a/x b/x\nold mode 100644\nnew mode 100755\nindex 1..2\n--- a/x\n+++ b/x\n"
            "@@ -1 +1 @@\n-a\n+b\n")
    fp = parse_patch(text).files[0]
    assert fp.ignored_metadata == ["old mode 100644", "new mode 100755", "index 1..2"]


# -- text around the patch ----------------------------------------------------------------------

def test_prose_before_and_after_is_skipped_with_a_diagnostic():
    text = "Here is my change.\nIt fixes the bug.\n\n" + MODIFY + "\nHope this helps!\n"
    patch = parse_patch(text)
    assert patch.files[0].path == "src/app.py"
    assert [d.code for d in patch.diagnostics] == ["skipped_text", "skipped_text"]


def test_mail_headers_from_format_patch_are_skipped():
    text = ("From 1234 Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\nSubject: [PATCH] fix\n\n---\n"
            " src/app.py | 2 +-\n\n" + MODIFY + "-- \n2.39.5\n")
    patch = parse_patch(text)
    assert len(patch.files) == 1 and patch.files[0].hunks[0].lines[-1].text == b"four\n"


def test_markdown_fence_is_tolerated():
    text = "Sure:\n\n```diff\n" + MODIFY + "```\n\nLet me know.\n"
    patch = parse_patch(text)
    assert patch.files[0].path == "src/app.py"
    assert patch.diagnostics[0].code == "markdown_fence"
    assert patch.diagnostics[0].patch_line == 3


def test_fence_inside_a_patched_markdown_file_is_content():
    text = ("--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n ```python\n-x = 1\n+x = 2\n"
            " ```\n")
    hunk = parse_patch(text).files[0].hunks[0]
    assert [line.text for line in hunk.lines] == [b"```python\n", b"x = 1\n", b"x = 2\n",
                                                  b"```\n"]


def test_two_fenced_blocks_are_joined():
    second = "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-x\n+y\n"
    text = f"First:\n```diff\n{MODIFY}```\nThen:\n```\n{second}```\n"
    assert [fp.path for fp in parse_patch(text).files] == ["src/app.py", "b.txt"]


# -- what the body decides ------------------------------------------------------------------------

def test_body_beyond_a_too_small_count_is_kept():
    text = "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n a\n-b\n+c\n d\n"
    fp = parse_patch(text).files[0]
    assert len(fp.hunks[0].lines) == 4
    assert [d.code for d in fp.diagnostics] == ["hunk_count_mismatch"]


def test_too_large_counts_are_a_diagnostic():
    text = "--- a/f\n+++ b/f\n@@ -1,9 +1,9 @@\n a\n-b\n+c\n"
    fp = parse_patch(text).files[0]
    assert len(fp.hunks[0].lines) == 3 and fp.diagnostics[0].code == "hunk_count_mismatch"


def test_stripped_blank_context_lines_inside_a_hunk():
    text = "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n\n-b\n+c\n d\n"
    fp = parse_patch(text).files[0]
    hunk = fp.hunks[0]
    assert hunk.lines[1].kind == CONTEXT and hunk.lines[1].text == b"\n"
    assert hunk.blank_context_lines == 1
    assert "blank_context_line" in [d.code for d in fp.diagnostics]


def test_trailing_blank_line_is_context_only_when_counts_need_it():
    needed = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n\n"
    hunk = parse_patch(needed).files[0].hunks[0]
    assert hunk.lines[-1] == hunk.lines[-1].__class__(CONTEXT, b"\n")
    assert hunk.optional_tail == 1
    separator = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\n--- a/g\n+++ b/g\n" \
                "@@ -1 +1 @@\n-x\n+y\n"
    first, second = parse_patch(separator).files
    assert len(first.hunks[0].lines) == 3 and first.hunks[0].optional_tail == 0
    assert second.path == "g"


def test_removed_line_that_looks_like_a_header():
    text = "--- a/f.sql\n+++ b/f.sql\n@@ -1,2 +1,2 @@\n--- a comment\n+++ changed\n x\n"
    hunk = parse_patch(text).files[0].hunks[0]
    assert [(line.kind, line.text) for line in hunk.lines] == [
        (REMOVE, b"-- a comment\n"), (ADD, b"++ changed\n"), (CONTEXT, b"x\n")]


def test_bare_hunk_header_has_no_line_numbers():
    fp = parse_patch("--- a/f\n+++ b/f\n@@ @@\n a\n-b\n+c\n").files[0]
    assert fp.hunks[0].old_start is None
    assert fp.diagnostics[0].code == "hunk_without_line_numbers"
    assert parse_patch("--- a/f\n+++ b/f\n@@\n-b\n+c\n").files[0].hunks[0].old_start is None


def test_bare_hunk_header_with_section_text():
    """'@@ @@ def load(self):' (a model leaving out the numbers of git's header and keeping
    its section text): no numbers, the text kept for the placement's scope check; '@@ text'
    with no second '@@' is no header."""
    hunk = parse_patch("--- a/f\n+++ b/f\n@@ @@ class Parser:\n a\n-b\n+c\n").files[0].hunks[0]
    assert (hunk.old_start, hunk.section) == (None, "class Parser:")
    with pytest.raises(PatchError) as caught:
        parse_patch("--- a/f\n+++ b/f\n@@ class Parser:\n a\n-b\n+c\n")
    assert caught.value.code == "invalid_hunk_header"


def test_huge_counts_are_harmless():
    text = "--- a/f\n+++ b/f\n@@ -1,1000000000000 +1,1000000000000 @@\n-a\n+b\n"
    assert parse_patch(text).files[0].hunks[0].old_count == 10**12


def test_prose_between_hunks_when_counts_were_met():
    text = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\nNow the next part:\n" \
           "@@ -9,2 +9,2 @@\n x\n-y\n+z\n"
    fp = parse_patch(text).files[0]
    assert len(fp.hunks) == 2


# -- refusals -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["", "\n\n", "Just some prose.\nNo patch here.\n"])
def test_empty_patch(text: str):
    assert parse_error(text).code == "empty_patch"


def test_hunk_without_file_header():
    err = parse_error("Here:\n@@ -1,2 +1,2 @@\n-a\n+b\n")
    assert err.code == "missing_file_header" and err.patch_line == 2
    assert parse_error("--- a/x\n@@ -1 +1 @@\n-a\n+b\n").code == "missing_file_header"
    assert parse_error("+++ b/x\nprose\n@@ -1 +1 @@\n-a\n+b\n").code == "missing_file_header"


def test_git_header_without_file_lines_or_rename():
    assert parse_error("diff --git a/x b/x\nindex 1..2 100644\n").code == "missing_file_header"


@pytest.mark.parametrize("header", ["@@ -1,X +1,Y @@", "@@ -1,2 @@", "@@ line 10 @@",
                                    "@@ -1,2 +1,2", "@@ -" + "9" * 30 + " +1 @@"])
def test_invalid_hunk_header(header: str):
    err = parse_error(f"--- a/f\n+++ b/f\n{header}\n-a\n+b\n")
    assert err.code == "invalid_hunk_header" and err.patch_line == 3 and err.path == "f"


def test_line_that_lost_its_space_inside_a_hunk_is_context_when_counts_agree():
    fp = parse_patch("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\nb lost its space\n-c\n+C\n").files[0]
    hunk = fp.hunks[0]
    assert hunk.old_lines == [b"a\n", b"b lost its space\n", b"c\n"]
    assert hunk.new_lines == [b"a\n", b"b lost its space\n", b"C\n"]
    assert hunk.unprefixed_context_lines == 1
    assert [d.code for d in fp.diagnostics] == ["unprefixed_context_line"]


@pytest.mark.parametrize("header", [
    "@@ -1,3 +1,2 @@",  # the line lost a '-': read as context the counts come out -3 +3
    "@@ -1,4 +1,4 @@",  # counts that do not match the body give no second opinion
])
def test_line_without_prefix_inside_a_hunk_is_refused_unless_counts_agree(header: str):
    err = parse_error(f"--- a/f\n+++ b/f\n{header}\n a\nb lost its prefix\n-c\n+C\n")
    assert err.code == "malformed_hunk" and err.patch_line == 5 and err.hunk == 1


def test_line_without_prefix_in_a_hunk_without_counts_is_refused():
    assert parse_error("--- a/f\n+++ b/f\n@@\n a\nb\n-c\n+C\n").code == "malformed_hunk"


def test_unprefixed_text_after_the_last_hunk_line_is_not_context():
    patch = parse_patch("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-c\n+C\nSome prose.\n")
    assert patch.files[0].hunks[0].old_lines == [b"a\n", b"c\n"]


def test_hunk_with_no_body():
    assert parse_error("--- a/f\n+++ b/f\n@@ -1 +1 @@\n").code == "malformed_hunk"


def test_file_patch_without_hunks():
    assert parse_error("--- a/f\n+++ b/f\n").code == "missing_hunks"


@pytest.mark.parametrize("text", [
    "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+a\n-b\n",
    "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+a\n c\n",
    "--- a/o\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n+b\n",
])
def test_body_contradicting_file_kind(text: str):
    err = parse_error(text)
    assert err.code == "hunk_kind_mismatch" and err.hunk == 1


@pytest.mark.parametrize("text,what", [
    ("diff --git a/x b/x\nindex 1..2 100644\nGIT binary patch\nliteral 3\n", "binary"),
    ("diff --git a/x b/x\nBinary files a/x and b/x differ\n", "binary"),
    ("diff --git a/x b/y\nBinary files a/x and b/y differ\n", "binary"),  # refused at once
    ("diff --git a/x b/y\nsimilarity index 90%\ncopy from x\ncopy to y\n", "copies"),
    ("diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+t\n",
     "symbolic link"),
    ("diff --git a/sub b/sub\nindex 1..2 160000\n--- a/sub\n+++ b/sub\n@@ -1 +1 @@\n"
     "-Subproject commit 1\n+Subproject commit 2\n", "submodule"),
    ("diff --git a/x b/x\nold mode 100644\nnew mode 100755\n", "mode change"),
    ("diff --cc f.txt\nindex 1,2..3\n", "combined"),
])
def test_unsupported_git_features(text: str, what: str):
    """Refused at parse time, or (a binary file, a mode change alone: parse/left_out.py)
    parsed with the refusal held for the plan, which --exclude may leave out."""
    err = _held_or_raised(text)
    assert err.code == "unsupported_git_patch_feature" and what in err.message


def _held_or_raised(text: str) -> PatchError:
    try:
        patch = parse_patch(text)
    except PatchError as err:
        return err
    held = patch.files[0].unsupported
    assert held is not None and len(patch.files) == 1
    return held


def test_different_paths_without_rename():
    # a traditional diff: git's rule takes the '+++' file (the plan refuses naming both
    # when it does not exist)
    fp = parse_patch("--- a/x.py\n+++ b/y.py\n@@ -1 +1 @@\n-a\n+b\n").files[0]
    assert fp.path == "y.py" and fp.header_paths == ("x.py", "y.py")
    # a git diff: its lines must agree
    err = parse_error("diff --git a/x b/x\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n")
    assert err.code == "inconsistent_header"
    err = parse_error("diff --git a/x b/y\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n")
    assert err.code == "inconsistent_header"


def test_file_patches_of_one_path_parse_in_sequence():
    assert [fp.path for fp in parse_patch(MODIFY + MODIFY.replace("@@ -10", "@@ -40")).files] \
        == ["src/app.py", "src/app.py"]
    rename_then_modify = ("diff --git a/a b/b\nrename from a\nrename to b\n"
                          "diff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-x\n+y\n")
    assert len(parse_patch(rename_then_modify).files) == 2
    normalized = MODIFY + MODIFY.replace("src/app.py", "src/./app.py")
    assert {fp.path for fp in parse_patch(normalized).files} == {"src/app.py"}


ADD_X = "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+x\n"
DELETE_X = "--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
RENAME_X = "diff --git a/x b/y\nrename from x\nrename to y\n"


@pytest.mark.parametrize("text, line", [
    (ADD_X + ADD_X, 5),  # two adds
    ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" + ADD_X, 6),  # add of a path just modified
    (DELETE_X + "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", 5),  # modify after delete
    (RENAME_X + "diff --git a/x b/x\n" + DELETE_X, 4),  # delete after rename away
    (DELETE_X + DELETE_X, 5),
])
def test_what_cannot_apply_in_sequence_is_refused(text: str, line: int):
    err = parse_error(text)
    assert err.code == "duplicate_file_patch" and err.patch_line == line
    assert err.details["earlier_file_patch"] == 1 and "line 1" in err.message


def test_swap_and_rotation_parse():
    swap = ("diff --git a/b b/a\nrename from b\nrename to a\n"
            "diff --git a/a b/b\nrename from a\nrename to b\n")
    assert len(parse_patch(swap).files) == 2
    # and a file patch after a swap may edit the new files
    parse_patch(swap + "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n")
    # an add of 'a' afterwards may or may not apply: whether 'a' existed decides (the plan)
    add_a = "diff --git a/a b/a\nnew file mode 100644\n" + ADD_X.replace("x", "a")
    assert len(parse_patch(swap + add_a).files) == 3


def test_merge_patches_checks_duplicates_across_inputs():
    one, two = parse_patch(ADD_X), parse_patch(ADD_X)
    with pytest.raises(PatchError) as info:
        merge_patches([one, two])
    assert info.value.code == "duplicate_file_patch"
    assert len(merge_patches([parse_patch(MODIFY), parse_patch(MODIFY)]).files) == 2
    other = parse_patch("--- a/b\n+++ b/b\n@@ -1 +1 @@\n-x\n+y\n")
    assert [fp.path for fp in merge_patches([one, other]).files] == ["x", "b"]


@pytest.mark.parametrize("path,code", [
    ("../outside.txt", "path_escape"),
    ("src/../../outside.txt", "path_escape"),
    ("/etc/passwd", "path_escape"),
    (".git/config", "path_escape"),
    (".GIT/hooks/pre-commit", "path_escape"),
    ("sub/.git/config", "path_escape"),
    ("~/x", "path_escape"),
    ("a\\b.txt", "invalid_path"),
])
def test_hostile_paths_are_refused_at_parse_time(path: str, code: str):
    for text in (f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-a\n+b\n",
                 f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+a\n"):
        err = _held_or_raised(text)  # a backslash is held: --exclude may leave it out
        assert err.code == code and err.patch_line == 1


def test_errors_carry_a_hint():
    err = parse_error("--- a/f\n+++ b/f\n@@ bad @@\n")
    assert err.hint and "@@ -old_start" in err.hint


def test_detect_format():
    assert detect_format(MODIFY.encode()) == "unified"
    assert detect_format(b"\n*** Begin Patch\n*** End Patch\n") == "envelope"
    assert detect_format(b"```\n*** Begin Patch\n*** End Patch\n```\n") == "envelope"


def test_reverse_swaps_sides():
    fp = parse_patch(MODIFY).reversed().files[0]
    hunk = fp.hunks[0]
    assert (hunk.old_start, hunk.old_count, hunk.new_count) == (10, 4, 3)
    assert hunk.old_lines == [b"one\n", b"TWO\n", b"three\n", b"four\n"]
    add = parse_patch("--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+a\n").reversed().files[0]
    assert add.kind is FileKind.DELETE and add.old_path == "n" and add.new_path is None


def test_git_header_followed_directly_by_hunks():
    fp = parse_patch("diff --git a/x.py b/x.py\n@@ -1 +1 @@\n-a\n+b\n").files[0]
    assert fp.kind is FileKind.MODIFY and fp.path == "x.py" and len(fp.hunks) == 1
    assert [d.code for d in fp.diagnostics] == ["missing_file_lines"]
    # different paths would need a rename: still refused
    text = "diff --git a/x.py b/y.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert parse_error(text).code == "missing_file_header"


@pytest.mark.parametrize("old, new", [("m.py", "b/m.py"), ("a/m.py", "m.py")])
def test_one_side_prefixed_names_the_same_file(old, new):
    fp = parse_patch(f"--- {old}\n+++ {new}\n@@ -1 +1 @@\n-a\n+b\n").files[0]
    assert fp.kind is FileKind.MODIFY and fp.path == "m.py"
    assert [d.code for d in fp.diagnostics] == ["mixed_path_prefix"]


@pytest.mark.parametrize("old, new", [("m.py", "b/n.py"), ("b/m.py", "m.py"), ("m.py", "a/m.py")])
def test_one_side_prefixed_other_file_is_two_names(old, new):
    fp = parse_patch(f"--- {old}\n+++ {new}\n@@ -1 +1 @@\n-a\n+b\n").files[0]
    assert fp.header_paths == (old, new) and fp.path == new


def test_hunk_header_with_extra_spaces():
    hunk = parse_patch("--- a/f\n+++ b/f\n@@  -3,2  +3,2  @@\n a\n-b\n+c\n").files[0].hunks[0]
    assert (hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count) == (3, 2, 3, 2)


EPOCH = "1970-01-01 00:00:00.000000000 +0000"
LATER = "2026-11-23 16:24:55.606843203 +0000"


@pytest.mark.parametrize("stamp", [EPOCH, "1970-01-01 00:00:00 +0000",
                                   "1969-12-31 16:00:00.000000000 -0800",
                                   "1970-01-01 05:30:00 +0530"])
def test_gnu_diff_n_epoch_on_the_old_side_is_an_add(stamp):
    text = f"--- old/n.txt\t{stamp}\n+++ new/n.txt\t{LATER}\n@@ -0,0 +1,2 @@\n+new\n+file\n"
    fp = parse_patch(text, strip=1).files[0]
    assert (fp.kind, fp.old_path, fp.new_path) == (FileKind.ADD, None, "n.txt")
    assert [d.code for d in fp.diagnostics] == ["epoch_timestamp"]


def test_gnu_diff_n_epoch_on_the_new_side_is_a_delete():
    text = f"--- old/d/g.txt\t{LATER}\n+++ new/d/g.txt\t{EPOCH}\n@@ -1,2 +0,0 @@\n-a\n-b\n"
    fp = parse_patch(text, strip=1).files[0]
    assert (fp.kind, fp.old_path, fp.new_path) == (FileKind.DELETE, "d/g.txt", None)
    assert [d.code for d in fp.diagnostics] == ["epoch_timestamp"]


@pytest.mark.parametrize("old_stamp, new_stamp, body", [
    ("1970-01-01 00:00:01 +0000", LATER, "@@ -0,0 +1 @@\n+x\n"),  # a second after: a date
    ("1970-01-01 00:00:00 +0100", LATER, "@@ -0,0 +1 @@\n+x\n"),  # 23:00 the day before UTC
    (EPOCH, LATER, "@@ -1 +1,2 @@\n a\n+x\n"),  # the body needs an old file
    (LATER, EPOCH, "@@ -1,2 +1 @@\n a\n-x\n"),  # the body keeps a line
    (EPOCH, EPOCH, "@@ -0,0 +1 @@\n+x\n"),  # both sides missing: nothing to go by
], ids=["not-epoch", "not-epoch-in-zone", "add-with-context", "delete-keeping-a-line", "both"])
def test_an_epoch_date_never_overrides_the_body(old_stamp, new_stamp, body):
    text = f"--- old/f\t{old_stamp}\n+++ new/f\t{new_stamp}\n{body}"
    fp = parse_patch(text, strip=1).files[0]
    assert fp.kind is FileKind.MODIFY and fp.path == "f"
    assert "epoch_timestamp" not in [d.code for d in fp.diagnostics]


def test_an_epoch_date_inside_a_git_header_is_not_read():
    text = (f"diff --git a/f b/f\n--- a/f\t{EPOCH}\n+++ b/f\n@@ -0,0 +1 @@\n+x\n")
    assert parse_patch(text).files[0].kind is FileKind.MODIFY


@pytest.mark.parametrize("text, named", [
    ("*** f\t2026-01-01 00:00:00\n--- f\t2026-01-01 00:00:01\n***************\n*** 1,3 ****\n"
     "  a\n! b\n  c\n--- 1,3 ----\n  a\n! B\n  c\n", "a context diff (diff -c)"),
    ("2c2\n< b\n---\n> B\n", "a normal diff (diff without -u)"),
    ("2c\nB\n.\n", "an ed script (diff -e)"),
], ids=["context", "normal", "ed"])
def test_other_diff_formats_are_named_in_the_refusal(text, named):
    err = parse_error(text)
    assert err.code == ("empty_patch" if "ed script" in named else "invalid_hunk_header")
    assert named in err.message and "diff -u" in err.hint


@pytest.mark.parametrize("section", [
    "*** g\n--- g\n***************\n*** 1 ****\n! b\n--- 1 ----\n! B\n",
    "1c1\n< b\n---\n> B\n",
], ids=["context", "normal"])
def test_another_formats_hunk_between_file_patches_is_not_skipped_as_prose(section):
    """Skipping it would apply the unified file patches and silently leave that file out."""
    unified = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\n"
    err = parse_error(unified + section + unified.replace("/f", "/h"))
    assert err.code == "invalid_hunk_header" and "not supported" in err.message


def test_prose_is_not_taken_for_another_diff_format():
    err = parse_error("I changed line 2c2 of the file.\nHere is why.\n")
    assert err.code == "empty_patch" and "looks like" not in err.message


@pytest.mark.parametrize("text", [
    "\ufeff--- a/k\n+++ b/k\n@@ -1 +1 @@\n-x\n+y\n",
    "\ufeff*** Begin Patch\n*** Update File: k\n@@\n-x\n+y\n*** End Patch\n",
], ids=["unified", "envelope"])
def test_a_leading_byte_order_mark_is_ignored(text):
    assert detect_format(text.encode()) == ("envelope" if "Begin" in text else "unified")
    patch = parse_patch(text)
    assert patch.files[0].path == "k"
    assert [d.code for d in patch.diagnostics] == ["byte_order_mark"]


def test_a_byte_order_mark_inside_a_hunk_is_content():
    fp = parse_patch(b"--- a/k\n+++ b/k\n@@ -1 +1 @@\n-\xef\xbb\xbfx\n+\xef\xbb\xbfy\n").files[0]
    assert fp.hunks[0].lines[0].text == b"\xef\xbb\xbfx\n"


# -- headers as models write them ----------------------------------------------------------------

@pytest.mark.parametrize("git_line", ["diff --git a/x.py b/x.py", "diff --git a/x.py"])
def test_git_header_with_a_plus_line_and_no_minus_line(git_line: str):
    text = f"{git_line}\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
    fp = parse_patch(text).files[0]
    assert fp.kind is FileKind.MODIFY and (fp.old_path, fp.new_path) == ("x.py", "x.py")
    assert [d.code for d in fp.diagnostics] == ["missing_old_file_line"]
    assert fp.hunks[0].old_lines == [b"a\n", b"b\n"]


def test_a_plus_line_only_must_name_the_git_lines_file():
    err = parse_error("diff --git a/x.py b/x.py\n+++ b/y.py\n@@ -1 +1 @@\n-a\n+b\n")
    assert err.code == "inconsistent_header"
    assert parse_error("diff --git a/x.py b/x.py\n+++ /dev/null\n@@ -1 +1 @@\n-a\n+b\n"
                       ).code == "missing_file_header"
    added = parse_patch("diff --git a/n b/n\nnew file mode 100644\n+++ b/n\n@@ -0,0 +1 @@\n+a\n")
    assert added.files[0].kind is FileKind.ADD


def test_a_lone_plus_line_before_a_hunk_names_the_file_to_change():
    """A model's one-path header with no 'diff --git' line either: '+++ b/x' then a hunk is a
    change to x (diagnostic missing_old_file_line), after prose too; one that names nothing
    (/dev/null) is refused."""
    for text in ("+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", "Fix:\n\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"):
        (fp,) = parse_patch(text).files
        assert (fp.kind, fp.old_path, fp.new_path) == (FileKind.MODIFY, "x", "x")
        assert "missing_old_file_line" in [d.code for d in fp.diagnostics]
    assert parse_error("+++ /dev/null\n@@ -1 +1 @@\n-a\n+b\n").code == "missing_file_header"


@pytest.mark.parametrize("header", ["@@ -...,... @@", "@@ -XXX,XXX +XXX,XXX @@",
                                    "@@ -N,M +N,M @@", "@@ -... +... @@ def f():"])
def test_placeholder_hunk_headers_have_no_line_numbers(header: str):
    fp = parse_patch(f"--- a/f\n+++ b/f\n{header}\n a\n-b\n+c\n d\n").files[0]
    (hunk,) = fp.hunks
    assert (hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count) == (None,) * 4
    assert hunk.old_lines == [b"a\n", b"b\n", b"d\n"]
    assert [d.code for d in fp.diagnostics] == ["hunk_without_line_numbers"]
    assert hunk.section == ("def f():" if "def" in header else "")


def test_a_plus_path_typo_is_read_as_the_path_git_and_minus_name():
    text = "diff --git a/src/x.py b/src/x.py\n--- a/src/x.py\n+++ b/src/z.py\n@@ -1 +1 @@\n-a\n+b\n"
    fp = parse_patch(text).files[0]
    assert fp.kind is FileKind.MODIFY and (fp.old_path, fp.new_path) == ("src/x.py", "src/x.py")
    assert fp.plus_path_typo == "src/z.py"
    assert [d.code for d in fp.diagnostics] == ["plus_path_typo"]
    # the git line naming the '+++' path, or two paths, is a rename without rename lines
    assert parse_error(text.replace("b/src/x.py\n---", "b/src/z.py\n---")).code \
        == "inconsistent_header"
    # another file patch naming the '+++' path: no typo
    other = "--- a/src/z.py\n+++ b/src/z.py\n@@ -1 +1 @@\n-c\n+d\n"
    assert parse_error(text + other).code == "inconsistent_header"


def test_a_patch_without_context_lines_is_marked_unidiff_zero():
    zero = "--- a/f\n+++ b/f\n@@ -2,0 +3 @@\n+x\n@@ -5 +6 @@\n-y\n+Y\n"
    assert all(fp.unidiff_zero for fp in parse_patch(zero).files)
    with_add = zero + "--- /dev/null\n+++ b/g\n@@ -0,0 +1 @@\n+new\n"
    assert [fp.unidiff_zero for fp in parse_patch(with_add).files] == [True, False]
    context = zero + "--- a/h\n+++ b/h\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    assert not any(fp.unidiff_zero for fp in parse_patch(context).files)
    bare = "--- a/f\n+++ b/f\n@@\n+x\n"
    assert not parse_patch(bare).files[0].unidiff_zero
