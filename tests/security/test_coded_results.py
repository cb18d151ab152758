"""Coded results, not tracebacks or protocol errors (issue 28, item 12).

The attacks: a Latin-1 commit message (`-m $'caf\\xe9'`: pygit2 cannot encode the lone
surrogate argv decodes it to); stdout full (`>/dev/full`) or closed after a successful
apply (a traceback and exit 1, though the patch was applied); an MCP `start_line` of `1.0`
(an integer to JSON Schema, a TypeError to range()); a NUL in `repo` or in a client's root
(ValueError from the path calls: a JSON-RPC error instead of a result). The path that is not
UTF-8 is tests/security/test_non_utf8_paths.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from repos.builders import git, git_env, make_bare_repo, make_repo
from test_mcp_server import Client, roots_callback, server, session, text

from holon_git.errors import PatchError
from holon_git.mcp_server.calls import answer
from holon_git.mcp_server.confine import Confinement, roots_from_uris
from holon_git.mcp_server.tools import APPLY, READ, check_arguments

PATCH = b"--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n"
LATIN1 = b"caf\xe9: the fix"


def run(repo: Path, *args: bytes, stdout: object = subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable.encode(), b"-m", b"holon_git", *args], cwd=repo,
                          input=PATCH, stdout=stdout, stderr=subprocess.PIPE, env=git_env(),
                          timeout=120)


@pytest.mark.parametrize("target", ["commit", "ref"])
def test_a_latin1_message_is_committed_as_given(tmp_path: Path, target: str):
    if target == "commit":
        repo = make_repo(tmp_path / "r", {"f.txt": "a\n"})
        args = [b"--commit"]
    else:
        repo = make_bare_repo(tmp_path / "r.git", {"f.txt": "a\n"})
        args = [b"--ref", b"main"]
    done = run(repo, *args, b"-m", LATIN1, b"-")
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    raw = subprocess.run(["git", "cat-file", "commit", "main" if target == "ref" else "HEAD"],
                         cwd=repo, capture_output=True, env=git_env()).stdout
    assert raw.endswith(b"\n\n" + LATIN1 + b"\n")
    assert git(repo, "show", "main:f.txt") == "b\n"


@pytest.mark.slow
@pytest.mark.parametrize("args", [[b"-"], [b"--json", b"-"], [b"-v", b"-"],
                                  [b"--emit-diff", b"-", b"-"]])
def test_a_full_stdout_after_the_apply_exits_0_with_a_note(tmp_path: Path, args: list[bytes]):
    repo = make_repo(tmp_path / "r", {"f.txt": "a\n"})
    with open("/dev/full", "wb") as full:
        done = run(repo, *args, stdout=full)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr and b"Exception ignored" not in done.stderr
    assert b"note: the report could not be printed" in done.stderr
    assert (repo / "f.txt").read_text() == "b\n"


def test_a_closed_stdout_after_the_apply_exits_0(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": "a\n"})
    read, write = os.pipe()
    os.close(read)  # nobody reads: a write gets EPIPE
    try:
        done = run(repo, b"--json", b"-", stdout=write)
    finally:
        os.close(write)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert (repo / "f.txt").read_text() == "b\n"


def test_a_refusal_whose_report_cannot_be_printed_still_exits_1(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": "x\n"})
    with open("/dev/full", "wb") as full:
        done = run(repo, b"--json", b"-", stdout=full)
    assert done.returncode == 1 and b"Traceback" not in done.stderr
    assert b"context_not_found" in done.stderr


# -- MCP ----------------------------------------------------------------------------------------

@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f.txt": "a\nb\nc\n"}


def test_integral_float_lines_are_lines(repo: Path):
    arguments = check_arguments(READ, {"path": "f.txt", "start_line": 2.0, "end_line": 3.0})
    result = answer(READ, arguments, str(repo))
    assert not result.is_error, result.text
    assert [row["line"] for row in result.structured["lines"]] == [2, 3]
    with pytest.raises(PatchError) as caught:
        check_arguments(READ, {"path": "f.txt", "start_line": 1.5})
    assert caught.value.code == "invalid_tool_input"


@pytest.mark.parametrize("arguments", [{"patch": "x", "repo": "/tmp/a\x00b"},
                                       {"path": "f\x00.txt"}])
def test_a_nul_is_an_invalid_argument(arguments: dict):
    tool = READ if "path" in arguments else APPLY
    with pytest.raises(PatchError) as caught:
        check_arguments(tool, arguments)
    assert caught.value.code == "invalid_tool_input"


def test_a_nul_in_repo_or_a_root_is_coded_in_process(repo: Path):
    confinement = Confinement([str(repo)])
    with pytest.raises(PatchError) as caught:
        confinement.resolve("/tmp/a\x00b", None, READ)
    assert caught.value.code == "invalid_tool_input"
    roots = roots_from_uris(["file:///tmp/a%00b"])
    assert roots == ()  # a root that names nothing allows nothing, and does not widen
    assert confinement.allowed(roots) == []
    with pytest.raises(PatchError) as caught:
        confinement.resolve(None, roots, READ)
    assert caught.value.code == "repo_not_served"


@pytest.mark.slow
def test_over_mcp_each_is_a_tool_result(repo: Path):
    async def body(client: Client) -> None:
        region = await client.call_tool("read_region", {"path": "f.txt", "start_line": 2.0})
        assert not region.is_error, text(region)
        assert region.structured_content["start_line"] == 2
        nul = await client.call_tool("read_region", {"path": "f.txt", "repo": "/tmp/a\x00b"})
        assert nul.is_error
        assert nul.structured_content["error"]["code"] == "invalid_tool_input"

    session(server(repo), body)

    async def rooted(client: Client) -> None:
        refused = await client.call_tool("read_region", {"path": "f.txt"})
        assert refused.is_error
        assert refused.structured_content["error"]["code"] == "repo_not_served"

    session(server(repo), rooted, mode="legacy",
            list_roots_callback=roots_callback(Path("/tmp/a\x00b")))
