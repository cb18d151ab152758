"""How a modified file takes its new content: by a rename over it, or (once a process has
replaced enough files for loading ctypes to pay off) by exchanging it with the staged file
through renameat2 and unlinking the old one. Both must leave the same tree.

The kill, Ctrl-C and failure of every step of both ways are in tests/security.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

import pytest
from repos.builders import make_repo, snapshot

from holon_git import apply_patch
from holon_git.fs import tree as fstree

FILES = {"a.txt": "a1\na2\na3\n", "bin/run": "#!/bin/sh\necho 1\n", "b.txt": "b1\nb2\n"}
PATCH = ("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a1\n-a2\n+A2\n a3\n"
         "--- a/bin/run\n+++ b/bin/run\n@@ -1,2 +1,2 @@\n #!/bin/sh\n-echo 1\n+echo 2\n")
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="renameat2 is Linux's")


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return FILES


@pytest.fixture
def repo(repo: Path) -> Path:
    """The shared repository, with bin/run made executable after the commit."""
    (repo / "bin" / "run").chmod(0o755)
    return repo


def expected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The tree the plain rename gives."""
    probe = make_repo(tmp_path / "probe", FILES)
    (probe / "bin" / "run").chmod(0o755)
    with monkeypatch.context() as patched:
        patched.setattr(fstree, "_PAYS_OFF_AFTER", 10**9)
        patched.setattr(fstree, "_renameat2", None)
        assert apply_patch(PATCH, probe).ok
    return snapshot(probe)


def exchange_on(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Turn the exchange on; returns what each fstree.exchange call answered."""
    monkeypatch.setattr(fstree, "_PAYS_OFF_AFTER", 0)
    monkeypatch.setattr(fstree, "_renameat2", None)
    monkeypatch.setattr(fstree, "_unavailable", False)
    answers: list[bool] = []
    real = fstree.exchange

    def spy(*args: object) -> bool:
        answers.append(real(*args))  # type: ignore[arg-type]
        return answers[-1]

    monkeypatch.setattr(fstree, "exchange", spy)
    return answers


@linux_only
def test_the_exchange_gives_the_tree_a_rename_gives(repo: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch):
    want = expected(tmp_path, monkeypatch)
    old_inode = (repo / "a.txt").stat().st_ino
    answers = exchange_on(monkeypatch)
    assert apply_patch(PATCH, repo).ok
    assert answers == [True, True]  # both files went in by exchange
    assert snapshot(repo) == want  # contents, modes, and no temporary file left beside them
    assert (repo / "a.txt").stat().st_ino != old_inode  # a new file, not rewritten in place
    assert stat.S_IMODE((repo / "bin" / "run").stat().st_mode) & 0o111


@linux_only
def test_a_filesystem_without_the_exchange_falls_back_to_rename(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    want = expected(tmp_path, monkeypatch)
    answers = exchange_on(monkeypatch)
    calls: list[bytes] = []

    def refusing(src: bytes, dst: bytes, dir_fd: int) -> int:
        calls.append(dst)
        return errno.EINVAL  # what renameat2 answers where the filesystem lacks the flag

    fstree.exchange_pays_off(0)  # load it, then stand in for the filesystem
    monkeypatch.setattr(fstree, "_renameat2", refusing)
    assert apply_patch(PATCH, repo).ok
    assert snapshot(repo) == want
    assert calls == [b"a.txt"] and answers == [False, False]  # asked once, then not again
    assert fstree._unavailable


@linux_only
def test_an_exchange_that_fails_leaves_the_tree_as_it_was(repo: Path,
                                                          monkeypatch: pytest.MonkeyPatch):
    before = snapshot(repo)
    exchange_on(monkeypatch)
    fstree.exchange_pays_off(0)
    real = fstree._renameat2
    assert real is not None
    calls = []

    def second_fails(src: bytes, dst: bytes, dir_fd: int) -> int:
        calls.append(dst)
        return errno.EIO if len(calls) == 2 else real(src, dst, dir_fd)

    monkeypatch.setattr(fstree, "_renameat2", second_fails)
    receipt = apply_patch(PATCH, repo)
    assert receipt.error is not None and receipt.error.code == "io_error"
    assert os.strerror(errno.EIO) in receipt.error.message
    assert len(calls) == 2  # the first file was exchanged, then undone
    assert snapshot(repo) == before


def test_the_exchange_loads_once_enough_files_were_replaced(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(fstree, "_PAYS_OFF_AFTER", 16)
    monkeypatch.setattr(fstree, "_replaced", 0)
    monkeypatch.setattr(fstree, "_renameat2", None)
    monkeypatch.setattr(fstree, "_unavailable", False)
    assert not fstree.exchange_pays_off(10)
    assert fstree._renameat2 is None  # ctypes not loaded for a few files
    loaded = fstree.exchange_pays_off(6)
    assert loaded == (fstree._renameat2 is not None)
    if sys.platform.startswith("linux"):
        assert loaded


@pytest.mark.parametrize("leftover", ["file", "none"])
def test_a_staged_file_replaces_a_leftover_of_its_name(tmp_path: Path, leftover: str):
    """Staging creates its temporary file exclusively; a leftover of the same name (a killed
    apply's) is removed and the file made again, with the new content and permissions."""
    root = tmp_path / "w"
    (root / "d").mkdir(parents=True)
    if leftover == "file":
        (root / "d" / ".holon-x.tmp").write_bytes(b"stale content, longer than the new\n")
        (root / "d" / ".holon-x.tmp").chmod(0o600)
    with fstree.Tree(str(root)) as tree:
        tree.write_new("d", ".holon-x.tmp", b"new\n", 0o755, sync=False)
    written = root / "d" / ".holon-x.tmp"
    assert written.read_bytes() == b"new\n"
    assert stat.S_IMODE(written.stat().st_mode) == 0o755
    assert sorted(os.listdir(root / "d")) == [".holon-x.tmp"]
