"""A patch this tool applied, sent again while the file still holds what it wrote: refused
by the history log's record of the patch (core/plan/applied.py), on real repositories. These are
the shapes whose hunks alone cannot tell a re-send (audit 3): a deletion from a run of equal
lines, a series whose second mail changed the first one's lines, a -U0 deletion of a repeated
tail, a hunk that only changes a line ending."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clisupport import holon, report_lines
from gitsupport import applied, everything, refused
from repos.builders import git, make_repo


def resent_is_refused(repo: Path, patch: str, path: str, once: str, **options: bool) -> None:
    applied(repo, patch, **options)
    assert (repo / path).read_bytes() == once.encode()
    err = refused(repo, patch, "already_applied", **options)
    assert "this very patch" in err.message and err.path == path


def test_a_deletion_from_a_blank_run_resent(tmp_path: Path) -> None:
    text = "def f():\n    pass\n\n\n\n\ndef g():\n    pass\n"
    repo = make_repo(tmp_path / "r", {"f.py": text})
    patch = "--- a/f.py\n+++ b/f.py\n@@ -4,3 +4,2 @@\n \n \n-\n def g():\n"
    resent_is_refused(repo, patch, "f.py", text.replace("\n\n\n\n\n", "\n\n\n\n", 1))


def test_the_resend_guard_stands_without_the_rescue(tmp_path: Path) -> None:
    """Issue 36 item 5: --no-3way turns off the merge, not the history log. A deletion from a
    run of equal lines, re-sent, would delete the next one."""
    text = "def f():\n    pass\n\n\n\n\ndef g():\n    pass\n"
    repo = make_repo(tmp_path / "r", {"f.py": text})
    patch = "--- a/f.py\n+++ b/f.py\n@@ -4,3 +4,2 @@\n \n \n-\n def g():\n"
    resent_is_refused(repo, patch, "f.py", text.replace("\n\n\n\n\n", "\n\n\n\n", 1),
                      three_way=False)


def test_a_series_on_one_file_resent(tmp_path: Path) -> None:
    """The second file patch rewrites the line the first one added: alone, the first looks
    fresh again after the series."""
    repo = make_repo(tmp_path / "r", {"m.py": "def a():\n    return 1\n"})
    first = ("--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,5 @@\n def a():\n     return 1\n+\n+\n"
             "+def b():\n")
    second = ("--- a/m.py\n+++ b/m.py\n@@ -3,3 +3,4 @@\n \n \n-def b():\n+def b():\n"
              "+    return 2\n")
    resent_is_refused(repo, first + second, "m.py",
                      "def a():\n    return 1\n\n\ndef b():\n    return 2\n")


def test_a_U0_deletion_of_a_repeated_tail_resent(tmp_path: Path) -> None:
    """The index line names the file's blob: the numbers are current, the repeated lines
    are removed at the number (issue 36: without that proof the deletion is refused)."""
    repo = make_repo(tmp_path / "r", {"c.py": "a = 1\nb = 2\na = 1\nb = 2\n"})
    resent_is_refused(repo, "diff --git a/c.py b/c.py\nindex 1402e72..223ca50 100644\n"
                      "--- a/c.py\n+++ b/c.py\n@@ -3,2 +2,0 @@\n-a = 1\n-b = 2\n",
                      "c.py", "a = 1\nb = 2\n")


def test_a_line_ending_change_is_not_undone_by_its_resend(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "a\r\nb\r\nc\r\n"})
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+b\n c\r\n"
    resent_is_refused(repo, patch, "f.txt", "a\r\nb\nc\r\n")


def test_undone_then_sent_again_applies(tmp_path: Path) -> None:
    """-R restores the pre-image: the patch sent then is no re-send, and applies; sent once
    more it is."""
    text = "def f():\n    pass\n\n\n\n\ndef g():\n    pass\n"
    repo = make_repo(tmp_path / "r", {"f.py": text})
    patch = "--- a/f.py\n+++ b/f.py\n@@ -4,3 +4,2 @@\n \n \n-\n def g():\n"
    applied(repo, patch)
    applied(repo, patch, reverse=True)
    assert (repo / "f.py").read_text() == text
    applied(repo, patch)
    refused(repo, patch, "already_applied")


def test_a_file_changed_since_is_left_to_the_hunk_rules(tmp_path: Path) -> None:
    """The record speaks only while the file is what this tool wrote: after another edit the
    same patch is judged by its hunks (which see its new lines where it goes)."""
    repo = make_repo(tmp_path / "r", {"c.py": "a = 1\nb = 2\nc = 3\nd = 4\n"})
    patch = "--- a/c.py\n+++ b/c.py\n@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = 20\n c = 3\n"
    applied(repo, patch)
    (repo / "c.py").write_text("a = 1\nb = 20\nc = 3\nd = 40\n")
    err = refused(repo, patch, "already_applied")
    assert "this very patch" not in err.message


def test_another_patch_with_the_same_result_is_not_a_resend(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"c.py": "x = 1\ny = 2\n"})
    applied(repo, "--- a/c.py\n+++ b/c.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n")
    git(repo, "commit", "-qam", "y = 3")
    # a different patch (other context) that leads from here elsewhere is judged on its own
    applied(repo, "--- a/c.py\n+++ b/c.py\n@@ -2 +2 @@\n-y = 3\n+y = 4\n")
    assert (repo / "c.py").read_text() == "x = 1\ny = 4\n"


def test_forged_history_entries_are_ignored(tmp_path: Path) -> None:
    """The log is hostile input: digests that are not 64 hex digits are dropped, so a
    planted record cannot refuse a fresh patch."""
    repo = make_repo(tmp_path / "r", {"c.py": "x = 1\n"})
    log = repo / ".git" / "holon-apply-history"
    log.write_text(json.dumps({"time": 1.0, "path": "c.py", "blob": "0" * 40,
                               "patch": "not hex", "after": "zz"}) + "\n")
    before = everything(repo)
    applied(repo, "--- a/c.py\n+++ b/c.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n")
    assert everything(repo) != before


# -- sent again after the agent edited the file elsewhere (the file changed since) -----------

TWO_HANDLERS = ("import os\n\ndef handler(event):\n    value = event.get('payload')\n"
                "    return process(value)\n\n# one\ndef other():\n    return 42\n\n"
                "def handler(event):\n    value = event.get('payload')\n"
                "    return process(value)\n\nprint('done')\n")
LOWER = ("--- a/f.py\n+++ b/f.py\n@@ -11,3 +11,3 @@\n def handler(event):\n"
         "-    value = event.get('payload')\n+    value = event.get('payload', None)\n"
         "     return process(value)\n")


def test_a_hint_placed_edit_resent_after_lines_were_added_above(tmp_path: Path) -> None:
    """The line number picked the lower of two equal blocks; lines added at the top since
    move the hint onto the upper one, whose old lines are there: the log's record of this
    very patch, with its new lines in the file, makes the second send a re-send."""
    repo = make_repo(tmp_path / "r", {"f.py": TWO_HANDLERS})
    applied(repo, LOWER)
    once = (repo / "f.py").read_text()
    (repo / "f.py").write_text("".join(f"import mod{n}\n" for n in range(12)) + once)
    err = refused(repo, LOWER, "already_applied")
    assert err.details["history"] == "same patch, its change in the file"
    assert (repo / "f.py").read_text().count("'payload', None") == 1


def test_a_U0_insertion_resent_after_an_edit_above_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "alpha = 1\nbeta = 2\ngamma = 3\n"})
    patch = "--- a/f.py\n+++ b/f.py\n@@ -2,0 +3 @@\n+inserted = True\n"
    applied(repo, patch)
    (repo / "f.py").write_text("import os\n" + (repo / "f.py").read_text())
    err = refused(repo, patch, "already_applied")
    assert "this very patch" in err.message
    assert (repo / "f.py").read_text().count("inserted = True") == 1


def test_undone_by_hand_after_an_edit_then_sent_again_applies(tmp_path: Path) -> None:
    """The same patch, once its change was undone (here: the file rewritten without it,
    with an edit elsewhere), is not a re-send: its new lines are not in the file."""
    repo = make_repo(tmp_path / "r", {"f.py": TWO_HANDLERS})
    applied(repo, LOWER)
    (repo / "f.py").write_text(TWO_HANDLERS + "print('more')\n")
    receipt = applied(repo, LOWER)
    assert receipt.files[0].hunks[0].applied_line == 11
    assert (repo / "f.py").read_text().count("'payload', None") == 1


def test_a_reversed_patch_resent_after_an_edit(tmp_path: Path) -> None:
    """-R sent twice, the agent's own edit between making the other copy look like the
    patch's new side: the log's record of the reversed patch, its old lines in the file at
    the copy it undid, refuses the second (it would undo the agent's edit)."""
    block = "alpha = 1\nbeta = 2\ngamma = 3\n"
    repo = make_repo(tmp_path / "r", {"f.py": block + "\n" + block})
    patch = ("--- a/f.py\n+++ b/f.py\n@@ -5,3 +5,3 @@\n alpha = 1\n-beta = 2\n+beta = 3\n"
             " gamma = 3\n")
    applied(repo, patch)
    applied(repo, patch, reverse=True)
    (repo / "f.py").write_text("import os\n" * 8 + block.replace("2", "3") + "\n" + block)
    err = refused(repo, patch, "not_applied", reverse=True)
    assert "this very patch" in err.message


def test_undo_after_a_hard_reset_points_to_the_history_log_docs(tmp_path: Path) -> None:
    """apply, -R, apply, `git reset --hard`, -R: the file is what the first undo left, so the
    patch is not in it; the refusal names the history log and the docs section that says what
    it is and how to clear it, and clearing it as that section says is all it takes."""
    repo = make_repo(tmp_path / "r", {"f.txt": "a\nb\nc\n"})
    (tmp_path / "p.diff").write_text("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
    for args in ([], ["-R"], []):
        assert holon(repo, *args, str(tmp_path / "p.diff")).returncode == 0
    git(repo, "reset", "-q", "--hard")
    done = holon(repo, "-R", str(tmp_path / "p.diff"))
    assert done.returncode == 1
    error, hint = report_lines(done.stderr)
    assert error.startswith("error: not_applied: f.txt: ")
    assert "the history log (.git/holon-apply-history) records this very patch" in error
    assert error.endswith("a re-send")
    assert hint.endswith("docs/cli.md, 'The history log', says what it is and how to clear it")
    docs = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text()
    section = docs[docs.index("\n## The history log\n"):]
    section = section[:section.index("\n## ", 1)]
    clear = 'rm "$(git rev-parse --git-path holon-apply-history)"'
    assert clear in section and "git reset --hard" in section
    log = Path(git(repo, "rev-parse", "--git-path", "holon-apply-history").strip())
    assert (repo / log).is_file()
    (repo / log).unlink()  # what `clear` does
    done = holon(repo, "-R", str(tmp_path / "p.diff"))
    assert done.returncode == 1 and "not_applied" in done.stderr
    assert "history log" not in done.stderr.splitlines()[0]  # judged by the file alone


def test_a_resent_file_is_read_once_per_plan(tmp_path: Path) -> None:
    """The re-send check reads the file the log shows this patch applied to (to hash it); the
    plan then places the hunks on that same read, not on a second one (a large file costs
    one read), and plans what a fresh read would."""
    from holon_git.core.change import SourceFile
    from holon_git.core.plan.plan import plan_patch
    from holon_git.parse import parse_patch
    from holon_git.targets.registry import open_target

    text = "".join(f"line {i}\n" for i in range(40))
    repo = make_repo(tmp_path / "r", {"f.txt": text, "g.txt": text})
    patch = ("--- a/f.txt\n+++ b/f.txt\n@@ -10,3 +10,3 @@\n line 9\n-line 10\n+LINE 10\n"
             " line 11\n--- a/g.txt\n+++ b/g.txt\n@@ -20,3 +20,3 @@\n line 19\n-line 20\n"
             "+LINE 20\n line 21\n")
    applied(repo, patch)
    for name in ("f.txt", "g.txt"):  # undone by hand: the log shows the patch applied
        (repo / name).write_text(text)
    target = open_target("worktree", str(repo))
    reads: list[str] = []

    def counted(path: str) -> SourceFile | None:
        reads.append(path)
        return target.read(path)

    try:
        plan = plan_patch(parse_patch(patch), counted, three_way=target.known_versions())
        fresh = plan_patch(parse_patch(patch), target.read)
    finally:
        target.close()
    assert sorted(reads) == ["f.txt", "g.txt"]
    assert [c.after for c in plan.changes] == [c.after for c in fresh.changes]


@pytest.mark.parametrize("target", ["worktree", "both"])
def test_a_recorded_patch_is_digested_once_per_apply(tmp_path: Path, target: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The re-send check digests the patch for the path the log records; the log's new
    record of the apply reuses that digest (the same value), for a target that stages each
    change as soon as it is planned ("both": the index's) as for one that does not."""
    from holon_git.core.plan import resend

    text = "".join(f"line {i}\n" for i in range(40))
    repo = make_repo(tmp_path / "r", {"f.txt": text})
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -10,3 +10,3 @@\n line 9\n-line 10\n+LINE 10\n line 11\n"
    applied(repo, patch, target=target)
    before = _log_lines(repo)
    git(repo, "checkout", "HEAD", "--", "f.txt")  # undone: the log shows the patch applied
    taken: list[str] = []
    real = resend.digest

    def counted(*args: Any) -> str:
        taken.append(got := real(*args))
        return got

    monkeypatch.setattr(resend, "digest", counted)
    applied(repo, patch, target=target)
    assert len(taken) == 1
    new = _log_lines(repo)[len(before):]
    assert len(new) == 1 and taken[0] in new[0] and taken[0] in before[-1]


def _log_lines(repo: Path) -> list[str]:
    return (repo / ".git" / "holon-apply-history").read_text().splitlines()
