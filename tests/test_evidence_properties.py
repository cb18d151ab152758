"""Evidence before tolerance (issue 36), as properties (hypothesis).

A file holds a target function and a look-alike (a sibling whose body repeats the target's).
The model read the file, then the file moved on: the target's line the patch removes was
edited since. The patch, written against the old file, carries one model-shaped mistake
(context invented on one side or both, a context line skipped, the hunk's section text, no
context at all with an ``index`` line). Whatever the mistake, the result is what
``git merge-file`` gives for the current file, the old one and the old one patched, or a
refusal: never an edit of the look-alike. On the old file itself (nothing moved on, no
look-alike) the same mistakes still apply, as the edit meant.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from repos.builders import git_env

from holon_git.core.change import SourceFile
from holon_git.core.plan.plan import plan_patch
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

PATH = "src/mod.py"
NAMES = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]
MISTAKES = ["exact", "invent leading", "invent trailing", "invent both", "skip leading",
            "skip trailing", "section", "zero context"]
INVENTED = ["    unrelated_call(widget, gadget)", "    another_value = compute(thing, other)",
            "    return finalize(result, options)"]


def statement(name: str, k: int) -> str:
    return f"    {name}_{k} = combine({name}_{k - 1}, value_{k})"


@st.composite
def scenario(draw: st.DrawFn) -> tuple[list[str], int, int, int]:
    """(the old file's lines, the target's first body line, how many body lines, the body
    line the patch replaces): functions with distinct bodies, and after the target a
    look-alike, whose body holds the target's line that the patch replaces."""
    names = draw(st.lists(st.sampled_from(NAMES), min_size=3, max_size=4, unique=True))
    size = draw(st.integers(7, 9))
    target = draw(st.integers(0, len(names) - 2))
    changed = draw(st.integers(3, size - 3))
    lines: list[str] = []
    first = 0
    for number, name in enumerate(names):
        lines.append(f"def {name}(value_0):")
        body = [statement(names[target] if number == target + 1 and k == changed + 1
                          else name, k) for k in range(1, size + 1)]
        if number == target:
            first = len(lines)
        lines += [*body, f"    return {name}_{size}", "", ""]
    return lines, first, size, changed


def text(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


def patch_with(old: list[str], first: int, changed: int, new_line: str, mistake: str,
               blob: str) -> bytes:
    """The patch replacing old line ``first + changed`` with ``new_line``, three lines of
    context, with ``mistake``."""
    at = first + changed
    lead, tail = old[at - 3 : at], old[at + 1 : at + 4]
    section = ""
    if mistake == "invent leading":
        lead = INVENTED
    elif mistake == "invent trailing":
        tail = INVENTED
    elif mistake == "invent both":
        lead, tail = INVENTED, [line.replace("    ", "        ") for line in INVENTED]
    elif mistake == "skip leading":
        lead = [lead[0], lead[2]]
    elif mistake == "skip trailing":
        tail = [tail[0], tail[2]]
    elif mistake == "section":
        lead, tail = INVENTED, list(reversed(INVENTED))
        section = " " + old[first - 1]
    header = f"diff --git a/{PATH} b/{PATH}\n"
    if mistake == "zero context":
        header += f"index {blob[:7]}..1234567 100644\n"
        lead, tail = [], []
    body = [*(" " + line for line in lead), "-" + old[at], "+" + new_line,
            *(" " + line for line in tail)]
    counts = f"-{at + 1 - len(lead)},{len(lead) + 1 + len(tail)} " \
             f"+{at + 1 - len(lead)},{len(lead) + 1 + len(tail)}"
    return (header + f"--- a/{PATH}\n+++ b/{PATH}\n@@ {counts} @@{section}\n"
            + "".join(line + "\n" for line in body)).encode()


def blob_id(data: bytes) -> str:
    return subprocess.run(["git", "hash-object", "--stdin"], input=data, capture_output=True,
                          check=True, env=git_env()).stdout.decode().strip()


def merge_file(tmp: Path, ours: bytes, base: bytes, theirs: bytes) -> bytes | None:
    """git merge-file -p ours base theirs: the merged text, or None on a conflict."""
    for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
        (tmp / name).write_bytes(data)
    done = subprocess.run(["git", "merge-file", "-p", "ours", "base", "theirs"], cwd=tmp,
                          capture_output=True, check=False, env=git_env())
    return done.stdout if done.returncode == 0 else None


def planned(patch: bytes, content: bytes) -> bytes | None:
    """The file after the patch, planned on ``content`` (no other version: the last rungs
    decide); None when refused."""
    try:
        plan = plan_patch(parse_patch(patch), {PATH: SourceFile(content)}.get)
    except PatchError:
        return None
    (change,) = plan.changes
    return change.after


@settings(max_examples=25, deadline=None)
@given(scenario(), st.sampled_from(MISTAKES), st.data())
def test_a_stale_patch_never_edits_the_look_alike(tmp_path_factory, case, mistake, data):
    old, first, size, changed = case
    at = first + changed
    name = old[first - 1][4 : old[first - 1].index("(")]
    new_line = old[at].replace("combine(", "merge_values(")
    current = list(old)
    # the file moved on: the target's line the patch removes was edited since
    current[at] = old[at].replace(f"{name}_", f"{name}_v2_", 1)
    patch = patch_with(old, first, changed, new_line, mistake, blob_id(text(old)))
    result = planned(patch, text(current))
    meant = list(old)
    meant[at] = new_line
    merged = merge_file(tmp_path_factory.mktemp("m"), text(current), text(old), text(meant))
    look_alike = first + size + 4 + changed
    assert result is None or result == merged, (mistake, patch.decode())
    if result is not None:
        assert result.splitlines()[look_alike] == text(current).splitlines()[look_alike]


@settings(max_examples=25, deadline=None)
@given(scenario(), st.sampled_from(MISTAKES))
def test_the_same_mistakes_on_a_fresh_file_still_apply(case, mistake):
    old, first, size, changed = case
    at = first + changed
    # no look-alike: the target's removed line is the only one of its kind
    fresh = [line for j, line in enumerate(old) if not first + size + 3 <= j]
    new_line = old[at].replace("combine(", "merge_values(")
    patch = patch_with(fresh, first, changed, new_line, mistake, blob_id(text(fresh)))
    meant = list(fresh)
    meant[at] = new_line
    assert planned(patch, text(fresh)) == text(meant), (mistake, patch.decode())


IMPORTS = "import select\nimport socket\nimport threading\n\n\ndef serve():\n    pass\n"


def insertion(start: int) -> bytes:
    """An import inserted before 'import threading', its leading context invented: what is
    left (one short line and blank lines) is too little to say where it is on its own."""
    return (f"--- a/{PATH}\n+++ b/{PATH}\n@@ -{start},5 +{start},6 @@\n timeout=timeout,\n"
            " verify=verify,\n+import ssl\n import threading\n \n \n").encode()


def test_too_little_to_go_on_goes_by_a_number_that_points_there():
    """The judge weighs the header's number: exactly where the rest of the hunk is, it
    places the hunk (a -U0 insertion goes by its number the same way); elsewhere, what is
    left is too little and the hunk is refused."""
    assert planned(insertion(1), IMPORTS.encode()) == IMPORTS.replace(
        "import threading", "import ssl\nimport threading").encode()
    assert planned(insertion(3), IMPORTS.encode()) is None


def test_an_index_line_naming_another_version_refuses_a_U0_hunk_unless_told(tmp_path):
    """Issue 36: a -U0 hunk whose index line names another blob than the file's goes by
    numbers read off another version: refused, the file untouched; --unidiff-zero given
    explicitly trusts the numbers, as git apply --unidiff-zero does."""
    from gitsupport import applied, refused
    from repos.builders import make_repo

    text = "import os\nimport sys\n\n\ndef main():\n    return 0\n"
    repo = make_repo(tmp_path / "r", {"m.py": text})
    patch = ("diff --git a/m.py b/m.py\nindex 1234567..89abcde 100644\n--- a/m.py\n"
             "+++ b/m.py\n@@ -1,0 +2 @@\n+import re\n")
    err = refused(repo, patch, "context_not_found")
    assert "index line names another version" in err.message
    applied(repo, patch, unidiff_zero=True)
    assert (repo / "m.py").read_text() == text.replace("import os\n", "import os\nimport re\n")


# -- each rule, on its own --------------------------------------------------------------------

LOADERS = """class TextLoader:
    def load(self, path):
        if not path:
            return None
        handle = open_text(path, mode="rt")
        return handle.read_text(encoding)


class SafeLoader:
    def load(self, path):
        if not path:
            return None
        handle = open_safe(path)
        return handle.read_text(encoding)


def helper():
    pass
"""


def hunk_patch(header: str, body: str) -> bytes:
    return (f"--- a/{PATH}\n+++ b/{PATH}\n{header}\n{body}").encode()


def refusal_of(patch: bytes, content: str) -> PatchError:
    try:
        plan_patch(parse_patch(patch), {PATH: SourceFile(content.encode())}.get)
    except PatchError as err:
        return err
    raise AssertionError("applied")


def test_a_line_skipped_next_to_the_change_is_a_conflict():
    """The file gained a line between the context and the change (or the model skipped
    it): with no context line between it and the change, git merge-file conflicts."""
    text = "import os\nimport sys\nimport json\n\n\ndef main():\n    return 0\n"
    adjacent = hunk_patch("@@ -1,4 +1,4 @@", " import os\n-import sys\n+import re\n \n \n")
    err = refusal_of(adjacent, text)
    assert "right next to its changed line" in err.message
    far = hunk_patch("@@ -2,5 +2,5 @@", " import sys\n-import json\n+import re\n \n"
                     " def main():\n     return 0\n")  # skips the second blank line
    assert planned(far, text.encode()) == text.replace("import json", "import re").encode()


def test_the_section_text_names_the_scope():
    """The removed lines were rewritten in TextLoader.load; SafeLoader.load has a copy of
    them, but the header names TextLoader: refused, naming it."""
    stale = LOADERS.replace('        handle = open_text(path, mode="rt")\n'
                            "        return handle.read_text(encoding)\n",
                            "        return read_everything(path)\n")
    patch = hunk_patch("@@ -3,6 +3,6 @@ class TextLoader:",
                       "     invented_one(a, b)\n     invented_two(c, d)\n"
                       '-        handle = open_text(path, mode="rt")\n'
                       "-        return handle.read_text(encoding)\n"
                       "+        return handle.read_text(encoding, errors)\n"
                       "     invented_three(e, f)\n     invented_four(g, h)\n")
    stale = stale.replace("open_safe(path)", 'open_text(path, mode="rt")')
    err = refusal_of(patch, stale)
    assert "its header names 'class TextLoader:'" in err.message


def test_left_out_context_found_elsewhere_names_both_places():
    """The leading context is TextLoader's, still in the file; the removed line, rewritten
    there since, fits SafeLoader: the left-out line points at another place."""
    stale = LOADERS.replace("        return handle.read_text(encoding)\n",
                            "        return handle.read_all()\n", 1)
    patch = hunk_patch("@@ -5,4 +5,4 @@",
                       '         handle = open_text(path, mode="rt")\n'
                       "-        return handle.read_text(encoding)\n"
                       "+        return handle.read_text(encoding, errors)\n"
                       " \n \n class SafeLoader:\n")
    err = refusal_of(patch, stale)
    assert "lines 5-5 of the file, not next to line 14" in err.message  # both places
    assert "re-read lines 2-8" in err.message


def test_a_side_of_blank_lines_is_no_invented_context():
    """Blank lines are in every file: a side of them where the file has other lines is not
    context written from memory but the file changed beside the edit (here: the patch's
    deletion made already, at its place, and another copy of the line further down)."""
    text = "\n" * 3 + "}\n" + "\n" * 14 + "}\n}\n    return None\n}\n" + "\n" * 4
    patch = hunk_patch("@@ -1,7 +1,6 @@", " \n \n \n \n-    return None\n }\n \n \n")
    err = refusal_of(patch, text)
    assert "its leading context is blank lines only, and the file has '}', '}' there" \
        in err.message
    fresh = "\n" * 4 + "    return None\n}\n" + "\n" * 4 + "}\n"
    assert planned(patch, fresh.encode()) == fresh.replace("    return None\n", "").encode()
