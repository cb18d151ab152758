"""--expect-sha256 is no oracle for protected files (issue 28, item 3).

The attack: a harmless patch with `--expect-sha256 secret.env=<guess>` (or `=` for "must not
exist"). `stale_file` or success told whether the protected file exists and whether the
guess is its hash, and the refusal even printed the actual hash. Now a protected path there
is refused `protected_path` whatever it holds, by every target and over MCP.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import everything

from holon_git import apply_patch
from holon_git.mcp_server.calls import answer
from holon_git.mcp_server.tools import CHECK, check_arguments

SECRET = "API_KEY=hunter2\n"
RIGHT = hashlib.sha256(SECRET.encode()).hexdigest()
WRONG = "0" * 64
NOTES = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-a\n+b\n"
TARGETS = [{}, {"check": True}, {"target": "index"}, {"target": "both"},
           {"ref": "main", "message": "m"}]


@pytest.fixture
def repo_files() -> dict[str, str]:
    """What the shared `repo` fixture commits here."""
    return {"notes.txt": "a\n", "secret.env": SECRET, ".holon/protect": "secret.env\nvault/\n"}


@pytest.mark.parametrize("options", TARGETS, ids=lambda o: "-".join(map(str, o.values())) or
                         "worktree")
def test_every_guess_gets_the_same_refusal(repo: Path, options: dict):
    before = everything(repo)
    answers = set()
    for path, guess in (("secret.env", RIGHT), ("secret.env", WRONG), ("secret.env", ""),
                        ("./secret.env", RIGHT), ("vault/missing.key", ""),
                        ("vault/missing.key", WRONG), (".holon/protect", WRONG)):
        receipt = apply_patch(NOTES, repo, expect_sha256={path: guess}, **options)
        assert receipt.error is not None and receipt.error.code == "protected_path", \
            (path, guess, receipt.to_json())
        assert RIGHT not in receipt.to_json()
        answers.add((receipt.error.code, receipt.error.message.replace("./", "")))
    assert len({code for code, _ in answers}) == 1
    assert everything(repo) == before


def test_over_mcp_and_the_command_line(repo: Path):
    before = everything(repo)
    for guess in (RIGHT, WRONG, ""):
        arguments = check_arguments(CHECK, {"patch": NOTES,
                                            "expect_sha256": {"secret.env": guess}})
        result = answer(CHECK, arguments, str(repo))
        assert result.structured["error"]["code"] == "protected_path"
        assert RIGHT not in result.text and RIGHT not in json.dumps(result.structured)
        done = holon(repo, "--check", "--expect-sha256", f"secret.env={guess}", "-",
                     stdin=NOTES)
        assert done.returncode == 1 and "protected_path" in done.stderr
        assert RIGHT not in done.stderr + done.stdout
    assert everything(repo) == before


def test_unprotected_paths_are_still_checked(repo: Path):
    receipt = apply_patch(NOTES, repo, check=True, expect_sha256={"notes.txt": WRONG})
    assert receipt.error is not None and receipt.error.code == "stale_file"
    right = hashlib.sha256(b"a\n").hexdigest()
    assert apply_patch(NOTES, repo, expect_sha256={"notes.txt": right}).ok
