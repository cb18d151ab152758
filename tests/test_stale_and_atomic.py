"""Stale-file checks (--expect-sha256) and the atomic switch (--no-atomic), in both formats."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from clisupport import holon
from repos.builders import git_state, make_repo, snapshot

from holon_git import apply_patch


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def env(*body: str) -> bytes:
    return ("\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n").encode()


UNIFIED = b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n"
ENVELOPE = env("*** Update File: a.txt", "@@", "-a", "+A")


# -- stale-file checks ---------------------------------------------------------------------------

@pytest.mark.parametrize("patch", [UNIFIED, ENVELOPE], ids=["unified", "envelope"])
def test_matching_hash_applies(tmp_path: Path, patch: bytes) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    receipt = apply_patch(patch, repo, expect_sha256={"a.txt": sha(b"a\n").upper()})
    assert receipt.ok, receipt.error
    assert (repo / "a.txt").read_bytes() == b"A\n"


@pytest.mark.parametrize("patch", [UNIFIED, ENVELOPE], ids=["unified", "envelope"])
def test_mismatching_hash_refuses_the_whole_patch(tmp_path: Path, patch: bytes) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n", "b.txt": "b\n"})
    before, state = snapshot(repo), git_state(repo)
    wrong = sha(b"something else\n")
    receipt = apply_patch(patch, repo, expect_sha256={"./a.txt": wrong})
    err = receipt.error
    assert err is not None and err.code == "stale_file"
    assert err.path == "a.txt"
    assert err.details == {"path": "a.txt", "expected": wrong, "actual": sha(b"a\n")}
    assert snapshot(repo) == before and git_state(repo) == state


def test_stale_check_comes_before_matching(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "edited since\n"})
    receipt = apply_patch(ENVELOPE, repo, expect_sha256={"a.txt": sha(b"a\n")})
    assert receipt.error is not None and receipt.error.code == "stale_file"


def test_empty_expectation_asserts_the_path_does_not_exist(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    add = env("*** Add File: new.txt", "+n")
    before = snapshot(repo)
    receipt = apply_patch(add, repo, expect_sha256={"a.txt": ""})
    assert receipt.error is not None and receipt.error.code == "stale_file"
    assert receipt.error.details == {"path": "a.txt", "expected": "", "actual": sha(b"a\n")}
    assert snapshot(repo) == before
    receipt = apply_patch(add, repo, expect_sha256={"new.txt": ""})
    assert receipt.ok, receipt.error


def test_expected_hash_of_a_missing_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    receipt = apply_patch(env("*** Add File: new.txt", "+n"), repo,
                          expect_sha256={"new.txt": sha(b"n\n")})
    assert receipt.error is not None and receipt.error.code == "stale_file"
    assert receipt.error.details["actual"] == ""
    assert not (repo / "new.txt").exists()


def test_paths_outside_the_patch_are_checked_too(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n", "config.toml": "v = 1\n"})
    receipt = apply_patch(ENVELOPE, repo, expect_sha256={"config.toml": sha(b"v = 2\n")})
    assert receipt.error is not None and receipt.error.code == "stale_file"
    assert (repo / "a.txt").read_bytes() == b"a\n"


@pytest.mark.parametrize(("expect", "code"), [
    ({"a.txt": "abc"}, "usage_error"),
    ({"a.txt": "g" * 64}, "usage_error"),
    ({"../a.txt": sha(b"a\n")}, "path_escape"),
])
def test_bad_expectations(tmp_path: Path, expect: dict[str, str], code: str) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    receipt = apply_patch(ENVELOPE, repo, expect_sha256=expect)
    assert receipt.error is not None and receipt.error.code == code
    assert (repo / "a.txt").read_bytes() == b"a\n"


def test_cli_expect_sha256(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n", "b.txt": "b\n"})
    a_hash = sha(b"a\n")
    done = holon(repo, "--json", "--expect-sha256", f"a.txt={a_hash}",
                 "--expect-sha256", "b.txt=" + "0" * 64, "-", stdin=UNIFIED)
    assert done.returncode == 1
    receipt = json.loads(done.stdout)
    assert receipt["error"]["code"] == "stale_file"
    assert receipt["error"]["details"]["path"] == "b.txt"
    assert "stale_file" in done.stderr
    done = holon(repo, "--expect-sha256", f"a.txt={a_hash}", "--expect-sha256", "gone.txt=",
                 "-", stdin=UNIFIED)
    assert done.returncode == 0, done.stderr
    assert (repo / "a.txt").read_bytes() == b"A\n"


@pytest.mark.parametrize("value", ["a.txt", "=abc"])
def test_cli_expect_sha256_syntax(tmp_path: Path, value: str) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    done = holon(repo, "--expect-sha256", value, "-", stdin=UNIFIED)
    assert done.returncode == 2
    assert "PATH=HEX" in done.stderr
    assert (repo / "a.txt").read_bytes() == b"a\n"


# -- the atomic switch ---------------------------------------------------------------------------

THREE = env(
    "*** Update File: a.txt", "@@", "-a", "+A",
    "*** Update File: b.txt", "@@", "-not there", "+B",
    "*** Delete File: c.txt",
)
THREE_UNIFIED = (b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n"
                 b"--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-not there\n+B\n"
                 b"--- a/c.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-c\n")
FILES = {"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"}


@pytest.mark.parametrize("patch", [THREE, THREE_UNIFIED], ids=["envelope", "unified"])
def test_atomic_default_changes_nothing(tmp_path: Path, patch: bytes) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    before = snapshot(repo)
    receipt = apply_patch(patch, repo)
    assert receipt.status == "refused" and receipt.atomic
    assert receipt.to_dict()["atomic"] is True
    assert "unapplied_files" not in receipt.to_dict()
    assert snapshot(repo) == before


@pytest.mark.parametrize("patch", [THREE, THREE_UNIFIED], ids=["envelope", "unified"])
def test_non_atomic_stops_at_the_first_failure(tmp_path: Path, patch: bytes) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    state = git_state(repo)
    receipt = apply_patch(patch, repo, atomic=False)
    out = receipt.to_dict()
    assert out["status"] == "partial" and out["atomic"] is False
    assert out["error"]["code"] == "context_not_found" and out["error"]["path"] == "b.txt"
    assert [f["new_path"] for f in out["files"]] == ["a.txt"]
    assert [(u["action"], u["old_path"]) for u in out["unapplied_files"]] == [
        ("modify", "b.txt"), ("delete", "c.txt")]
    assert (repo / "a.txt").read_bytes() == b"A\n"
    assert (repo / "b.txt").read_bytes() == b"b\n"
    assert (repo / "c.txt").read_bytes() == b"c\n"
    assert git_state(repo) == state


def test_non_atomic_success_is_applied(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    receipt = apply_patch(env("*** Update File: a.txt", "@@", "-a", "+A",
                              "*** Delete File: c.txt", "*** Add File: d/n.txt", "+n"),
                          repo, atomic=False)
    assert receipt.ok and receipt.status == "applied"
    out = receipt.to_dict()
    assert out["unapplied_files"] == [] and out["atomic"] is False
    assert [f["action"] for f in out["files"]] == ["modify", "delete", "add"]
    assert [s["path"] for s in out["deleted_blobs"]] == ["c.txt"]
    assert (repo / "d/n.txt").read_bytes() == b"n\n" and not (repo / "c.txt").exists()


def test_non_atomic_first_file_failing_is_a_plain_refusal(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    before = snapshot(repo)
    receipt = apply_patch(env("*** Delete File: missing.txt", "*** Delete File: c.txt"), repo,
                          atomic=False)
    assert receipt.status == "refused" and receipt.error is not None
    assert receipt.error.code == "not_found"
    assert [u["old_path"] for u in receipt.unapplied_files] == ["missing.txt", "c.txt"]
    assert snapshot(repo) == before


def test_non_atomic_stale_check_still_guards_the_whole_patch(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    before = snapshot(repo)
    receipt = apply_patch(THREE, repo, atomic=False, expect_sha256={"c.txt": sha(b"x\n")})
    assert receipt.status == "refused" and receipt.error is not None
    assert receipt.error.code == "stale_file"
    assert snapshot(repo) == before


def test_non_atomic_check_writes_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    before = snapshot(repo)
    receipt = apply_patch(THREE, repo, atomic=False, check=True)
    assert receipt.status == "refused"
    assert [f.path for f in receipt.files] == ["a.txt"]
    assert snapshot(repo) == before


def test_non_atomic_write_failure_after_a_written_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    # The object database cannot take u.bin's blob (a file sits where its fan-out directory
    # goes); u.bin is untracked, so git has no copy of it yet.
    (repo / "u.bin").write_bytes(b"untracked\n")
    blob_id = hashlib.sha1(b"blob 10\0untracked\n").hexdigest()
    (repo / ".git/objects" / blob_id[:2]).write_bytes(b"in the way\n")
    receipt = apply_patch(env("*** Update File: a.txt", "@@", "-a", "+A",
                              "*** Delete File: u.bin", "*** Delete File: c.txt"), repo,
                          atomic=False)
    assert receipt.status == "partial"
    assert receipt.error is not None and receipt.error.code == "io_error"
    assert [f.path for f in receipt.files] == ["a.txt"]
    assert [u["old_path"] for u in receipt.unapplied_files] == ["u.bin", "c.txt"]
    assert (repo / "a.txt").read_bytes() == b"A\n"
    assert (repo / "u.bin").exists() and (repo / "c.txt").exists()


def test_cli_no_atomic_reports_changed_and_unchanged(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    done = holon(repo, "--no-atomic", "-", stdin=THREE)
    assert done.returncode == 1
    assert "context_not_found" in done.stderr
    assert "changed before the refusal: a.txt" in done.stderr
    assert "not applied: b.txt, c.txt" in done.stderr
    assert (repo / "a.txt").read_bytes() == b"A\n"
    done = holon(repo, "--json", "--no-atomic", "-", stdin=env("*** Delete File: c.txt"))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["atomic"] is False and out["status"] == "applied"


@pytest.mark.parametrize("args", [["--cached"], ["--index"], ["--commit", "-m", "x"],
                                  ["--emit-diff", "out.diff"]])
def test_no_atomic_is_for_the_working_tree_only(tmp_path: Path, args: list[str]) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    before, state = snapshot(repo), git_state(repo)
    done = holon(repo, "--no-atomic", *args, "-", stdin=UNIFIED)
    assert done.returncode == 2 and "usage_error" in done.stderr
    assert snapshot(repo) == before and git_state(repo) == state


def test_stale_check_guards_the_index_and_ref_targets(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    state = git_state(repo)
    for kwargs in ({"target": "index"}, {"ref": "main", "message": "m"}):
        receipt = apply_patch(UNIFIED, repo, expect_sha256={"a.txt": "0" * 64}, **kwargs)
        assert receipt.error is not None and receipt.error.code == "stale_file"
        assert git_state(repo) == state
    receipt = apply_patch(UNIFIED, repo, target="index", expect_sha256={"a.txt": sha(b"a\n")})
    assert receipt.ok, receipt.error
