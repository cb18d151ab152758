"""--cached and --ref write each new content to the object database as soon as its file is
planned, so a large patch never holds all its new contents in memory. A refusal later in
the plan leaves the index and the branch as they were (only unreferenced objects remain)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from repos.builders import git, git_dir, git_state, make_bare_repo, make_repo

from holon_git import apply_patch

FILES = {f"f{i}.txt": f"old {i}\n" for i in range(3)}


def _patch(last_context: str = "old 2") -> str:
    parts = [f"--- a/f{i}.txt\n+++ b/f{i}.txt\n@@ -1 +1 @@\n-old {i}\n+new {i}\n"
             for i in range(2)]
    parts.append(f"--- a/f2.txt\n+++ b/f2.txt\n@@ -1 +1 @@\n-{last_context}\n+new 2\n")
    return "".join(parts)


def _has_object(repo: Path, content: str) -> bool:
    oid = git(repo, "hash-object", "--stdin", input=content.encode()).strip()
    return git(repo, "cat-file", "-t", oid, check=False).strip() == "blob"


@pytest.fixture(params=["index", "ref"])
def case(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, dict]:
    if request.param == "index":
        return make_repo(tmp_path / "r", FILES), {"target": "index"}
    return make_bare_repo(tmp_path / "r.git", FILES), {"ref": "main", "message": "m"}


def test_each_new_content_is_an_object_once_its_file_is_planned(case: tuple[Path, dict]):
    repo, how = case
    seen: list[tuple[bool, bool]] = []

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "planning" and done == 2:
            seen.append((_has_object(repo, "new 0\n"), _has_object(repo, "new 2\n")))

    receipt = apply_patch(_patch(), repo, progress=progress, **how)
    assert receipt.ok, receipt.error
    assert seen == [(True, False)]  # the first file's blob is written, the third not planned
    tree = git(repo, "ls-tree", "-r", "HEAD" if "ref" in how else git(repo, "write-tree").strip())
    for i in range(3):
        oid = git(repo, "hash-object", "--stdin", input=f"new {i}\n".encode()).strip()
        assert f"{oid}\tf{i}.txt" in tree


def test_a_refusal_after_blobs_were_written_changes_no_index_or_branch(
        case: tuple[Path, dict]):
    repo, how = case
    before = git_state(repo)
    index = git_dir(repo) / "index"
    index_bytes = index.read_bytes() if index.exists() else None
    receipt = apply_patch(_patch(last_context="not in the file"), repo, **how)
    assert receipt.error is not None and receipt.error.code == "context_not_found"
    assert _has_object(repo, "new 0\n")  # written while planning; nothing refers to it
    assert git_state(repo) == before
    assert (index.read_bytes() if index.exists() else None) == index_bytes


def test_index_and_working_tree_together_keep_the_contents_for_the_files(tmp_path: Path):
    """--index writes the files too, from the planned contents: it does not hand them over
    while planning, and its result is the one git apply --index gives."""
    repo = make_repo(tmp_path / "r", FILES)
    assert apply_patch(_patch(), repo, target="both").ok
    assert [(repo / f"f{i}.txt").read_text() for i in range(3)] == ["new 0\n", "new 1\n",
                                                                   "new 2\n"]
    assert git(repo, "diff", "--cached", "--name-only").split() == ["f0.txt", "f1.txt",
                                                                    "f2.txt"]


def _loose_object(repo: Path, oid: str) -> Path:
    return git_dir(repo) / "objects" / oid[:2] / oid[2:]


def test_a_content_the_repository_lacks_is_written_with_gits_id(case: tuple[Path, dict]):
    repo, how = case
    expected = git(repo, "hash-object", "--stdin", input=b"new 0\n").strip()
    assert not _has_object(repo, "new 0\n")
    receipt = apply_patch(_patch(), repo, **how)
    assert receipt.ok, receipt.error
    assert git(repo, "cat-file", "-p", expected) == "new 0\n"
    git(repo, "fsck", "--no-dangling")


@pytest.mark.parametrize("packed", [False, True], ids=["loose", "packed"])
def test_a_content_the_repository_has_is_not_written_again(case: tuple[Path, dict],
                                                          packed: bool):
    repo, how = case
    oids = [git(repo, "hash-object", "-w", "--stdin", input=f"new {i}\n".encode()).strip()
            for i in range(3)]
    if packed:
        git(repo, "pack-objects", "-q", str(git_dir(repo) / "objects" / "pack" / "pack"),
            input="".join(f"{oid}\n" for oid in oids).encode())
        git(repo, "prune-packed")
        assert not any(_loose_object(repo, oid).exists() for oid in oids)
    else:
        old = 1_000_000_000  # 2001: libgit2 writing the object again would refresh this
        for oid in oids:
            os.utime(_loose_object(repo, oid), (old, old))
    receipt = apply_patch(_patch(), repo, **how)
    assert receipt.ok, receipt.error
    for oid in oids:
        loose = _loose_object(repo, oid)
        if packed:
            assert not loose.exists()  # not duplicated as a loose object
        else:
            assert loose.stat().st_mtime == 1_000_000_000
    tree = git(repo, "ls-tree", "-r", "HEAD" if "ref" in how else git(repo, "write-tree").strip())
    assert all(f"{oid}\tf{i}.txt" in tree for i, oid in enumerate(oids))
    git(repo, "fsck", "--no-dangling")
