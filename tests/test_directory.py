"""Where a patch's paths are read from (parse/directory.py): git's rule in a subdirectory, and
--directory=ROOT."""

from __future__ import annotations

from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import applied, refused

PLAIN = "--- a/utils.py\n+++ b/utils.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"
GIT = "diff --git a/src/pkg/utils.py b/src/pkg/utils.py\n" + PLAIN.replace(
    "a/utils.py", "a/src/pkg/utils.py").replace("b/utils.py", "b/src/pkg/utils.py")
ENVELOPE = ("*** Begin Patch\n*** Update File: utils.py\n@@\n def f():\n-    return 1\n"
            "+    return 2\n*** End Patch\n")


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"src/pkg/utils.py": "def f():\n    return 1\n",
            "utils.py": "top = 1\n"}


def changed(repo: Path) -> bool:
    return (repo / "src/pkg/utils.py").read_text().endswith("return 2\n")


@pytest.mark.parametrize("patch", [PLAIN, ENVELOPE], ids=["plain diff", "envelope"])
def test_without_git_headers_paths_are_relative_to_the_directory(repo: Path, patch: str):
    receipt = applied(repo / "src" / "pkg", patch)
    assert changed(repo) and (repo / "utils.py").read_text() == "top = 1\n"
    assert receipt.files[0].new_path == "src/pkg/utils.py"
    notes = [d for d in receipt.files[0].diagnostics if d.code == "relative_to_directory"]
    assert notes and "src/pkg" in notes[0].message


def test_a_git_diff_names_paths_from_the_top_wherever_it_is_applied(repo: Path):
    applied(repo / "src", GIT)
    assert changed(repo)


def test_at_the_top_nothing_moves(repo: Path):
    receipt = applied(repo, PLAIN.replace("utils.py", "src/pkg/utils.py"))
    assert changed(repo) and not [d for f in receipt.files for d in f.diagnostics
                                  if d.code == "relative_to_directory"]


def test_the_cli_from_a_subdirectory_as_a_user_runs_it(repo: Path):
    done = holon(repo / "src" / "pkg", "-v", "-", stdin=PLAIN)
    assert done.returncode == 0, done.stderr
    assert "read as 'src/pkg/utils.py'" in done.stdout and changed(repo)


def test_a_missing_file_suggests_the_repository_and_directory_first(repo: Path):
    err = refused(repo / "src", PLAIN, "not_found")
    assert err.path == "src/utils.py"
    assert err.hint.index("this repository") < err.hint.index("directory") < \
        err.hint.index("/dev/null")


@pytest.mark.parametrize("patch", [PLAIN, GIT.replace("src/pkg/", "")], ids=["plain", "git"])
def test_directory_puts_root_before_every_path(repo: Path, patch: str):
    applied(repo, patch, directory="src/pkg")
    assert changed(repo)
    done = holon(repo, "--directory=src/pkg", "-R", "-", stdin=patch)
    assert done.returncode == 0 and not changed(repo), done.stderr


def test_directory_and_the_subdirectory_combine_as_in_git(repo: Path):
    applied(repo / "src", PLAIN, directory="pkg")
    assert changed(repo)


@pytest.mark.parametrize("root", ["/abs", "../up", "a/../../b", ".git"])
def test_directory_outside_the_repository_is_a_usage_error(repo: Path, root: str):
    err = refused(repo, PLAIN, "usage_error", directory=root)
    assert "--directory" in err.message and err.details["fields"] == ["directory"]
