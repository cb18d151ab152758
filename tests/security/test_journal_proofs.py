"""How a crash journal proves what a path will hold, and how --recover uses the proof.

A large patch stages its files before its journal is written, and the journal names each
staged file by its inode, size and mtime (``after_stat``) instead of the sha256 of its
content; only a file in a directory the apply makes is staged after the journal and hashed
(``after_sha``). Recovery must then still tell the apply's new content (put the old one
back) from a later edit of someone's (refuse, stale_file, change nothing).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from crashkit import Scenario, journal_dir, killed_child
from repos.builders import snapshot

from holon_git.errors import PatchError
from holon_git.fs import journal, transaction
from holon_git.fs import journal_dir as journals
from holon_git.recover import recover


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    """More files than early staging needs; several in new directories (new/n*/added.txt,
    moved/)."""
    return Scenario.make(tmp_path_factory.mktemp("proofs"), files=transaction.PARALLEL_STAGING
                         + 8)


def _entries(repo: Path) -> tuple[dict[str, object], list[dict[str, object]]]:
    where = next(journal_dir(repo).iterdir())
    data = json.loads((where / "journal.json").read_bytes())
    return data, data["entries"]


def _in_place(repo: Path, entry: dict[str, object]) -> bool:
    """Whether the entry's staged file has been renamed into its path."""
    try:
        st = os.lstat(repo / str(entry["path"]))
    except FileNotFoundError:
        return False
    return journal.file_stat(st) == entry["after_stat"]


_FOUND: dict[str, int] = {}


def killed_after_a_staged_file_is_in_place(sc: Scenario, repo: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> dict:
    """Kill the apply at the first step where its journal is left and a modified file
    holds its staged new content; that file's journal entry."""
    monkeypatch.setattr(transaction, "_BATCH", 2000)  # megabytes for real; these are small
    at = _FOUND.get("at", 0)  # where an earlier test found such a point (threads may vary it)
    while True:
        at += 1 if "at" in _FOUND else 5
        sc.fresh(repo)
        assert killed_child(repo, sc.patch, at), "the apply finished before such a point"
        if not journals.pending(str(repo / ".git")):
            continue
        _, entries = _entries(repo)
        placed = [e for e in entries if (e["before_sha"] or e["before_stat"])
                  and e["after_stat"] and _in_place(repo, e)]
        if placed:
            _FOUND.setdefault("at", at - 1)
            return placed[0]


@pytest.mark.slow
def test_staged_files_are_named_by_stat_and_files_of_new_directories_by_hash(
        large: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    repo = tmp_path / "r"
    killed_after_a_staged_file_is_in_place(large, repo, monkeypatch)
    data, entries = _entries(repo)
    assert data["version"] == journal.VERSION == 3
    new = [e for e in entries if e["after_sha"] or e["after_stat"]]
    old_dirs = {os.path.dirname(path) for path in large.old}
    in_new_dirs = [e for e in new if os.path.dirname(str(e["path"])) not in old_dirs]
    assert in_new_dirs and all(e["after_sha"] and e["after_stat"] is None for e in in_new_dirs)
    others = [e for e in new if e not in in_new_dirs]
    assert others and all(e["after_stat"] and e["after_sha"] is None for e in others)
    assert all(e["after_sha"] is None and e["after_stat"] is None
               for e in entries if e not in new)  # deleted or renamed away
    assert len(recover(repo)["journals"]) == 1  # type: ignore[arg-type]
    assert snapshot(repo) == large.old


@pytest.mark.parametrize("edit", ["in place, another size", "saved as a new file, same size"])
def test_an_edit_of_a_staged_file_after_the_crash_is_not_undone(
        large: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: str):
    """The staged file is in place when the apply dies; the user then edits it. Its stat no
    longer matches the journal's, so --recover refuses and changes nothing; once the edit is
    moved aside (the old content put back by hand), recovery completes."""
    repo = tmp_path / "r"
    victim = killed_after_a_staged_file_is_in_place(large, repo, monkeypatch)
    path = repo / str(victim["path"])
    staged = path.read_bytes()
    if edit == "in place, another size":
        with open(path, "ab") as fh:
            fh.write(b"the user's own line\n")
    else:  # an editor's save: a new file renamed over the old one
        twin = path.with_name(path.name + ".swp")
        twin.write_bytes(staged.upper())
        assert len(staged.upper()) == len(staged)
        os.replace(twin, path)
    before = snapshot(repo)
    with pytest.raises(PatchError) as caught:
        recover(repo)
    assert caught.value.code == "stale_file" and caught.value.path == victim["path"]
    assert snapshot(repo) == before and journals.pending(str(repo / ".git"))
    path.write_bytes((large.template / str(victim["path"])).read_bytes())
    assert len(recover(repo)["journals"]) == 1  # type: ignore[arg-type]
    assert snapshot(repo) == large.old
