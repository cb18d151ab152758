"""Deleted content is saved: every deleted file's pre-image is a blob named in the receipt."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
from clisupport import holon
from hypothesis import given, settings
from hypothesis import strategies as st
from repos.builders import git, git_state, make_repo, snapshot

from holon_git import apply_patch
from holon_git.git import loose

CONTENT = b"line one\r\nline two\n\xff\xfe not utf-8\nno final newline"


def cat_file(repo: Path, blob: str) -> bytes:
    return subprocess.run(["git", "cat-file", "-p", blob], cwd=repo, capture_output=True,
                          check=True).stdout


def unified_delete(path: str, content: bytes) -> bytes:
    lines = content.split(b"\n")
    body = b"".join(b"-" + line + b"\n" for line in lines[:-1])
    if lines[-1]:
        body += b"-" + lines[-1] + b"\n\\ No newline at end of file\n"
    count = len(lines) - (0 if lines[-1] else 1)
    return (f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n"
            f"+++ /dev/null\n@@ -1,{count} +0,0 @@\n").encode() + body


def test_unified_delete_saves_the_blob(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"keep.txt": "k\n"})
    (repo / "untracked.bin").write_bytes(CONTENT)  # never committed: only our blob holds it
    receipt = apply_patch(unified_delete("untracked.bin", CONTENT), repo)
    assert receipt.ok, receipt.error
    assert receipt.format == "unified"
    assert not (repo / "untracked.bin").exists()
    (saved,) = receipt.to_dict()["deleted_blobs"]
    assert saved["path"] == "untracked.bin"
    assert cat_file(repo, saved["blob"]) == CONTENT


def test_envelope_delete_saves_the_blob(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    (repo / "untracked.bin").write_bytes(CONTENT)
    receipt = apply_patch(b"*** Begin Patch\n*** Delete File: untracked.bin\n"
                          b"*** Delete File: a.txt\n*** End Patch\n", repo)
    assert receipt.ok, receipt.error
    saved = receipt.deleted_blobs
    assert [s["path"] for s in saved] == ["untracked.bin", "a.txt"]
    assert cat_file(repo, saved[0]["blob"]) == CONTENT
    assert cat_file(repo, saved[1]["blob"]) == b"a\n"


def test_git_state_untouched_by_saving_blobs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n", "b.txt": "b\n"})
    state = git_state(repo)
    receipt = apply_patch(b"*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n", repo)
    assert receipt.ok
    assert git_state(repo) == state  # HEAD, refs and index as they were
    assert git(repo, "status", "--short") == " D a.txt\n"


def test_blob_is_saved_in_a_linked_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "main", {"a.txt": "a\n"})
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    (linked / "u.bin").write_bytes(CONTENT)
    receipt = apply_patch(b"*** Begin Patch\n*** Delete File: u.bin\n*** End Patch\n", linked)
    assert receipt.ok, receipt.error
    (saved,) = receipt.deleted_blobs
    assert cat_file(linked, saved["blob"]) == CONTENT
    assert cat_file(repo, saved["blob"]) == CONTENT  # one object database for both


def test_reverse_of_an_add_saves_the_blob(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"new.txt": "hello\n"})
    receipt = apply_patch(b"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n", repo,
                          reverse=True)
    assert receipt.ok, receipt.error
    (saved,) = receipt.deleted_blobs
    assert cat_file(repo, saved["blob"]) == b"hello\n"


def test_outside_a_repository_the_receipt_says_so(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_bytes(b"a\n")
    receipt = apply_patch(b"*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n", plain)
    assert receipt.ok, receipt.error
    assert not (plain / "a.txt").exists()
    (saved,) = receipt.to_dict()["deleted_blobs"]
    assert saved["path"] == "a.txt" and saved["blob"] is None
    assert "not inside a git repository" in saved["note"]


def test_no_delete_no_blobs_and_no_pygit2_import(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    script = (
        "import sys\n"
        "from holon_git import apply_patch\n"
        "r = apply_patch(b'*** Begin Patch\\n*** Update File: a.txt\\n@@\\n-a\\n+b\\n"
        "*** End Patch\\n', '.')\n"
        "assert r.ok, r.error\n"
        "print(r.deleted_blobs, 'pygit2' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True,
                          text=True, check=True)
    assert done.stdout.split() == ["[]", "False"]


def test_object_database_refusing_the_blob_changes_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    (repo / "u.bin").write_bytes(CONTENT)
    # A regular file where the blob's fan-out directory must go: the write fails, even as root.
    blob_id = hashlib.sha1(b"blob %d\0" % len(CONTENT) + CONTENT).hexdigest()
    fanout = repo / ".git" / "objects" / blob_id[:2]
    assert not fanout.exists()
    fanout.write_bytes(b"in the way\n")
    before, state = snapshot(repo), git_state(repo)
    receipt = apply_patch(b"*** Begin Patch\n*** Add File: n.txt\n+n\n*** Delete File: u.bin\n"
                          b"*** End Patch\n", repo)
    assert receipt.error is not None and receipt.error.code == "io_error"
    assert receipt.status == "refused"
    assert snapshot(repo) == before and git_state(repo) == state


def test_cli_prints_the_restore_command(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    (tmp_path / "p").write_bytes(b"*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n")
    done = holon(repo, str(tmp_path / "p"))
    assert done.returncode == 0, done.stderr
    blob = hashlib.sha1(b"blob 2\0a\n").hexdigest()
    assert f"deleted a.txt: content saved as blob {blob}" in done.stdout
    assert f"git cat-file -p {blob[:12]}" in done.stdout


def _sha256_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main", "--object-format=sha256")
    for name, text in files.items():
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


DELETE_SCRIPT = (
    "import sys\n"
    "from holon_git import apply_patch\n"
    "r = apply_patch(sys.stdin.buffer.read(), '.')\n"
    "assert r.ok, r.error\n"
    "print(*[d['blob'] for d in r.deleted_blobs], 'pygit2' in sys.modules)\n"
)


def _delete_in_a_fresh_process(repo: Path, patch: bytes) -> list[str]:
    done = subprocess.run([sys.executable, "-c", DELETE_SCRIPT], cwd=repo, input=patch,
                          capture_output=True, check=True)
    return done.stdout.decode().split()


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_a_delete_saves_git_s_own_blob_without_pygit2(tmp_path: Path, object_format: str):
    """The deleted content goes in as a loose object written in pure Python: the id is the
    one `git hash-object` gives, git reads the object back, and pygit2 was never imported."""
    files = {"a.txt": "a\n", "keep.txt": "k\n"}
    repo = (_sha256_repo(tmp_path / "r", files) if object_format == "sha256"
            else make_repo(tmp_path / "r", files))
    (repo / "untracked.bin").write_bytes(CONTENT)
    patch = (b"*** Begin Patch\n*** Delete File: untracked.bin\n*** Delete File: a.txt\n"
             b"*** End Patch\n")
    *blobs, imported = _delete_in_a_fresh_process(repo, patch)
    assert imported == "False"
    (repo / "again.bin").write_bytes(CONTENT)
    assert blobs == [git(repo, "hash-object", "again.bin").strip(),
                     git(repo, "rev-parse", "HEAD:a.txt").strip()]
    assert len(blobs[0]) == (64 if object_format == "sha256" else 40)
    assert cat_file(repo, blobs[0]) == CONTENT
    git(repo, "fsck", "--no-dangling")


def test_a_shared_repository_saves_through_pygit2(tmp_path: Path):
    """loose.py leaves a shared repository (group permissions git would set) alone: the
    blob is written by libgit2 instead, with the same id."""
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"}, config={"core.sharedRepository": "group"})
    (repo / "untracked.bin").write_bytes(CONTENT)
    blob, imported = _delete_in_a_fresh_process(
        repo, b"*** Begin Patch\n*** Delete File: untracked.bin\n*** End Patch\n")
    assert imported == "True"
    assert blob == hashlib.sha1(b"blob %d\0" % len(CONTENT) + CONTENT).hexdigest()
    assert cat_file(repo, blob) == CONTENT


@settings(max_examples=25)
@given(contents=st.lists(st.binary(max_size=3000), min_size=1, max_size=4),
       object_format=st.sampled_from(["sha1", "sha256"]))
def test_loose_blobs_are_git_s(tmp_path_factory: pytest.TempPathFactory, contents: list[bytes],
                               object_format: str):
    """Any content: the pure-Python loose object has git's id, and git reads it back."""
    repo = tmp_path_factory.mktemp("loose")
    git(repo, "init", "-q", f"--object-format={object_format}")
    store = loose.Store.of(str(repo / ".git"))
    assert store is not None
    for content in contents:
        blob = store.write(content)
        assert blob == git(repo, "hash-object", "--stdin", input=content).strip()
        assert cat_file(repo, blob) == content
        assert store.write(content) == blob  # already there: the same id, nothing rewritten
