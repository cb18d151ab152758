"""Path policy: what a patch may name, decided without touching disk."""

from __future__ import annotations

import pytest

from holon_git.core.paths import is_dot_git, normalize
from holon_git.errors import PatchError


@pytest.mark.parametrize("raw,clean", [
    ("src/app.py", "src/app.py"),
    ("./src//app.py", "src/app.py"),
    ("src/./app.py", "src/app.py"),
    ("a b/c d.txt", "a b/c d.txt"),
    ("café/ünï.txt", "café/ünï.txt"),
    (".github/workflows/ci.yml", ".github/workflows/ci.yml"),
    (".gitignore", ".gitignore"),
    ("docs/.gitkeep", "docs/.gitkeep"),
    ("a/~b", "a/~b"),
])
def test_accepted_paths(raw: str, clean: str):
    assert normalize(raw) == clean


@pytest.mark.parametrize("raw,code", [
    ("", "invalid_path"),
    (".", "invalid_path"),
    ("//", "path_escape"),
    ("./", "invalid_path"),
    ("b/", "invalid_path"),
    ("src/pkg/", "invalid_path"),
    ("a\x00b", "invalid_path"),
    ("a\nb", "invalid_path"),
    ("a\x7fb", "invalid_path"),
    ("a\\..\\b", "invalid_path"),
    ("x" * 256, "invalid_path"),
    ("/".join(["d" * 200] * 25), "invalid_path"),
    ("/etc/passwd", "path_escape"),
    ("C:/Windows/x", "path_escape"),
    ("..", "path_escape"),
    ("../x", "path_escape"),
    ("a/../../x", "path_escape"),
    ("a/src/./../../x", "path_escape"),
    ("a/..", "path_escape"),
    ("~/.ssh/authorized_keys", "path_escape"),
    (".git", "path_escape"),
    (".git/hooks/pre-commit", "path_escape"),
    ("sub/.git/config", "path_escape"),
    (".GIT/config", "path_escape"),
    (".Git/config", "path_escape"),
    (".git./config", "path_escape"),
    (".git /config", "path_escape"),
    ("git~1/config", "path_escape"),
    (".g\u200cit/config", "path_escape"),
    ("\ufeff.git/config", "path_escape"),
    (".git::$INDEX_ALLOCATION/config", "path_escape"),
])
def test_refused_paths(raw: str, code: str):
    with pytest.raises(PatchError) as info:
        normalize(raw)
    assert info.value.code == code


def test_dot_git_spellings():
    assert is_dot_git(".git") and is_dot_git(".GiT") and is_dot_git("GIT~1")
    assert not is_dot_git(".gitignore") and not is_dot_git(".github") and not is_dot_git("git")
