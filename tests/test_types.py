"""The package's types hold: mypy, configured in pyproject.toml ([tool.mypy]), finds nothing,
and it does find a type error put into a copy of the package (so the check is live: the
configuration is read and the package's files are checked)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def mypy(cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    """mypy with the configuration of ``cwd``/pyproject.toml, on the files it names."""
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache)], cwd=cwd,
                          capture_output=True, text=True, check=False)


@pytest.mark.slow
def test_mypy_finds_no_type_errors_and_a_type_error_put_in_the_core(tmp_path: Path) -> None:
    """One test, so that the second run reuses the first's cache (mypy rechecks only the
    changed module and what depends on it): two runs from scratch were the suite's
    costliest test."""
    cache = tmp_path / "cache"
    done = mypy(ROOT, cache)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout

    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "holon_git", copy / "holon_git",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    target = copy / "holon_git" / "core" / "plan" / "applied.py"
    target.write_text(target.read_text() + "\n\ndef _broken() -> int:\n    return 'one'\n")
    done = mypy(copy, cache)
    assert done.returncode == 1, done.stdout
    assert "holon_git/core/plan/applied.py" in done.stdout
    assert "Incompatible return value type" in done.stdout, done.stdout
