"""Envelope patches applied to real repositories by the same planner and working-tree target."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import applied as applied_patch
from gitsupport import refused
from repos.builders import git, make_repo, snapshot

from holon_git import apply_patch
from holon_git.receipt import Receipt


def env(*body: str) -> bytes:
    return ("\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n").encode()


def applied(repo: Path, patch: bytes, **options: object) -> Receipt:
    """The shared helper (gitsupport.applied), and the patch was read as an envelope."""
    receipt = applied_patch(repo, patch, **options)
    assert receipt.format == "envelope"
    return receipt


# -- the spec's full example (verbatim in tests/data/spec_example.patch) ------------------

SPEC_EXAMPLE = (Path(__file__).parent / "data" / "spec_example.patch").read_bytes()


def test_full_example_from_the_envelope_spec(tmp_path: Path) -> None:
    legacy = b"// legacy code\nexport const old = 1;\n"
    repo = make_repo(tmp_path / "r", {
        "src/index.ts": 'import { foo } from "./foo";\n\nexport { foo };\n',
        "src/foo.ts": "export const foo = 1;\n",
        "src/legacy.ts": legacy,
    })
    receipt = applied(repo, SPEC_EXAMPLE)
    assert (repo / "src/utils/clamp.ts").read_bytes() == (
        b"export const clamp = (n: number, lo: number, hi: number): number =>\n"
        b"  Math.min(Math.max(n, lo), hi);\n")
    assert (repo / "src/index.ts").read_bytes() == (
        b'import { foo } from "./foo";\nimport { clamp } from "./utils/clamp";\n\n'
        b"export { foo };\nexport { clamp };\n")
    assert not (repo / "src/legacy.ts").exists()
    assert (repo / "src/foo.ts").read_bytes() == b"export const foo = 1;\n"
    assert [(f.kind, f.path) for f in receipt.files] == [
        ("add", "src/utils/clamp.ts"), ("modify", "src/index.ts"), ("delete", "src/legacy.ts")]
    (saved,) = receipt.extra["deleted_blobs"]
    assert saved["path"] == "src/legacy.ts"
    assert git(repo, "cat-file", "-p", saved["blob"]).encode() == legacy
    hunk = receipt.files[1].hunks[0]
    assert (hunk.hinted_line, hunk.applied_line) == (None, 1)
    assert hunk.tolerances == ["blank_context_line"]
    assert receipt.to_dict()["format"] == "envelope"


def test_full_example_through_the_cli(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {
        "src/index.ts": 'import { foo } from "./foo";\n\nexport { foo };\n',
        "src/legacy.ts": "x\n",
    })
    (tmp_path / "p.patch").write_bytes(SPEC_EXAMPLE)
    done = holon(repo, "--json", str(tmp_path / "p.patch"))
    assert done.returncode == 0, done.stderr
    assert '"format": "envelope"' in done.stdout
    assert '"atomic": true' in done.stdout
    assert (repo / "src/utils/clamp.ts").exists() and not (repo / "src/legacy.ts").exists()


# -- Add File ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("body", "content"), [
    (["+a", "+b"], b"a\nb\n"),
    (["+a", "+"], b"a\n"),
    (["+a", "+", "+"], b"a\n\n"),
    (["+a", "\\ No newline at end of file"], b"a"),
    (["+"], b""),
    (["+", "+"], b"\n"),
    ([], b""),
    (["+  indented  ", "+\ttab"], b"  indented  \n\ttab\n"),
])
def test_add_file_content_and_trailing_newline(tmp_path: Path, body: list[str],
                                               content: bytes) -> None:
    repo = make_repo(tmp_path / "r", {"keep.txt": "k\n"})
    applied(repo, env("*** Add File: new.txt", *body))
    assert (repo / "new.txt").read_bytes() == content


def test_add_file_creates_parent_directories(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"keep.txt": "k\n"})
    applied(repo, env("*** Add File: a/b/c/new.py", "+x = 1"))
    assert (repo / "a/b/c/new.py").read_bytes() == b"x = 1\n"


def test_add_file_onto_existing_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "old\n"})
    refused(repo, env("*** Add File: a.txt", "+new"), "already_exists")


def test_add_file_keeps_crlf_lines_of_a_crlf_patch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"keep.txt": "k\n"})
    applied(repo, env("*** Add File: w.txt", "+one", "+two").replace(b"\n", b"\r\n"))
    assert (repo / "w.txt").read_bytes() == b"one\r\ntwo\r\n"


# -- Update File ---------------------------------------------------------------------------------

def test_update_is_placed_by_context_and_ignores_header_text(tmp_path: Path) -> None:
    text = "".join(f"line {i}\n" for i in range(1, 41))
    repo = make_repo(tmp_path / "r", {"f.txt": text})
    receipt = applied(repo, env(
        "*** Update File: f.txt",
        "@@ -1,3 +1,3 @@ line 1",  # the header text says line 1; the context says line 31
        " line 30",
        "-line 31",
        "+LINE 31",
        " line 32",
    ))
    assert (repo / "f.txt").read_text() == text.replace("line 31\n", "LINE 31\n")
    assert receipt.files[0].hunks[0].applied_line == 30


def test_update_several_hunks_in_order(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "a\nb\nc\nd\ne\nf\ng\n"})
    applied(repo, env("*** Update File: f.py", "@@", " a", "-b", "+B", "@@", " e", "-f",
                      "+F1", "+F2"))
    assert (repo / "f.py").read_bytes() == b"a\nB\nc\nd\ne\nF1\nF2\ng\n"


def test_update_context_not_found(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "a\nb\nc\n", "g.py": "x\n"})
    err = refused(repo, env("*** Update File: g.py", "@@", "-x", "+y",
                            "*** Update File: f.py", "@@", " a", "-B", "+C"),
                  "context_not_found")
    assert (err.path, err.hunk, err.patch_line) == ("f.py", 1, 7)
    assert err.details["first_difference"]["found"] == "b"


def test_update_ambiguous_context_is_refused_not_guessed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "def a():\n    pass\n\ndef b():\n    pass\n"})
    err = refused(repo, env("*** Update File: f.py", "@@", "-    pass",
                            "+    return 1"), "ambiguous_context")
    assert err.details["candidate_lines"] == [2, 5]
    # the '@@ def b():' line decides it (tests/test_envelope_anchor.py)
    applied(repo, env("*** Update File: f.py", "@@ def b():", "-    pass", "+    return 1"))
    assert (repo / "f.py").read_text() == "def a():\n    pass\n\ndef b():\n    return 1\n"


def test_update_overlapping_hunks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "a\nb\nc\nd\n"})
    # the second hunk's old side is the first hunk's result, once, and not in the file as it
    # was: written against that result, it applies to it (issue 43, contract 8b)
    applied(repo, env("*** Update File: f.py", "@@", " a", "-b", "+B", "@@", " a", "-B", "+X"))
    assert (repo / "f.py").read_text() == "a\nX\nc\nd\n"
    # two hunks changing the same line of the file as it was stay refused
    refused(repo, env("*** Update File: f.py", "@@", " a", "-X", "+Y", "@@", " a", "-X", "+Z"),
            "overlapping_edits")


def test_update_old_body_must_be_unique_after_earlier_hunks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "x = 1\ny = 2\n"})
    # after hunk 1 the file holds 'y = 2' twice, so hunk 2 cannot be placed
    refused(repo, env("*** Update File: f.py", "@@", "-x = 1", "+y = 2", "@@", "-y = 2",
                      "+z = 3"), "ambiguous_context")


def test_update_already_applied(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "a\nB\nc\n"})
    refused(repo, env("*** Update File: f.py", "@@", " a", "-b", "+B", " c"), "already_applied")


def test_update_missing_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "a\n"})
    refused(repo, env("*** Update File: nope.py", "@@", "-a", "+b"), "not_found")


def test_update_crlf_file_with_lf_patch_keeps_crlf(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"w.txt": b"one\r\ntwo\r\nthree\r\n"})
    receipt = applied(repo, env("*** Update File: w.txt", "@@", " one", "-two", "+TWO"))
    assert (repo / "w.txt").read_bytes() == b"one\r\nTWO\r\nthree\r\n"
    assert receipt.files[0].hunks[0].tolerances == ["line_endings"]


def test_update_no_newline_markers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": b"a\nb"})
    applied(repo, env("*** Update File: f.txt", "@@", " a", "-b",
                      "\\ No newline at end of file", "+b", "+c"))
    assert (repo / "f.txt").read_bytes() == b"a\nb\nc\n"


def test_update_trailing_blank_line_is_a_separator_when_needed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "a\nb\nc\n", "g.txt": "g\n"})
    receipt = applied(repo, env("*** Update File: f.txt", "@@", " a", "-b", "+B", "",
                                "*** Delete File: g.txt"))
    assert (repo / "f.txt").read_bytes() == b"a\nB\nc\n"
    assert "trailing_blank_lines_as_separator" in receipt.files[0].hunks[0].tolerances


# -- *** End of File -----------------------------------------------------------------------------

def test_end_of_file_anchors_a_repeated_block_at_the_end(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "}\n\nx\n}\n"})
    patch_without = env("*** Update File: f.py", "@@", " }", "+// end")
    refused(repo, patch_without, "ambiguous_context")
    receipt = applied(repo, env("*** Update File: f.py", "@@", " }", "+// end",
                                "*** End of File"))
    assert (repo / "f.py").read_bytes() == b"}\n\nx\n}\n// end\n"
    assert receipt.files[0].hunks[0].applied_line == 4


def test_end_of_file_context_elsewhere_is_not_found(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "a\nb\nc\n"})
    refused(repo, env("*** Update File: f.py", "@@", " a", "+x", "*** End of File"),
            "context_not_found")


def test_end_of_file_pure_append(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "a\nb\n", "g.py": "a\nb"})
    receipt = applied(repo, env("*** Update File: f.py", "@@", "+c", "+d", "*** End of File",
                                "*** Update File: g.py", "@@", "+c", "*** End of File"))
    assert (repo / "f.py").read_bytes() == b"a\nb\nc\nd\n"
    # a last line without a newline gains one; the file still ends without one
    assert (repo / "g.py").read_bytes() == b"a\nb\nc"
    assert receipt.files[0].hunks[0].applied_line == 3


def test_pure_addition_without_anchor_is_ambiguous(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "a\nb\n"})
    err = refused(repo, env("*** Update File: f.py", "@@", "+c"), "ambiguous_context")
    assert "End of File" in err.hint


def test_pure_addition_into_an_empty_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"empty.txt": ""})
    applied(repo, env("*** Update File: empty.txt", "@@", "+first"))
    assert (repo / "empty.txt").read_bytes() == b"first\n"


# -- Delete File ---------------------------------------------------------------------------------

def test_delete_file_removes_whatever_it_holds(tmp_path: Path) -> None:
    content = b"\x00\xffbinary-ish\r\nno final newline"
    repo = make_repo(tmp_path / "r", {"d/gone.bin": content, "keep.txt": "k\n"})
    receipt = applied(repo, env("*** Delete File: d/gone.bin"))
    assert not (repo / "d").exists()  # the emptied directory goes too, as with git
    assert (repo / "keep.txt").exists()
    change = receipt.files[0]
    assert (change.action, change.removed_lines) == ("delete", 2)
    (saved,) = receipt.extra["deleted_blobs"]
    blob = subprocess.run(["git", "cat-file", "-p", saved["blob"]], cwd=repo,
                          capture_output=True, check=True).stdout
    assert blob == content


def test_delete_missing_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    refused(repo, env("*** Delete File: b.txt"), "not_found")


def test_delete_a_directory_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"d/a.txt": "a\n"})
    refused(repo, env("*** Delete File: d"), "not_a_regular_file")


# -- Move File / Update File + Move to -----------------------------------------------------------

def test_move_file_with_hunks_into_a_new_directory(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"old/path.py": 'NAME = "old-name"\nx = 1\n'})
    receipt = applied(repo, env("*** Move File: old/path.py -> new/deeper/path.py", "@@",
                                '-NAME = "old-name"', '+NAME = "new-name"'))
    assert not (repo / "old").exists()
    assert (repo / "new/deeper/path.py").read_bytes() == b'NAME = "new-name"\nx = 1\n'
    assert receipt.files[0].kind == "rename"
    assert receipt.extra["deleted_blobs"] == []


def test_move_file_without_hunks_keeps_bytes_and_mode(tmp_path: Path) -> None:
    content = b"#!/bin/sh\r\necho hi"
    repo = make_repo(tmp_path / "r", {"run.sh": content}, executable={"run.sh"})
    applied(repo, env("*** Move File: run.sh -> bin/run.sh"))
    moved = repo / "bin/run.sh"
    assert moved.read_bytes() == content
    assert moved.stat().st_mode & 0o100


def test_update_file_with_move_to(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "a\nb\n"})
    applied(repo, env("*** Update File: a.py", "*** Move to: pkg/b.py", "@@", " a", "-b",
                      "+B"))
    assert not (repo / "a.py").exists()
    assert (repo / "pkg/b.py").read_bytes() == b"a\nB\n"


def test_move_onto_an_existing_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "a\n", "b.py": "b\n"})
    err = refused(repo, env("*** Move File: a.py -> b.py"), "already_exists")
    assert err.path == "b.py"


def test_move_of_a_missing_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "a\n"})
    refused(repo, env("*** Move File: nope.py -> b.py"), "not_found")


def test_move_through_a_file_where_a_directory_should_be(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "a\n", "f": "i am a file\n"})
    refused(repo, env("*** Move File: a.py -> f/a.py"), "already_exists")


# -- all or nothing, paths, options --------------------------------------------------------------

def test_a_late_failure_changes_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
    refused(repo, env("*** Add File: n/new.txt", "+n", "*** Delete File: a.txt",
                      "*** Move File: b.txt -> m/b.txt", "*** Update File: c.txt", "@@",
                      "-zzz", "+q"), "context_not_found")


def test_symlinks_are_not_written_through(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"src/a.txt": "a\n"}, symlinks={"link": "src"})
    refused(repo, env("*** Add File: link/new.txt", "+x"), "symlink_in_path")
    refused(repo, env("*** Delete File: link"), "symlink_in_path")


def test_check_writes_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    before = snapshot(repo)
    receipt = apply_patch(env("*** Delete File: a.txt"), repo, check=True)
    assert receipt.ok and receipt.status == "checked"
    assert "deleted_blobs" not in receipt.to_dict()
    assert snapshot(repo) == before


def test_reverse_of_add_and_update(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\nb\n"})
    before = snapshot(repo)
    patch = env("*** Add File: n.txt", "+new", "*** Update File: a.txt", "@@", " a", "-b", "+B")
    applied(repo, patch)
    receipt = applied(repo, patch, reverse=True)
    assert snapshot(repo) == before
    assert [s["path"] for s in receipt.extra["deleted_blobs"]] == ["n.txt"]


def test_reverse_of_bodyless_delete_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    refused(repo, env("*** Delete File: a.txt"), "usage_error", reverse=True)


def test_forced_unified_format_does_not_read_an_envelope(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    before = snapshot(repo)
    receipt = apply_patch(env("*** Delete File: a.txt"), repo, format="unified")
    assert receipt.error is not None and receipt.error.code == "empty_patch"
    assert snapshot(repo) == before


def test_prose_around_a_bare_envelope_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    refused(repo, b"Sure:\n" + env("*** Delete File: a.txt"), "patch_parse_error")
    refused(repo, env("*** Delete File: a.txt") + b"Done.\n", "patch_parse_error")


def test_fenced_envelope_applies_with_a_diagnostic(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    receipt = applied(repo, b"```\n" + env("*** Delete File: a.txt") + b"```\n")
    assert [d.code for d in receipt.diagnostics] == ["markdown_fence"]
    assert not (repo / "a.txt").exists()


@pytest.mark.parametrize(("before", "after"), [
    (b"a\r\nb\r\nc", b"a\r\nb\r\nc\r\nd"),  # the old last line gains the file's CRLF
    (b"a\nb\nc", b"a\nb\nc\nd"),
], ids=["crlf", "lf"])
def test_appending_after_a_last_line_without_ending_gives_it_the_files_ending(
        tmp_path: Path, before: bytes, after: bytes) -> None:
    repo = make_repo(tmp_path / "r", {"f": before})
    patch = "*** Begin Patch\n*** Update File: f\n@@\n+d\n*** End of File\n*** End Patch\n"
    assert apply_patch(patch, repo).ok
    assert (repo / "f").read_bytes() == after


@pytest.mark.parametrize(("before", "append", "after"), [
    # Codex's own expectation (test_preserve_crlf_embedded_carriage_returns_on_append)
    (b"foo\r\r\nbar\r\n", b"+BAZ\n", b"foo\r\r\nbar\r\nBAZ\r\n"),
    (b"a\nb\n", b"+c\r\n+d\r\n", b"a\nb\nc\nd\n"),  # a CRLF patch appending to an LF file
], ids=["lf-patch-crlf-file", "crlf-patch-lf-file"])
def test_an_append_without_context_takes_the_files_line_ending(
        tmp_path: Path, before: bytes, append: bytes, after: bytes) -> None:
    """A hunk with no context shows nothing of the file's line endings: its added lines take
    the file's usual one, as under the line_endings tolerance, and say so."""
    repo = make_repo(tmp_path / "r", {"f": before})
    patch = (b"*** Begin Patch\n*** Update File: f\n@@\n" + append
             + b"*** End of File\n*** End Patch\n")
    receipt = applied(repo, patch)
    assert (repo / "f").read_bytes() == after
    assert receipt.files[0].hunks[0].tolerances == ["line_endings"]
    refused(repo, patch, "already_applied")
    applied(repo, patch, reverse=True)
    assert (repo / "f").read_bytes() == before


def test_an_append_without_context_in_the_files_own_ending_reports_nothing(
        tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f": b"a\r\n"})
    patch = b"*** Begin Patch\n*** Update File: f\n@@\n+b\r\n*** End of File\n*** End Patch\n"
    receipt = applied(repo, patch)
    assert (repo / "f").read_bytes() == b"a\r\nb\r\n"
    assert receipt.files[0].hunks[0].tolerances == []
