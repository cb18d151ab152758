"""No tracebacks: deep paths, libgit2's own failures and a concurrent `git gc` end as applied
patches or coded refusals that changed nothing, and `--json` always prints a receipt.

* Paths of 1,000 and more components (a RecursionError while planning, once) apply on every
  target, and --recover walks such a tree.
* libgit2 reports an OS-level failure (``failed to rename lockfile`` while `git gc` prunes,
  a full disk) as an OSError from pygit2: injected into each of its writes (as
  test_faults.py injects OS errors), every target refuses with io_error and changes nothing.
* `git gc --prune=now` run at the worst moment (real git, started from the apply's own hook
  points) prunes the objects an apply has written but not yet referenced: the apply must then
  refuse, never leave an index or a branch naming a pruned object.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pygit2
import pytest
from crashkit import LONG
from gitsupport import everything
from repos.builders import (
    git,
    git_env,
    index_entries,
    lock_files,
    make_bare_repo,
    make_repo,
    snapshot,
)

from holon_git import apply_patch
from holon_git.recover import recover
from holon_git.targets.index import IndexTarget

FILES = {"f.txt": "one\ntwo\nthree\n"}
MODIFY = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
TARGETS = {"worktree": {}, "check": {"check": True}, "index": {"target": "index"},
           "both": {"target": "both"}, "commit": {"commit": True, "message": "m"},
           "commit_cached": {"target": "index", "commit": True, "message": "m"},
           "ref": {"ref": "main", "message": "m"}}


def remove_tree(top: Path) -> None:
    """shutil.rmtree, without recursion: pytest's own clean-up of tmp_path recurses once per
    directory level and fails on the trees these tests make."""
    _DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    stack = [(os.open(top, _DIR), "")]
    while stack:
        fd = stack[-1][0]
        with os.scandir(fd) as entries:
            listed = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
        below = next((name for name, is_dir in listed if is_dir), None)
        for name, is_dir in listed:
            if not is_dir:
                os.unlink(name, dir_fd=fd)
        if below is not None:
            stack.append((os.open(below, _DIR, dir_fd=fd), below))
            continue
        os.close(fd)
        name = stack.pop()[1]
        if stack:
            os.rmdir(name, dir_fd=stack[-1][0])


@pytest.fixture
def deep_tmp(tmp_path: Path) -> Iterator[Path]:
    """A directory for trees thousands of levels deep: on tmpfs where there is one (making
    and removing a directory there costs microseconds, not a disk's milliseconds), and
    removed without recursion afterwards."""
    shm = Path("/dev/shm")
    where = Path(tempfile.mkdtemp(prefix="holon-deep-", dir=shm)) \
        if shm.is_dir() and os.access(shm, os.W_OK) else tmp_path / "deep"
    where.mkdir(exist_ok=True)
    yield where
    remove_tree(where)
    where.rmdir()


def deep(components: int) -> str:
    return "/".join(["d"] * (components - 1)) + "/deep.txt"


def add(path: str, text: str = "deep\n") -> str:
    return f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+{text}"


def fsck(repo: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "fsck", "--connectivity-only", "--no-dangling"], cwd=repo,
                          capture_output=True, env=git_env())


# -- deep paths -------------------------------------------------------------------------------

# ~1,000 components on every target; the most a path may have (4,096 bytes) on one
@pytest.mark.slow
@pytest.mark.parametrize("components, target",
                         [(1000, target) for target in sorted(TARGETS)] + [(2045, "worktree")])
def test_a_path_of_a_thousand_components(deep_tmp: Path, components: int, target: str):
    repo = make_repo(deep_tmp / "r", FILES)
    path = deep(components)
    receipt = apply_patch(add(path), repo, **TARGETS[target])  # type: ignore[arg-type]
    assert receipt.ok, receipt.to_json()
    if target in ("worktree", "both", "commit"):
        assert read_deep(repo, path) == b"deep\n"
    if target in ("index", "both", "commit", "commit_cached"):
        assert path in git(repo, "ls-files")
    if target in ("commit", "commit_cached", "ref"):
        assert path in git(repo, "ls-tree", "-r", "--name-only", "HEAD")
        assert fsck(repo).returncode == 0


def read_deep(root: Path, rel: str) -> bytes:
    """A file's content, reached one directory at a time (its absolute path may be longer
    than the system allows in one call)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    *dirs, name = rel.split("/")
    for part in dirs:
        inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    file_fd = os.open(name, os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    with os.fdopen(file_fd, "rb") as fh:
        return fh.read()


def make_dirs(root: Path, rel: str) -> int:
    """Make ``rel`` below ``root`` one directory at a time (its absolute path may be longer
    than the system allows in one call); returns a descriptor of the deepest."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for name in rel.split("/"):
        with suppress(FileExistsError):
            os.mkdir(name, dir_fd=fd)
        inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    return fd


@pytest.mark.slow
def test_deep_files_modified_renamed_deleted_and_recovered(deep_tmp: Path):
    path = deep(1000)
    repo = make_repo(deep_tmp / "r", FILES)
    assert apply_patch(add(path), repo, commit=True, message="deep").ok
    other = path.replace("deep.txt", "moved.txt")
    patch = (f"diff --git a/{path} b/{other}\nsimilarity index 50%\nrename from {path}\n"
             f"rename to {other}\n--- a/{path}\n+++ b/{other}\n@@ -1 +1 @@\n-deep\n+DEEP\n")
    assert apply_patch(patch, repo, commit=True, message="rename").ok
    assert git(repo, "show", f"HEAD:{other}") == "DEEP\n"
    delete = f"--- a/{other}\n+++ /dev/null\n@@ -1 +0,0 @@\n-DEEP\n"
    assert apply_patch(delete, repo).ok
    assert not (repo / "d").exists(), "the emptied directories are pruned, as git does"
    # a leftover temporary file of a dead apply, deep down: --recover walks down to it
    name = f".holon-1-{2**22 + 7}-deadbeef-0.tmp"
    fd = make_dirs(repo, os.path.dirname(path))
    os.close(os.open(name, os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    os.close(fd)
    assert recover(repo)["temporaries"] == [f"{os.path.dirname(path)}/{name}"]


def test_cli_json_prints_a_receipt_for_a_deep_path(deep_tmp: Path):
    repo = make_repo(deep_tmp / "r", FILES)
    done = subprocess.run([sys.executable, "-m", "holon_git", "--json", "--cached", "-"],
                          cwd=repo, input=add(deep(1500)).encode(), capture_output=True,
                          timeout=60)
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done
    assert json.loads(done.stdout)["status"] == "applied"


# -- libgit2's OS-level failures ---------------------------------------------------------------

def failing(message: str = "failed to rename lockfile to '/x/objects/ab/cdef'"):
    def fail(*args: object, **kwargs: object) -> None:
        raise OSError(message)  # as pygit2 raises a libgit2 error of class GIT_ERROR_OS
    return fail


# the libgit2 writes behind --cached, --commit and --ref, in the order they happen
LIBGIT2_WRITES = [
    (pygit2.Repository, "create_blob"),
    (pygit2.Index, "write_tree"),
    (pygit2.Repository, "create_commit"),
    (pygit2.Index, "write"),
    (pygit2.Repository, "transaction"),
]


@pytest.mark.parametrize("target", ["index", "commit", "commit_cached", "ref"])
@pytest.mark.parametrize("where", [f"{cls.__name__}.{name}" for cls, name in LIBGIT2_WRITES])
def test_libgit2_os_errors_are_coded_and_change_nothing(tmp_path: Path, target: str,
                                                        where: str,
                                                        monkeypatch: pytest.MonkeyPatch):
    repo = make_repo(tmp_path / "r", FILES)
    before = everything(repo)
    cls = pygit2.Repository if where.startswith("Repository") else pygit2.Index
    monkeypatch.setattr(cls, where.split(".")[1], failing())
    receipt = apply_patch(MODIFY, repo, **TARGETS[target])  # type: ignore[arg-type]
    monkeypatch.undo()
    if receipt.ok:  # this target does not make that call
        return
    assert receipt.error is not None and receipt.error.code in ("io_error", "git_error"), \
        receipt.error
    assert everything(repo) == before and lock_files(repo) == []


def test_cli_json_prints_the_receipt_of_a_libgit2_failure(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]):
    from holon_git import cli

    repo = make_repo(tmp_path / "r", FILES)
    patch = tmp_path / "fix.diff"
    patch.write_text(MODIFY)
    monkeypatch.setattr(pygit2.Repository, "create_blob", failing())
    monkeypatch.chdir(repo)
    handler = signal.getsignal(signal.SIGINT)  # cli.main ignores SIGINT once it is over
    try:
        with pytest.raises(SystemExit) as exited:
            cli.main(["--json", "--cached", str(patch)])
    finally:
        signal.signal(signal.SIGINT, handler)
    assert exited.value.code == 1
    out = capsys.readouterr()
    assert json.loads(out.out)["error"]["code"] == "io_error"
    assert "error: io_error:" in out.err


# -- a concurrent git gc --prune=now -------------------------------------------------------------

def gc_now(repo: Path) -> None:
    subprocess.run(["git", "gc", "-q", "--prune=now"], cwd=repo, env=git_env(), check=True,
                   capture_output=True)


@pytest.mark.parametrize("target", ["commit", "commit_cached", "ref"])
def test_gc_between_the_commit_object_and_the_branch_move(tmp_path: Path, target: str):
    """The commit, its tree and blobs exist but nothing names them yet; a gc then prunes
    them. Moving the branch to the pruned commit would break the repository."""
    if target == "ref":
        repo = make_bare_repo(tmp_path / "srv.git", FILES)
    else:
        repo = make_repo(tmp_path / "r", FILES)
    head = git(repo, "rev-parse", "main").strip()
    receipt = apply_patch(MODIFY, repo, on_ref_update=lambda: gc_now(repo),
                          **TARGETS[target])  # type: ignore[arg-type]
    assert receipt.error is not None and receipt.error.code == "git_error", receipt.to_json()
    assert "gc" in receipt.error.message
    assert git(repo, "rev-parse", "main").strip() == head
    assert fsck(repo).returncode == 0, fsck(repo).stderr
    assert lock_files(repo) == []


def test_gc_before_the_index_is_renamed_into_place(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch):
    """--cached: the new blobs are written, a gc prunes them, the index is written: it must
    not be put in place naming blobs that are gone."""
    repo = make_repo(tmp_path / "r", FILES)
    real = IndexTarget.worktree_stats

    def gc_first(self: IndexTarget, plan: object) -> object:
        gc_now(repo)  # while holon-git holds index.lock, as a concurrent gc would run
        return real(self, plan)  # type: ignore[arg-type]

    monkeypatch.setattr(IndexTarget, "worktree_stats", gc_first)
    files, index = snapshot(repo), index_entries(repo)
    receipt = apply_patch(MODIFY, repo, target="index")
    assert receipt.error is not None and receipt.error.code == "git_error", receipt.to_json()
    monkeypatch.undo()
    # (the gc itself packed refs and expired old reflog entries: that is git's doing)
    assert snapshot(repo) == files and index_entries(repo) == index
    assert lock_files(repo) == []
    assert fsck(repo).returncode == 0 and git(repo, "diff", "--cached") == ""


@pytest.mark.skipif(not LONG, reason="HOLON_LONG_TESTS=1: applies racing a real gc loop")
@pytest.mark.parametrize("target", ["index", "ref"])
def test_applies_racing_a_gc_loop(tmp_path: Path, target: str):
    """Real concurrency: `git gc --prune=now` in a loop while 300 patches are applied. Every
    receipt is applied or coded; a refused one changed nothing (the next patch is made
    against what is there); no lock is left; the repository is whole at the end."""
    count = 30
    current = {i: f"{i}\n" for i in range(count)}
    repo = make_repo(tmp_path / "r", {f"f{i}.txt": text for i, text in current.items()})
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            subprocess.run(["git", "gc", "-q", "--prune=now"], cwd=repo, env=git_env(),
                           capture_output=True)

    runner = threading.Thread(target=loop)
    runner.start()
    outcomes: dict[str, int] = {}
    messages: set[str] = set()
    try:
        for n in range(300):
            new = {i: f"{i} {n}\n" for i in current}
            patch = "".join(f"--- a/f{i}.txt\n+++ b/f{i}.txt\n@@ -1 +1 @@\n-{current[i]}"
                            f"+{new[i]}" for i in current)
            options = {"target": "index"} if target == "index" else {"ref": "main",
                                                                       "message": f"n{n}"}
            receipt = apply_patch(patch, repo, **options)  # type: ignore[arg-type]
            if receipt.ok:
                current = new
                outcomes["applied"] = outcomes.get("applied", 0) + 1
            else:
                assert receipt.error is not None
                outcomes[receipt.error.code] = outcomes.get(receipt.error.code, 0) + 1
                messages.add(receipt.error.message[:120])
    finally:
        stop.set()
        runner.join()
    print(f"\n{target} racing gc: {outcomes}\n  " + "\n  ".join(sorted(messages)[:8]))
    assert set(outcomes) <= {"applied", "git_error", "io_error", "index_locked", "ref_locked"}
    assert [lock for lock in lock_files(repo) if lock != "gc.pid"] == []
    done = fsck(repo)
    print(f"  fsck: {done.returncode} {done.stderr[:300]!r}")
