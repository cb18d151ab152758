"""Progress for long work: drawn on stderr only when it is a terminal and a person reads it."""

from __future__ import annotations

import io
import os
import select
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from repos.builders import git_env, make_repo, snapshot

from holon_git import apply_patch
from holon_git.progress import MANY_FILES, SLOW_SECONDS, TerminalProgress, wanted

FILES = MANY_FILES + 50


def _many_files_repo(root: Path, count: int = FILES) -> tuple[Path, bytes]:
    files = {f"pkg/m{i:03d}.py": f"a = {i}\nb = {i}\nc = {i}\n" for i in range(count)}
    repo = make_repo(root, files)
    patch = "".join(
        f"--- a/pkg/m{i:03d}.py\n+++ b/pkg/m{i:03d}.py\n@@ -1,3 +1,3 @@\n a = {i}\n-b = {i}\n"
        f"+b = {i + 1}\n c = {i}\n" for i in range(count))
    return repo, patch.encode()


def _run_with_tty_stderr(repo: Path, patch: Path, *args: str) -> tuple[int, bytes, bytes]:
    """Run the CLI with stderr on a pseudo-terminal and stdout in a file (not a terminal)."""
    master, slave = os.openpty()
    env = git_env({"TERM": "xterm"})
    with tempfile.TemporaryFile() as stdout:
        proc = subprocess.Popen([sys.executable, "-m", "holon_git", *args, str(patch)],
                                cwd=repo, stdout=stdout, stderr=slave,
                                stdin=subprocess.DEVNULL, env=env)
        os.close(slave)
        terminal = bytearray()
        while True:
            ready, _, _ = select.select([master], [], [], 30)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed its side
                break
            if not chunk:
                break
            terminal += chunk
        code = proc.wait(timeout=60)
        os.close(master)
        stdout.seek(0)
        out = stdout.read()
    return code, out, bytes(terminal)


@pytest.fixture
def many(tmp_path: Path) -> tuple[Path, Path]:
    repo, patch = _many_files_repo(tmp_path / "repo")
    path = tmp_path / "many.diff"
    path.write_bytes(patch)
    return repo, path


def test_progress_is_drawn_on_a_terminal_and_erased(many: tuple[Path, Path]) -> None:
    repo, patch = many
    code, out, terminal = _run_with_tty_stderr(repo, patch)
    assert code == 0
    assert f"planning {FILES}/{FILES} files (100%)".encode() in terminal
    assert f"writing {FILES}/{FILES} files (100%)".encode() in terminal
    assert terminal.endswith(b"\r\x1b[K")  # the line is erased before the summary
    assert out.decode().startswith(f"Applied {FILES} files")
    assert (repo / "pkg/m007.py").read_text() == "a = 7\nb = 8\nc = 7\n"


@pytest.mark.slow
@pytest.mark.parametrize("flag", ["--json", "-q"])
def test_no_progress_with_json_or_quiet(many: tuple[Path, Path], flag: str) -> None:
    repo, patch = many
    code, out, terminal = _run_with_tty_stderr(repo, patch, "--check", flag)
    assert code == 0
    assert (b'"status": "checked"' in out) if flag == "--json" else out == b""
    assert terminal == b""


def test_no_progress_when_stderr_is_piped(many: tuple[Path, Path]) -> None:
    repo, patch = many
    done = subprocess.run([sys.executable, "-m", "holon_git", "--check", str(patch)], cwd=repo,
                          capture_output=True, env=git_env({"TERM": "xterm"}))
    assert done.returncode == 0
    assert done.stderr == b""


def test_refused_patch_clears_the_line_before_the_error(tmp_path: Path) -> None:
    repo, patch = _many_files_repo(tmp_path / "repo")
    bad = patch.replace(b"-b = 249\n", b"-b = 9999\n")
    path = tmp_path / "bad.diff"
    path.write_bytes(bad)
    before = snapshot(repo)
    code, _, terminal = _run_with_tty_stderr(repo, path)
    assert code == 1
    assert snapshot(repo) == before
    erased = terminal.rindex(b"\r\x1b[K")
    assert b"planning" in terminal[:erased]
    assert terminal[erased:].lstrip(b"\r\x1b[K").startswith(b"error: context_not_found")


def test_wanted_only_for_a_terminal_and_a_person(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    master, slave = os.openpty()
    try:
        with open(slave, "w", closefd=False) as tty:
            assert wanted(tty, as_json=False, quiet=False)
            assert not wanted(tty, as_json=True, quiet=False)
            assert not wanted(tty, as_json=False, quiet=True)
            monkeypatch.setenv("TERM", "dumb")
            assert not wanted(tty, as_json=False, quiet=False)
    finally:
        os.close(master)
        os.close(slave)
    assert not wanted(io.StringIO(), as_json=False, quiet=False)


def test_few_quick_files_draw_nothing_slow_work_does() -> None:
    now = [0.0]
    out = io.StringIO()
    progress = TerminalProgress(out, clock=lambda: now[0])
    progress("planning", 1, 3)
    assert out.getvalue() == ""
    now[0] = SLOW_SECONDS + 0.01
    progress("planning", 2, 3)
    assert out.getvalue() == "\r\x1b[Kplanning 2/3 files (66%)"
    now[0] += 0.01  # too soon to redraw, but the end of a stage is always drawn
    progress("planning", 3, 3)
    assert out.getvalue().endswith("planning 3/3 files (100%)")
    progress.close()
    assert out.getvalue().endswith("\r\x1b[K")


def test_library_reports_every_planned_file(tmp_path: Path) -> None:
    repo, patch = _many_files_repo(tmp_path / "repo", 5)
    seen: list[tuple[str, int, int]] = []
    receipt = apply_patch(patch, repo, progress=lambda *event: seen.append(event))
    assert receipt.ok
    assert seen == [*(("planning", i, 5) for i in range(1, 6)), ("writing", 0, 5),
                    ("writing", 5, 5)]
