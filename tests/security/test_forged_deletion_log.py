"""-R of a deletion without its content trusts no history line it cannot prove (issue 35,
item 1).

`-R` of a `*** Delete File:` patch writes the blob the history log's newest deletion entry for
the path names. One forged line naming a protected file's blob for `x.txt` used to write the
protected content into `x.txt` (status applied). The entry must now prove its blob (a digest
of the path, mode and content: history.deletion_proof), and a protected path's content is
never written under another name; either refusal leaves the repository as it was.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import applied, refused
from repos.builders import git, git_dir

from holon_git.git.history import COMPACT_AT, MAX_ENTRIES, deletion_proof

SECRET = "key=hunter2\n"
DELETE_X = "*** Begin Patch\n*** Delete File: x.txt\n*** End Patch\n"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"x.txt": "plain\n", "secret.env": SECRET, ".holon/protect": "secret.env\n"}


def blob_of(repo: Path, path: str) -> str:
    return git(repo, "rev-parse", f"HEAD:{path}").strip()


def forge(repo: Path, **fields: object) -> None:
    """Append a line to the history log, as anyone who can write .git can."""
    line = {"time": round(time.time(), 3) + 1, "path": "x.txt", "deleted": "100644", **fields}
    with open(git_dir(repo) / "holon-apply-history", "a") as log:
        log.write(json.dumps(line) + "\n")


def test_a_forged_line_naming_a_protected_blob_restores_nothing(repo: Path):
    applied(repo, DELETE_X)  # a genuine deletion: its entry is in the log
    forge(repo, blob=blob_of(repo, "secret.env"))
    err = refused(repo, DELETE_X, "usage_error", reverse=True)
    assert "does not prove" in err.message
    assert not (repo / "x.txt").exists()
    assert SECRET not in err.message


def test_a_forged_line_with_no_deletion_before_it_restores_nothing(repo: Path):
    (repo / "x.txt").unlink()  # deleted by hand; only the forged line speaks of it
    forge(repo, blob=blob_of(repo, "secret.env"))
    refused(repo, DELETE_X, "usage_error", reverse=True)
    assert not (repo / "x.txt").exists()


def test_a_proof_made_from_the_protected_content_is_still_refused(repo: Path):
    """A writer who has the protected content can compute the proof; it is refused all the
    same: a protected path's content is never written under another name."""
    applied(repo, DELETE_X)
    forge(repo, blob=blob_of(repo, "secret.env"),
          proof=deletion_proof("x.txt", "100644", SECRET.encode()))
    err = refused(repo, DELETE_X, "protected_path", reverse=True)
    assert not (repo / "x.txt").exists()
    assert SECRET not in err.message


def test_a_genuine_entry_with_its_mode_forged_restores_nothing(repo: Path):
    applied(repo, DELETE_X)
    log = git_dir(repo) / "holon-apply-history"
    entry = json.loads(log.read_text().splitlines()[-1])
    assert entry["proof"] == deletion_proof("x.txt", "100644", b"plain\n")
    forge(repo, blob=entry["blob"], proof=entry["proof"], deleted="100755")
    refused(repo, DELETE_X, "usage_error", reverse=True)


def test_an_unproven_line_for_another_unprotected_blob_restores_nothing(repo: Path):
    applied(repo, DELETE_X)
    other = git(repo, "hash-object", "-w", "--stdin", input=b"planted\n").strip()
    forge(repo, blob=other)
    refused(repo, DELETE_X, "usage_error", reverse=True)


def test_the_genuine_deletion_still_comes_back(repo: Path):
    applied(repo, DELETE_X)
    applied(repo, DELETE_X, reverse=True)
    assert (repo / "x.txt").read_text() == "plain\n"


def test_the_proof_survives_the_logs_compaction(repo: Path):
    """A log past its compaction threshold is rewritten from its decoded entries when the
    deletion is appended: the proof must be kept, or the genuine restore would be refused."""
    filler = [json.dumps({"time": 1.0, "path": f"{n:0>400}.txt", "blob": "1" * 40})
              for n in range(MAX_ENTRIES - 20)]
    log = git_dir(repo) / "holon-apply-history"
    log.write_text("\n".join(filler) + "\n")
    assert len("".join(filler)) > COMPACT_AT
    before = log.stat().st_ino
    applied(repo, DELETE_X)
    assert log.stat().st_ino != before  # compacted: rewritten and renamed over the log
    applied(repo, DELETE_X, reverse=True)
    assert (repo / "x.txt").read_text() == "plain\n"


def test_stat_of_the_forged_restore_is_refused_too(repo: Path):
    applied(repo, DELETE_X)
    forge(repo, blob=blob_of(repo, "secret.env"))
    done = holon(repo, "--numstat", "-R", "-", stdin=DELETE_X)
    assert done.returncode != 0 and "1\t0\tx.txt" not in done.stdout
    assert "does not prove" in done.stderr
