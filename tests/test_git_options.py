"""git apply's options as a git user types them (cli.py): -3, -C, --recount,
--ignore-whitespace, --unidiff-zero, --numstat, --summary, --allow-empty, -N, and unknown
options that never suggest an option of another meaning."""

from __future__ import annotations

from pathlib import Path

import pytest
from clisupport import PATCH, holon
from gitsupport import applied, refused
from repos.builders import git

ADD = "diff --git a/new.txt b/new.txt\nnew file mode 100755\n--- /dev/null\n+++ b/new.txt\n" \
      "@@ -0,0 +1,2 @@\n+a\n+b\n"
DELETE = "diff --git a/g.txt b/g.txt\ndeleted file mode 100644\n--- a/g.txt\n+++ /dev/null\n" \
         "@@ -1,2 +0,0 @@\n-g1\n-g2\n"
RENAME = "diff --git a/h.txt b/moved.txt\nsimilarity index 90%\nrename from h.txt\n" \
         "rename to moved.txt\n"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f.txt": "one\ntwo\nthree\nfour\nfive\n",
            "g.txt": "g1\ng2\n", "h.txt": "h\n"}


@pytest.mark.parametrize("flags", [["-3"], ["--3way"], ["-C", "3"], ["-C1"], ["--recount"],
                                   ["--ignore-whitespace"], ["--ignore-space-change"],
                                   ["--unidiff-zero"], ["-3", "-C2", "--recount"]])
def test_accepted_habits_apply_as_without_them(repo: Path, flags: list[str]):
    done = holon(repo, *flags, "-", stdin=PATCH)
    assert done.returncode == 0, done.stderr
    assert (repo / "f.txt").read_text() == "one\ntwo\nTHREE\nfour\nfive\n"


def test_no_3way_still_refuses_what_needs_the_rescue(repo: Path):
    git(repo, "commit", "-q", "--allow-empty", "-m", "x")
    (repo / "f.txt").write_text("zero\none\ntwo\nthree and more\nfour\nfive\n")
    git(repo, "commit", "-q", "-am", "changed")
    stale = "diff --git a/f.txt b/f.txt\nindex " + git(repo, "rev-parse", "HEAD~1:f.txt")[:7] + \
        "..0000000 100644\n" + PATCH
    assert holon(repo, "--no-3way", "-", stdin=stale).returncode == 1
    assert holon(repo, "-C", "-1", "-", stdin=PATCH).returncode == 2  # N is a count


def test_numstat_and_summary_as_git_prints_them(repo: Path):
    patch = PATCH + ADD + DELETE + RENAME
    done = holon(repo, "--numstat", "--summary", "-", stdin=patch)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("1\t1\tf.txt\n2\t0\tnew.txt\n0\t2\tg.txt\n0\t0\tmoved.txt\n"
                           " create mode 100755 new.txt\n delete mode 100644 g.txt\n"
                           " rename h.txt => moved.txt (90%)\n")
    assert (repo / "f.txt").read_text() == "one\ntwo\nthree\nfour\nfive\n"  # not applied
    done = holon(repo, "--stat", "--numstat", "--apply", "-", stdin=PATCH)
    assert done.returncode == 0 and "1\t1\tf.txt\n" in done.stdout
    assert "THREE" in (repo / "f.txt").read_text()


def test_listings_and_json_both_on_stdout_are_a_usage_error(repo: Path):
    for flag in ("--stat", "--numstat", "--summary"):
        done = holon(repo, flag, "--json", "-", stdin=PATCH)
        assert done.returncode == 2 and f"{flag} and --json" in done.stderr


def test_quiet_and_verbose_together_are_a_usage_error(repo: Path):
    assert holon(repo, "-q", "-v", "-", stdin=PATCH).returncode == 2


def test_allow_empty(repo: Path):
    assert holon(repo, "-", stdin="no patch here\n").returncode == 1
    done = holon(repo, "--allow-empty", "-", stdin="")
    assert done.returncode == 0 and done.stdout == "Applied 0 files, 0 hunks.\n", done.stderr
    receipt = applied(repo, "just prose\n", allow_empty=True)
    assert receipt.files == [] and [d.code for d in receipt.diagnostics] == ["empty_patch"]
    receipt = applied(repo, PATCH, allow_empty=True, exclude=("f.txt",))
    assert "THREE" not in (repo / "f.txt").read_text()
    refused(repo, PATCH, "empty_patch", exclude=("f.txt",))


def test_intent_to_add_marks_the_new_files(repo: Path):
    receipt = applied(repo, ADD + PATCH, intent_to_add=True)
    assert receipt.extra["intent_to_add"] == ["new.txt"]
    assert git(repo, "status", "--porcelain") == " M f.txt\n A new.txt\n"
    assert "+a\n+b\n" in git(repo, "diff")  # git diff shows the new file, as after add -N
    done = holon(repo, "-N", "-R", "-", stdin=ADD)
    assert done.returncode == 0, done.stderr
    for options in ({"target": "both"}, {"target": "index"}, {"commit": True, "message": "m"}):
        refused(repo, PATCH, "usage_error", intent_to_add=True, **options)


@pytest.mark.parametrize("typed, wrong", [("--rejct", None), ("--directry", None),
                                          ("--rejects", "--ref"), ("--exclde", None)])
def test_unknown_options_suggest_only_a_misspelling(repo: Path, typed: str, wrong: str | None):
    done = holon(repo, typed, "-", stdin=PATCH)
    assert done.returncode == 2 and f"No such option: {typed}" in done.stderr
    if wrong is not None:
        assert wrong not in done.stderr.replace(typed, "")
    else:
        assert "did you mean --" in done.stderr


def test_git_only_options_say_why_they_are_not_taken(repo: Path):
    done = holon(repo, "--inaccurate-eof", "-", stdin=PATCH)
    assert done.returncode == 2 and "git apply's --inaccurate-eof is not supported" in done.stderr


def test_a_pattern_that_swallowed_the_patch_is_named(repo: Path, tmp_path: Path):
    patch = tmp_path / "fix.diff"
    patch.write_text(PATCH)
    done = holon(repo, "--include", str(patch), stdin="")
    assert done.returncode == 2
    assert "--include took" in done.stderr and "--include=PATTERN" in done.stderr
    assert (repo / "f.txt").read_text() == "one\ntwo\nthree\nfour\nfive\n"
