"""-R of a deletion that does not hold the deleted content (targets/saved.py): restored from
the blob holon-git saved when it deleted the file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import applied, refused
from repos.builders import git, git_dir

DELETE = "*** Begin Patch\n*** Delete File: tool.sh\n*** End Patch\n"
CONTENT = b"#!/bin/sh\necho one\nno final newline"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"tool.sh": CONTENT, "other.txt": "x\n"}


@pytest.fixture
def repo_executable() -> set[str]:
    return {"tool.sh"}


def test_reverse_restores_content_and_mode(repo: Path):
    receipt = applied(repo, DELETE)
    blob = receipt.deleted_blobs[0]["blob"]
    assert not (repo / "tool.sh").exists()
    back = applied(repo, DELETE, reverse=True)
    assert (repo / "tool.sh").read_bytes() == CONTENT
    assert os.stat(repo / "tool.sh").st_mode & 0o111
    notes = [d for f in back.files for d in f.diagnostics if d.code == "restored_deleted_content"]
    assert notes and blob in notes[0].message
    assert git(repo, "status", "--porcelain") == ""


def test_the_cli_reverses_it_as_a_user_types_it(repo: Path, tmp_path: Path):
    patch = tmp_path / "codex.patch"
    patch.write_text(DELETE)
    assert holon(repo, str(patch)).returncode == 0
    done = holon(repo, "-R", str(patch))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Applied 1 file (1 added).\n"
    assert (repo / "tool.sh").read_bytes() == CONTENT


def test_stat_counts_the_lines_the_deletion_removes(repo: Path, tmp_path: Path):
    done = holon(repo, "--stat", "-", stdin=DELETE)
    assert done.stdout == (" tool.sh |    3 ---\n"
                           " 1 file changed, 3 deletions(-)\n"), done.stderr  # as git
    applied(repo, DELETE)
    done = holon(repo, "--stat", "-R", "-", stdin=DELETE)  # from the saved content
    assert done.stdout.startswith(" tool.sh |    3 +++\n"), done.stderr


def test_without_a_recorded_deletion_it_is_refused_with_the_way_back(repo: Path):
    os.unlink(repo / "tool.sh")  # deleted by hand: holon-git saved nothing
    err = refused(repo, DELETE, "usage_error", reverse=True)
    assert "records no deletion" in err.message and "git cat-file -p" in err.hint


def test_a_pruned_blob_is_refused(repo: Path):
    receipt = applied(repo, DELETE)
    blob = receipt.deleted_blobs[0]["blob"]
    os.unlink(git_dir(repo) / "objects" / blob[:2] / blob[2:])  # as git gc --prune=now would
    err = refused(repo, DELETE, "usage_error", reverse=True)
    assert "pruned" in err.message


def test_the_newest_deletion_of_the_path_is_the_one_restored(repo: Path):
    applied(repo, DELETE)
    (repo / "tool.sh").write_text("second version\n")
    applied(repo, DELETE)
    log = [json.loads(line) for line in
           (git_dir(repo) / "holon-apply-history").read_text().splitlines()]
    assert [entry.get("deleted") for entry in log] == ["100755", "100644"]
    applied(repo, DELETE, reverse=True)
    assert (repo / "tool.sh").read_text() == "second version\n"
