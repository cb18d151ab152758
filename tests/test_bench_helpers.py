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

import floor  # noqa: E402
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
            # a -U0 case's repeated lines go by unproven numbers only when told, as git
            receipt = apply_patch(case.patch.read_bytes(), case.repo,
                                  unidiff_zero=case.zero_context)
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


# -- CPU time beside wall time (issue 29) ------------------------------------------------------
def test_a_child_process_cpu_time_is_its_own_user_and_system_time(tmp_path: Path):
    busy = run.run_process([sys.executable, "-c", "sum(i * i for i in range(300_000))"],
                           tmp_path)
    assert busy.ok and busy.cpu > 0  # read from the child's rusage (wait4)
    failed = run.run_process([sys.executable, "-c", "raise SystemExit(3)"], tmp_path)
    assert not failed.ok and failed.cpu >= 0


def test_cells_give_cpu_medians_and_show_them_beside_wall_time():
    cell = run.Cell(runs=[run.Run(0.3, 0, True, cpu=0.20), run.Run(0.1, 0, True, cpu=0.05),
                          run.Run(0.2, 0, True, cpu=0.10)])
    assert cell.median == 0.2 and cell.cpu_median == 0.10
    assert cell.describe() == "200.0 ms (CPU 100.0 ms)"
    no_cpu = run.Cell(runs=[run.Run(0.2, 0, True)])
    assert no_cpu.cpu_median is None and no_cpu.describe() == "200.0 ms"
    failed = run.Cell(runs=[run.Run(0.1, 0, True, cpu=0.1), run.Run(0.1, 0, False, "x", cpu=0.1)])
    assert failed.cpu_median is None


def test_the_table_gives_ratios_to_git_patch_and_the_floor_in_cpu_time():
    def cell(wall: float, cpu: float) -> run.Cell:
        return run.Cell(runs=[run.Run(wall, 0, True, cpu=cpu)])

    row = run.Row("large patch, working tree", "d", {
        run.HOLON: cell(1.0, 0.6), run.GIT: cell(0.5, 0.2), run.PATCH: cell(0.1, 0.3),
        run.FLOOR: cell(0.4, 0.3)})
    assert run.ratios(row) == ["2.00x", "3.00x", "2.00x", "2.00x"]
    text = run.table([row, run.Row("startup", "d", {run.HOLON: cell(0.1, 0.1)})])
    head, _, first, second = text.splitlines()
    assert "holon / git CPU" in head and "holon / floor CPU" in head and run.FLOOR in head
    assert "1.00 s (CPU 600.0 ms)" in first and "| 2.00x | 3.00x | 2.00x | 2.00x |" in first
    assert "| - | - | - | - |" in second


def test_issue_29s_targets_are_judged_on_cpu_time():
    def row(name: str, holon: float, git: float | None = None,
            floor_cpu: float | None = None) -> run.Row:
        cells = {run.HOLON: run.Cell(runs=[run.Run(9.9, 0, True, cpu=holon)])}
        if git is not None:
            cells[run.GIT] = run.Cell(runs=[run.Run(0.001, 0, True, cpu=git)])
        if floor_cpu is not None:
            cells[run.FLOOR] = run.Cell(runs=[run.Run(9.9, 0, True, cpu=floor_cpu)])
        return run.Row(name, "", cells)

    rows = [row("large patch, working tree", 0.29, 0.1, 0.2),
            row("in process: apply_patch()", 0.004, floor_cpu=0.001),
            row("100k identical lines, 5,000 one-line-context hunks", 0.4, 0.1),
            row("100k identical lines, 10,000 one-line-context hunks", 0.9, 0.2),
            row("startup: --check, one-line patch", 0.06),
            row("baseline: python -c 'import click'", 0.05)]
    got = {t.name: t for t in run.targets_29(rows, tmpfs=True)}
    large = got["issue 29: large patch, working tree, CPU (on tmpfs)"]
    assert large.value == "2.90x" and large.met is True  # wall time would say 99x
    assert got["issue 29: large patch, --cached, CPU"].met is None  # not measured
    floor_row = got["issue 29: large patch, working tree, CPU over the plain-Python floor"]
    assert floor_row.value == "1.45x" and floor_row.met is None  # reported, no goal
    assert got["issue 29: in process, apply_patch() over the plain-Python floor, CPU"
               ].met is False  # 4x
    assert got["issue 29: 100k identical lines, 5,000 one-line-context hunks, CPU"].met is True
    assert got["issue 29: identical lines, 2x hunks, CPU"].value == "2.25x"
    assert got["issue 29: identical lines, 2x hunks, CPU"].met is False
    assert got["issue 29: startup --check / import click, CPU"].value == "1.20x"
    on_disk = {t.name for t in run.targets_29(rows, tmpfs=False)}
    assert "issue 29: large patch, working tree, CPU (not on tmpfs: see --tmpfs)" in on_disk


# -- the plain-Python floor ---------------------------------------------------------------------
def _git_and_floor_alike(tmp_path: Path, files: dict[str, bytes], patch: bytes) -> bytes:
    """Apply ``patch`` with git apply and with bench/floor.py to two copies of ``files``;
    both trees must be equal. Returns the floor's tree id."""
    trees = []
    for tool in ("git", "floor"):
        repo = tmp_path / tool
        repo.mkdir()
        for name, data in files.items():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_bytes(data)
        inputs.git(repo, "init", "-q")
        inputs.git(repo, "add", "-A")
        if tool == "git":
            inputs.git(repo, "apply", "-", input=patch)
        else:
            floor.apply(patch, repo)
        inputs.git(repo, "add", "-A")
        trees.append(inputs.git(repo, "write-tree").strip())
    assert trees[0] == trees[1]
    return trees[1].encode()


def test_the_floor_applies_a_git_diff_as_git_does(tmp_path: Path):
    lines = inputs.big_file_lines(300)
    old = {"big.py": b"".join(lines), "gone.txt": b"bye\n", "tail.txt": b"a\nb",
           "run.sh": b"echo\n"}
    new = {"big.py": b"".join(lines[:100] + [b"# new\n"] + lines[100:250] + lines[251:]),
           "added/new.txt": b"hello\n", "tail.txt": b"a\nc\n", "run.sh": b"echo\n"}
    work = tmp_path / "diff"
    for name, data in old.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(data)
    inputs.git(work, "init", "-q")
    inputs.git(work, "add", "-A")
    inputs.git(work, "commit", "-qm", "old")
    (work / "gone.txt").unlink()
    for name, data in new.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(data)
    (work / "run.sh").chmod(0o755)
    inputs.git(work, "add", "-A")
    patch = inputs.git(work, "diff", "--cached").encode()
    assert b"new file mode" in patch and b"deleted file mode" in patch
    assert b"new mode 100755" in patch and b"\\ No newline at end of file" in patch
    _git_and_floor_alike(tmp_path, old, patch)


def test_the_floor_places_repeated_lines_by_line_number_and_refuses_what_it_cannot(
        tmp_path: Path):
    lines = inputs.big_file_lines(2000)  # its lines repeat: copies that only a hint tells
    patch = inputs.big_file_patch(lines, "big.py", drifted=False, hunks=20)
    _git_and_floor_alike(tmp_path, {"big.py": b"".join(lines)}, patch)
    repo = tmp_path / "refused"
    repo.mkdir()
    (repo / "f.txt").write_bytes(b"x\ny\nx\ny\n")
    (repo / "g.txt").write_bytes(b"1\n")
    twice = (b"--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-1\n+2\n"
             b"--- a/f.txt\n+++ b/f.txt\n@@ -9,2 +9,2 @@\n x\n-y\n+z\n")
    with pytest.raises(floor.Refused):
        floor.apply(twice, repo)
    assert (repo / "g.txt").read_bytes() == b"1\n"  # planned whole before anything is written


def test_budgets_near_miss_hunk_is_one_hunk_of_repeated_lines():
    """bench/budgets.py's search shapes: a hunk of context + 1 + context copies of the line,
    the middle one removed, whose header counts them."""
    import budgets

    from holon_git.parse import parse_patch

    hunk = budgets.near_miss_hunk("f.txt", 5)
    (fp,) = parse_patch(b"--- a/f.txt\n+++ b/f.txt\n" + hunk).files
    (parsed,) = fp.hunks
    lines = hunk.splitlines()[1:]
    assert lines == [b" x = 1"] * 5 + [b"-x = 1"] + [b" x = 1"] * 5
    assert len(parsed.lines) == 11


def test_every_scenario_is_a_module_registered_once_with_a_name_and_what_it_measures():
    """bench/scenarios/: one module per scenario, each in scenarios.ALL once, with the NAME
    --only takes, a docstring and run(cache, options); run.py offers exactly those names."""
    import inspect

    import scenarios

    modules = {path.stem for path in (BENCH / "scenarios").glob("*.py")} - {"__init__"}
    assert {module.NAME for module in scenarios.ALL} == modules
    assert len(scenarios.NAMES) == len(set(scenarios.NAMES)) == len(modules)
    for module in scenarios.ALL:
        assert (module.__doc__ or "").strip(), module.NAME
        assert list(inspect.signature(module.run).parameters) == ["cache", "options"]
    with pytest.raises(SystemExit):
        run.main(["--only", "no-such-scenario"])
