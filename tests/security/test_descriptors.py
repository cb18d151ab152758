"""File descriptors stay bounded, whatever the number of directories a patch touches.

macOS allows a process 256 descriptors by default; holon-git once held one per directory it
touched, so a refactor across 300 directories failed there, and near the limit a refusal left
an empty journal directory in .git. The applies run in a child process with a lowered
RLIMIT_NOFILE (resource.setrlimit), against real repositories.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from crashkit import LONG
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from repos.builders import git, git_env, make_repo, snapshot, snapshot_all

from holon_git import apply_patch
from holon_git.fs import tree as fstree

DIRS = 320


def tree(dirs: int = DIRS) -> dict[str, str]:
    return {f"pkg{i:03d}/mod.py": f"from old_name import thing  # {i}\nvalue = {i}\n"
            for i in range(dirs)}


def refactor(dirs: int = DIRS) -> str:
    """Rename an import in every module, move every tenth, add a file in a new directory of
    each twentieth: the shape of a model's sweeping refactor."""
    parts = []
    for i in range(dirs):
        old = f"pkg{i:03d}/mod.py"
        if i % 10 == 0:
            new = f"moved{i:03d}/mod.py"
            parts.append(f"diff --git a/{old} b/{new}\nsimilarity index 60%\nrename from {old}\n"
                         f"rename to {new}\n")
        else:
            new = old
        parts.append(f"--- a/{old}\n+++ b/{new}\n@@ -1,2 +1,2 @@\n"
                     f"-from old_name import thing  # {i}\n+from new_name import thing  # {i}\n"
                     f" value = {i}\n")
        if i % 20 == 0:
            parts.append(f"--- /dev/null\n+++ b/extra{i:03d}/deep/new.py\n@@ -0,0 +1 @@\n"
                         f"+NEW = {i}\n")
    return "".join(parts)


def limited(limit: int) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_repo(tmp_path_factory.mktemp("fds") / "template", tree())


def fresh(template: Path, where: Path) -> Path:
    import shutil

    shutil.copytree(template, where, symlinks=True)
    git(where, "update-index", "-q", "--refresh", check=False)
    return where


@pytest.mark.slow
@pytest.mark.parametrize("options", [[], ["--index"], ["--commit", "-m", "refactor"]],
                         ids=["worktree", "index", "commit"])
def test_a_refactor_across_300_directories_under_the_macos_limit(template: Path,
                                                                 tmp_path: Path,
                                                                 options: list[str]):
    repo = fresh(template, tmp_path / "r")
    patch = tmp_path / "refactor.diff"
    patch.write_text(refactor())
    done = subprocess.run([sys.executable, "-m", "holon_git", "--json", *options, str(patch)],
                          cwd=repo, capture_output=True, env=git_env(), timeout=120,
                          preexec_fn=lambda: limited(256))
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert json.loads(done.stdout)["status"] == "applied"
    files = snapshot(repo)
    assert len([p for p in files if p.endswith("mod.py")]) == DIRS
    assert all("new_name" in (repo / p).read_text() for p in files if p.endswith("mod.py"))
    assert (repo / "extra300" / "deep" / "new.py").read_text() == "NEW = 300\n"
    assert not (repo / ".git" / "holon-apply").exists()
    if options:
        status = git(repo, "status", "--porcelain", "--untracked-files=all")
        assert status == "" if "--commit" in options else "??" not in status


def test_descriptors_held_stay_bounded(template: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch):
    """Sampled as the apply plans and writes: never more than the tree's bound of directory
    descriptors (made small here, as a low descriptor limit makes it), plus a few for the
    journal and the file being read or written."""
    bound = 16
    monkeypatch.setattr(fstree, "MAX_OPEN_DIRS", bound, raising=False)
    repo = fresh(template, tmp_path / "r")
    baseline = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    if baseline is None:
        pytest.skip("no /proc/self/fd to count open descriptors on this system")
    peak = [0]

    def progress(stage: str, done: int, total: int) -> None:
        peak[0] = max(peak[0], len(os.listdir("/proc/self/fd")) - baseline)

    receipt = apply_patch(refactor(), repo, progress=progress)
    assert receipt.ok, receipt.error
    assert 0 < peak[0] <= bound + 8, peak[0]
    assert all("new_name" in (repo / p).read_text() for p in snapshot(repo)
               if p.endswith("mod.py"))


def _child_apply(repo: Path, patch: str, limit: int, write_fd: int) -> None:
    """In a forked child: apply under ``limit`` descriptors, report the outcome, exit."""
    try:
        limited(limit)
        receipt = apply_patch(patch, repo)
        outcome = {"ok": receipt.ok, "code": receipt.error.code if receipt.error else None,
                   "details": receipt.error.details if receipt.error else None}
    except BaseException as exc:  # report anything, even a traceback's worth
        outcome = {"ok": False, "code": f"uncaught {type(exc).__name__}: {exc}"}
    os.write(write_fd, json.dumps(outcome).encode())
    os._exit(0)


def apply_with_limit(repo: Path, patch: str, limit: int) -> dict[str, object]:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.close(read_fd)
        _child_apply(repo, patch, limit, write_fd)
    os.close(write_fd)
    chunks = []
    while chunk := os.read(read_fd, 65536):
        chunks.append(chunk)
    os.close(read_fd)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks) or b'{"ok": false, "code": "child died"}')


def test_near_the_limit_a_refusal_leaves_nothing_behind(tmp_path: Path):
    """For every limit from just above what the process has open to enough: the apply
    completes, or is refused with io_error (EMFILE) having changed nothing, with no journal
    directory, no temporary file and no lock left."""
    dirs = 40
    template = make_repo(tmp_path / "template", tree(dirs))
    patch = refactor(dirs)
    old = snapshot(template)
    in_use = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 16
    outcomes: dict[str, int] = {}
    completed = False
    for limit in range(in_use + 1, in_use + (400 if LONG else 120)):
        repo = fresh(template, tmp_path / f"r{limit}")
        around = snapshot_all(repo / ".git")
        outcome = apply_with_limit(repo, patch, limit)
        code = "applied" if outcome["ok"] else str(outcome["code"])
        outcomes[code] = outcomes.get(code, 0) + 1
        assert outcome["ok"] or outcome["code"] == "io_error", (limit, outcome)
        assert not (repo / ".git" / "holon-apply").exists(), f"journal left at limit {limit}"
        if not outcome["ok"]:
            assert snapshot(repo) == old, f"limit {limit}: a refusal changed the tree"
            assert snapshot_all(repo / ".git") == around, f"limit {limit}: .git changed"
        else:
            completed = True
            break
    print(f"\noutcomes by descriptor limit: {outcomes}")
    assert completed, "no limit up to 120 above those in use let the apply complete"
    assert outcomes.get("io_error", 0) > 0, "no limit was low enough to refuse"


# -- property: a tree holding a few descriptors writes what an unbounded one writes -------------

@st.composite
def layouts(draw: st.DrawFn) -> tuple[dict[str, str], list[tuple[str, str, str | None]]]:
    """Files in nested directories, and per file an action: modify, delete, rename (into
    another or a new directory) or keep; plus additions in new directories."""
    names = st.sampled_from(["a", "b", "c", "d"])
    paths = draw(st.lists(st.lists(names, min_size=1, max_size=4).map("/".join),
                          min_size=1, max_size=12, unique=True))
    files = {f"{p}/f{n}.txt": f"file {n}\nline two\n" for n, p in enumerate(paths)}
    actions: list[tuple[str, str, str | None]] = []
    for n, path in enumerate(files):
        kind = draw(st.sampled_from(["modify", "delete", "rename", "keep"]))
        target = f"{draw(st.lists(names, min_size=1, max_size=4).map('/'.join))}/r{n}.txt"
        actions.append((kind, path, target if kind == "rename" else None))
    for n in range(draw(st.integers(0, 3))):
        actions.append(("add", f"new{n}/{'/'.join(draw(st.lists(names, max_size=3)))}/n.txt"
                        .replace("//", "/"), None))
    return files, actions


def build(files: dict[str, str], actions: list[tuple[str, str, str | None]]
          ) -> tuple[str, dict[str, str]]:
    parts, expected = [], dict(files)
    for kind, path, target in actions:
        if kind == "modify":
            parts.append(f"--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n-{files[path].split()[0]} "
                         f"{files[path].split()[1]}\n+CHANGED\n line two\n")
            expected[path] = "CHANGED\nline two\n"
        elif kind == "delete":
            parts.append(f"--- a/{path}\n+++ /dev/null\n@@ -1,2 +0,0 @@\n"
                         f"-{files[path].splitlines()[0]}\n-line two\n")
            del expected[path]
        elif kind == "rename":
            assert target is not None
            parts.append(f"diff --git a/{path} b/{target}\nsimilarity index 100%\n"
                         f"rename from {path}\nrename to {target}\n")
            expected[target] = expected.pop(path)
        elif kind == "add":
            parts.append(f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+added\n")
            expected[path] = "added\n"
    return "".join(parts), expected


@pytest.mark.slow
@settings(max_examples=40 if not LONG else 400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=layouts(), bound=st.integers(2, 6))
def test_a_few_descriptors_write_what_many_would(case, bound: int,
                                                 monkeypatch: pytest.MonkeyPatch):
    """Whatever the tree and however few descriptors a walk may keep, the apply gives the
    tree the patch describes, or refuses a patch that does not fit (a file where a
    directory must go) without changing anything, exactly as an unbounded walk does."""
    import tempfile

    files, actions = case
    patch, expected = build(files, actions)
    outcomes = []
    for max_open in (bound, 10_000):
        monkeypatch.setattr(fstree, "MAX_OPEN_DIRS", max_open, raising=False)
        with tempfile.TemporaryDirectory() as scratch:
            repo = make_repo(Path(scratch) / "r", files)
            receipt = apply_patch(patch, repo)
            now = {p: (repo / p).read_text() for p, e in snapshot(repo).items()
                   if e[0] == "file"}
            if receipt.ok:
                assert now == expected, (max_open, receipt.to_json())
            else:
                assert now == files, (max_open, receipt.error)
            assert not (repo / ".git" / "holon-apply").exists()
            outcomes.append(receipt.error.code if receipt.error else "applied")
    assert outcomes[0] == outcomes[1]
