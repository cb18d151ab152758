"""Path-valued inputs are normalised as patch paths are before any protection check (issue
42, item 1).

The attack: with `.holon/protect` = `café.txt`, MCP `read_region {"path": "caf\udcc3\udca9.txt"}`
(the surrogate escapes of the name's own UTF-8 bytes) printed the protected lines, and
`expect_sha256` with that key told its sha256: the protection check compared the text while the
file was opened by the bytes. Now both spellings name one path and are refused alike, from the
library and over MCP (a command line's arguments are decoded from bytes already).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from gitsupport import everything

from holon_git import apply_patch
from holon_git.core.paths import normalize
from holon_git.errors import PatchError
from holon_git.mcp_server.calls import answer
from holon_git.mcp_server.region import read_region
from holon_git.mcp_server.tools import CHECK, READ, check_arguments

SECRET = "the secret line\n"
RIGHT = hashlib.sha256(SECRET.encode()).hexdigest()
PLAIN = "café.txt"
ESCAPED = "caf\udcc3\udca9.txt"  # the surrogate escapes of b"caf\xc3\xa9.txt"
NOTES = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-a\n+b\n"
SPELLINGS = (PLAIN, ESCAPED, f"./{ESCAPED}", f".//{ESCAPED}")


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    return {"notes.txt": "a\n", PLAIN: SECRET, ".holon/protect": f"{PLAIN}\n"}


def test_escaped_spelling_is_the_plain_name():
    assert normalize(ESCAPED) == PLAIN
    assert normalize(f"dir/./{ESCAPED}") == f"dir/{PLAIN}"
    latin1 = "caf\udce9.txt"  # not UTF-8: stays the byte it names
    assert normalize(latin1) == latin1


def test_read_region_refuses_every_spelling(repo: Path):
    for path in (PLAIN, ESCAPED, f"./{ESCAPED}"):
        result = answer(READ, check_arguments(READ, {"path": path}), str(repo))
        assert result.is_error, path
        assert result.structured["error"]["code"] == "protected_path", result.structured
        assert "secret" not in result.text
        with pytest.raises(PatchError) as caught:
            read_region(str(repo), path)
        assert caught.value.code == "protected_path"


@pytest.mark.parametrize("options", [{}, {"check": True}, {"target": "index"},
                                     {"ref": "main", "message": "m"}],
                         ids=["worktree", "check", "index", "ref"])
def test_expect_sha256_key_in_disguise_is_refused(repo: Path, options: dict):
    before = everything(repo)
    for path in SPELLINGS[1:]:
        for guess in (RIGHT, "0" * 64, ""):
            receipt = apply_patch(NOTES, repo, expect_sha256={path: guess}, **options)
            assert receipt.error is not None and receipt.error.code == "protected_path", \
                (path, guess, receipt.to_json())
            assert RIGHT not in receipt.to_json()
    assert everything(repo) == before


def test_expect_sha256_over_mcp(repo: Path):
    before = everything(repo)
    for guess in (RIGHT, "0" * 64):
        arguments = check_arguments(CHECK, {"patch": NOTES, "expect_sha256": {ESCAPED: guess}})
        result = answer(CHECK, arguments, str(repo))
        assert result.structured["error"]["code"] == "protected_path", result.structured
        assert RIGHT not in result.text and RIGHT not in json.dumps(result.structured)
    assert everything(repo) == before


def test_an_open_non_ascii_path_still_reads_by_either_spelling(repo: Path):
    (repo / "naïve.txt").write_text("open\n")
    escaped = "na\udcc3\udcafve.txt"
    assert read_region(str(repo), escaped).path == "naïve.txt"
    assert read_region(str(repo), escaped).lines == [(1, "open")]
    digest = hashlib.sha256(b"open\n").hexdigest()
    assert apply_patch(NOTES, repo, check=True, expect_sha256={escaped: digest}).ok


def test_a_lone_surrogate_naming_no_byte_is_invalid_path(repo: Path):
    """From the library (MCP refuses such an argument before): a coded refusal, not an
    encoder's traceback."""
    before = everything(repo)
    with pytest.raises(PatchError) as caught:
        read_region(str(repo), "caf\ud800.txt")
    assert caught.value.code == "invalid_path"
    receipt = apply_patch(NOTES, repo, expect_sha256={"caf\ud800.txt": ""})
    assert receipt.error is not None and receipt.error.code == "invalid_path"
    assert everything(repo) == before


def test_str_replace_of_a_disguised_protected_path(repo: Path):
    """MCP's str_replace names its file by a path argument too."""
    from holon_git.mcp_server.tools import REPLACE

    before = everything(repo)
    for old in ("the secret line", "a wrong guess"):
        arguments = check_arguments(REPLACE, {"path": ESCAPED, "old_str": old,
                                              "new_str": "x"})
        result = answer(REPLACE, arguments, str(repo))
        assert result.structured["error"]["code"] == "protected_path", result.structured
    assert everything(repo) == before
