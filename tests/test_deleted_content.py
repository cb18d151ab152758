"""Deleted content is never lost: every deleted file's pre-image is a blob named in the receipt."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from clisupport import holon
from repos.builders import git, git_state, make_repo, snapshot

from holon_git import apply_patch

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
    saved = receipt.extra["deleted_blobs"]
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
    (saved,) = receipt.extra["deleted_blobs"]
    assert cat_file(linked, saved["blob"]) == CONTENT
    assert cat_file(repo, saved["blob"]) == CONTENT  # one object database for both


def test_reverse_of_an_add_saves_the_blob(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"new.txt": "hello\n"})
    receipt = apply_patch(b"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n", repo,
                          reverse=True)
    assert receipt.ok, receipt.error
    (saved,) = receipt.extra["deleted_blobs"]
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
        "print(r.extra['deleted_blobs'], 'pygit2' in sys.modules)\n"
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
