"""The ladder's last rungs (LAST_RUNGS in core/place/ladder.py, core/place/salvage/), as pure
functions: a hunk read by the lines the model got right is placed at one place or refused,
never guessed; and, through the planner, each rung's receipt, its refusals and its re-sends."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import applied, forget_resend_records, refused
from repos.builders import make_repo

from holon_git.core.change import SourceFile
from holon_git.core.model import ADD, CONTEXT, REMOVE, HunkLine
from holon_git.core.place.ladder import climb_last
from holon_git.core.place.salvage.reading import AlreadyThere, Unplaced, distinctive, enough
from holon_git.core.plan.plan import plan_patch
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

MODULE = """\
import json
import os


def load_settings(path):
    with open(path) as handle:
        raw = json.load(handle)
    settings = dict(DEFAULTS)
    settings.update(raw)
    return settings


def save_settings(path, settings):
    tmp = path + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(settings, handle, indent=2)
    os.replace(tmp, path)


def reset_settings(path):
    if os.path.exists(path):
        os.remove(path)
    return dict(DEFAULTS)
"""
LINES = MODULE.encode().splitlines(keepends=True)


def body(text: str) -> list[HunkLine]:
    """Hunk lines from a hunk body (an empty line is a blank context line)."""
    kinds = {" ": CONTEXT, "-": REMOVE, "+": ADD}
    return [HunkLine(kinds[line[:1] or " "], line[1:].encode() + b"\n")
            for line in text.splitlines()]


def lines_of(text: str) -> list[bytes]:
    return text.encode().splitlines(keepends=True)


# -- what counts as evidence ---------------------------------------------------------------------

@pytest.mark.parametrize("line, expected", [
    (b"    return settings\n", False),  # 15 characters
    (b"    raw = json.load(handle)\n", True),
    (b"    return None\n", False),
    (b"        }\n", False),
    (b"# ------------------------------\n", False),  # no identifier
    (b'    """Load the settings file."""\n', True),
    (b"    x = x + x + x + x + x + x + x\n", False),  # one identifier
])
def test_a_distinctive_line_is_long_and_names_things(line: bytes, expected: bool):
    assert distinctive(line) is expected


def test_enough_needs_two_solid_lines_or_a_distinctive_one():
    assert not enough([b"\n", b"    pass\n", b"\n"])
    assert enough([b"else:\n", b"    pass\n"])
    assert enough([b"\n", b"    raw = json.load(handle)\n"])
    assert not enough([b"    return settings\n"])


# -- rung 3: one side of context invented ---------------------------------------------------------

def test_invented_trailing_context_is_left_out():
    hunk = body(" def load_settings(path):\n"
                "     with open(path) as handle:\n"
                "-        raw = json.load(handle)\n"
                "+        raw = json.load(handle) or {}\n"
                "     if not raw:\n"
                "         raise ValueError('empty settings')\n")
    found = climb_last(LINES, hunk)
    assert found is not None and found.rung == "context_invented"
    assert found.start == 4
    # the rewritten hunk's context is the file's own, and it matches there exactly
    old = [line.text for line in found.lines if line.kind != ADD]
    assert old == LINES[4 : 4 + len(old)]
    assert "'    if not raw:'" in found.message and "trailing context" in found.message


def test_invented_leading_context_is_left_out_for_a_pure_insertion():
    hunk = body(" def save_settings(path, settings, backup=True):\n"
                "     if backup:\n"
                "+    print('saving', path)\n"
                "     tmp = path + \".tmp\"\n"
                "     with open(tmp, \"w\") as handle:\n")
    found = climb_last(LINES, hunk)
    assert found is not None and found.rung == "context_invented"
    added_at = [j for j, line in enumerate(found.lines) if line.kind == ADD]
    old_before_added = sum(line.kind != ADD for line in found.lines[: added_at[0]])
    assert found.start + old_before_added == 13  # before 'tmp = path + ".tmp"'


def test_what_is_left_occurring_twice_is_refused():
    text = MODULE + "\n\ndef load_other(path):\n    with open(path) as handle:\n" \
        "        raw = json.load(handle)\n"
    hunk = body(" def invented(path):\n"
                "     with open(path) as handle:\n"
                "-        raw = json.load(handle)\n"
                "+        raw = json.load(handle) or {}\n")
    with pytest.raises(Unplaced) as unsure:
        climb_last(lines_of(text), hunk)
    assert "fits 2 places" in unsure.value.note


def test_an_insertion_whose_sides_point_at_two_places_is_refused():
    hunk = body("     settings.update(raw)\n"
                "     return settings\n"
                "+    # two places\n"
                "     os.replace(tmp, path)\n"
                "\n")
    with pytest.raises(Unplaced) as unsure:
        climb_last(LINES, hunk)
    assert "2 places" in unsure.value.note


def test_an_insertion_with_both_sides_invented_is_not_placed():
    hunk = body(" def invented():\n"
                "     pass\n"
                "+    print('here')\n"
                "     return 1\n")
    assert climb_last(LINES, hunk) is None


def test_a_left_out_side_that_is_on_the_matched_lines_contradicts_the_file():
    # the trailing context repeats the removed line, deeper: the file has it once
    hunk = body("     tmp = path + \".tmp\"\n"
                "-    with open(tmp, \"w\") as handle:\n"
                "+    if settings:\n"
                "         with open(tmp, \"w\") as handle:\n"
                "             json.dump(settings, handle, indent=2)\n")
    with pytest.raises(Unplaced) as unsure:
        climb_last(LINES, hunk)
    assert "contradicts the file" in unsure.value.note


def test_a_changed_neighbour_is_refused():
    """One context line, next to the change, is the file's line with one word changed: the
    file changed beside the edit since the patch was written (a merge would conflict)."""
    hunk = body(" def reset_settings(path):\n"
                "     if os.path.isfile(path):\n"
                "-        os.remove(path)\n"
                "+        os.unlink(path)\n"
                "     return dict(DEFAULTS)\n")
    with pytest.raises(Unplaced) as unsure:
        climb_last(LINES, hunk)
    assert "edited" in unsure.value.note


def test_a_left_out_side_copied_from_elsewhere_is_refused():
    """No line of the left-out side is the file's line there, and a distinctive one is a line
    of the file elsewhere: the context describes another place."""
    hunk = body("     settings = dict(DEFAULTS)\n"
                "     settings.update(raw)\n"
                "     return settings\n"
                "-        os.remove(path)\n"
                "+        os.unlink(path)\n"
                "     return dict(DEFAULTS)\n")
    with pytest.raises(Unplaced) as unsure:
        climb_last(LINES, hunk)
    assert "not next to line" in unsure.value.note  # names both places


SCAN = """def scan(items):
    total = 0
    for it in items:
        if it.skip:
            break
        if it.kind in ("L", "D"):
            total += 1
    return total
"""


CONVERT = """class Markdown:
    def convert_file(
        self_v2,
        source: str | None = None,
        encoding: str | None = None,
    ) -> None:
        pass
"""


@pytest.mark.parametrize("text, hunk, said", [
    # far lines in place, the neighbour rewritten whole (a short line: no words in common);
    # the result would be break + elif
    (SCAN, "     for it in items:\n         if it.skip:\n             continue\n"
     "-        if it.kind in (\"L\", \"D\"):\n+        elif it.kind in (\"L\", \"D\"):\n"
     "             total += 1\n     return total\n",
     "'            continue', is line 5 of the file, '            break', edited"),
    # one far line in place beside a short, common neighbour ('self,') renamed in the file
    (CONVERT, "     def convert_file(\n         self,\n-        source: str | None = None,\n"
     "+        source: bytes | None = None,\n         encoding: str | None = None,\n"
     "     ) -> None:\n",
     "'        self,', is line 3 of the file, '        self_v2,', edited"),
], ids=["continue-turned-break", "self-renamed"])
def test_a_short_neighbour_edited_beside_its_side_in_place_is_refused(text: str, hunk: str,
                                                                      said: str):
    """The context line next to the change differs from the file's line there and the
    side's other lines are the file's lines there: the file changed beside the edit, not
    context invented."""
    with pytest.raises(Unplaced) as unsure:
        climb_last(lines_of(text), body(hunk))
    assert said in unsure.value.note


TWINS = """class Table:
    def append(self, key, value):
        if not isinstance(value, Item):
            value = item(value, parent=self)

        self._value.append(key, value)
        return self

    def raw_append(self, key, value):
        if not isinstance(value, Item):
            value = item(value)

        self._value.append_raw(key, value)
        return self
"""


def test_a_stale_hunk_is_not_moved_to_a_look_alike_block():
    """Written for raw_append before its line changed: without its leading context the hunk
    fits append, whose leading context differs in one line; but that context is raw_append's
    lines, where the whole hunk is the file's lines but for one. Refused, not moved."""
    hunk = body("         if not isinstance(value, Item):\n"
                "             value = item(value)\n"
                "\n"
                "-        self._value.append(key, value)\n"
                "+        self._value.append(key, value, validate=False)\n"
                "         return self\n")
    with pytest.raises(Unplaced) as unsure:
        climb_last(lines_of(TWINS), hunk)
    assert "the hunk was written for that place, which changed since" in unsure.value.note
    assert unsure.value.lines == [10, 6]  # both places: where it was written, where it fits


# -- rung 4: removed lines alone ------------------------------------------------------------------

def test_both_sides_invented_with_two_removed_lines():
    hunk = body(" # invented comment\n"
                "-    if os.path.exists(path):\n"
                "-        os.remove(path)\n"
                "+    with contextlib.suppress(FileNotFoundError):\n"
                "+        os.remove(path)\n"
                " # another invented line\n")
    found = climb_last(LINES, hunk)
    assert found is not None and found.rung == "context_invented"
    assert "removed lines alone" in found.message
    removed_at = found.start + [line.kind for line in found.lines].index(REMOVE)
    assert removed_at == 20


def test_one_removed_line_must_be_distinctive():
    short = body(" invented\n-    return settings\n+    return dict(settings)\n invented too\n")
    assert climb_last(LINES, short) is None
    long = body(" invented\n-        raw = json.load(handle)\n+        raw = {}\n invented too\n")
    found = climb_last(LINES, long)
    assert found is not None and found.start + 1 == 6


# -- rung 2: a skipped line, a missing or extra blank line ----------------------------------------

def test_context_that_skips_a_line():
    hunk = body(" def save_settings(path, settings):\n"
                "     with open(tmp, \"w\") as handle:\n"  # skips 'tmp = ...'
                "-        json.dump(settings, handle, indent=2)\n"
                "+        json.dump(settings, handle, indent=4)\n")
    found = climb_last(LINES, hunk)
    assert found is not None and found.rung == "context_gap" and found.start == 12
    assert found.lines[1] == HunkLine(CONTEXT, b'    tmp = path + ".tmp"\n')


def test_an_extra_blank_context_line():
    hunk = body("     settings = dict(DEFAULTS)\n"
                "\n"
                "     settings.update(raw)\n"
                "-    return settings\n"
                "+    return settings.copy()\n")
    found = climb_last(LINES, hunk)
    assert found is not None and found.rung == "context_gap"
    assert len(found.lines) == len(hunk) - 1 and "blank context line" in found.message


def test_a_skip_reading_that_fits_two_places_is_refused():
    text = "a = 1\nfirst\nb = 2\nc = 3\n\na = 1\nsecond\nb = 2\nc = 3\n"
    hunk = body(" a = 1\n b = 2\n-c = 3\n+c = 4\n")
    with pytest.raises(Unplaced):
        climb_last(lines_of(text), hunk)


def test_no_line_is_skipped_between_two_removed_lines():
    hunk = body(" def reset_settings(path):\n"
                "-    if os.path.exists(path):\n"
                "-    return dict(DEFAULTS)\n"
                "+    return {}\n")
    assert climb_last(LINES, hunk) is None


# -- rung 1: context indented deeper --------------------------------------------------------------

def test_context_indented_deeper_away_from_the_change():
    hunk = body("         def load_settings(path):\n"  # 8 spaces too deep
                "     with open(path) as handle:\n"
                "-        raw = json.load(handle)\n"
                "+        raw = json.load(handle) or {}\n"
                "     settings = dict(DEFAULTS)\n")
    found = climb_last(LINES, hunk)
    assert found is not None and found.rung == "context_indent" and found.start == 4
    assert found.lines[0] == HunkLine(CONTEXT, b"def load_settings(path):\n")


def test_deeper_context_next_to_the_change_is_refused():
    hunk = body(" def load_settings(path):\n"
                "         with open(path) as handle:\n"
                "-        raw = json.load(handle)\n"
                "+        raw = json.load(handle) or {}\n")
    with pytest.raises(Unplaced):
        climb_last(LINES, hunk)


# -- the re-send guard ----------------------------------------------------------------------------

def test_the_new_side_where_the_hunk_goes_is_a_resend():
    after = MODULE.replace("    tmp = path", "    print('saving', path)\n    tmp = path")
    hunk = body(" def save_settings(path, settings, backup=True):\n"
                "     if backup:\n"
                "+    print('saving', path)\n"
                "     tmp = path + \".tmp\"\n"
                "     with open(tmp, \"w\") as handle:\n")
    with pytest.raises(AlreadyThere):
        climb_last(lines_of(after), hunk)


def test_a_deletion_kept_context_is_no_resend():
    hunk = body("-import json\n"
                "-import os\n"
                "\n"
                " def load_settings(path):\n")  # skips the blank line the file has
    found = climb_last(LINES, hunk)
    assert found is not None and found.rung == "context_gap"


# -- through the planner --------------------------------------------------------------------------

PATCH = """\
--- a/settings.py
+++ b/settings.py
@@ -14,4 +14,5 @@ def save_settings(path, settings):
 def save_settings(path, settings, backup=True):
     if backup:
+    print("saving", path)
     tmp = path + ".tmp"
     with open(tmp, "w") as handle:
"""


def plan_of(patch: str, text: str = MODULE):
    files = {"settings.py": SourceFile(text.encode())}
    return plan_patch(parse_patch(patch), files.get)


def test_the_receipt_says_what_was_left_out():
    plan = plan_of(PATCH)
    (change,) = plan.changes
    assert change.hunks[0].tolerances == ["context_invented"]
    assert change.hunks[0].applied_line == 12 and change.hunks[0].hinted_line == 14
    (note,) = [d for d in change.diagnostics if d.code == "context_invented"]
    assert note.message.startswith("hunk 1: its context lines")
    assert "def save_settings(path, settings, backup=True):" in note.message
    assert change.after == MODULE.replace("    tmp = path", '    print("saving", path)\n'
                                          "    tmp = path").encode()


def test_the_planner_refuses_a_rung_that_finds_two_places_and_says_so():
    text = MODULE + "\n\ndef copy_settings(path):\n    tmp = path + \".tmp\"\n" \
        "    with open(tmp, \"w\") as handle:\n        pass\n"
    with pytest.raises(PatchError) as caught:
        plan_of(PATCH, text)
    err = caught.value
    assert err.code == "context_not_found" and "fits 2 places" in err.message
    assert err.details["salvage"]["lines"] == [12, 25]


def test_all_or_nothing_a_second_hunk_that_no_rung_places(tmp_path: Path):
    patch = PATCH + "@@ -30,2 +31,2 @@\n def invented():\n-    gone()\n+    back()\n"
    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    refused(repo, patch, "context_not_found")


def test_a_resent_salvaged_patch_is_refused(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    applied(repo, PATCH)
    after = (repo / "settings.py").read_bytes()
    refused(repo, PATCH, "already_applied")  # the history log knows it
    forget_resend_records(repo)
    refused(repo, PATCH, "already_applied")  # and so do the rungs without it
    (repo / ".git" / "holon-apply-history").unlink()
    refused(repo, PATCH, "already_applied")
    assert (repo / "settings.py").read_bytes() == after


def test_a_resent_replacement_whose_new_side_holds_its_old_lines(tmp_path: Path):
    """The added lines repeat the removed ones and add one (a model rewrites a block): read
    alone, the removed lines are still in the file after the apply, inside the new lines."""
    patch = ("--- a/settings.py\n+++ b/settings.py\n@@ -20,4 +20,5 @@\n"
             " # invented\n"
             "-    if os.path.exists(path):\n"
             "-        os.remove(path)\n"
             "+    if os.path.exists(path):\n"
             "+        os.remove(path)\n"
             "+        print(\"removed\", path)\n"
             "     return None\n")
    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    assert applied(repo, patch).files[0].hunks[0].tolerances == ["context_invented"]
    (repo / ".git" / "holon-apply-history").unlink()
    err = refused(repo, patch, "already_applied")
    assert "read without the lines that are not in the file" in err.message


def test_the_rescue_decides_before_the_rungs(tmp_path: Path):
    """A patch written against HEAD whose context the agent's uncommitted edit changed next
    to the change: the merge conflicts, and no rung second-guesses it."""
    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    (repo / "settings.py").write_text(MODULE.replace("    tmp = path + \".tmp\"",
                                                     "    tmp = path + \".new\""))
    patch = ("--- a/settings.py\n+++ b/settings.py\n@@ -13,4 +13,4 @@\n"
             " def save_settings(path, settings):\n"
             "     tmp = path + \".tmp\"\n"
             "-    with open(tmp, \"w\") as handle:\n"
             "+    with open(tmp, \"x\") as handle:\n"
             "         json.dump(settings, handle, indent=2)\n")
    refused(repo, patch, "merge_conflict")


def test_a_salvaged_patch_is_undone_with_reverse(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    applied(repo, PATCH)
    undone = applied(repo, PATCH, reverse=True)
    assert undone.files[0].hunks[0].tolerances == ["context_invented"]
    assert (repo / "settings.py").read_text() == MODULE
    refused(repo, PATCH, "not_applied", reverse=True)


def test_no_3way_skips_the_rescue_not_the_last_rungs(tmp_path: Path):
    """--no-3way asks no other version; the last rungs read the current file only, so they
    place the hunk with it as without it, and refuse the same hunks."""
    from clisupport import holon

    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    receipt = applied(repo, PATCH, three_way=False)
    assert receipt.files[0].hunks[0].tolerances == ["context_invented"]
    assert receipt.files[0].three_way is None
    refused(repo, PATCH, "already_applied", three_way=False)
    other = make_repo(tmp_path / "o", {"settings.py": MODULE})
    done = holon(other, "--no-3way", "-", stdin=PATCH)
    assert done.returncode == 0 and "[context_invented]" in done.stdout, done.stderr


U0 = "--- a/settings.py\n+++ b/settings.py\n@@ -2,0 +3,1 @@\n+import sys\n"


def test_a_zero_context_insertion_goes_to_its_line_and_is_not_sent_twice(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    receipt = applied(repo, U0)
    assert receipt.files[0].hunks[0].tolerances == ["unidiff_zero"]
    assert (repo / "settings.py").read_text() == MODULE.replace("import os\n",
                                                                "import os\nimport sys\n")
    refused(repo, U0, "already_applied")  # the history log says this tool applied it
    (repo / ".git" / "holon-apply-history").unlink()
    # without the log, its line equal to the one after its place may be a re-send or a new
    # insertion (tests/test_repeated_lines.py): refused all the same, never applied twice
    refused(repo, U0, "ambiguous_repeat")


MIXED = U0 + "@@ -5,2 +6,2 @@\n def load_settings(path):\n-    with open(path) as handle:\n" \
    "+    with open(path, encoding=\"utf-8\") as handle:\n"


@pytest.mark.parametrize("flags", [[], ["--unidiff-zero"]])
def test_unidiff_zero_changes_nothing_a_zero_context_patch_is_always_read_so(
        tmp_path: Path, flags: list[str]):
    """git needs --unidiff-zero for a -U0 patch; holon-git reads one so whatever the flags,
    and a context-free insertion beside hunks with context the same way when the file proves
    the line numbers (the next test)."""
    from clisupport import holon

    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    done = holon(repo, *flags, "-", stdin=U0)
    assert done.returncode == 0 and "[unidiff_zero]" in done.stdout, done.stderr
    again = make_repo(tmp_path / "m", {"settings.py": MODULE})
    done = holon(again, *flags, "-", stdin=MIXED)
    assert done.returncode == 0 and "[unidiff_zero]" in done.stdout, done.stderr


def test_a_zero_context_insertion_beside_hunks_with_context_goes_by_proven_numbers(
        tmp_path: Path):
    """A file patch mixing a -U0 insertion with a hunk that has context: the insertion goes
    after its header's line when the other hunk's old lines are in the file exactly at its
    header's line and every new start agrees with its old start; a re-send is refused."""
    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    receipt = applied(repo, MIXED)
    assert [h.tolerances for h in receipt.files[0].hunks] == [["unidiff_zero"], []]
    assert (repo / "settings.py").read_text() == MODULE.replace(
        "import os\n", "import os\nimport sys\n").replace(
        "open(path) as", 'open(path, encoding="utf-8") as')
    refused(repo, MIXED, "already_applied")


@pytest.mark.parametrize("mixed", [
    # the hunk with context is found only by its content, three lines from its header's
    MIXED.replace("@@ -5,2 +6,2 @@", "@@ -8,2 +9,2 @@"),
    # the insertion's new start disagrees with its old start
    MIXED.replace("@@ -2,0 +3,1 @@", "@@ -4,0 +3,1 @@"),
    # the other hunk's new start disagrees with the insertion before it
    MIXED.replace("@@ -5,2 +6,2 @@", "@@ -5,2 +5,2 @@"),
    # the insertion comes after the last hunk that proves its numbers: lines added or
    # removed between them would show nowhere
    "--- a/settings.py\n+++ b/settings.py\n@@ -1,2 +1,2 @@\n-import json\n+import json  # x\n"
    " import os\n@@ -7,0 +8 @@\n+    print(raw)\n",
], ids=["drifted-context-hunk", "insertion-header-contradicts", "new-start-off",
        "insertion-below-the-last-proof"])
def test_a_mixed_zero_context_insertion_without_proven_numbers_is_refused(tmp_path: Path,
                                                                        mixed: str):
    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    refused(repo, mixed, "ambiguous_context")


@pytest.mark.parametrize("header, code", [("@@ -2,0 +5,1 @@", "ambiguous_context"),
                                          ("@@ -2 +3 @@", "ambiguous_context"),
                                          ("@@ -2,0 +3,2 @@", "truncated_patch")])
def test_a_zero_context_insertion_whose_header_contradicts_itself(tmp_path: Path, header: str,
                                                                 code: str):
    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    refused(repo, U0.replace("@@ -2,0 +3,1 @@", header), code)


def test_the_summary_says_what_was_left_out_without_verbose(tmp_path: Path):
    from clisupport import holon

    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    done = holon(repo, "-", stdin=PATCH)
    assert done.returncode == 0, done.stderr
    assert "[context_invented]" in done.stdout
    assert "note: hunk 1: its context lines 'def save_settings(path, settings, backup=True):'" \
        in done.stdout


def test_removed_lines_alone_while_the_new_lines_are_elsewhere_is_refused():
    """The file already has the hunk's new lines (applied there, its context invented) and
    its removed lines at another place: read by its removed lines alone, it could be
    applied twice."""
    text = MODULE + '''

def purge_settings(path):
    if os.path.exists(path):
        os.remove(path)
'''
    text = text.replace("    if os.path.exists(path):\n        os.remove(path)\n    return dict",
                        "    if os.path.isfile(path):\n        os.unlink(path)\n    return dict", 1)
    hunk = body(" # invented\n"
                "-    if os.path.exists(path):\n"
                "-        os.remove(path)\n"
                "+    if os.path.isfile(path):\n"
                "+        os.unlink(path)\n"
                " # invented too\n")
    with pytest.raises(Unplaced) as unsure:
        climb_last(lines_of(text), hunk)
    assert "already at line 21" in unsure.value.note


def test_a_blank_line_too_many_among_blank_lines_next_to_an_insertion_is_two_places():
    """The hunk's three blank context lines, its insertion after the first, and the file's
    two: dropping one before the insertion and dropping one after it put the added lines in
    two places."""
    text = "# header\n\n\nclass Frozen:\n    pass\n"
    hunk = body("\n"
                "+import sys\n"
                "\n"
                "\n"
                " class Frozen:\n")
    with pytest.raises(Unplaced) as unsure:
        climb_last(lines_of(text), hunk)
    assert "2 ways" in unsure.value.note


def test_a_skipped_blank_line_beside_an_insertion_between_blank_lines_is_two_places():
    text = "a = 1\n\n\n\nb = 2\n"
    hunk = body(" a = 1\n"
                "\n"
                "+x = 3\n"
                "\n"
                " b = 2\n")
    with pytest.raises(Unplaced):
        climb_last(lines_of(text), hunk)


def test_a_skipped_blank_line_keeps_the_added_lines_after_the_line_they_follow():
    """The added lines follow a statement and precede a blank line: the file's second blank
    line goes after them, not between that statement and them."""
    text = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    hunk = body("     return 1\n"
                "+\n"
                "+\n"
                "+def h():\n"
                "+    return 3\n"
                "\n"
                " def g():\n")
    found = climb_last(lines_of(text), hunk)
    assert found is not None and found.rung == "context_gap"
    new = [line.text for line in found.lines if line.kind != REMOVE]
    assert new == [b"    return 1\n", b"\n", b"\n", b"def h():\n", b"    return 3\n", b"\n",
                   b"\n", b"def g():\n"]


def test_a_zero_context_deletion_counts_in_the_proof_by_git_s_numbering(tmp_path: Path):
    """git numbers an empty side "after line N": a -U0 deletion's new start is one less than
    its old start plus the lines the hunks before it added. Such a hunk proves its numbers
    like any other with old lines; off by one, it does not."""
    deletion = "@@ -7 +7,0 @@\n-        raw = json.load(handle)\n"
    repo = make_repo(tmp_path / "r", {"settings.py": MODULE})
    applied(repo, MIXED + deletion)
    assert "raw = json.load" not in (repo / "settings.py").read_text()
    assert "import sys\n" in (repo / "settings.py").read_text()
    other = make_repo(tmp_path / "o", {"settings.py": MODULE})
    refused(other, MIXED + deletion.replace("+7,0", "+8,0"), "ambiguous_context")


JOINER = """def check(label):
    for pos, cp in enumerate(label):
        if is_valid(cp):
            continue
        elif is_joiner(cp):
            try:
                if not valid_contextj(label, pos):
                    raise InvalidContext(label, pos)
            except ValueError:
                raise IDNAError(label, pos)
        else:
            raise InvalidCodepoint(cp)
"""


def test_a_block_unwrapped_by_its_removed_lines_alone_applies(tmp_path: Path):
    """Both edges invented (a coincidental 'else:' among them); the removed lines, unique,
    unwrap a try block: its new lines equal two removed lines with whitespace ignored, inside
    their own match, which is no sign of an earlier apply."""
    repo = make_repo(tmp_path / "r", {"f.py": JOINER})
    patch = ("--- a/f.py\n+++ b/f.py\n@@ -5,7 +5,4 @@\n         self.assert_valid(v)\n"
             "-            try:\n-                if not valid_contextj(label, pos):\n"
             "-                    raise InvalidContext(label, pos)\n"
             "-            except ValueError:\n-                raise IDNAError(label, pos)\n"
             "+            if not valid_contextj(label, pos):\n"
             "+                raise InvalidContext(label, pos)\n"
             "         assert helper(f) is globals()\n         else:\n")
    receipt = applied(repo, patch)
    assert receipt.files[0].hunks[0].tolerances == ["context_invented"]
    assert (repo / "f.py").read_text() == JOINER.replace(
        "            try:\n                if not valid_contextj(label, pos):\n"
        "                    raise InvalidContext(label, pos)\n            except ValueError:\n"
        "                raise IDNAError(label, pos)\n",
        "            if not valid_contextj(label, pos):\n"
        "                raise InvalidContext(label, pos)\n")
    refused(repo, patch, "already_applied")

