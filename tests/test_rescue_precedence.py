"""The three-way rescue against a loose match, and re-sends after a rescue, on real
repositories (audit findings 00 and 07).

A stale-base patch whose old side the current text holds only at the `whitespace` level, at a
look-alike block, is decided by the version where it matches exactly (merged, or refused
merge_conflict), never placed on the look-alike, nor on the very lines the agent re-indented
when the merge conflicts there; an indentation_mismatch is rescued by a clean merge. A patch
the rescue merged, sent again, is already_applied even when its merge would conflict."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gitsupport import applied, everything, forget_resend_records, refused
from repos.builders import git, git_env, make_repo

OUTER = ("def outer(xs):\n    for x in xs:\n        if x:\n            process(x)\n"
         "            log(x)\n            done()\n    return xs\n\n\n"
         "if DEBUG:\n    process(x)\n    log(x)\n    done()\n")
LOG_PATCH = ("--- a/m.py\n+++ b/m.py\n@@ -4,3 +4,3 @@ def outer(xs):\n             process(x)\n"
             "-            log(x)\n+            log(x, level=2)\n             done()\n")


def merge_file(tmp: Path, ours: str, base: str, theirs: str) -> int:
    for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
        (tmp / name).write_text(text)
    return subprocess.run(["git", "merge-file", "-p", "ours", "base", "theirs"], cwd=tmp,
                          capture_output=True, env=git_env()).returncode


@pytest.mark.parametrize("with_index_line", [False, True])
def test_a_stale_patch_is_not_placed_on_a_look_alike_block(tmp_path: Path,
                                                            with_index_line: bool) -> None:
    """The agent's own uncommitted edit (process -> handle) is beside the patch's line; the
    patch's old side is found, indentation ignored, only in the DEBUG block. HEAD holds it
    exactly, and git merge-file conflicts on the three texts: merge_conflict."""
    repo = make_repo(tmp_path / "r", {"m.py": OUTER})
    current = OUTER.replace("            process(x)", "            handle(x)")
    (repo / "m.py").write_text(current)
    patch = LOG_PATCH
    blob = git(repo, "rev-parse", "HEAD:m.py").strip()
    if with_index_line:
        patch = f"diff --git a/m.py b/m.py\nindex {blob[:7]}..1234567 100644\n" + patch
    err = refused(repo, patch, "merge_conflict")
    assert err.details["base"] == ("patch index line " + blob[:7] if with_index_line
                                   else "index")
    assert [row["line"] for row in err.details["region"]][:1] == [2]  # outer(), not DEBUG
    theirs = OUTER.replace("            log(x)", "            log(x, level=2)")
    assert merge_file(tmp_path, current, OUTER, theirs) == 1  # git conflicts too
    # without the rescue there is no other version to ask, and the loose match is not all
    # there is: the line number points at outer(), whose lines are the patch's but for the
    # agent's edit (issue 43: the loose levels pass the one judge)
    err = refused(repo, patch, "context_not_found", three_way=False)
    assert err.details["evidence"]["lines"] == [4, 11]


def test_a_clean_merge_beats_the_loose_match(tmp_path: Path) -> None:
    """The agent's edit is two lines above the patch's change: the merge is clean and edits
    outer(), where HEAD says the patch goes; the look-alike block stays as it was."""
    text = OUTER.replace("        if x:\n", "        if x:\n            start(x)\n            "
                         "step(x)\n").replace("if DEBUG:\n", "if DEBUG:\n    start(x)\n    "
                                              "step(x)\n")
    repo = make_repo(tmp_path / "r", {"m.py": text})
    (repo / "m.py").write_text(text.replace("            start(x)", "            begin(x)"))
    patch = ("--- a/m.py\n+++ b/m.py\n@@ -4,5 +4,5 @@ def outer(xs):\n             start(x)\n"
             "             step(x)\n             process(x)\n-            log(x)\n"
             "+            log(x, level=2)\n             done()\n")
    receipt = applied(repo, patch)
    (change,) = receipt.files
    assert change.three_way is not None and change.three_way["base"] == "index"
    assert change.hunks[0].tolerances == ["three_way"]
    # the judge refused the look-alike (the number points at outer()), and the rescue merged
    assert "merged from index" in change.diagnostics[-1].message
    assert (repo / "m.py").read_text() == text.replace(
        "            start(x)", "            begin(x)").replace(
        "            log(x)", "            log(x, level=2)")


def test_a_patch_on_the_lines_the_agent_reindented_is_a_conflict(tmp_path: Path) -> None:
    """The agent wrapped the loop in a `with` block (uncommitted): every line of the hunk
    moved four spaces right. HEAD matches exactly and git merge-file conflicts over those very
    lines: refused merge_conflict, although the current text holds the old side re-indented.
    Without the rescue the loose match is all there is, and it applies re-indented."""
    text = "def f(xs):\n    for x in xs:\n        a(x)\n        b(x)\n    return xs\n"
    repo = make_repo(tmp_path / "r", {"m.py": text})
    wrapped = ("def f(xs):\n    with lock:\n        for x in xs:\n            a(x)\n"
               "            b(x)\n    return xs\n")
    (repo / "m.py").write_text(wrapped)
    patch = ("--- a/m.py\n+++ b/m.py\n@@ -2,3 +2,4 @@ def f(xs):\n     for x in xs:\n"
             "         a(x)\n+        c(x)\n         b(x)\n")
    theirs = text.replace("        b(x)", "        c(x)\n        b(x)")
    assert merge_file(tmp_path, wrapped, text, theirs) == 1  # git conflicts too
    err = refused(repo, patch, "merge_conflict")
    assert err.details["base"] == "index"
    receipt = applied(repo, patch, three_way=False)
    assert receipt.files[0].hunks[0].tolerances == ["whitespace", "reindented"]
    assert (repo / "m.py").read_text() == wrapped.replace("            b(x)",
                                                          "            c(x)\n            b(x)")


def test_an_indentation_mismatch_is_rescued_by_a_clean_merge(tmp_path: Path) -> None:
    """The agent wrapped the lines above the change in a `with` block: the hunk's old side
    matches the current text only with whitespace ignored, and its lines moved by different
    amounts (no one mapping). HEAD holds it exactly and the merge is clean: merged, as git
    merge-file merges it."""
    text = ("def f(xs):\n    a = 1\n    b = 2\n    c = 3\n\n    d = 4\n    e = 5\n"
            "    return xs\n")
    repo = make_repo(tmp_path / "r", {"m.py": text})
    wrapped = text.replace("    a = 1\n    b = 2\n    c = 3\n",
                           "    with lock:\n        a = 1\n        b = 2\n        c = 3\n")
    (repo / "m.py").write_text(wrapped)
    patch = ("--- a/m.py\n+++ b/m.py\n@@ -3,5 +3,5 @@ def f(xs):\n     b = 2\n     c = 3\n"
             " \n     d = 4\n-    e = 5\n+    e = 6\n     return xs\n")
    theirs = text.replace("    e = 5", "    e = 6")
    assert merge_file(tmp_path, wrapped, text, theirs) == 0
    err = refused(repo, patch, "indentation_mismatch", three_way=False)
    assert err.details["region"]
    assert (repo / "m.py").read_text() == wrapped
    receipt = applied(repo, patch)
    (change,) = receipt.files
    assert change.three_way is not None and change.three_way["base"] == "index"
    assert (repo / "m.py").read_text() == wrapped.replace("    e = 5", "    e = 6")


def test_line_endings_and_trailing_blanks_keep_their_match(tmp_path: Path) -> None:
    """A CRLF working tree over LF blobs (uncommitted), and trailing blanks an editor added:
    the two levels that never make different code look alike. Every line of the versions
    differs, a merge would conflict everywhere; the patch applies to the current text."""
    repo = make_repo(tmp_path / "r", {"f.txt": "a\nb\nc\n", "g.txt": "a\nb\nc\n"})
    (repo / "f.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    (repo / "g.txt").write_text("a  \nb\t\nc \n")
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
             "--- a/g.txt\n+++ b/g.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
    receipt = applied(repo, patch)
    assert [c.three_way for c in receipt.files] == [None, None]
    assert (repo / "f.txt").read_bytes() == b"a\r\nB\r\nc\r\n"
    assert (repo / "g.txt").read_text() == "a  \nB\nc \n"


# -- re-sends after a three-way apply (finding 07) --------------------------------------------

def test_a_resent_series_over_a_file_without_final_newline_is_already_applied(
        tmp_path: Path) -> None:
    """format-patch mails 1 (b -> B) and 2 (append d) of a file without a final newline.
    Sent again, mail 1 merges with a conflict next to mail 2's change (git merge-file
    conflicts on neighbouring changes), but the whole series, reversed, applies: it is in."""
    repo = make_repo(tmp_path / "r", {"f": "a\nb\nc"})
    (repo / "f").write_text("a\nB\nc")
    git(repo, "commit", "-qam", "1")
    (repo / "f").write_text("a\nB\nc\nd")
    git(repo, "commit", "-qam", "2")
    series = git(repo, "format-patch", "-q", "--stdout", "HEAD~2")
    git(repo, "reset", "-q", "--hard", "HEAD~2")
    applied(repo, series)
    assert (repo / "f").read_text() == "a\nB\nc\nd"
    forget_resend_records(repo)
    state = everything(repo)
    err = refused(repo, series, "already_applied")
    assert "reversed, applies" in err.message
    assert everything(repo) == state


P = "config = 1\n}\n}\nrun()\nsetup()\nsetup()\n}\n"
H1 = P.replace("run()\nsetup()\n", "fast_0()\nfast_1()\n")  # the agent's uncommitted edit
STALE = "--- a/f.py\n+++ b/f.py\n@@ -4,4 +4,4 @@\n run()\n setup()\n setup()\n-}\n+finish()\n"


def test_a_resent_merged_patch_whose_merge_now_conflicts_is_already_applied(
        tmp_path: Path) -> None:
    """The first send merges cleanly; sent again, git merge-file on (current, HEAD,
    HEAD + patch) conflicts, the agent's lines and the patch's being neighbours. Undone by a
    merge the change comes out cleanly, and done again gives the current text: it is in."""
    repo = make_repo(tmp_path / "r", {"f.py": P})
    (repo / "f.py").write_text(H1)
    receipt = applied(repo, STALE)
    assert receipt.files[0].three_way is not None
    merged = H1.replace("setup()\n}\n", "setup()\nfinish()\n")
    assert (repo / "f.py").read_text() == merged
    assert merge_file(tmp_path, merged, P, P.replace("setup()\n}\n", "setup()\nfinish()\n")) == 1
    forget_resend_records(repo)
    state = everything(repo)
    err = refused(repo, STALE, "already_applied")
    assert "holds its change already" in err.message
    assert everything(repo) == state


# A hunk placed by its context away from a file edge it claims by git's rules (it starts at
# line 1 with context: match_beginning; it has context and none after its changes:
# match_end) is weak evidence too: when the agent's uncommitted edit added lines at that
# edge, the version where the hunk sits at its edge decides (audit findings R4, R4b, R5).
MAKEFILE = "CC=cc\n\nall:\n\t$(CC) -o app main.c\n"
MAKE_PATCH = ("diff --git a/Makefile b/Makefile\n--- a/Makefile\n+++ b/Makefile\n"
              "@@ -2,3 +2,6 @@ CC=cc\n \n all:\n \t$(CC) -o app main.c\n+\n+clean:\n"
              "+\trm -f app\n")
MAKE_USER = "\t$(CC) -o tool tool.c\n"  # the agent's uncommitted append to the last recipe
TOOL = "import os\nimport sys\n\nprint(os.getcwd())\n"
SHEBANG_PATCH = ("diff --git a/tool.py b/tool.py\n--- a/tool.py\n+++ b/tool.py\n"
                 "@@ -1,3 +1,4 @@\n+#!/usr/bin/env python3\n import os\n import sys\n \n")
TOOL_USER = '"""Tool."""\n'  # the agent's uncommitted docstring at the top
CFG = '[tool]\nname = "x"\n'
CFG_PATCH = ("diff --git a/cfg.toml b/cfg.toml\n--- a/cfg.toml\n+++ b/cfg.toml\n"
             '@@ -1,2 +1,4 @@\n+# generated\n [tool]\n name = "x"\n+version = "1"\n')
CFG_USER = 'version = "1"\n'  # half of the patch's change, already made (uncommitted)


def merged_by_git(tmp: Path, ours: str, base: str, theirs: str) -> tuple[int, str]:
    for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
        (tmp / name).write_text(text)
    done = subprocess.run(["git", "merge-file", "-p", "ours", "base", "theirs"], cwd=tmp,
                          capture_output=True, text=True, env=git_env())
    return done.returncode, done.stdout


def test_a_stale_append_at_the_end_is_not_placed_before_the_agents_line(
        tmp_path: Path) -> None:
    """R4: the patch appends a target (no trailing context: it claims the end); the agent
    appended a recipe line. The context is found above that line, off the end; HEAD holds it
    at the end, and git merge-file conflicts: merge_conflict, nothing changed."""
    repo = make_repo(tmp_path / "r", {"Makefile": MAKEFILE})
    (repo / "Makefile").write_text(MAKEFILE + MAKE_USER)
    theirs = MAKEFILE + "\nclean:\n\trm -f app\n"
    assert merged_by_git(tmp_path, MAKEFILE + MAKE_USER, MAKEFILE, theirs)[0] > 0
    err = refused(repo, MAKE_PATCH, "merge_conflict")
    assert err.details["base"] == "index"
    assert (repo / "Makefile").read_text() == MAKEFILE + MAKE_USER


def test_a_stale_insert_at_the_top_is_not_placed_on_line_two(tmp_path: Path) -> None:
    """R4b: the patch inserts a shebang at line 1 (it claims the start); the agent put a
    docstring on top. HEAD holds the context at the start, and git conflicts too."""
    repo = make_repo(tmp_path / "r", {"tool.py": TOOL})
    (repo / "tool.py").write_text(TOOL_USER + TOOL)
    theirs = "#!/usr/bin/env python3\n" + TOOL
    assert merged_by_git(tmp_path, TOOL_USER + TOOL, TOOL, theirs)[0] > 0
    refused(repo, SHEBANG_PATCH, "merge_conflict")
    assert (repo / "tool.py").read_text() == TOOL_USER + TOOL


def test_a_partly_applied_stale_hunk_is_merged_not_doubled(tmp_path: Path) -> None:
    """R5: the hunk claims both edges; the agent already appended one of its two added
    lines. The merge from HEAD is clean and equals git merge-file's: the line once."""
    repo = make_repo(tmp_path / "r", {"cfg.toml": CFG})
    (repo / "cfg.toml").write_text(CFG + CFG_USER)
    theirs = "# generated\n" + CFG + CFG_USER
    code, expected = merged_by_git(tmp_path, CFG + CFG_USER, CFG, theirs)
    assert code == 0
    receipt = applied(repo, CFG_PATCH)
    (change,) = receipt.files
    assert change.three_way is not None and change.three_way["base"] == "index"
    assert change.hunks[0].tolerances == ["three_way"]
    assert "start or end" in change.diagnostics[-1].message
    assert (repo / "cfg.toml").read_text() == expected == theirs


@pytest.mark.parametrize(("name", "text", "patch", "after"), [
    ("Makefile", MAKEFILE, MAKE_PATCH, MAKEFILE + "\nclean:\n\trm -f app\n"),
    ("tool.py", TOOL, SHEBANG_PATCH, "#!/usr/bin/env python3\n" + TOOL),
    ("cfg.toml", CFG, CFG_PATCH, "# generated\n" + CFG + CFG_USER),
])
def test_edge_hunks_on_a_clean_file_apply_as_before(tmp_path: Path, name: str, text: str,
                                                    patch: str, after: str) -> None:
    """The same patches on a clean file (working tree == index == HEAD) apply exactly, with
    no rescue; and with the lines at the edge committed (a first send whose hunk is off the
    edge it claims), no other version exists, so the context placement stands as before."""
    repo = make_repo(tmp_path / "r", {name: text})
    receipt = applied(repo, patch)
    assert receipt.files[0].three_way is None
    assert receipt.files[0].hunks[0].tolerances == []
    assert (repo / name).read_text() == after
    extra = {"Makefile": MAKE_USER, "tool.py": TOOL_USER, "cfg.toml": "[more]\n"}[name]
    moved = text + extra if name != "tool.py" else extra + text
    clean = make_repo(tmp_path / "clean", {name: moved})
    receipt = applied(clean, patch)
    assert receipt.files[0].three_way is None
    assert receipt.files[0].hunks[0].tolerances == []
    placed = applied(make_repo(tmp_path / "off", {name: moved}), patch, three_way=False)
    assert (clean / name).read_text() == (tmp_path / "off" / name).read_text()
    assert placed.files[0].hunks[0].applied_line == receipt.files[0].hunks[0].applied_line
