"""`holon-apply tool-spec | grammar | prompt | tool-call` through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clisupport import holon
from repos.builders import make_repo, snapshot

from holon_git.provider import grammar, prompt, tool_definition


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_tool_spec_prints_the_definition(provider: str, tmp_path: Path) -> None:
    done = holon(tmp_path, "tool-spec", "--provider", provider)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == tool_definition(provider)


def test_grammar_prints_the_grammar_file(tmp_path: Path) -> None:
    done = holon(tmp_path, "grammar")
    assert done.returncode == 0
    assert done.stdout == grammar()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_prompt_prints_the_guidance(provider: str, tmp_path: Path) -> None:
    done = holon(tmp_path, "prompt", "--provider", provider)
    assert done.returncode == 0
    assert done.stdout == prompt(provider)


def test_provider_is_required_and_checked(tmp_path: Path) -> None:
    assert holon(tmp_path, "tool-spec").returncode == 2
    done = holon(tmp_path, "prompt", "--provider", "gemini")
    assert done.returncode == 2 and "'gemini' is not one of" in done.stderr


def test_help_lists_the_subcommands_and_version_works(tmp_path: Path) -> None:
    help_text = holon(tmp_path, "-h").stdout
    for name in ("tool-spec", "grammar", "prompt", "tool-call"):
        assert name in help_text
    version = holon(tmp_path, "--version")
    assert version.returncode == 0 and version.stdout.startswith("holon-git ")


PATCH = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"


def test_tool_call_applies_from_stdin(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "one\ntwo\n"})
    done = holon(repo, "tool-call", "--provider", "openai", stdin=PATCH)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("ApplyPatch applied: 1 file.\n"
                                    "modify a.txt: +1 -1, 1 hunk at line 1\n")
    assert (repo / "a.txt").read_text() == "one\n2\n"


def test_tool_call_refusal_exits_1(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "one\nthree\n"})
    before = snapshot(repo)
    call = tmp_path / "call.json"
    call.write_text(json.dumps({"patch": PATCH}))
    done = holon(tmp_path, "tool-call", "--provider", "anthropic", "--repo", str(repo), str(call))
    assert done.returncode == 1
    out = done.stdout
    assert "error: context_not_found (a.txt, hunk 1, patch line 3)" in out
    assert "1|one\n2|three\n" in out
    assert snapshot(repo) == before
