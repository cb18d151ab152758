"""--commit and --ref of git format-patch mails (parse/mail.py, targets/series.py) commit as
`git am` does: each mail's subject (without '[PATCH n/m]') and body up to the '---' line as
its message, its From: and Date: as the author, the committer as usual; a series of mails a
series of commits, the branch moved once at the end, all or nothing; -m still overrides.
Compared with git am's commits byte for byte (message, author line, tree)."""

from __future__ import annotations

from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import applied, refused, twin
from repos.builders import git, git_state

from holon_git.parse import parse_patch
from holon_git.parse.mail import clean_subject, read_commit


@pytest.fixture
def repo_files() -> dict[str, str]:
    return {"f.txt": "one\ntwo\nthree\nfour\nfive\n", "g.txt": "alpha\nbeta\n"}


def _mails(repo: Path, tmp_path: Path) -> list[Path]:
    """Three commits made with git and written as mails by git format-patch (a body with a
    trailer and an indented line, a UTF-8 author with another date and time zone, two files
    in one mail), the branch then put back where it was."""
    (repo / "f.txt").write_text("one\nTWO\nthree\nfour\nfive\n")
    git(repo, "commit", "-qam", "[RFC] Make two loud\n\nThe body.\n  Indented.\n\n"
        "Signed-off-by: A U Thor <author@example.com>")
    (repo / "f.txt").write_text("one\nTWO\nthree\nfour\nFIVE\n")
    git(repo, "commit", "-qam", "Five too", env={
        "GIT_AUTHOR_NAME": "Zoë Ünicode", "GIT_AUTHOR_EMAIL": "zoe@example.org",
        "GIT_AUTHOR_DATE": "2021-03-04 05:06:07 +0530"})
    (repo / "g.txt").write_text("alpha\nBETA\n")
    (repo / "f.txt").write_text("ONE\nTWO\nthree\nfour\nFIVE\n")
    git(repo, "commit", "-qam", "Both files: beta and one\n\nTouches f.txt and g.txt.")
    out = tmp_path / "mails"
    names = git(repo, "format-patch", "-3", "-o", str(out)).split()
    git(repo, "reset", "-q", "--hard", "HEAD~3")
    return [Path(name) for name in names]


def _commits(repo: Path, count: int, ref: str = "HEAD") -> list[tuple[str, str, str]]:
    """The last ``count`` commits of ``ref``, oldest first: (tree, author line, message)
    as git stores them."""
    out = []
    for number in reversed(range(count)):
        raw = git(repo, "cat-file", "commit", f"{ref}~{number}")
        head, message = raw.split("\n\n", 1)
        fields = dict(line.split(" ", 1) for line in head.splitlines())
        out.append((fields["tree"], fields["author"], message))
    return out


def _git_am(repo: Path, mails: list[Path]) -> list[tuple[str, str, str]]:
    other = twin(repo)
    git(other, "am", "-q", *map(str, mails))
    return _commits(other, len(mails))


def test_one_mail_commits_as_git_am_commits_it(repo: Path, tmp_path: Path):
    mails = _mails(repo, tmp_path)
    expected = _git_am(repo, mails[:1])
    done = holon(repo, "--commit", str(mails[0]))
    assert done.returncode == 0, done.stderr
    assert _commits(repo, 1) == expected
    assert expected[0][2] == ("Make two loud\n\nThe body.\n  Indented.\n\n"
                              "Signed-off-by: A U Thor <author@example.com>\n")
    assert git(repo, "status", "--porcelain") == ""


@pytest.mark.parametrize("given", ["mail files", "one mbox", "stdin"])
def test_a_series_of_mails_is_a_series_of_commits(repo: Path, tmp_path: Path, given: str):
    mails = _mails(repo, tmp_path)
    expected = _git_am(repo, mails)
    reflog = git(repo, "reflog", "show", "main").splitlines()
    mbox = tmp_path / "series.mbox"
    mbox.write_bytes(b"".join(mail.read_bytes() for mail in mails))
    args = {"mail files": [str(mail) for mail in mails], "one mbox": [str(mbox)],
            "stdin": ["-"]}[given]
    done = holon(repo, "--commit", *args, stdin=mbox.read_bytes() if given == "stdin" else None)
    assert done.returncode == 0, done.stderr
    assert _commits(repo, 3) == expected
    assert expected[1][1].startswith("Zoë Ünicode <zoe@example.org> 1614814567 +0530")
    # the branch moved once, to the last commit: one reflog entry
    assert len(git(repo, "reflog", "show", "main").splitlines()) == len(reflog) + 1
    assert "Committed 3 commits" in done.stdout
    assert git(repo, "status", "--porcelain") == ""


def test_ref_commits_a_series_onto_a_branch(repo: Path, tmp_path: Path):
    mails = _mails(repo, tmp_path)
    expected = _git_am(repo, mails)
    git(repo, "branch", "side")
    state = git(repo, "rev-parse", "main")
    receipt = applied(repo, b"".join(mail.read_bytes() for mail in mails), ref="side")
    assert _commits(repo, 3, "side") == expected
    assert git(repo, "rev-parse", "main") == state  # only the branch named moved
    assert receipt.commits == [git(repo, "rev-parse", f"side~{n}").strip()
                                        for n in (2, 1, 0)]
    assert receipt.parent == git(repo, "rev-parse", "side~1").strip()


def test_ref_of_the_checked_out_branch_commits_a_series_with_its_index_and_files(
        repo: Path, tmp_path: Path):
    mails = _mails(repo, tmp_path)
    expected = _git_am(repo, mails)
    receipt = applied(repo, b"".join(mail.read_bytes() for mail in mails), ref="main")
    assert _commits(repo, 3, "main") == expected and len(receipt.commits) == 3
    assert git(repo, "status", "--porcelain") == ""


def test_all_or_nothing_a_mail_that_does_not_apply_commits_none(repo: Path, tmp_path: Path):
    mails = _mails(repo, tmp_path)
    broken = mails[2].read_text().replace(" four\n", " FOUR\n", 1)
    series = mails[0].read_text() + mails[1].read_text() + broken
    refused(repo, series, "context_not_found", commit=True,
            state=lambda: (git_state(repo), (repo / "f.txt").read_text()))
    refused(repo, series, "context_not_found", ref="main", state=lambda: git_state(repo))


def test_an_in_body_from_gives_the_author_as_git_am_takes_it(repo: Path, tmp_path: Path):
    """git format-patch --from=SENDER puts the author in the body ('From: ...'): git am, and
    holon-git, take the author from there."""
    (repo / "g.txt").write_text("alpha\nGAMMA\n")
    git(repo, "commit", "-qam", "Gamma\n\nWhy gamma.", env={
        "GIT_AUTHOR_NAME": "Zoë Ünicode", "GIT_AUTHOR_EMAIL": "zoe@example.org"})
    mail = git(repo, "format-patch", "-1", "--stdout", "--from=Sender <s@example.com>")
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    assert "\n\nFrom: Zo" in mail
    other = twin(repo)
    git(other, "am", "-q", input=mail.encode())
    done = holon(repo, "--commit", "-", stdin=mail)
    assert done.returncode == 0, done.stderr
    assert _commits(repo, 1) == _commits(other, 1)
    assert _commits(repo, 1)[0][1].startswith("Zoë Ünicode <zoe@example.org> ")


def test_m_overrides_the_mails_one_commit_of_the_whole(repo: Path, tmp_path: Path):
    mails = _mails(repo, tmp_path)
    done = holon(repo, "--commit", "-m", "All three", *map(str, mails))
    assert done.returncode == 0, done.stderr
    assert git(repo, "log", "-1", "--format=%s") == "All three\n"
    assert git(repo, "rev-list", "--count", "HEAD") == "2\n"


def test_author_overrides_the_mails_author(repo: Path, tmp_path: Path):
    mails = _mails(repo, tmp_path)
    done = holon(repo, "--commit", "--author", "Other <o@example.com>", *map(str, mails))
    assert done.returncode == 0, done.stderr
    assert git(repo, "log", "-3", "--format=%an <%ae>|%s") == "Other <o@example.com>|Both " \
        "files: beta and one\nOther <o@example.com>|Five too\nOther <o@example.com>|Make two " \
        "loud\n"


def test_no_message_for_a_patch_that_is_no_mail(repo: Path, tmp_path: Path):
    mails = _mails(repo, tmp_path)
    err = refused(repo, mails[0].read_text().split("\n\n", 1)[1], "usage_error", commit=True)
    assert "-m/--message" in err.message and "git format-patch" in err.hint
    refused(repo, mails[0].read_text(), "usage_error", commit=True, reverse=True)


@pytest.mark.parametrize("subject", [
    "[PATCH] Fix it", "[PATCH v2 3/7] [RFC] Fix  it", "Re: [PATCH] re: Fix it",
    "[PATCH]Fix [it] now", ":  Fix it", "Fix it", "[PATCH] =?UTF-8?q?Fix=20=C3=BC?=",
    "[PATCH] a very long subject that git format-patch folds onto a second line because it "
    "is longer than seventy-eight characters"])
def test_subjects_are_cleaned_as_git_mailinfo_cleans_them(repo: Path, subject: str):
    mail = (f"From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
            f"From: A <a@example.com>\nDate: Mon, 1 Feb 2021 10:00:00 +0100\n"
            f"Subject: {subject}\n\nBody line.\n---\n"
            "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-one\n+ONE\n")
    info = git(repo, "mailinfo", "/dev/null", "/dev/null", input=mail.encode())
    expected = next(line for line in info.splitlines() if line.startswith("Subject: "))
    commit = read_commit(parse_patch(mail).mails[0])
    assert commit is not None
    assert commit.message.split("\n", 1)[0] == expected[len("Subject: "):]
    if "=?" not in subject:
        assert clean_subject(subject) == expected[len("Subject: "):]


def test_a_mail_applied_without_a_commit_loads_no_mail_parser(repo: Path, tmp_path: Path):
    """Reading a mail's headers costs start-up (the email package): only a commit reads
    them; parsing finds the mails by their lines alone."""
    import subprocess
    import sys

    mails = _mails(repo, tmp_path)
    code = ("import sys; from holon_git.parse import parse_patch; "
            f"patch = parse_patch(open({str(mails[0])!r}, 'rb').read()); "
            "assert len(patch.mails) == 1 and patch.mails[0].headers.startswith(b'From: '); "
            "assert 'email.parser' not in sys.modules, 'email loaded'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
