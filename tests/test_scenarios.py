"""Parser and matcher cases kept as folders, run by one loop (the way Codex's apply-patch crate
keeps its cases). Adding a case is adding a folder, no Python:

    tests/scenarios/NNN-name/
        before/        the repository's files, committed before the patch
        patch.diff     the patch, bytes as they are (CRLF, non-UTF-8 ...)
        after/         the working tree expected after `git holon-apply --json ARGS patch.diff`
        error.json     or: the refusal expected, fields of the receipt's "error" (a subset:
                       "details" is compared key by key); "exit" is the exit status (default 1)
        cmd.json       optional: {"args": ["-R", ...]} options for the command line
        receipt.json   optional, with after/: per hunk, in patch order, "tolerances",
                       "applied_lines" and "offsets" the receipt must list

A refusal must leave the working tree and the git state exactly as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clisupport import holon
from repos.builders import git_state, make_repo

SCENARIOS = Path(__file__).parent / "scenarios"
HUNK_FIELDS = {"tolerances": "tolerances", "applied_lines": "applied_line", "offsets": "offset"}


def files_under(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` (outside .git) by its slash-separated path, with its bytes."""
    return {path.relative_to(root).as_posix(): path.read_bytes()
            for path in sorted(root.rglob("*"))
            if path.is_file() and ".git" not in path.relative_to(root).parts}


def read_json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


CASES = sorted(path for path in SCENARIOS.iterdir() if path.is_dir())


def test_scenario_folders_are_well_formed():
    assert len(CASES) >= 30
    for case in CASES:
        assert case.name[:3].isdigit() and case.name[3] == "-", case.name
        assert (case / "before").is_dir() and (case / "patch.diff").is_file(), case.name
        assert (case / "after").is_dir() != (case / "error.json").is_file(), case.name
        known = {"before", "patch.diff", "after", "error.json", "cmd.json", "receipt.json"}
        assert {path.name for path in case.iterdir()} <= known, case.name
    assert len({case.name[:3] for case in CASES}) == len(CASES), "two scenarios share a number"


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_scenario(case: Path, tmp_path: Path):
    repo = make_repo(tmp_path / "repo", files_under(case / "before"))
    state = git_state(repo)
    args = read_json(case / "cmd.json").get("args", [])
    done = holon(repo, "--json", *args, str(case / "patch.diff"))
    receipt = json.loads(done.stdout)
    if (case / "after").is_dir():
        assert done.returncode == 0, done.stderr
        assert files_under(repo) == files_under(case / "after")
        hunks = [hunk for change in receipt["files"] for hunk in change["hunks"]]
        for key, value in read_json(case / "receipt.json").items():
            assert [hunk[HUNK_FIELDS[key]] for hunk in hunks] == value, key
        return
    expected = read_json(case / "error.json")
    assert done.returncode == expected.pop("exit", 1), done.stderr
    error = receipt["error"]
    for key, value in expected.pop("details", {}).items():
        assert error["details"][key] == value, key
    assert {key: error.get(key) for key in expected} == expected
    assert files_under(repo) == files_under(case / "before") and git_state(repo) == state
