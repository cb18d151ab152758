"""`git holon-apply --holon-output DIR`: Holon run output folders (RFC-0001 section 8.2)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from clisupport import holon
from repos.builders import git_state, snapshot

from holon_git.errors import PatchError
from holon_git.holon_output import commit_message, is_success

PATCH = "--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n four\n"
OTHER = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n"
ORIGINAL = "one\ntwo\nthree\nfour\nfive\n"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f.txt": ORIGINAL}


def make_output(path: Path, manifest: object = None, *, patch: str | None = PATCH,
                patch_name: str = "diff.patch", summary: str | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    if manifest is not None:
        text = manifest if isinstance(manifest, str) else json.dumps(manifest)
        (path / "manifest.json").write_text(text)
    if patch is not None:
        (path / patch_name).write_text(patch)
    if summary is not None:
        (path / "summary.md").write_text(summary)
    return path


def refused_with(repo: Path, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    before, state = snapshot(repo), git_state(repo)
    done = holon(repo, *args)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"error: {code}: "), done.stderr
    assert snapshot(repo) == before and git_state(repo) == state
    return done


@pytest.mark.parametrize("status", ["success", "Success", "SUCCESS"])
def test_successful_run_is_applied(repo: Path, tmp_path: Path, status: str):
    out = make_output(tmp_path / "out", {"status": status, "cost": 0.12})
    done = holon(repo, "--holon-output", str(out))
    assert done.returncode == 0, done.stderr
    assert (repo / "f.txt").read_text() == ORIGINAL.replace("three", "THREE")
    assert not (out / "apply-receipt.json").exists()  # only when asked


def test_patch_diff_name_is_accepted(repo: Path, tmp_path: Path):
    out = make_output(tmp_path / "out", {"status": "Success"}, patch_name="patch.diff")
    assert holon(repo, "--holon-output", str(out)).returncode == 0
    assert "THREE" in (repo / "f.txt").read_text()


def test_both_patch_names_identical_is_fine_differing_is_refused(repo: Path, tmp_path: Path):
    out = make_output(tmp_path / "out", {"status": "Success"})
    (out / "patch.diff").write_text(OTHER)
    done = refused_with(repo, "holon_output_invalid", "--holon-output", str(out))
    assert "differ" in done.stderr
    (out / "patch.diff").write_text(PATCH)
    assert holon(repo, "--holon-output", str(out)).returncode == 0


@pytest.mark.parametrize("status", ["Failure", "NeedsHumanReview", "needs_human_review",
                                    "successful", "running"])
def test_unsuccessful_run_is_refused_unless_forced(repo: Path, tmp_path: Path, status: str):
    out = make_output(tmp_path / "out", {"status": status})
    done = refused_with(repo, "holon_run_unsuccessful", "--holon-output", str(out))
    assert repr(status) in done.stderr
    forced = holon(repo, "--holon-output", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert "THREE" in (repo / "f.txt").read_text()


def test_missing_manifest(repo: Path, tmp_path: Path):
    out = make_output(tmp_path / "out", None)
    done = refused_with(repo, "holon_output_missing", "--holon-output", str(out))
    assert "manifest.json" in done.stderr
    # --force overrides the status only, never a missing file
    refused_with(repo, "holon_output_missing", "--holon-output", str(out), "--force")


@pytest.mark.parametrize("manifest", ["{not json", "[1, 2]", '"Success"', "{}",
                                      '{"status": 1}', '{"status": ""}', b"\xff\xfe"])
def test_malformed_manifest(repo: Path, tmp_path: Path, manifest: str | bytes):
    out = make_output(tmp_path / "out")
    (out / "manifest.json").write_bytes(manifest if isinstance(manifest, bytes)
                                        else manifest.encode())
    refused_with(repo, "holon_output_invalid", "--holon-output", str(out))
    refused_with(repo, "holon_output_invalid", "--holon-output", str(out), "--force")


def test_missing_patch_and_missing_directory(repo: Path, tmp_path: Path):
    out = make_output(tmp_path / "out", {"status": "Success"}, patch=None)
    done = refused_with(repo, "holon_output_missing", "--holon-output", str(out))
    assert "diff.patch or patch.diff" in done.stderr
    refused_with(repo, "holon_output_missing", "--holon-output", str(tmp_path / "nowhere"))


def test_manifest_that_is_a_directory(repo: Path, tmp_path: Path):
    out = make_output(tmp_path / "out")
    (out / "manifest.json").mkdir()
    refused_with(repo, "holon_output_invalid", "--holon-output", str(out))


def test_patch_that_does_not_apply_is_refused_with_its_own_code(repo: Path, tmp_path: Path):
    out = make_output(tmp_path / "out", {"status": "Success"},
                      patch=PATCH.replace("-three", "-trois"))
    refused_with(repo, "context_not_found", "--holon-output", str(out))


def test_write_receipt_applied(repo: Path, tmp_path: Path):
    out = make_output(tmp_path / "out", {"status": "Success"})
    done = holon(repo, "--holon-output", str(out), "--write-receipt", "--json")
    assert done.returncode == 0, done.stderr
    written = json.loads((out / "apply-receipt.json").read_text())
    assert written == json.loads(done.stdout)
    assert written["status"] == "applied"
    assert written["holon_output"] == {"directory": str(out), "manifest_status": "Success",
                                       "patch_file": "diff.patch"}
    assert written["files"][0]["new_path"] == "f.txt"


def test_write_receipt_refused_and_checked(repo: Path, tmp_path: Path):
    out = make_output(tmp_path / "out", {"status": "Failure"})
    refused_with(repo, "holon_run_unsuccessful", "--holon-output", str(out), "--write-receipt")
    written = json.loads((out / "apply-receipt.json").read_text())
    assert written["status"] == "refused"
    assert written["error"]["code"] == "holon_run_unsuccessful"
    done = holon(repo, "--holon-output", str(out), "--force", "--check", "--write-receipt")
    assert done.returncode == 0
    assert json.loads((out / "apply-receipt.json").read_text())["status"] == "checked"
    assert (repo / "f.txt").read_text() == ORIGINAL


def test_usage_errors(repo: Path, tmp_path: Path):
    out = make_output(tmp_path / "out", {"status": "Success"})
    patch = tmp_path / "x.diff"
    patch.write_text(PATCH)
    before = snapshot(repo)
    for args in (["--holon-output", str(out), str(patch)], ["--force", str(patch)],
                 ["--write-receipt", str(patch)]):
        done = holon(repo, *args)
        assert done.returncode == 2, (args, done.stderr)
    assert snapshot(repo) == before


@pytest.mark.parametrize("status, ok", [("Success", True), ("success", True),
                                        ("SUCCESS", True), ("suc-cess", True),
                                        ("Failure", False), ("NeedsHumanReview", False),
                                        ("successful", False), ("", False)])
def test_is_success(status: str, ok: bool):
    assert is_success(status) is ok


@pytest.mark.parametrize("summary, message", [
    ("Fix the parser\n\nIt dropped the last hunk.\n", "Fix the parser\n\nIt dropped the last "
     "hunk.\n"),
    ("# Fix the parser\n\n## Changes\n- a\n- b  \n\n", "Fix the parser\n\n## Changes\n- a\n- b\n"),
    ("\n\n  Only a subject  \n", "Only a subject\n"),
    ("Subject\r\nbody line\r\n", "Subject\n\nbody line\n"),
])
def test_commit_message_from_summary(summary: str, message: str):
    assert commit_message(summary.encode()) == message


@pytest.mark.parametrize("summary", [b"", b"\n  \n", b"#  \nbody\n", b"\xff\xfeX"])
def test_commit_message_refuses_no_subject_or_not_utf8(summary: bytes):
    with pytest.raises(PatchError) as info:
        commit_message(summary)
    assert info.value.code == "holon_output_invalid"


def test_commit_takes_subject_and_body_from_summary(repo: Path, tmp_path: Path):
    from repos.builders import git

    out = make_output(tmp_path / "out", {"status": "Success"},
                      summary="# Capitalise three\n\nThe run fixed the third line.\n")
    head = git(repo, "rev-parse", "HEAD")
    done = holon(repo, "--holon-output", str(out), "--commit", "--write-receipt")
    assert done.returncode == 0, done.stderr
    assert git(repo, "log", "-1", "--format=%B") == ("Capitalise three\n\nThe run fixed the "
                                                     "third line.\n\n")
    assert git(repo, "rev-parse", "HEAD^") == head
    assert git(repo, "status", "--porcelain") == ""
    receipt = json.loads((out / "apply-receipt.json").read_text())
    assert receipt["commit"] == git(repo, "rev-parse", "HEAD").strip()


def test_commit_message_option_overrides_summary(repo: Path, tmp_path: Path):
    from repos.builders import git

    out = make_output(tmp_path / "out", {"status": "Success"})  # no summary.md needed with -m
    done = holon(repo, "--holon-output", str(out), "--commit", "-m", "Explicit")
    assert done.returncode == 0, done.stderr
    assert git(repo, "log", "-1", "--format=%s") == "Explicit\n"


def test_commit_without_summary_or_with_bad_summary_is_refused(repo: Path, tmp_path: Path):
    out = make_output(tmp_path / "out", {"status": "Success"})
    done = refused_with(repo, "holon_output_missing", "--holon-output", str(out), "--commit")
    assert "summary.md" in done.stderr
    (out / "summary.md").write_text("\n\n")
    refused_with(repo, "holon_output_invalid", "--holon-output", str(out), "--commit")
