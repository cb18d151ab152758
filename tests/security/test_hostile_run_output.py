"""Run-output folders, hook directories and --emit-diff files are hostile places to read and
write: nothing is read or written through a link planted there, no FIFO hangs the command,
no file exhausts memory, and every refusal is coded.

Everything runs against a repository inside a sentinel directory (sandbox.py) whose
``outside/secret.txt`` is what a planted link points to: it must never be read into a
commit, quoted in an error, or written.
"""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from repos.builders import git, git_env, git_state, snapshot, snapshot_all
from sandbox import SECRET, Sandbox

from holon_git import holon_output
from holon_git.errors import PatchError

PATCH = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
# a secret that looks like a patch: the old reader parsed it and quoted its lines in errors
SECRET_PATCH = b"--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-api_key=hunter2\n+x\n"


def run(cwd: Path, *args: str, timeout: float = 30,
        memory: int | None = None) -> subprocess.CompletedProcess[bytes]:
    def limit() -> None:  # the old reader of a /dev/zero manifest ran out of memory
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    try:
        return subprocess.run([sys.executable, "-m", "holon_git", *args], cwd=cwd,
                              capture_output=True, env=git_env(), timeout=timeout,
                              preexec_fn=limit)
    except subprocess.TimeoutExpired:
        pytest.fail(f"holon-apply {' '.join(args)} hung")


@pytest.fixture
def box(tmp_path: Path) -> Sandbox:
    return Sandbox.make(tmp_path)


def output_dir(box: Sandbox, **files: bytes | str) -> Path:
    out = box.sentinel / "run"
    out.mkdir()
    defaults = {"manifest.json": json.dumps({"status": "success"}), "diff.patch": PATCH,
                "summary.md": "# Fix two\n\nBody.\n"}
    for name, content in {**defaults, **files}.items():
        if content is not None:
            data = content.encode() if isinstance(content, str) else content
            (out / name.replace("_", ".")).write_bytes(data)
    return out


def refused(box: Sandbox, *args: str, code: str = "holon_output_invalid",
            **options: object) -> subprocess.CompletedProcess[bytes]:
    before, state = box.state(), git_state(box.repo)
    done = run(box.repo, *args, **options)  # type: ignore[arg-type]
    assert done.returncode == 1, done
    assert b"Traceback" not in done.stderr, done.stderr
    assert f"error: {code}:".encode() in done.stderr, done.stderr
    assert SECRET not in done.stderr + done.stdout and b"hunter2" not in done.stderr
    assert box.state() == before and git_state(box.repo) == state
    return done


@pytest.mark.slow
@pytest.mark.parametrize("name", ["manifest.json", "diff.patch", "summary.md"])
def test_a_run_file_linked_outside_is_not_read(box: Sandbox, name: str):
    (box.outside / "secret.txt").write_bytes(SECRET_PATCH if name == "diff.patch" else SECRET)
    out = output_dir(box)
    (out / name).unlink()
    os.symlink(box.outside / "secret.txt", out / name)
    done = refused(box, "--holon-output", str(out), "--commit", "--json")
    assert b"symbolic link" in done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "holon_output_invalid"
    assert git(box.repo, "log", "--format=%B").count("secret") == 0


def test_a_manifest_linked_to_dev_zero(box: Sandbox):
    out = output_dir(box)
    (out / "manifest.json").unlink()
    os.symlink("/dev/zero", out / "manifest.json")
    refused(box, "--holon-output", str(out), memory=1 << 30)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["manifest.json", "diff.patch", "summary.md"])
def test_a_fifo_does_not_hang(box: Sandbox, name: str):
    out = output_dir(box, **{name.replace(".", "_"): None})
    (out / name).unlink(missing_ok=True)
    os.mkfifo(out / name)
    done = refused(box, "--holon-output", str(out), "--commit")
    assert b"not a regular file" in done.stderr


@pytest.mark.parametrize("name", ["manifest.json", "summary.md"])
def test_files_over_their_cap_are_refused(box: Sandbox, name: str):
    cap = holon_output.MAX_BYTES[name]
    big = (json.dumps({"status": "success", "pad": "x" * cap}) if name == "manifest.json"
           else "# Subject\n\n" + "x" * cap)
    out = output_dir(box, **{name.replace(".", "_"): big})
    done = refused(box, "--holon-output", str(out), "--commit")
    assert str(cap).encode() in done.stderr


def test_the_patch_cap(box: Sandbox, monkeypatch: pytest.MonkeyPatch):
    out = output_dir(box)
    monkeypatch.setitem(holon_output.MAX_BYTES, "diff.patch", len(PATCH))
    assert holon_output.load_run_output(out).patch == PATCH.encode()
    monkeypatch.setitem(holon_output.MAX_BYTES, "diff.patch", len(PATCH) - 1)
    with pytest.raises(PatchError) as caught:
        holon_output.load_run_output(out)
    assert caught.value.code == "holon_output_invalid"


@pytest.mark.parametrize("planted", ["apply-receipt.json.tmp", "apply-receipt.json"])
def test_the_receipt_is_never_written_through_a_planted_link(box: Sandbox, planted: str):
    out = output_dir(box)
    os.symlink(box.outside / "secret.txt", out / planted)
    done = run(box.repo, "--holon-output", str(out), "--write-receipt")
    assert done.returncode == 0, done.stderr
    assert (box.outside / "secret.txt").read_bytes() == SECRET
    receipt = out / "apply-receipt.json"
    assert not receipt.is_symlink() and json.loads(receipt.read_text())["status"] == "applied"
    assert [p.name for p in out.iterdir() if p.name.endswith(".tmp") and not p.is_symlink()] \
        == []


# install-hooks ----------------------------------------------------------------------------

def test_install_hooks_ignores_a_planted_temporary_file(box: Sandbox):
    hooks = box.repo / ".git" / "hooks"
    os.chmod(box.outside / "secret.txt", 0o600)
    os.symlink(box.outside / "secret.txt", hooks / "pre-commit.holon-tmp")
    done = run(box.repo, "install-hooks")
    assert done.returncode == 0, done.stderr
    secret = box.outside / "secret.txt"
    assert secret.read_bytes() == SECRET and stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert (hooks / "pre-commit").is_file() and not (hooks / "pre-commit").is_symlink()
    assert os.access(hooks / "pre-commit", os.X_OK)


def test_install_hooks_replaces_a_linked_hook_and_does_not_open_a_fifo(box: Sandbox):
    hooks = box.repo / ".git" / "hooks"
    os.mkfifo(hooks / "pre-merge-commit")
    done = run(box.repo, "install-hooks")
    assert done.returncode == 1 and b"error: hook_exists:" in done.stderr, done
    os.unlink(hooks / "pre-merge-commit")
    os.symlink(box.outside / "secret.txt", hooks / "pre-commit")
    done = run(box.repo, "install-hooks", "--force")
    assert done.returncode == 0, done.stderr
    assert (box.outside / "secret.txt").read_bytes() == SECRET
    assert not (hooks / "pre-commit").is_symlink()


# --emit-diff ------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("where, code", [
    ("applied.diff", "path_escape"),  # the repository's own link, to outside
    ("inside.diff", "symlink_in_path"),  # a link to a file inside
    ("out/applied.diff", "path_escape"),  # through a linked directory
    (".git/hooks/pre-commit", "path_escape"),
    ("pipe.diff", "not_a_regular_file"),  # opening a FIFO to write would block
])
def test_emit_diff_does_not_follow_what_the_repository_holds(tmp_path: Path, where: str,
                                                             code: str):
    box = Sandbox.make(tmp_path, {"f.txt": "one\ntwo\nthree\n", "sub/x.txt": "x\n"},
                       symlinks={"applied.diff": "../outside/secret.txt",
                                 "inside.diff": "f.txt", "out": "../outside"})
    os.mkfifo(box.repo / "pipe.diff")
    patch = box.sentinel / "fix.diff"
    patch.write_text(PATCH)
    before = box.state()
    done = run(box.repo, "--emit-diff", where, str(patch), "--json")
    assert done.returncode == 1, done
    assert f"error: {code}:".encode() in done.stderr and b"Traceback" not in done.stderr
    assert json.loads(done.stdout)["error"]["code"] == code
    assert box.state() == before, "nothing may be applied when the diff cannot be written"


def test_emit_diff_inside_the_tree_replaces_a_hard_link(box: Sandbox):
    os.link(box.outside / "secret.txt", box.repo / "applied.diff")
    patch = box.sentinel / "fix.diff"
    patch.write_text(PATCH)
    done = run(box.repo, "--emit-diff", "applied.diff", str(patch))
    assert done.returncode == 0, done.stderr
    assert (box.outside / "secret.txt").read_bytes() == SECRET
    assert b"+TWO" in (box.repo / "applied.diff").read_bytes()
    assert (box.repo / "f.txt").read_text() == "one\nTWO\nthree\n"
    names = {p.name for p in box.repo.iterdir()}
    assert not any(name.endswith(".tmp") for name in names), names


def test_emit_diff_outside_the_tree_is_the_users_to_name(box: Sandbox, tmp_path: Path):
    patch = box.sentinel / "fix.diff"
    patch.write_text(PATCH)
    target = tmp_path / "elsewhere" / "applied.diff"
    target.parent.mkdir()
    done = run(box.repo, "--emit-diff", str(target), str(patch))
    assert done.returncode == 0, done.stderr
    assert b"+TWO" in target.read_bytes()
    before = snapshot_all(box.repo)
    assert snapshot(box.repo) and before  # the apply happened, nothing else was written
