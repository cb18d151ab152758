"""A path that is not UTF-8 is quoted as git quotes it, never a crash (issue 28, items 4, 12).

The attack: a patch for `caf\\351.txt` (Latin-1; git quotes it so in the patch). The MCP
server wrote the file, then died encoding the receipt (the SDK cannot encode the lone
surrogate the path decodes to) and left its client hanging; the command line wrote the file
and then crashed in the history log and in printing. Now every receipt, refusal, MCP result
and printed line carries the path as git quotes it (`"caf\\351.txt"`), and the apply exits 0.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from clisupport import holon_process
from test_mcp_server import Client, server, session, text

from holon_git import apply_patch
from holon_git.git import history
from holon_git.mcp_server.calls import answer
from holon_git.mcp_server.tools import APPLY, READ, check_arguments

NAME = b"caf\xe9.txt"
QUOTED = '"caf\\351.txt"'
PATCH = ('diff --git "a/caf\\351.txt" "b/caf\\351.txt"\n--- "a/caf\\351.txt"\n'
         '+++ "b/caf\\351.txt"\n@@ -1 +1 @@\n-a\n+b\n')
RENAME = ('diff --git a/plain.txt "b/caf\\351-2.txt"\nsimilarity index 100%\n'
          'rename from plain.txt\nrename to "caf\\351-2.txt"\n')


@pytest.fixture
def repo_files() -> dict[str, str]:
    """What the shared `repo` fixture commits here: a file whose name is not UTF-8."""
    return {"plain.txt": "p\n", os.fsdecode(NAME): "a\n"}


def content(repo: Path) -> bytes:
    return (repo / os.fsdecode(NAME)).read_bytes()


def utf8_json(data: str | bytes) -> dict:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return json.loads(raw.decode("utf-8"))  # strict: no lone surrogate, no stray byte


def test_receipts_quote_the_path(repo: Path):
    receipt = apply_patch(PATCH, repo)
    assert receipt.ok, receipt.error
    assert content(repo) == b"b\n"
    out = utf8_json(receipt.to_json())
    assert out["files"][0]["old_path"] == QUOTED == out["files"][0]["new_path"]
    assert [e.path for e in history.read(str(repo / ".git"))] == [os.fsdecode(NAME)]
    again = apply_patch(PATCH, repo)  # the re-send, found in the log by the same path
    assert again.error is not None and again.error.code == "already_applied"
    refused = utf8_json(again.to_json())
    assert refused["error"]["path"] == QUOTED and "caf\\udce9.txt" in refused["error"]["message"]
    assert apply_patch(RENAME, repo).ok
    assert (repo / os.fsdecode(b"caf\xe9-2.txt")).exists()


def test_the_mcp_server_answers_and_lives_on(repo: Path):
    async def body(client: Client) -> None:
        applied = await client.call_tool("apply_patch", {"patch": PATCH})
        assert not applied.is_error, text(applied)
        assert applied.structured_content["files"][0]["new_path"] == QUOTED
        assert "caf\\351.txt" in text(applied)
        again = await client.call_tool("apply_patch", {"patch": PATCH})
        assert again.is_error
        assert again.structured_content["error"]["code"] == "already_applied"
        plain = await client.call_tool("read_region", {"path": "plain.txt"})
        assert not plain.is_error and plain.structured_content["lines"][0]["text"] == "p"

    session(server(repo), body)
    assert content(repo) == b"b\n"


def test_in_process_answers_are_utf8(repo: Path):
    """A JSON "\\udce9" escape in the arguments decodes to the lone surrogate (the SDK's own
    client cannot send one): read_region reads the file and answers in UTF-8."""
    result = answer(APPLY, check_arguments(APPLY, {"patch": PATCH}), str(repo))
    assert not result.is_error
    utf8_json(json.dumps(result.structured, ensure_ascii=False))
    result.text.encode("utf-8")
    result = answer(READ, check_arguments(READ, {"path": "caf\udce9.txt"}), str(repo))
    assert not result.is_error and result.structured["lines"][0]["text"] == "b"
    result.text.encode("utf-8")


@pytest.mark.parametrize("args", [[], ["-v"], ["--json"], ["--stat"]])
def test_the_command_line_prints_it_and_exits_0(repo: Path, args: list[str]):
    """In a strict UTF-8 locale (PYTHONIOENCODING=utf-8: no surrogateescape on stdout)."""
    patch = repo.parent / "p.diff"
    patch.write_text(PATCH)
    done = holon_process(repo, *args, str(patch), env={"PYTHONIOENCODING": "utf-8"})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert content(repo) == b"b\n" or args == ["--stat"]
    out = done.stdout_bytes
    out.decode("utf-8")
    if args == ["--json"]:
        assert utf8_json(out)["files"][0]["old_path"] == QUOTED
    elif args:
        assert b'"caf\\351.txt"' in out
