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
from repos.builders import git
from test_mcp_server import Client, server, session, text

from holon_git import apply_patch
from holon_git.errors import PatchError
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
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits before the Latin-1 name."""
    return {"plain.txt": "p\n"}


@pytest.fixture
def repo(repo: Path) -> Path:
    """The shared `repo` fixture, with a file whose name is not UTF-8 committed."""
    (repo / os.fsdecode(NAME)).write_bytes(b"a\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "latin-1 name")
    return repo


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
    assert refused["error"]["path"] == QUOTED and QUOTED in refused["error"]["message"]
    assert apply_patch(RENAME, repo).ok
    assert (repo / os.fsdecode(b"caf\xe9-2.txt")).exists()


@pytest.mark.slow
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


@pytest.mark.slow
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


# Issue 35, item 4: the index, commit and branch targets (and their --check) looked the path's
# attributes up through pygit2, which encodes a path as strict UTF-8: UnicodeEncodeError, no
# receipt under --json, the library raised, the MCP server answered a JSON-RPC error.
TARGETS = {"index": {"target": "both"}, "cached": {"target": "index"},
           "commit": {"commit": True, "message": "m"}, "ref": {"ref": "main", "message": "m"}}
CLI_TARGETS = {"index": ["--index"], "cached": ["--cached"], "commit": ["--commit", "-m", "m"],
               "ref": ["--ref", "main", "-m", "m"]}


def committed(repo: Path) -> str:
    return git(repo, "cat-file", "blob", "main:" + os.fsdecode(NAME))


@pytest.mark.parametrize("check", [False, True], ids=["apply", "check"])
@pytest.mark.parametrize("target", TARGETS)
def test_every_target_applies_it_and_quotes_it(repo: Path, target: str, check: bool):
    receipt = apply_patch(PATCH, repo, check=check, **TARGETS[target])
    assert receipt.ok, receipt.error
    assert utf8_json(receipt.to_json())["files"][0]["new_path"] == QUOTED
    staged = git(repo, "show", ":" + os.fsdecode(NAME))
    assert staged == ("a\n" if check else "b\n")
    assert committed(repo) == ("b\n" if not check and target in ("commit", "ref") else "a\n")
    if check:
        return
    again = apply_patch(PATCH, repo, **TARGETS[target])  # the re-send: refused, quoted
    assert again.error is not None and again.error.code == "already_applied"
    assert "udce9" not in again.error.message and "udce9" not in again.to_json()
    assert utf8_json(again.to_json())["error"]["path"] == QUOTED


@pytest.mark.slow
@pytest.mark.parametrize("target", CLI_TARGETS)
def test_the_command_line_gives_a_receipt_on_every_target(repo: Path, target: str):
    patch = repo.parent / "p.diff"
    patch.write_text(PATCH)
    for args in (["--check"], []):
        done = holon_process(repo, "--json", *args, *CLI_TARGETS[target], str(patch),
                             env={"PYTHONIOENCODING": "utf-8"})
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        assert utf8_json(done.stdout_bytes)["files"][0]["new_path"] == QUOTED


def test_a_refusal_names_it_as_git_quotes_it(repo: Path):
    """A filter driver on the path: refused with unsupported_filter, whose message names the
    path "caf\\351.txt", on the library's error, the receipt and the command line."""
    (repo / ".gitattributes").write_text("*.txt filter=lfs\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-qm", "attributes")
    refusal = apply_patch(PATCH, repo, target="both")
    assert refusal.error is not None and refusal.error.code == "unsupported_filter"
    assert refusal.error.message.startswith(QUOTED + " has the attribute filter=lfs")
    assert utf8_json(refusal.to_json())["error"]["message"] == refusal.error.message
    patch = repo.parent / "p.diff"
    patch.write_text(PATCH)
    done = holon_process(repo, "--index", str(patch), env={"PYTHONIOENCODING": "utf-8"})
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"error: unsupported_filter: {QUOTED} (patch line 1): "
                                  f"{QUOTED} has the attribute")
    assert content(repo) == b"a\n"


@pytest.mark.slow
def test_the_mcp_server_applies_it_to_the_index(repo: Path):
    async def body(client: Client) -> None:
        for target, check in (("index", True), ("both", True), ("both", False)):
            result = await client.call_tool("apply_patch", {"patch": PATCH, "target": target,
                                                            "check_only": check})
            assert not result.is_error, text(result)
            assert result.structured_content["files"][0]["new_path"] == QUOTED
        again = await client.call_tool("check_patch", {"patch": PATCH, "target": "both"})
        assert again.is_error and QUOTED in text(again) and "udce9" not in text(again)

    session(server(repo), body)
    assert content(repo) == b"b\n"
    assert git(repo, "show", ":" + os.fsdecode(NAME)) == "b\n"


LATIN = os.fsdecode(NAME)  # 'caf\udce9.txt'
TYPED = "a\\udce9"  # the six characters \udce9 typed into a name: not a byte


@pytest.mark.parametrize(("message", "expected"), [
    (f"{LATIN!r} is a file", f"{QUOTED} is a file"),
    (f"the hunk's file {LATIN!r} and {'f.txt'!r}", f"the hunk's file {QUOTED} and 'f.txt'"),
    (f"{LATIN + chr(39)!r} moved", '"caf\\351.txt\'" moved'),
    (f"{TYPED!r} is text", f"{TYPED!r} is text"),
])
def test_a_message_names_the_path_as_git_quotes_it(message: str, expected: str):
    """However a message wrote the path with {path!r}: apostrophes around it, a quote in it
    (Python then writes it in double quotes), and the characters \\udce9 typed into a name,
    which are left alone."""
    assert PatchError("stale_file", message).message == expected
