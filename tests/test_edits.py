"""JSON edits by their text (`str_replace` edits: parse/edits.py, core/plan/edits.py) through
the library, the command line and every target: found exactly (inside a line too), counted,
then placed as a hunk over the lines they cover; not found, the ladder, the rescue and the
re-send guard as for any hunk."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from clisupport import holon
from gitsupport import applied, everything, head, refused
from repos.builders import git, make_repo

from holon_git import Edit, apply_patch, convert_patch
from holon_git.parse import detect_format, parse_patch

APP = ("import os\n\n\ndef area(width, height):\n    return width * height\n\n\n"
       "def main():\n    print(area(2, 3))\n    print(area(4, 5))\n")


@pytest.fixture
def repo_files() -> Mapping[str, str | bytes]:
    return {"app.py": APP, "notes.txt": "alpha\nbeta\ngamma\n",
            "crlf.txt": b"one\r\ntwo\r\nthree", "dup.txt": "x = 1\ny = 2\nx = 1\n"}


def edits(*items: dict[str, Any]) -> str:
    return json.dumps(list(items))


def read(repo: Path, path: str) -> bytes:
    return (repo / path).read_bytes()


RENAME = {"path": "app.py", "old_str": "area(width", "new_str": "surface(width"}


def test_an_old_str_inside_a_line_is_replaced_there_alone(repo: Path):
    receipt = applied(repo, edits(RENAME))
    assert read(repo, "app.py") == APP.replace("def area(", "def surface(").encode()
    (change,) = receipt.files
    assert change.edit == 1 and receipt.format == "edits"
    assert receipt.to_dict()["files"][0]["edit"] == 1
    assert change.hunks[0].tolerances == []


def test_detected_from_the_text_list_object_and_one_edit():
    assert detect_format(edits(RENAME).encode()) == "edits"
    assert detect_format(json.dumps({"edits": [RENAME]}).encode()) == "edits"
    one = parse_patch(json.dumps({"command": "str_replace", **RENAME}))
    assert one.format == "edits" and len(one.files) == 1


def test_the_agents_argument_names_are_read(repo: Path):
    applied(repo, edits({"file_path": "notes.txt", "old_string": "beta",
                         "new_string": "BETA"}))
    assert read(repo, "notes.txt") == b"alpha\nBETA\ngamma\n"


def test_edits_of_one_file_apply_one_after_the_other(repo: Path):
    receipt = applied(repo, edits(
        {"path": "notes.txt", "old_str": "beta", "new_str": "beta\nbeta two"},
        {"path": "notes.txt", "old_str": "beta two", "new_str": "delta"}))
    assert read(repo, "notes.txt") == b"alpha\nbeta\ndelta\ngamma\n"
    assert [change.edit for change in receipt.files] == [1, 2]
    assert "edit 1" in receipt.files[1].diagnostics[0].message


def test_bytes_are_kept_crlf_and_no_final_newline(repo: Path):
    applied(repo, edits({"path": "crlf.txt", "old_str": "three", "new_str": "THREE"},
                        {"path": "crlf.txt", "old_str": "one", "new_str": "ONE"}))
    assert read(repo, "crlf.txt") == b"ONE\r\ntwo\r\nTHREE"


def test_an_edit_joining_lines(repo: Path):
    applied(repo, edits({"path": "notes.txt", "old_str": "alpha\nbe", "new_str": "alpha be"}))
    assert read(repo, "notes.txt") == b"alpha beta\ngamma\n"


def test_several_copies_are_refused_naming_their_lines(repo: Path):
    err = refused(repo, edits({"path": "dup.txt", "old_str": "x = 1", "new_str": "x = 3"}),
                  "ambiguous_context")
    assert err.details["candidate_lines"] == [1, 3] and err.details["edit"] == 1
    assert "2 times" in err.message and "edit 1" in err.message


def test_replace_all_and_expected_replacements(repo: Path):
    applied(repo, edits({"path": "dup.txt", "old_str": "x = 1", "new_str": "x = 3",
                         "replace_all": True}))
    assert read(repo, "dup.txt") == b"x = 3\ny = 2\nx = 3\n"
    git(repo, "checkout", "dup.txt")
    applied(repo, edits({"path": "dup.txt", "old_str": "x = 1", "new_str": "x = 4",
                         "expected_replacements": 2}))
    assert read(repo, "dup.txt") == b"x = 4\ny = 2\nx = 4\n"
    git(repo, "checkout", "dup.txt")
    err = refused(repo, edits({"path": "dup.txt", "old_str": "x = 1", "new_str": "x",
                               "expected_replacements": 3}), "ambiguous_context")
    assert err.details["occurrences"] == 2 and err.details["expected"] == 3


def test_replace_all_of_two_copies_in_one_line(repo: Path):
    applied(repo, edits({"path": "app.py", "old_str": "area", "new_str": "size",
                         "replace_all": True}))
    assert read(repo, "app.py") == APP.replace("area", "size").encode()


def test_not_found_is_refused_naming_the_nearest_match(repo: Path):
    err = refused(repo, edits({"path": "app.py", "old_str": "def area(width, height):\n"
                               "    return width + height\n", "new_str": "    return 0\n"}),
                  "context_not_found")
    assert "nearest match at line 4" in err.message and err.details["edit"] == 1


def test_old_str_with_other_indentation_goes_down_the_ladder(repo: Path):
    receipt = applied(repo, edits({"path": "app.py",
                                   "old_str": "def main():\n  print(area(2, 3))\n",
                                   "new_str": "def main():\n  print(area(2, 6))\n"}))
    assert b"    print(area(2, 6))\n" in read(repo, "app.py")
    assert "whitespace" in receipt.files[0].hunks[0].tolerances


def test_a_re_sent_edit_is_already_applied(repo: Path):
    edit = edits(RENAME)
    applied(repo, edit)
    refused(repo, edit, "already_applied")
    # the file changed since, elsewhere: the hunk rules still see the change is in
    (repo / "app.py").write_bytes(b"# top\n" + read(repo, "app.py"))
    err = refused(repo, edit, "already_applied")
    assert err.details["edit"] == 1


def test_a_stale_file_is_merged_from_head_or_refused_as_a_conflict(repo: Path):
    # the model read the committed app.py; the working tree changed a line of its old_str
    # since, two lines away from the edit's change
    (repo / "app.py").write_text(APP.replace("def main():", "def main() -> None:"))
    edit = edits({"path": "app.py", "old_str": "def main():\n    print(area(2, 3))\n"
                  "    print(area(4, 5))\n", "new_str": "def main():\n    print(area(2, 3))\n"
                  "    print(area(4, 6))\n"})
    receipt = applied(repo, edit)
    assert read(repo, "app.py") == APP.replace("def main():", "def main() -> None:").replace(
        "(4, 5)", "(4, 6)").encode()
    assert receipt.files[0].three_way is not None
    git(repo, "checkout", "app.py")
    (repo / "app.py").write_text(APP.replace("(4, 5)", "(4, 7)"))
    refused(repo, edit, "merge_conflict")


def test_all_or_nothing_over_several_files(repo: Path):
    err = refused(repo, edits({"path": "notes.txt", "old_str": "beta", "new_str": "B"},
                              {"path": "app.py", "old_str": "no such text", "new_str": "x"}),
                  "context_not_found")
    assert err.path == "app.py" and err.details["edit"] == 2


def test_an_empty_old_str_creates_a_file_and_is_refused_for_one_that_exists(repo: Path):
    applied(repo, edits({"path": "new/file.txt", "old_str": "", "new_str": "hello\n"}))
    assert read(repo, "new/file.txt") == b"hello\n"
    err = refused(repo, edits({"path": "notes.txt", "old_str": "", "new_str": "x\n"}),
                  "invalid_edit")
    assert "empty" in err.message


def test_create_and_insert(repo: Path):
    applied(repo, edits({"command": "create", "path": "b.txt", "file_text": "one\ntwo"},
                        {"command": "insert", "path": "notes.txt", "insert_line": 1,
                         "new_str": "after alpha"},
                        {"command": "insert", "path": "notes.txt", "insert_line": 0,
                         "new_str": "first\n"}))
    assert read(repo, "b.txt") == b"one\ntwo"
    assert read(repo, "notes.txt") == b"first\nalpha\nafter alpha\nbeta\ngamma\n"
    refused(repo, edits({"command": "create", "path": "notes.txt", "file_text": "x\n"}),
            "already_exists")
    refused(repo, edits({"command": "insert", "path": "notes.txt", "insert_line": 99,
                         "new_str": "x"}), "context_not_found")


def test_typed_edits_through_the_library(repo: Path):
    receipt = apply_patch([Edit("notes.txt", "gamma", "GAMMA"),
                           Edit("app.py", "(2, 3)", "(6, 7)")], repo)
    assert receipt.ok and receipt.format == "edits"
    assert read(repo, "notes.txt") == b"alpha\nbeta\nGAMMA\n"
    refused(repo, [Edit("notes.txt", "gamma", "GAMMA")], "already_applied")
    refused(repo, ["not an edit"], "usage_error")  # type: ignore[list-item]


def test_reverse_check_and_every_target(repo: Path):
    edit = edits(RENAME, {"path": "notes.txt", "old_str": "beta", "new_str": "BETA"})
    before = everything(repo)
    applied(repo, edit, check=True)
    assert everything(repo) == before
    applied(repo, edit)
    applied(repo, edit, reverse=True)
    assert everything(repo) == before
    applied(repo, edit, target="index")
    assert git(repo, "show", ":notes.txt") == "alpha\nBETA\ngamma\n"
    assert read(repo, "notes.txt") == b"alpha\nbeta\ngamma\n"
    git(repo, "reset", "-q")
    applied(repo, edit, target="both")
    assert git(repo, "show", ":notes.txt") == read(repo, "notes.txt").decode()
    git(repo, "reset", "-q", "--hard")
    parent = head(repo)
    receipt = applied(repo, edit, commit=True, message="edits")
    assert head(repo) != parent and receipt.extra["commit"] == head(repo)
    assert "BETA" in git(repo, "show", "HEAD:notes.txt")


def test_onto_a_branch_with_ref(repo: Path):
    git(repo, "checkout", "-q", "-b", "side")
    receipt = applied(repo, edits(RENAME), ref="main", message="bot: rename")
    assert receipt.extra["commit"] == head(repo, "main")
    assert "def surface(" in git(repo, "show", "main:app.py")
    assert read(repo, "app.py") == APP.encode()  # side's working tree untouched


def test_protected_paths_are_refused(repo: Path):
    git(repo, "config", "holon.protect", "notes.txt")
    refused(repo, edits({"path": "notes.txt", "old_str": "beta", "new_str": "B"}),
            "protected_path")


@pytest.mark.parametrize(("text", "code"), [
    (edits({"path": "notes.txt", "new_str": "x"}), "invalid_edit"),
    (edits({"old_str": "beta", "new_str": "x"}), "invalid_edit"),
    (edits({"path": "notes.txt", "old_str": "beta", "new_str": "x", "colour": 1}),
     "invalid_edit"),
    (edits({"path": "notes.txt", "old_str": 3, "new_str": "x"}), "invalid_edit"),
    (edits({"command": "view", "path": "notes.txt"}), "invalid_edit"),
    (edits({"path": "../outside.txt", "old_str": "a", "new_str": "b"}), "path_escape"),
    (edits({"path": "/etc/passwd", "old_str": "a", "new_str": "b"}), "path_escape"),
    (edits({"path": ".git/config", "old_str": "a", "new_str": "b"}), "path_escape"),
    ('[{"path": "notes.txt", "old_str": "beta"', "patch_parse_error"),
    (b'[{"path": "notes.txt", "old_str": "\xff", "new_str": "x"}]', "patch_parse_error"),
    ("[]", "empty_patch"),
])
def test_malformed_edits_are_refused_with_nothing_changed(repo: Path, text: str | bytes,
                                                          code: str):
    refused(repo, text, code)


def test_the_command_line_detects_forces_and_converts(repo: Path):
    (repo / "edits.json").write_text(edits(RENAME))
    git(repo, "add", "edits.json")
    git(repo, "commit", "-qm", "edits")
    ran = holon(repo, "--check", "--json", "edits.json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["files"][0]["edit"] == 1
    ran = holon(repo, "convert", "edits.json")
    assert ran.returncode == 0, ran.stderr
    assert "@@ -1,7 +1,7 @@\n" in ran.stdout
    assert "-def area(width, height):\n+def surface(width, height):\n" in ran.stdout
    ran = holon(repo, "--format", "edits", "edits.json")
    assert ran.returncode == 0 and ran.stdout.startswith("Applied 1 edit to 1 file, 1 hunk.")
    ran = holon(repo, "edits.json")
    assert ran.returncode == 1 and "already_applied" in ran.stderr
    ran = holon(repo, "--format", "unified", "edits.json")
    assert ran.returncode == 1


def test_convert_patch_gives_real_line_numbers(repo: Path):
    diff = convert_patch(edits({"path": "app.py", "old_str": "(4, 5)", "new_str": "(8, 9)"}),
                         repo)
    assert b"@@ -7,4 +7,4 @@\n \n def main():\n     print(area(2, 3))\n-    print(area(4, 5))\n" \
        b"+    print(area(8, 9))\n" in diff
    assert read(repo, "app.py") == APP.encode()  # convert writes nothing


def test_reject_and_no_atomic_name_the_refused_edit(repo: Path):
    edit = edits({"path": "dup.txt", "old_str": "x = 1", "new_str": "x = 2", "replace_all": True},
                 {"path": "notes.txt", "old_str": "no such text", "new_str": "z"})
    receipt = apply_patch(edit, repo, reject=True)
    assert receipt.status == "partial" and receipt.error is not None
    assert receipt.error.details["edit"] == 2 and receipt.error.patch_line is None
    assert read(repo, "dup.txt") == b"x = 2\ny = 2\nx = 2\n"
    assert (repo / "notes.txt.rej").exists()


def test_a_re_sent_edit_whose_new_text_holds_its_old_text_is_not_applied_twice(repo: Path):
    # exact-once alone would find old_str again (it is inside new_str) and add the line twice
    edit = edits({"path": "notes.txt", "old_str": "beta\n", "new_str": "beta\nbeta two\n"})
    applied(repo, edit)
    refused(repo, edit, "already_applied")  # the history log
    (repo / ".git" / "holon-apply-history").unlink()
    refused(repo, edit, "already_applied")  # the version it was written against, merged
    assert read(repo, "notes.txt") == b"alpha\nbeta\nbeta two\ngamma\n"


def test_a_diff_whose_preamble_starts_with_a_bracket_is_still_a_diff(repo: Path):
    diff = ("[fix] the notes\n\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n alpha\n"
            "-beta\n+BETA\n gamma\n")
    assert detect_format(diff.encode()) == "unified"
    applied(repo, diff)
    assert read(repo, "notes.txt") == b"alpha\nBETA\ngamma\n"
    # JSON edits whose text holds a diff header line are still edits
    edit = edits({"path": "notes.txt", "old_str": "gamma\n", "new_str": "gamma\n--- x\n"})
    assert detect_format(edit.encode()) == "edits"


def test_a_later_edit_of_a_stale_file_is_merged_too(repo: Path):
    # both edits were written against the committed app.py, the second after the first; the
    # working tree changed a line of the second's old_str since
    (repo / "app.py").write_text(APP.replace("def main():", "def main() -> None:"))
    edit = edits(RENAME, {"path": "app.py", "old_str": "def main():\n    print(area(2, 3))\n"
                          "    print(area(4, 5))\n", "new_str": "def main():\n"
                          "    print(area(2, 3))\n    print(area(4, 6))\n"})
    receipt = applied(repo, edit)
    assert read(repo, "app.py") == APP.replace("def main():", "def main() -> None:").replace(
        "(4, 5)", "(4, 6)").replace("def area(", "def surface(").encode()
    second = receipt.files[1]
    assert second.three_way is not None and "with edit 1" in second.three_way["base"]


SETTINGS = ("# settings: generated, do not edit  \nname = 'demo'\t\nversion = '1.0'\n"
            "debug = False\n")


def test_unchanged_lines_of_an_edit_placed_loosely_keep_the_files_spacing(tmp_path: Path):
    # the edit's old text drops the file's trailing spaces; its unchanged lines are context,
    # whose bytes are the file's: only the line the edit changes is written anew
    repo = make_repo(tmp_path / "r", {"settings.py": SETTINGS})
    # (the edit also drops the first line: the lines it keeps are between its changes)
    old = "# settings: generated, do not edit\nname = 'demo'\nversion = '1.0'"
    new = "name = 'demo'\nversion = '1.1'"
    receipt = applied(repo, edits({"path": "settings.py", "old_str": old, "new_str": new}))
    assert read(repo, "settings.py") == b"name = 'demo'\t\nversion = '1.1'\ndebug = False\n"
    assert receipt.files[0].hunks[0].tolerances


ALL = '__all__ = ["set_plugin_options", "get_plugin_options"]\n'
HEADER = "# Licence: MIT\n\n\n" + ALL + "\nRUNNING = True\n"


def test_an_edit_next_to_a_line_edited_since_is_refused_whichever_blank_it_removes(
        tmp_path: Path):
    # The edit removes one of two blank lines under a first line the file no longer holds as
    # written. Which blank it removes is not said: read as the one beside the edited line,
    # the change is next to a line that changed since (a conflict, as for the same diff), so
    # it is refused, not placed by its other lines.
    repo = make_repo(tmp_path / "r", {"mod.py": HEADER.replace("Licence: MIT", "Licence: MIT-0")})
    old = "# Licence: MIT\n\n\n" + ALL
    refused(repo, edits({"path": "mod.py", "old_str": old,
                         "new_str": "# Licence: MIT\n\n" + ALL}),
            ("context_not_found", "merge_conflict"))
    diff = ("--- a/mod.py\n+++ b/mod.py\n@@ -1,4 +1,3 @@\n # Licence: MIT\n-\n \n "
            + ALL)
    refused(repo, diff, ("context_not_found", "merge_conflict"))


ITEMS = ("ITEMS = [\n    Item(\n        kind='a',\n    ),\n    Item(  \n        kind='b',\n"
         "    ),\n]\n")


def test_an_inserted_copy_of_a_kept_line_goes_after_it_as_a_diff_reads_it(tmp_path: Path):
    # the edit inserts a block that ends with a copy of the line after it; read as git's diff
    # reads it, the file's line (with its trailing spaces) is kept where it was and the new
    # block follows it, not the other way round
    repo = make_repo(tmp_path / "r", {"items.py": ITEMS})
    old = "    ),\n    Item(\n        kind='b',"
    new = "    ),\n    Item(\n        kind='new',\n    ),\n    Item(\n        kind='b',"
    applied(repo, edits({"path": "items.py", "old_str": old, "new_str": new}))
    assert read(repo, "items.py") == ITEMS.replace(
        "    Item(  \n", "    Item(  \n        kind='new',\n    ),\n    Item(\n").encode()


def test_an_edit_with_a_misremembered_line_is_placed_by_the_rest(repo: Path):
    # the last rungs read an edit as a diff's hunk (tests/test_edits_misremembered.py): a
    # context line nowhere in the file is left out, the place found by the rest
    old = ("import os\n\n\ndef area(width, height):\n    return width * height\n\n\n"
           "def volume(width, height, depth):\n")
    receipt = applied(repo, edits({"path": "app.py", "old_str": old,
                                   "new_str": old.replace("width * height", "height * width")}))
    assert read(repo, "app.py") == APP.replace("width * height", "height * width").encode()
    assert receipt.files[0].hunks[0].tolerances == ["context_invented"]
    assert "volume" in receipt.files[0].diagnostics[0].message


def test_undo_edit_is_refused_and_the_edits_reversed_undo_them(repo: Path):
    err = refused(repo, edits({"command": "undo_edit", "path": "notes.txt"}), "invalid_edit")
    assert "last edit" in err.message and "reverse" in err.hint
    edit = edits({"path": "notes.txt", "old_str": "beta", "new_str": "BETA"})
    applied(repo, edit)
    applied(repo, edit, reverse=True)
    assert read(repo, "notes.txt") == b"alpha\nbeta\ngamma\n"
    refused(repo, edit, "not_applied", reverse=True)


def test_an_edit_whose_blank_lines_slide_both_ways_is_read_and_refused(tmp_path: Path):
    # its added line sits among blank lines that two runs of its line diff could slide
    # over: read as the plain line diff (the parser once looped for ever on it)
    repo = make_repo(tmp_path / "r", {"blank.txt": "\n\n\n\n"})
    invented = "registry = build_registry(options, plugins)\n"
    refused(repo, edits({"path": "blank.txt", "old_str": invented + "\n\n\n\n",
                         "new_str": invented + "\nresult = transform(payload)\n\n\n\n"}),
            "context_not_found")
