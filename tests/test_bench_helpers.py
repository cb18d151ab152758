"""The benchmark's own logic: generated inputs, alternation, medians and target checks.

Nothing here times anything; the benchmark itself is `python bench/run.py`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import inputs  # noqa: E402
import run  # noqa: E402

from holon_git import apply_patch  # noqa: E402


def test_drift_is_never_zero_and_varies():
    offsets = [inputs.drift(j) for j in range(1000)]
    assert 0 not in offsets
    assert min(offsets) >= -30 and max(offsets) <= 30
    assert len(set(offsets)) > 50


@pytest.mark.parametrize("drifted", [False, True])
def test_big_file_patch_applies_with_git_and_holon_alike(tmp_path: Path, drifted: bool):
    lines = inputs.big_file_lines(2000)
    patch = inputs.big_file_patch(lines, "big.py", drifted=drifted, hunks=20)
    assert patch.count(b"\n@@ ") == 20
    results = []
    for tool in ("git", "holon"):
        repo = inputs.small_repo(tmp_path / tool, 2000, name="big.py")
        if tool == "git":
            subprocess.run(["git", "apply", "-"], cwd=repo, input=patch, check=True)
        else:
            assert apply_patch(patch, repo).ok
        results.append((repo / "big.py").read_bytes())
    assert results[0] == results[1] != b"".join(lines)
    assert results[0].count(b"# changed") == 20


def test_drifted_headers_are_really_off(tmp_path: Path):
    lines = inputs.big_file_lines(1000)
    repo = inputs.small_repo(tmp_path / "r", 1000, name="big.py")
    receipt = apply_patch(inputs.big_file_patch(lines, "big.py", drifted=True, hunks=10), repo)
    offsets = [h.offset for h in receipt.files[0].hunks]
    assert all(offsets) and len(set(offsets)) > 3


def test_text_member_filter():
    assert inputs.is_text_member("django/__init__.py", b"VERSION = (5, 0)\n")
    assert not inputs.is_text_member("django/conf/locale/de/LC_MESSAGES/django.mo", b"x")
    assert not inputs.is_text_member("docs/img.PNG", b"x")
    assert not inputs.is_text_member("data.bin", b"a\0b")


def test_alternate_rotates_warms_up_and_verifies():
    calls: list[str] = []
    resets: list[str] = []

    def tool(name: str):
        return lambda: (calls.append(name), run.Run(0.01 if name == "a" else 0.02, 0, True))[1]

    cells = run.alternate({"a": tool("a"), "b": tool("b")}, 3, resets.append,
                          lambda name: "differs" if name == "b" else "")
    assert calls == ["a", "b", "a", "b", "b", "a", "a", "b"]  # warm-up, then rotating rounds
    assert resets == calls
    assert len(cells["a"].runs) == 3 and cells["a"].median == 0.01
    assert cells["b"].median is None and cells["b"].describe().startswith("wrong result")


def test_failed_runs_are_reported_not_timed():
    cell = run.Cell(runs=[run.Run(0.1, 0, True), run.Run(0.2, 0, False, "error: boom")])
    assert cell.median is None
    assert cell.describe() == "failed: error: boom"
    assert run.Cell(note="skipped (target not available)").describe().startswith("skipped")


def test_targets_are_judged_from_the_rows():
    def row(name: str, holon: float, git: float | None = None, peak_kb: int = 0) -> run.Row:
        cells = {run.HOLON: run.Cell(runs=[run.Run(holon, 0, True)],
                                     probe=run.Run(holon, peak_kb, True))}
        if git is not None:
            cells[run.GIT] = run.Cell(runs=[run.Run(git, 0, True)])
        return run.Row(name, "", cells)

    rows = [row("large patch, working tree", 1.2, 1.0, peak_kb=60_000),
            row("one file, 10,000 lines, drifted", 0.1),
            row("one file, 100,000 lines, exact", 0.5),
            row("one file, 100,000 lines, drifted", 1.5),
            row("startup: --check, one-line patch", 0.08),
            row("baseline: python -c 'import click'", 0.05),
            row("startup: apply, one-line patch", 0.08, peak_kb=20_000),
            row("in process: apply_patch()", 0.0008)]
    got = {t.name: t for t in run.targets(rows, touched_bytes=40_000 * 1024)}
    assert got["large patch, working tree"].met is True
    assert got["large patch, --cached"].met is None
    assert got["growth 10,000 -> 100,000 lines (drifted)"].met is False  # 15x
    assert got["drifted / exact at 100,000 lines"].met is False  # 3x
    assert got["startup --check / import click"].met is False  # 1.6x
    assert got["in-process apply_patch median"].met is False  # 0.8 ms
    assert got["peak memory above baseline / touched bytes"].value == "1.00x"
    rows[0] = row("large patch, working tree", 2.0, 1.0)
    assert got["large patch, working tree"].goal == "<= 1.60x git apply"
    on_disk = {t.name: t for t in run.targets(rows, None, "ext4")}
    on_tmpfs = {t.name: t for t in run.targets(rows, None, "tmpfs")}
    assert on_disk["large patch, working tree"].met is False  # 2x
    assert on_tmpfs["large patch, working tree (on tmpfs)"].met is True  # <= 3.5x there


def test_the_filesystem_of_a_path_is_its_longest_mount_point():
    assert run.filesystem_of(Path("/proc/self")) == "proc"
    assert run.filesystem_of(Path("/proc")) == "proc"


@pytest.mark.parametrize("kind", ["identical", "identical3", "identical_added", "blank"])
def test_repeat_cases_apply_with_git_and_holon_alike(tmp_path: Path, kind: str):
    results = []
    for tool in ("git", "holon"):
        case = inputs.repeat_case(tmp_path / tool, kind, 2000, 20)
        before = (case.repo / case.name).read_bytes()
        if tool == "git":
            zero = ["--unidiff-zero"] if case.zero_context else []
            subprocess.run(["git", "apply", *zero, str(case.patch)], cwd=case.repo, check=True)
        else:
            receipt = apply_patch(case.patch.read_bytes(), case.repo)
            assert receipt.ok, receipt.to_json()
            # every old side has many copies: the line numbers placed the hunks
            assert all(h.by_line_number for h in receipt.files[0].hunks)
        results.append((case.repo / case.name).read_bytes())
    assert results[0] == results[1] != before
    assert case.patch.read_bytes().count(b"\n@@ ") == 20


def test_envelope_adds_are_empty_add_sections(tmp_path: Path):
    repo, patch = inputs.envelope_adds(tmp_path, 5)
    text = patch.read_bytes()
    assert text.startswith(b"*** Begin Patch\n") and text.endswith(b"*** End Patch\n")
    assert text.count(b"*** Add File: ") == 5
    receipt = apply_patch(text, repo, check=True)
    assert receipt.ok and len(receipt.files) == 5
