"""The crash journal keeps old files by hard links, and copies them where links fail.

A working-tree apply's journal links each file it replaces or deletes into its directory
(``pre-<entry number>``, named by inode, size and modification time: ``before_stat``), so the
old content is neither read again, hashed nor copied. Where no link can be made the content
is copied into ``preimages`` with its sha256, as before; so is a file someone else owns or
with other names of its own. Both are tested on real files: links
on one filesystem, copies with the git directory on another (/dev/shm, a tmpfs, beside a
repository under the test's temporary directory: link() fails with EXDEV). Recovery must put
the old tree back from either, and trust a link only while it is this user's regular file
with the stat the journal names.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from crashkit import Scenario, journal_dir, killed_child
from repos.builders import snapshot

from holon_git import apply_patch
from holon_git.errors import PatchError
from holon_git.fs import journal
from holon_git.fs import journal_dir as journals
from holon_git.recover import recover

SHM = Path("/dev/shm")


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return Scenario.make(tmp_path_factory.mktemp("links"), files=6)


def _journal(repo: Path, git_dir: Path | None = None) -> tuple[Path, list[dict]]:
    where = next((git_dir or repo / ".git").joinpath("holon-apply").iterdir())
    return where, json.loads((where / "journal.json").read_bytes())["entries"]


def _killed_with_journal(sc: Scenario, repo: Path, make: object = None,
                         git_dir: Path | None = None) -> int:
    """Kill the apply at the first step where its journal is left (recreating the
    repository with ``make`` before each try, else as a fresh copy); the step."""
    at = 1
    while True:
        if make is None:
            sc.fresh(repo)
        else:
            make()  # type: ignore[operator]
        assert killed_child(repo, sc.patch, at), "the apply finished before its journal"
        if journals.pending(str(git_dir or repo / ".git")):
            return at
        at += 1


@pytest.mark.slow
def test_old_files_are_kept_by_links_on_one_filesystem(scenario: Scenario, tmp_path: Path):
    repo = tmp_path / "r"
    _killed_with_journal(scenario, repo)
    where, entries = _journal(repo)
    olds = [(n, e) for n, e in enumerate(entries) if e["before_stat"] or e["before_sha"]]
    assert olds and all(e["before_stat"] and e["before_sha"] is None for _, e in olds)
    assert (where / journal.PREIMAGES).read_bytes() == b""
    for number, entry in olds:
        linked = os.lstat(where / journal.linked_name(number))
        assert journal.file_stat(linked) == entry["before_stat"]
        assert linked.st_nlink == 2  # the old file is still at its path: the same inode
        assert os.lstat(repo / entry["path"]).st_ino == linked.st_ino
    assert len(recover(repo)["journals"]) == 1  # type: ignore[arg-type]
    assert snapshot(repo) == scenario.old and not journal_dir(repo).exists()


@pytest.fixture
def elsewhere() -> Iterator[Path]:
    """A directory on another filesystem than the test's temporary directory."""
    if not SHM.is_dir():
        pytest.skip("no /dev/shm here to put a git directory on another filesystem")
    where = SHM / f"holon-git-test-{uuid.uuid4().hex}"
    where.mkdir()
    try:
        yield where
    finally:
        shutil.rmtree(where, ignore_errors=True)


def _split_copy(sc: Scenario, repo: Path, git_dir: Path) -> None:
    """The scenario's repository at ``repo``, its git directory at ``git_dir`` (a gitfile
    points to it)."""
    for stale in (repo, git_dir):
        if stale.exists():
            shutil.rmtree(stale)
    shutil.copytree(sc.template, repo, symlinks=True)
    shutil.move(str(repo / ".git"), git_dir)
    (repo / ".git").write_text(f"gitdir: {git_dir}\n")


def test_old_files_are_copied_where_links_fail(scenario: Scenario, tmp_path: Path,
                                               elsewhere: Path):
    repo, git_dir = tmp_path / "r", elsewhere / "git"
    _split_copy(scenario, repo, git_dir)
    if os.stat(repo).st_dev == os.stat(elsewhere).st_dev:
        pytest.skip("/dev/shm is on the same filesystem as the temporary directory here")
    _killed_with_journal(scenario, repo, lambda: _split_copy(scenario, repo, git_dir), git_dir)
    where, entries = _journal(repo, git_dir)
    olds = [e for e in entries if e["before_stat"] or e["before_sha"]]
    assert olds and all(e["before_sha"] and e["before_stat"] is None for e in olds)
    saved = (where / journal.PREIMAGES).read_bytes()
    for entry in olds:
        content = saved[entry["offset"]:entry["offset"] + entry["size"]]
        assert content == (scenario.template / entry["path"]).read_bytes()
    assert not [name for name in os.listdir(where) if name.startswith("pre-")]
    assert len(recover(repo)["journals"]) == 1  # type: ignore[arg-type]
    assert _tree(repo) == scenario.old and not (git_dir / "holon-apply").exists()
    # and a whole apply there goes through, leaving no journal
    receipt = apply_patch(scenario.patch, repo)
    assert receipt.ok, receipt.error
    assert _tree(repo) == scenario.new and not (git_dir / "holon-apply").exists()


def _tree(repo: Path) -> dict:
    """The snapshot of a working tree whose .git is a file pointing elsewhere, without it."""
    return {k: v for k, v in snapshot(repo).items() if k != ".git"}


@pytest.mark.slow
def test_a_file_the_apply_never_replaced_keeps_an_edit_made_after_the_crash(
        scenario: Scenario, tmp_path: Path):
    """Its link is the very file at its path, so an edit there changes the link too: the
    apply never touched that path, and the edit is the user's. The rest is put back."""
    repo = tmp_path / "r"
    _killed_with_journal(scenario, repo)
    _, entries = _journal(repo)
    untouched = next(e["path"] for e in entries if e["before_stat"] and (
        (repo / e["path"]).read_bytes() == (scenario.template / e["path"]).read_bytes()))
    with open(repo / untouched, "ab") as fh:  # in place: the same inode
        fh.write(b"the user's own line\n")
    assert len(recover(repo)["journals"]) == 1  # type: ignore[arg-type]
    expected = dict(scenario.old)
    after = snapshot(repo)
    assert after[untouched] != expected.pop(untouched)
    assert (repo / untouched).read_bytes().endswith(b"the user's own line\n")
    assert {k: v for k, v in after.items() if k != untouched} == expected


@pytest.mark.slow
def test_a_file_with_a_link_of_its_own_is_copied(scenario: Scenario, tmp_path: Path):
    """A file hard-linked elsewhere (a backup made with cp -al) is copied into the journal:
    a journal's link must be the old file's only name once it is replaced (a link to a file
    with other names is what a forged journal would plant), and the other name keeps its
    content, as ever."""
    repo = tmp_path / "r"
    linked = next(p for p in scenario.old if p.endswith(".txt")
                  and scenario.new.get(p) not in (None, scenario.old[p]))
    backup = tmp_path / "backup.txt"

    def make() -> None:
        scenario.fresh(repo)
        backup.unlink(missing_ok=True)
        os.link(repo / linked, backup)

    _killed_with_journal(scenario, repo, make)
    _, entries = _journal(repo)
    (entry,) = [e for e in entries if e["path"] == linked]
    assert entry["before_sha"] and entry["before_stat"] is None
    assert all(e["before_stat"] for e in entries if e["before_sha"] and e["path"] != linked)
    assert len(recover(repo)["journals"]) == 1  # type: ignore[arg-type]
    assert snapshot(repo) == scenario.old
    assert backup.read_bytes() == (scenario.template / linked).read_bytes()


def _replaced_entry(sc: Scenario, repo: Path) -> tuple[Path, int, dict]:
    """Kill the apply once a file it modifies holds its new content (its old file then lives
    on only as the journal's link); the journal's directory, the entry's number and entry."""
    at = _killed_with_journal(sc, repo)
    while True:
        where, entries = _journal(repo)
        for number, entry in enumerate(entries):
            path = repo / entry["path"]
            if entry["before_stat"] and path.exists() and path.stat().st_ino != os.lstat(
                    where / journal.linked_name(number)).st_ino:
                return where, number, entry
        at += 1
        sc.fresh(repo)
        assert killed_child(repo, sc.patch, at), "the apply finished before such a point"


def _refused_unchanged(repo: Path) -> None:
    before = snapshot(repo)
    with pytest.raises(PatchError) as caught:
        recover(repo)
    assert caught.value.code == "journal_invalid", caught.value
    assert snapshot(repo) == before and journals.pending(str(repo / ".git"))


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["removed", "a symbolic link", "written to"])
def test_a_link_that_is_not_the_saved_old_file_is_refused(scenario: Scenario, tmp_path: Path,
                                                          damage: str):
    repo = tmp_path / "r"
    where, number, _ = _replaced_entry(scenario, repo)
    linked = where / journal.linked_name(number)
    if damage == "removed":
        linked.unlink()
    elif damage == "a symbolic link":
        secret = tmp_path / "secret.txt"
        secret.write_bytes(b"not for the working tree\n")
        linked.unlink()
        linked.symlink_to(secret)
    else:
        with open(linked, "ab") as fh:
            fh.write(b"more\n")
    _refused_unchanged(repo)


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user takes root")
def test_another_users_file_is_copied_and_a_link_to_one_is_refused(scenario: Scenario,
                                                                   tmp_path: Path):
    """A file someone else owns is copied into the journal, not linked; and a link to
    someone else's file (a forged journal's, which would copy out what its maker could not
    read) is refused."""
    repo = tmp_path / "other"
    theirs = next(p for p in scenario.old if p.endswith(".txt")
                  and scenario.new.get(p) not in (None, scenario.old[p]))
    at = 1
    while True:
        scenario.fresh(repo)
        os.chown(repo / theirs, 12345, 12345)  # a copy of the tree would be root's again
        assert killed_child(repo, scenario.patch, at), "the apply finished before its journal"
        if journals.pending(str(repo / ".git")):
            break
        at += 1
    _, entries = _journal(repo)
    (mine,) = [e for e in entries if e["path"] == theirs]
    assert mine["before_sha"] and mine["before_stat"] is None
    assert all(e["before_stat"] for e in entries if e["before_sha"] and e["path"] != theirs)
    assert len(recover(repo)["journals"]) == 1  # type: ignore[arg-type]

    repo = tmp_path / "r"
    where, number, _ = _replaced_entry(scenario, repo)
    os.chown(where / journal.linked_name(number), 12345, 12345)
    _refused_unchanged(repo)
