"""Old contents on the working-tree path: the plan lets go of them and the write reads each
again, checking that it is still the file the plan was made against.

A large patch then never holds every old file in memory at once; the undo takes them back
from the crash journal (or, without one, from the copy read just before writing).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from repos.builders import make_repo, snapshot

from holon_git import apply_patch
from holon_git.core.plan.plan import plan_patch
from holon_git.fs import journal, journal_dir
from holon_git.parse import parse_patch
from holon_git.targets.registry import open_target

FILES = {"a.txt": "a1\na2\na3\n", "b.txt": "b1\nb2\nb3\n", "gone.txt": "g1\ng2\n"}
EDIT_A = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a1\n-a2\n+A2\n a3\n"
EDIT_B = "--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n b1\n-b2\n+B2\n b3\n"
DELETE = "--- a/gone.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-g1\n-g2\n"


def test_a_plan_can_drop_its_preimages(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    target = open_target("worktree", str(repo))
    try:
        kept = plan_patch(parse_patch(EDIT_A), target.read)
        dropped = plan_patch(parse_patch(EDIT_A), target.read, keep_preimages=False)
    finally:
        target.close()
    (full,), (lean,) = kept.changes, dropped.changes
    assert full.before is not None and full.before.content == b"a1\na2\na3\n"
    assert lean.before is not None and lean.before.content is None
    assert (lean.before.token, lean.before.mode) == (full.before.token, full.before.mode)
    assert lean.after == full.after == b"a1\nA2\na3\n"
    with pytest.raises(ValueError):
        lean.before.data  # noqa: B018 - the property raises


@pytest.mark.parametrize("patch", [EDIT_A, EDIT_A + EDIT_B + DELETE],
                         ids=["one file, no journal", "several files, journal"])
def test_a_file_changed_after_planning_is_refused(tmp_path: Path, patch: str) -> None:
    """The plan no longer holds a.txt's old content; reading it again for the journal (or
    for the undo) finds another file there, and the whole patch is refused."""
    repo = make_repo(tmp_path / "r", FILES)
    before = snapshot(repo)

    def meddle(stage: str, done: int, total: int) -> None:
        if stage == "writing" and done == 0:
            (repo / "a.txt").write_text("someone else's edit\n")

    receipt = apply_patch(patch, repo, progress=meddle)
    assert receipt.error is not None and receipt.error.code == "stale_file", receipt.error
    assert receipt.error.path == "a.txt"
    after = snapshot(repo)
    assert after.pop("a.txt") != before.pop("a.txt")
    assert after == before, "a refused patch changed other files or left temporary files"
    assert not (repo / ".git" / journal_dir.JOURNAL_DIR).exists()


def test_the_undo_takes_old_contents_from_the_journal(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The last rename fails after the others went through: every file is put back from
    the journal's copy, since the plan kept none."""
    repo = make_repo(tmp_path / "r", FILES)
    before = snapshot(repo)
    real_rename = os.rename
    renames: list[str] = []

    def failing_rename(src: str, dst: str, **kwargs: object) -> None:
        if re.fullmatch(r"\.holon-.*-\d+\.tmp", str(src)):  # a staged file, not an undo
            renames.append(str(dst))
            if len(renames) == 2:
                raise OSError(28, "No space left on device")
        real_rename(src, dst, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "rename", failing_rename)
    receipt = apply_patch(EDIT_A + EDIT_B + DELETE, repo)
    assert receipt.error is not None and receipt.error.code == "io_error", receipt.error
    assert "rollback_problems" not in receipt.error.details
    assert len(renames) == 2
    assert snapshot(repo) == before
    assert not (repo / ".git" / journal_dir.JOURNAL_DIR).exists()


def test_the_journal_copy_is_checked_before_it_is_used(tmp_path: Path) -> None:
    git_dir = tmp_path / "git"
    git_dir.mkdir()
    record = journal.new_record(str(tmp_path))
    entry = journal.Entry("f.txt", journal.sha256(b"old\n"), None, 0o644, 0, 4)
    record.entries = [entry]
    held = journal.Journal.create(str(git_dir), record, iter([b"old\n"]), sync=False)
    try:
        assert held.preimage(entry) == b"old\n"
        copy = git_dir / journal_dir.JOURNAL_DIR / record.txid / journal.PREIMAGES
        copy.write_bytes(b"odd\n")
        with pytest.raises(OSError, match="damaged"):
            held.preimage(entry)
    finally:
        held.commit()
    assert not (git_dir / journal_dir.JOURNAL_DIR).exists()


def test_a_working_tree_apply_keeps_no_contents_in_its_receipt(tmp_path: Path) -> None:
    """Neither the old nor the new contents outlive the write (the journal and the disk
    have them); --emit-diff needs the old ones and keeps them."""
    repo = make_repo(tmp_path / "r", FILES)
    receipt = apply_patch(EDIT_A + EDIT_B, repo)
    assert receipt.ok, receipt.error
    assert [(c.before.content, c.after) for c in receipt.files if c.before] == [(None, None)] * 2
    repo2 = make_repo(tmp_path / "r2", FILES)
    with_diff = apply_patch(EDIT_A, repo2, emit_diff=True)
    assert with_diff.ok and with_diff.diff
    (change,) = with_diff.files
    assert change.before is not None and change.before.content == b"a1\na2\na3\n"
