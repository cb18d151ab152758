"""--recover does not trust the crash journal: a forged one is refused, changing nothing.

Anyone who can write into .git can leave a journal under .git/holon-apply/, and recovery
writes, deletes and renames what it names. Every case plants one in a repository inside a
sentinel directory (sandbox.py) and checks that `--recover` refuses with `journal_invalid`
(library and CLI: exit 1, a coded error, a JSON refusal, no traceback), and that nothing
under the sentinel changed: not the secret outside, not .git/hooks, not the journal itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from repos.builders import git, make_repo
from sandbox import SECRET, Sandbox

from holon_git import apply_patch
from holon_git.errors import PatchError
from holon_git.fs import journal
from holon_git.recover import recover

TXID = "1700000000-4242-deadbeef"
EVIL = b"#!/bin/sh\necho PWNED\n"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def entry(path: str, before: bytes | None = EVIL, after: bytes | None = None,
          **overrides: object) -> dict[str, object]:
    made: dict[str, object] = {
        "path": path, "before_sha": sha(before) if before is not None else None,
        "after_sha": sha(after) if after is not None else None, "perm": 0o755, "offset": 0,
        "size": len(before) if before is not None else 0}
    made.update(overrides)
    return made


def record(entries: list[dict[str, object]], **overrides: object) -> dict[str, object]:
    """A version 1 journal (what holon-git wrote before ``after_stat``; still recovered)."""
    made: dict[str, object] = {"txid": TXID, "entries": entries, "new_dirs": [], "root": "",
                               "pid": 4242, "created": 1.0, "version": 1}
    made.update(overrides)
    return made


def record2(entries: list[dict[str, object]], **overrides: object) -> dict[str, object]:
    """A version 2 journal: every entry also has ``after_stat`` (None unless given)."""
    return record([{"after_stat": None, **e} for e in entries], version=2, **overrides)


def record3(entries: list[dict[str, object]], **overrides: object) -> dict[str, object]:
    """A version 3 journal: every entry also has ``before_stat`` (None unless given)."""
    return record([{"after_stat": None, "before_stat": None, **e} for e in entries],
                  version=3, **overrides)


def plant(repo: Path, journal: dict[str, object] | bytes | None,
          preimages: bytes = EVIL, txid: str = TXID,
          mark: dict[str, object] | None = None) -> Path:
    where = repo / ".git" / "holon-apply" / txid
    where.mkdir(parents=True)
    (where / "preimages").write_bytes(preimages)
    if journal is not None:
        raw = journal if isinstance(journal, bytes) else json.dumps(journal).encode()
        (where / "journal.json").write_bytes(raw)
    if mark is not None:
        (where / "commit-point.json").write_text(json.dumps(mark))
    return where


def refused_everywhere(box: Sandbox, cli: bool = False) -> PatchError:
    """The library (and with ``cli`` the CLI) refuses with journal_invalid; nothing under the
    sentinel changes."""
    before = box.state()
    with pytest.raises(PatchError) as caught:
        recover(box.repo)
    assert caught.value.code == "journal_invalid", caught.value
    assert box.state() == before
    if not cli:
        return caught.value
    done = subprocess.run([sys.executable, "-m", "holon_git", "--recover", "--json"],
                          cwd=box.repo, capture_output=True, timeout=60)
    assert done.returncode == 1, done
    assert b"Traceback" not in done.stderr and b"error: journal_invalid:" in done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "journal_invalid"
    assert box.state() == before
    return caught.value


@pytest.fixture
def box(tmp_path: Path) -> Sandbox:
    return Sandbox.make(tmp_path)


@pytest.mark.parametrize("path", [
    "../outside/secret.txt", "../escaped.txt", ".git/hooks/pre-commit", ".GIT/config",
    "/tmp/holon-forged", "a/../../outside/secret.txt", "./f.txt", "a//b", "~/x", "",
    "sub/.git/config", "f\x1b.txt"])
def test_paths_are_held_to_the_patch_path_policy(box: Sandbox, path: str):
    # 'after' is what is there now, so the old recovery went on to write the 'before'
    plant(box.repo, record([entry(path, after=SECRET)]))
    refused_everywhere(box, cli=path in ("../outside/secret.txt", ".git/hooks/pre-commit"))
    assert (box.outside / "secret.txt").read_bytes() == SECRET
    assert not (box.repo / ".git" / "hooks" / "pre-commit").exists()


def test_an_entry_deleting_a_file_outside(box: Sandbox):
    """after_sha naming the secret's content: the old code removed it as 'created by the
    apply'."""
    plant(box.repo, record([entry("../outside/secret.txt", before=None, after=SECRET)]))
    refused_everywhere(box)


def test_a_new_directory_outside(box: Sandbox):
    (box.outside / "empty").mkdir()
    plant(box.repo, record([entry("f.txt")], new_dirs=["../outside/empty"]))
    refused_everywhere(box)
    assert (box.outside / "empty").is_dir()


def test_a_path_through_a_symbolic_link(tmp_path: Path):
    box = Sandbox.make(tmp_path, symlinks={"out": "../outside"})
    plant(box.repo, record([entry("out/secret.txt")]))
    err = refused_everywhere(box)
    assert err.details["refused"] == "path_escape"


def test_the_git_dir_under_another_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """GIT_DIR=.cfg inside the tree: '.cfg/hooks/pre-commit' is normal in form but lands in
    the git directory."""
    sentinel = tmp_path / "sentinel"
    tree = sentinel / "home"
    tree.mkdir(parents=True)
    git(tree, "init", "-q", "--bare", "-b", "main", ".cfg")
    monkeypatch.setenv("GIT_DIR", str(tree / ".cfg"))
    monkeypatch.setenv("GIT_WORK_TREE", str(tree))
    (tree / ".cfg" / "holon-apply" / TXID).mkdir(parents=True)
    (tree / ".cfg" / "holon-apply" / TXID / "preimages").write_bytes(EVIL)
    (tree / ".cfg" / "holon-apply" / TXID / "journal.json").write_text(
        json.dumps(record([entry(".cfg/hooks/pre-commit")])))
    with pytest.raises(PatchError) as caught:
        recover(tree)
    assert caught.value.code == "journal_invalid"
    assert not (tree / ".cfg" / "hooks" / "pre-commit").exists()


MALFORMED = {
    "not_json": b"{not json",
    "a_list": b"[1, 2]",
    "entries_not_a_list": record(5),  # type: ignore[arg-type]
    "entry_not_an_object": record(["f.txt"]),  # type: ignore[list-item]
    "entry_missing_fields": record([{"path": "f.txt"}]),
    "extra_field": record([entry("f.txt")], command="rm -rf /"),
    "path_not_a_string": record([entry(7)]),  # type: ignore[arg-type]
    "bad_checksum": record([entry("f.txt", before_sha="zz")]),
    "neither_old_nor_new": record([entry("f.txt", before=None)]),
    "perm_not_a_number": record([entry("f.txt", perm="0755")]),
    "perm_out_of_range": record([entry("f.txt", perm=0o100755)]),
    "negative_offset": record([entry("f.txt", offset=-1)]),
    "beyond_the_preimages": record([entry("f.txt", size=10_000)]),
    "duplicate_path": record([entry("f.txt"), entry("f.txt")]),
    "unknown_version": record([entry("f.txt")], version=99),
    "another_txid": record([entry("f.txt")], txid="1-1-00000000"),
    "new_dirs_not_a_list": record([entry("f.txt")], new_dirs="../outside"),
    "deeply_nested": b"[" * 100_000 + b"]" * 100_000,
    "v2_stat_not_a_list": record2([entry("f.txt", after_stat="1,2,3")]),
    "v2_stat_too_short": record2([entry("f.txt", after_stat=[1, 2])]),
    "v2_stat_negative": record2([entry("f.txt", after_stat=[-1, 2, 3])]),
    "v2_stat_too_large": record2([entry("f.txt", after_stat=[1 << 64, 2, 3])]),
    "v2_stat_of_booleans": record2([entry("f.txt", after_stat=[True, 2, 3])]),
    "v2_new_content_proven_twice": record2([entry("f.txt", after=b"x\n",
                                                  after_stat=[1, 2, 3])]),
    "v2_entry_without_after_stat": record([entry("f.txt")], version=2),
    "v1_entry_with_after_stat": record([entry("f.txt", after_stat=[1, 2, 3])]),
    "v2_neither_old_nor_new": record2([entry("f.txt", before=None)]),
    "version_a_string": record([entry("f.txt")], version="1"),
    "v3_old_stat_too_short": record3([entry("f.txt", before=None, before_stat=[1, 2])]),
    "v3_old_content_saved_twice": record3([entry("f.txt", before_stat=[1, 2, 3])]),
    "v3_entry_without_before_stat": record([{"after_stat": None, **entry("f.txt")}],
                                           version=3),
    "v2_entry_with_before_stat": record2([entry("f.txt", before_stat=[1, 2, 3])]),
    "v3_link_missing": record3([entry("f.txt", before=None, before_stat=[1, 2, 3])]),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_journals(box: Sandbox, name: str):
    plant(box.repo, MALFORMED[name])  # type: ignore[arg-type]
    refused_everywhere(box, cli=name in ("not_json", "deeply_nested", "entries_not_a_list"))


@pytest.mark.parametrize("how", ["a hard link", "a symbolic link"])
def test_a_saved_old_file_linked_to_a_file_outside_is_not_copied_in(box: Sandbox, how: str):
    """A forged version 3 journal whose old file ``pre-0`` is the secret outside, with the
    stat it names: recovery would write the secret into f.txt (with the permissions the
    journal names). A hard link is the user's own file with another name, which the journal's
    own links never have once their path was replaced; a symbolic link is never followed."""
    secret = box.outside / "secret.txt"
    st = os.stat(secret)
    where = plant(box.repo, record3([entry("f.txt", before=None, after=b"one\ntwo\nthree\n",
                                           before_stat=[st.st_ino, st.st_size,
                                                        st.st_mtime_ns], perm=0o644)]),
                  preimages=b"")
    if how == "a hard link":
        os.link(secret, where / "pre-0")
    else:
        os.symlink(secret, where / "pre-0")
    refused_everywhere(box, cli=True)
    assert (box.repo / "f.txt").read_bytes() == b"one\ntwo\nthree\n"


@pytest.mark.parametrize("what", ["journal.json", "preimages", "commit-point.json"])
def test_symbolic_links_in_the_journal(box: Sandbox, what: str):
    where = plant(box.repo, record([entry("f.txt")]))
    if what == "commit-point.json":
        os.symlink(box.outside / "secret.txt", where / what)
    else:
        (where / what).unlink()
        os.symlink(box.outside / "secret.txt", where / what)
    refused_everywhere(box, cli=what == "journal.json")


def test_a_fifo_as_journal_does_not_hang(box: Sandbox):
    where = plant(box.repo, None)
    os.mkfifo(where / "journal.json")
    try:  # the CLI first, with a timeout: the old recovery blocked opening the FIFO
        done = subprocess.run([sys.executable, "-m", "holon_git", "--recover"],
                              cwd=box.repo, capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("--recover hung on a FIFO in the journal")
    assert b"error: journal_invalid:" in done.stderr, done
    refused_everywhere(box, cli=True)


def test_a_symlinked_journal_directory_or_base(box: Sandbox):
    base = box.repo / ".git" / "holon-apply"
    elsewhere = box.outside / "journals" / TXID
    elsewhere.mkdir(parents=True)
    (elsewhere / "journal.json").write_text(json.dumps(record([entry("f.txt")])))
    base.mkdir()
    os.symlink(elsewhere, base / TXID)
    refused_everywhere(box)
    (base / TXID).unlink()
    base.rmdir()
    os.symlink(box.outside / "journals", base)
    refused_everywhere(box)
    # a plain apply refuses too, coded, rather than reading journals through the link
    receipt = apply_patch("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-one\n+ONE\n two\n",
                          box.repo)
    assert receipt.error is not None and receipt.error.code == "journal_invalid"


def commit_point(box: Sandbox, **overrides: object) -> dict[str, object]:
    head = git(box.repo, "rev-parse", "HEAD").strip()
    mark: dict[str, object] = {"index": str(box.repo / ".git" / "index"),
                               "index_sha256": sha(b"new index"), "ref": "refs/heads/main",
                               "commit": head, "scratch": None}
    mark.update(overrides)
    return mark


def test_a_commit_point_naming_another_file_renames_nothing(box: Sandbox):
    """The old recovery renamed '<index>.lock' over '<index>' for whatever 'index' said."""
    (box.outside / "secret.txt.lock").write_bytes(b"new index")
    plant(box.repo, record([entry("f.txt")]),
          mark=commit_point(box, index=str(box.outside / "secret.txt")))
    refused_everywhere(box, cli=True)
    assert (box.outside / "secret.txt").read_bytes() == SECRET


@pytest.mark.parametrize("overrides", [
    {"scratch": "/tmp/elsewhere"}, {"ref": "HEAD"}, {"ref": "--upload-pack=x"},
    {"commit": "not a commit"}, {"index_sha256": 5}, {"extra": 1},
])
def test_malformed_commit_points(box: Sandbox, overrides: dict[str, object]):
    plant(box.repo, record([entry("f.txt")]), mark=commit_point(box, **overrides))
    refused_everywhere(box)


def test_one_forged_journal_stops_the_good_one_too(box: Sandbox):
    """Every journal is checked before any is acted on: a genuine one (f.txt half written)
    is not restored while a forged one sits beside it."""
    old, new = (box.repo / "f.txt").read_bytes(), b"half written\n"
    (box.repo / "f.txt").write_bytes(new)
    good = record([entry("f.txt", before=old, after=new, perm=0o644)],
                  txid="1700000001-4243-cafef00d", created=2.0)
    plant(box.repo, good, preimages=old, txid="1700000001-4243-cafef00d")
    plant(box.repo, record([entry("../outside/secret.txt")]))
    refused_everywhere(box)
    assert (box.repo / "f.txt").read_bytes() == new


def test_a_genuine_journal_still_recovers(box: Sandbox):
    old, new = (box.repo / "f.txt").read_bytes(), b"half written\n"
    (box.repo / "f.txt").write_bytes(new)
    plant(box.repo, record([entry("f.txt", before=old, after=new, perm=0o644)]),
          preimages=old)
    done = recover(box.repo)
    assert done["journals"] == [TXID] and done["restored"] == ["f.txt"]
    assert (box.repo / "f.txt").read_bytes() == old
    assert not (box.repo / ".git" / "holon-apply").exists()


@pytest.mark.parametrize("edited", [False, True])
def test_a_journal_naming_the_staged_file_by_its_stat(box: Sandbox, edited: bool):
    """Version 2: the file at the path is the apply's staged file when its inode, size and
    mtime are the journal's; any other file there is someone's later edit."""
    path = box.repo / "f.txt"
    old, new = path.read_bytes(), b"the apply's new content\n"
    path.write_bytes(new)
    staged = journal.file_stat(os.lstat(path))
    if edited:  # same size, another inode: an editor's save
        (box.repo / "f.swp").write_bytes(new.upper())
        os.replace(box.repo / "f.swp", path)
    plant(box.repo, record2([entry("f.txt", before=old, perm=0o644, after_stat=staged)]),
          preimages=old)
    if edited:
        before = box.state()
        with pytest.raises(PatchError) as caught:
            recover(box.repo)
        assert caught.value.code == "stale_file" and box.state() == before
        return
    done = recover(box.repo)
    assert done["journals"] == [TXID] and done["restored"] == ["f.txt"]
    assert path.read_bytes() == old
    assert not (box.repo / ".git" / "holon-apply").exists()


def test_a_journal_from_another_index_file_is_accepted_when_it_is_git_index_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A hook's apply journals GIT_INDEX_FILE as its index: that one is the repository's
    own while GIT_INDEX_FILE names it."""
    repo = make_repo(tmp_path / "r", {"f.txt": "one\n"})
    other = repo / ".git" / "hook-index"
    other.write_bytes((repo / ".git" / "index").read_bytes())
    head = git(repo, "rev-parse", "HEAD").strip()
    mark = {"index": str(other), "index_sha256": sha(other.read_bytes()), "ref":
            "refs/heads/main", "commit": head, "scratch": None}
    plant(repo, record([entry("f.txt", before=b"one\n", after=b"one\n", perm=0o644)]),
          preimages=b"one\n", mark=mark)
    with pytest.raises(PatchError) as caught:
        recover(repo)
    assert caught.value.code == "journal_invalid"
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    assert recover(repo)["completed"] == [TXID]
