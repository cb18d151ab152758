"""The three-way rescue on real repositories: a patch written against HEAD (or the patch's
index blob, or a version this tool recorded) lands on a file the agent edited since, exactly as
`git merge-file` merges the three texts; a conflict is refused with nothing changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import applied, everything, refused
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from repos.builders import git, git_env, make_repo, snapshot
from strategies import apply_edits, difflib_patch, edits, file_lines, join
from test_resend_properties import periodic

from holon_git import apply_patch
from holon_git.git import history
from holon_git.provider.results import format_result

P = "".join(f"line {i}\n" for i in range(1, 21))
H1 = P.replace("line 5\n", "line five\n")  # the agent's own uncommitted edit
H2 = P.replace("line 7\n", "line seven\n")  # the next patch, written against HEAD (P)
MERGED = H1.replace("line 7\n", "line seven\n")
PATCH = ("--- a/f.txt\n+++ b/f.txt\n@@ -4,7 +4,7 @@\n line 4\n line 5\n line 6\n-line 7\n"
         "+line seven\n line 8\n line 9\n line 10\n")


def stale_repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "r", {"f.txt": P})
    (repo / "f.txt").write_text(H1)
    return repo


def test_a_patch_written_against_head_lands_after_an_uncommitted_edit(tmp_path: Path):
    repo = stale_repo(tmp_path)
    receipt = apply_patch(PATCH, repo)
    assert receipt.ok, receipt.error
    assert (repo / "f.txt").read_text() == MERGED
    (change,) = receipt.files
    # the index is tried before HEAD (both hold P here)
    assert change.three_way is not None and change.three_way["base"] == "index"
    assert receipt.to_dict()["files"][0]["three_way"]["base"] == "index"
    assert change.hunks[0].tolerances == ["three_way"]
    assert "merged" in format_result(receipt)
    state = everything(repo)  # re-sent after it was merged: already applied
    refused(repo, PATCH, "already_applied")
    assert everything(repo) == state


def test_no_3way_refuses_instead(tmp_path: Path):
    """Without the rescue the hunk is not placed: the agent's edit changed the line next to
    the patch's change, which the ladder's last rungs (core/place/salvage/) read as a changed
    neighbour."""
    repo = make_repo(tmp_path / "r", {"f.txt": P})
    (repo / "f.txt").write_text(P.replace("line 6\n", "line 6 edited\n"))
    err = refused(repo, PATCH, "context_not_found", three_way=False)
    assert "edited" in err.details["salvage"]["note"]
    done = holon(repo, "--no-3way", "-", stdin=PATCH)
    assert done.returncode == 1 and "context_not_found" in done.stderr
    assert apply_patch(PATCH, repo, check=True).error.code == "merge_conflict"


def test_a_conflict_is_refused_showing_the_current_region_and_the_patch(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": P})
    (repo / "f.txt").write_text(P.replace("line 6\n", "line six\n"))
    patch = PATCH.replace(" line 6\n-line 7\n+line seven\n", "-line 6\n-line 7\n+line 6-7\n")
    patch = patch.replace("+4,7", "+4,6")
    err = refused(repo, patch, "merge_conflict")
    assert err.details["base"] == "index"
    texts = [row["text"] for row in err.details["region"]]
    assert "line six" in texts and "line 7" in texts  # the current text, as on disk
    assert err.details["patch_lines"] == ["line 6-7"]
    assert b"<<<<<<<" not in (repo / "f.txt").read_bytes()
    shown = format_result(apply_patch(patch, repo))
    assert "line six" in shown and "|line 6-7" in shown


# A file the agent edited since HEAD, next to the line a patch written against HEAD removes,
# where that line has an equal neighbour: the agent deleted a function and one of the blank
# lines after it; the patch deletes the other blank line (or, in the second file, one of two
# closing lines). The current text could be read as holding the patch's change (a line fewer
# there), but it does not: git merge-file calls it a conflict, and so must the rescue, not
# already_applied (an agent told "already applied" moves on without its edit).
SLID = {
    "blank": ("def first():\n    return 1\n\n\ndef second():\n    return 2\n\n\n"
              "def third():\n    return 3\n", 5, 7, 8),
    "repeated": ("if a:\n    if b:\n        go()\n    end\nend\nif c:\n    stop()\n"
                 "end\nend\nlast()\n", 6, 8, 9),
}


@pytest.mark.parametrize("name", SLID)
def test_a_line_like_its_neighbour_removed_next_to_the_agents_edit_conflicts(tmp_path: Path,
                                                                             name: str):
    head, first, last, removed = SLID[name]
    lines = head.splitlines(keepends=True)
    current = "".join(lines[:first - 1] + lines[last:])  # the agent's edit: lines first..last
    theirs = "".join(lines[:removed - 1] + lines[removed:])  # the patch's: line `removed`
    repo = make_repo(tmp_path / "r", {"f.txt": head})
    (repo / "f.txt").write_text(current)
    patch = difflib_patch("f.txt", head.encode(), theirs.encode())
    for side in (tmp_path / "base", tmp_path / "ours", tmp_path / "theirs"):
        side.write_text({"base": head, "ours": current, "theirs": theirs}[side.name])
    judged = subprocess.run(["git", "merge-file", "-p", str(tmp_path / "ours"),
                             str(tmp_path / "base"), str(tmp_path / "theirs")],
                            capture_output=True, env=git_env())
    assert judged.returncode > 0  # git merge-file: a conflict
    state = everything(repo)
    refused(repo, patch, "merge_conflict")
    assert everything(repo) == state


# Three versions of a function: HEAD; the agent's first step (an import changed); its second
# (two imports and a blank line dropped), the current text. The third step is written against
# the first step's result and replaces the body. Merged from HEAD it is clean (git merge-file
# reads the dropped lines as the ones before the blank line); merged from the version it was
# written against, the drop touches the body: a conflict.
V0 = ('def f(root):\n    """Doc."""\n    import os\n\n    from .a import x\n'
      '    from .b import y\n\n    value = x(root)\n    try:\n        return y(value)\n'
      '    except KeyError:\n        return None\n')
V1 = V0.replace("    import os\n", "    from .c import z\n")
V2 = V1.replace("    from .a import x\n    from .b import y\n\n", "")
BODY = ("    value = x(root)\n    try:\n        return y(value)\n    except KeyError:\n"
        "        return None\n")


@pytest.mark.parametrize("recorded", [True, False], ids=["steps-recorded", "steps-by-hand"])
def test_versions_that_take_the_patch_must_merge_alike(tmp_path: Path, recorded: bool):
    """Which version a patch without an index line was written against, it does not say:
    when two known versions take it and the merges from them disagree, it is refused; with
    only HEAD known (the agent's steps made by hand, not recorded), HEAD's clean merge is
    taken, as git merge-file from HEAD gives it."""
    repo = make_repo(tmp_path / "r", {"f.py": V0})
    for old, new in ((V0, V1), (V1, V2)):
        if recorded:
            applied(repo, difflib_patch("f.py", old.encode(), new.encode()).decode())
        else:
            (repo / "f.py").write_text(new)
    third = difflib_patch("f.py", V1.encode(), V1.replace(BODY, "    return z(root)\n").encode())
    sides = {}
    for base in ("V0", "V1"):
        version = {"V0": V0, "V1": V1}[base]
        for name, text in (("base", version), ("ours", V2),
                           ("theirs", version.replace(BODY, "    return z(root)\n"))):
            (tmp_path / name).write_text(text)
        sides[base] = subprocess.run(
            ["git", "merge-file", "-p", str(tmp_path / "ours"), str(tmp_path / "base"),
             str(tmp_path / "theirs")], capture_output=True, text=True, env=git_env())
    assert sides["V0"].returncode == 0 and sides["V1"].returncode > 0  # as said above
    if recorded:
        state = everything(repo)
        err = refused(repo, third.decode(), "merge_conflict")
        assert err.details["other_base"] == "index"
        assert everything(repo) == state
    else:
        applied(repo, third.decode())
        assert (repo / "f.py").read_text() == sides["V0"].stdout


def test_check_writes_no_object(tmp_path: Path):
    repo = stale_repo(tmp_path)
    objects = sorted((repo / ".git" / "objects").rglob("*"))
    receipt = apply_patch(PATCH, repo, check=True)
    assert receipt.ok and receipt.files[0].three_way is not None
    assert sorted((repo / ".git" / "objects").rglob("*")) == objects
    assert not (repo / ".git" / history.LOG_NAME).exists()
    assert (repo / "f.txt").read_text() == H1


def test_the_patch_index_line_names_the_base(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": P})
    base = git(repo, "rev-parse", "HEAD:f.txt").strip()
    (repo / "f.txt").write_text(H1)
    git(repo, "commit", "-qam", "h1")  # HEAD and the index now hold P + h1 too
    patch = f"diff --git a/f.txt b/f.txt\nindex {base[:9]}..1234567 100644\n" + PATCH
    receipt = apply_patch(patch, repo)
    assert receipt.ok, receipt.error
    assert receipt.files[0].three_way == {"base": f"patch index line {base[:9]}",
                                          "blob": base}
    assert (repo / "f.txt").read_text() == MERGED


def test_a_pre_image_this_tool_recorded_is_a_base(tmp_path: Path):
    """HEAD has P0; the agent's first patch made P (recorded: P0), its second P + h1
    (recorded: P); its third, written against P, merges from the history log."""
    p0 = P.replace("line 6\n", "line SIX\n")  # where the third patch's context is
    repo = make_repo(tmp_path / "r", {"f.txt": p0})
    first = ("--- a/f.txt\n+++ b/f.txt\n@@ -5,3 +5,3 @@\n line 5\n-line SIX\n+line 6\n"
             " line 7\n")
    second = ("--- a/f.txt\n+++ b/f.txt\n@@ -3,5 +3,5 @@\n line 3\n line 4\n-line 5\n"
              "+line five\n line 6\n line 7\n")
    assert apply_patch(first, repo).ok and apply_patch(second, repo).ok
    assert (repo / "f.txt").read_text() == H1
    logged = history.read(str(repo / ".git"))
    assert [e.path for e in logged] == ["f.txt", "f.txt"]
    receipt = apply_patch(PATCH, repo)
    assert receipt.ok, receipt.error
    assert receipt.files[0].three_way["base"].startswith(f"blob {logged[-1].blob} recorded ")
    assert (repo / "f.txt").read_text() == MERGED


def test_commit_rescues_from_the_patch_index_line(tmp_path: Path):
    """--commit needs the index to match HEAD at the path: the base is the patch's blob."""
    repo = make_repo(tmp_path / "r", {"f.txt": P})
    base = git(repo, "rev-parse", "HEAD:f.txt").strip()
    (repo / "f.txt").write_text(H1)
    git(repo, "commit", "-qam", "h1")
    patch = f"diff --git a/f.txt b/f.txt\nindex {base}..1234567 100644\n" + PATCH
    receipt = apply_patch(patch, repo, commit=True, message="h2")
    assert receipt.ok, receipt.error
    assert git(repo, "show", "HEAD:f.txt") == MERGED == (repo / "f.txt").read_text()


@pytest.mark.parametrize("target", ["cached", "index", "ref"])
def test_every_git_target_rescues_from_head(tmp_path: Path, target: str):
    repo = make_repo(tmp_path / "r", {"f.txt": P})
    git(repo, "branch", "side")
    if target == "ref":
        git(repo, "checkout", "-q", "side")
        (repo / "f.txt").write_text(H1)
        git(repo, "commit", "-qam", "h1 on side")
        git(repo, "checkout", "-q", "main")  # HEAD (main) still has P
        receipt = apply_patch(PATCH, repo, ref="side", message="h2")
        assert receipt.ok, receipt.error
        assert git(repo, "show", "side:f.txt") == MERGED
        return
    (repo / "f.txt").write_text(H1)
    git(repo, "add", "f.txt")  # the index holds P + h1, HEAD holds P
    receipt = apply_patch(PATCH, repo, target={"cached": "index", "index": "both"}[target])
    assert receipt.ok, receipt.error
    assert receipt.files[0].three_way["base"] == "HEAD"
    assert git(repo, "show", ":f.txt") == MERGED
    if target == "index":
        assert (repo / "f.txt").read_text() == MERGED


def test_non_utf8_bytes_survive_the_merge(tmp_path: Path):
    p = b"caf\xe9 1\n" + P.encode()
    repo = make_repo(tmp_path / "r", {"f.txt": p})
    (repo / "f.txt").write_bytes(p.replace(b"line 5\n", b"line f\xefve\n"))
    patch = PATCH.replace("@@ -4,7 +4,7 @@", "@@ -5,7 +5,7 @@").encode()
    assert apply_patch(patch, repo).ok
    assert (repo / "f.txt").read_bytes() == p.replace(b"line 5\n", b"line f\xefve\n").replace(
        b"line 7\n", b"line seven\n")


def test_crlf_working_tree_merges_in_working_tree_form(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": P, ".gitattributes": "*.txt text eol=crlf\n"})
    (repo / "f.txt").unlink()
    git(repo, "checkout", "--", "f.txt")
    assert (repo / "f.txt").read_bytes() == P.replace("\n", "\r\n").encode()
    (repo / "f.txt").write_bytes(H1.replace("\n", "\r\n").encode())
    assert apply_patch(PATCH, repo).ok
    assert (repo / "f.txt").read_bytes() == MERGED.replace("\n", "\r\n").encode()


# -- the history log ----------------------------------------------------------------------------

def test_the_log_is_bounded_and_hostile_lines_are_ignored(tmp_path: Path):
    git_dir = tmp_path / "g"
    git_dir.mkdir()
    good = "a" * 40
    history.record(str(git_dir), [("f.txt", good)])
    with open(git_dir / history.LOG_NAME, "ab") as fh:
        for bad in ([1, 2], {"time": "x", "path": "f.txt", "blob": good},
                    {"time": 1, "path": "../etc/passwd", "blob": good},
                    {"time": 1, "path": "f.txt", "blob": "not-hex"},
                    {"time": 1, "path": "/abs", "blob": good}):
            fh.write(json.dumps(bad).encode() + b"\n")
        fh.write(b"\xff\xfe not json\n")
    assert [e.blob for e in history.read(str(git_dir))] == [good]
    for n in range(history.COMPACT_AT // 60):
        history.record(str(git_dir), [(f"p{n}.txt", f"{n:040x}")])
    assert (git_dir / history.LOG_NAME).stat().st_size <= history.COMPACT_AT + 200
    kept = history.read(str(git_dir))
    assert len(kept) <= history.MAX_ENTRIES and kept[-1].path == f"p{n}.txt"


def test_a_symlinked_log_is_neither_read_nor_written(tmp_path: Path):
    git_dir = tmp_path / "g"
    git_dir.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text(json.dumps({"time": 1, "path": "f.txt", "blob": "b" * 40}) + "\n")
    os.symlink(outside, git_dir / history.LOG_NAME)
    assert history.read(str(git_dir)) == []
    history.record(str(git_dir), [("f.txt", "a" * 40)])
    assert outside.read_text().count("\n") == 1


def test_the_log_is_not_a_journal(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": P})
    assert apply_patch(PATCH, repo).ok
    assert (repo / ".git" / history.LOG_NAME).exists()
    assert not (repo / ".git" / "holon-apply").exists()
    done = holon(repo, "--recover")
    assert done.returncode == 0 and done.stdout == "Nothing to recover.\n"
    assert (repo / ".git" / history.LOG_NAME).exists()


def test_a_large_patch_is_not_recorded(tmp_path: Path):
    files = {f"f{i}.txt": "a\n" for i in range(history.MAX_FILES + 1)}
    repo = make_repo(tmp_path / "r", files)
    patch = "".join(f"--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-a\n+b\n" for p in files)
    assert apply_patch(patch, repo).ok
    assert not (repo / ".git" / history.LOG_NAME).exists()


def test_a_plain_check_does_not_load_pygit2(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": P})
    code = ("import sys; from holon_git import apply_patch; "
            f"r = apply_patch({PATCH!r}, {str(repo)!r}, check=True); "
            "print(r.ok, 'pygit2' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=git_env(),
                          text=True)
    assert done.stdout.strip() == "True False", done.stderr


# -- the property: the result is git merge-file's --------------------------------------------

def merge_file(tmp: Path, ours: bytes, base: bytes, theirs: bytes) -> tuple[int, bytes]:
    for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
        (tmp / name).write_bytes(data)
    done = subprocess.run(["git", "merge-file", "-p", "ours", "base", "theirs"], cwd=tmp,
                          capture_output=True, env=git_env())
    return done.returncode, done.stdout


@st.composite
def three_versions(draw: st.DrawFn) -> tuple[bytes, bytes, bytes]:
    lines = draw(file_lines(duplicates=draw(st.booleans()), max_lines=40))
    h1 = apply_edits(lines, draw(edits(lines)))
    h2 = apply_edits(lines, draw(edits(lines)))
    assume(h1 != lines and h2 != lines)
    # runs of one line (blank lines) are placed by line number, which a merge does not use
    assume(not any(map(periodic, (lines, h1, h2))))
    return join(lines), join(h1), join(h2)


@pytest.mark.slow
@settings(max_examples=40)
@given(three_versions(), st.integers(1, 3))
def test_the_rescue_gives_what_git_merge_file_gives(tmp_path_factory, versions, context):
    p, h1, h2 = versions
    tmp = tmp_path_factory.mktemp("m")
    repo = make_repo(tmp / "r", {"f.txt": p})
    (repo / "f.txt").write_bytes(h1)
    patch = difflib_patch("f.txt", p, h2, context)
    status, merged = merge_file(tmp, h1, p, h2)
    before = snapshot(repo)
    receipt = apply_patch(patch, repo)
    if receipt.ok and receipt.files[0].three_way is not None:
        assert status == 0  # merged only when git merge-file merges cleanly...
        assert (repo / "f.txt").read_bytes() == merged  # ...and to the same bytes
    # A patch whose context is intact in the current text is placed by it, without the rescue,
    # as git apply would (the placement properties cover it); git merge-file may then differ
    # where h1 made the same edit, or touched lines next to it.
    elif not receipt.ok:
        assert snapshot(repo) == before
        # (already_applied may also refuse a patch one of whose hunks h1 made already: a
        # refusal, though git merge-file would merge the rest)
        if receipt.error.code == "merge_conflict":
            assert status != 0
