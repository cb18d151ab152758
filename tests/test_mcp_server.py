"""`git holon-apply mcp` end to end: the MCP SDK's own stdio client starts the server as a
subprocess against real repositories (no mocks of the protocol), in both protocol eras the SDK
speaks: the 2025 initialize handshake ("legacy") and the 2026-07-28 per-request envelope
("auto" negotiates it with this server)."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from repos.builders import git, git_env, make_repo, snapshot

from holon_git import apply_patch
from holon_git.mcp_server.tools import instructions, tool_specs

pytest.importorskip("mcp")  # the test extra installs it

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp import types as mcp_types  # noqa: E402

GREET = 'def greet(name):\n    return "Hello, " + name\n\n\ndef farewell(name):\n' \
    '    return "Goodbye, " + name\n'
MODES = ["legacy", "auto"]


def server(*repos: Path | str, cwd: Path | None = None) -> StdioServerParameters:
    args = ["-m", "holon_git", "mcp"]
    for repo in repos:
        args += ["--repo", str(repo)]
    return StdioServerParameters(command=sys.executable, args=args, env=git_env(), cwd=cwd)


def session(params: StdioServerParameters, body: Callable[[Client], Awaitable[Any]],
            **options: Any) -> Any:
    """Run ``body`` with a connected client; the server stops when the client closes."""
    async def main() -> Any:
        async with Client(params, **options) as client:
            return await body(client)

    return anyio.run(main)


def text(result: mcp_types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, mcp_types.TextContent)
    return block.text


def roots_callback(*dirs: Path) -> Callable[..., Awaitable[mcp_types.ListRootsResult]]:
    async def list_roots(context: Any) -> mcp_types.ListRootsResult:
        return mcp_types.ListRootsResult(roots=[mcp_types.Root(uri=d.as_uri()) for d in dirs])

    return list_roots


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"src/greet.py": GREET, "README": "hi\n"}


# -- tools and schemas --------------------------------------------------------------------------

@pytest.mark.slow
def test_tools_are_listed_with_their_schemas_and_bad_calls_refused(repo: Path):
    before = snapshot(repo)

    async def body(client: Client) -> None:
        listed = (await client.list_tools()).tools
        assert [tool.name for tool in listed] == ["apply_patch", "check_patch", "str_replace",
                                                  "read_region"]
        for tool, spec in zip(listed, tool_specs(), strict=True):
            assert tool.description == spec.description and tool.title == spec.title
            assert tool.input_schema == spec.input_schema
            assert tool.output_schema == spec.output_schema
            assert tool.annotations is not None
            assert tool.annotations.read_only_hint is (tool.name not in ("apply_patch",
                                                                         "str_replace"))
        assert client.server_info is not None and client.server_info.name == "holon-git"
        assert client.instructions == instructions()

        bad = await client.call_tool("apply_patch", {"patch": "x", "target": "ref"})
        assert bad.is_error and bad.structured_content["error"]["code"] == "invalid_tool_input"
        assert "target" in text(bad)
        escape = await client.call_tool("read_region", {"path": ".git/config"})
        assert escape.is_error
        assert escape.structured_content["error"]["code"] == "path_escape"
        with pytest.raises(Exception, match="unknown tool"):
            await client.call_tool("rm_rf", {})

    session(server(repo), body, mode="legacy")
    assert snapshot(repo) == before


# -- str_replace: an edit by its text, with the text editor tool's arguments -------------------

@pytest.mark.slow
def test_the_sdk_client_calls_str_replace_and_apply_patch_with_blocks(repo: Path):
    edit = {"path": "src/greet.py", "old_str": '"Hello, "', "new_str": '"Hi, "'}
    blocks = ("src/greet.py\n```python\n<<<<<<< SEARCH\n    return \"Goodbye, \" + name\n"
              "=======\n    return \"Bye, \" + name\n>>>>>>> REPLACE\n```\n")

    async def body(client: Client) -> None:
        checked = await client.call_tool("str_replace", {**edit, "check_only": True})
        assert not checked.is_error and checked.structured_content["status"] == "checked"
        assert (repo / "src/greet.py").read_text() == GREET
        done = await client.call_tool("str_replace", edit)
        assert not done.is_error, text(done)
        assert done.structured_content["files"][0]["edit"] == 1
        again = await client.call_tool("str_replace", edit)
        assert again.is_error
        assert again.structured_content["error"]["code"] == "already_applied"
        missing = await client.call_tool("str_replace", {"path": "src/greet.py",
                                                         "new_str": "x"})
        assert missing.is_error
        assert missing.structured_content["error"]["code"] == "invalid_tool_input"
        escape = await client.call_tool("str_replace", {**edit, "path": "../x.py"})
        assert escape.structured_content["error"]["code"] == "path_escape"
        applied = await client.call_tool("apply_patch", {"patch": blocks})
        assert not applied.is_error, text(applied)
        assert applied.structured_content["format"] == "blocks"

    session(server(repo), body, mode="legacy")
    assert (repo / "src/greet.py").read_text() == GREET.replace("Hello", "Hi").replace(
        "Goodbye, ", "Bye, ")


# -- apply, refuse, repair with read_region, apply again -----------------------------------------

STALE = ("--- a/src/greet.py\n+++ b/src/greet.py\n@@ -2,5 +2,5 @@\n"
         '     return "Hi, " + name\n \n \n def farewell(name):\n'
         '-    return "Bye, " + name\n+    return f"Goodbye, {name}!"\n')


def repaired_from(region_text: str) -> str:
    """The hunk rebuilt from read_region's numbered lines alone, as a model would."""
    rows = [re.match(r"^(\d+)\|(.*)$", line) for line in region_text.split("\n")]
    numbered = [(int(m.group(1)), m.group(2)) for m in rows if m]
    first = numbered[0][0]
    body = [f" {line}" for _, line in numbered[:-1]]
    body += [f"-{numbered[-1][1]}", '+    return f"Goodbye, {name}!"']
    count = len(numbered)
    return (f"--- a/src/greet.py\n+++ b/src/greet.py\n@@ -{first},{count} +{first},{count} @@\n"
            + "\n".join(body) + "\n")


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_apply_refuse_repair_with_read_region_apply_again(repo: Path, mode: str):
    before = snapshot(repo)

    async def body(client: Client) -> None:
        refused = await client.call_tool("apply_patch", {"patch": STALE})
        assert refused.is_error
        assert refused.structured_content["status"] == "refused"
        assert refused.structured_content["error"]["code"] == "context_not_found"
        assert text(refused).startswith("apply_patch refused the patch; nothing was changed.\n"
                                        "error: context_not_found (src/greet.py, hunk 1")
        assert snapshot(repo) == before

        region = await client.call_tool("read_region", {"path": "src/greet.py", "start_line": 2,
                                                        "end_line": 6})
        assert not region.is_error and region.structured_content["total_lines"] == 6
        patch = repaired_from(text(region))

        checked = await client.call_tool("check_patch", {"patch": patch})
        assert not checked.is_error, text(checked)
        assert text(checked).startswith("check_patch would apply (checked, nothing written)")
        assert snapshot(repo) == before

        applied = await client.call_tool("apply_patch", {"patch": patch})
        assert not applied.is_error, text(applied)
        assert text(applied) == ("apply_patch applied: 1 file.\n"
                                 "modify src/greet.py: +1 -1, 1 hunk at line 2")
        receipt = applied.structured_content
        assert receipt["status"] == "applied" and receipt["error"] is None
        assert receipt["files"][0]["new_path"] == "src/greet.py"

        again = await client.call_tool("apply_patch", {"patch": patch})
        assert again.is_error and again.structured_content["error"]["code"] == "already_applied"

    session(server(repo), body, mode=mode)
    assert (repo / "src/greet.py").read_text() == GREET.replace(
        'return "Goodbye, " + name', 'return f"Goodbye, {name}!"')


# -- confinement --------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_repository_outside_the_roots_is_refused(tmp_path: Path, repo: Path):
    """(The 2026-07-28 roots round is in test_roots_are_asked_on_every_call.)"""
    other = make_repo(tmp_path / "other", {"src/greet.py": GREET})
    unserved = make_repo(tmp_path / "unserved", {"src/greet.py": GREET})
    edit = ("--- a/src/greet.py\n+++ b/src/greet.py\n@@ -1,2 +1,2 @@\n def greet(name):\n"
            '-    return "Hello, " + name\n+    return "Hi, " + name\n')
    untouched = {path: snapshot(path) for path in (other, unserved)}

    async def body(client: Client) -> None:
        inside = await client.call_tool("apply_patch", {"patch": edit})  # the only one allowed
        assert not inside.is_error, text(inside)
        for where in (other, unserved, other / "src"):
            for tool, arguments in (("apply_patch", {"patch": edit}),
                                    ("read_region", {"path": "src/greet.py"})):
                refused = await client.call_tool(tool, {**arguments, "repo": str(where)})
                assert refused.is_error
                assert refused.structured_content["error"]["code"] == "repo_not_served"
                assert "error: repo_not_served" in text(refused)

    session(server(repo, other), body, mode="legacy", list_roots_callback=roots_callback(repo))
    assert "Hi, " in (repo / "src/greet.py").read_text()
    assert {path: snapshot(path) for path in (other, unserved)} == untouched


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_roots_are_asked_on_every_call(tmp_path: Path, repo: Path, mode: str):
    other = make_repo(tmp_path / "other", {"a.txt": "a\n"})
    roots: list[Path] = [repo]

    async def list_roots(context: Any) -> mcp_types.ListRootsResult | mcp_types.ErrorData:
        if not roots:
            return mcp_types.ErrorData(code=-32603, message="no roots today")
        return mcp_types.ListRootsResult(roots=[mcp_types.Root(uri=d.as_uri()) for d in roots])

    async def body(client: Client) -> None:
        read = {"path": "a.txt", "repo": str(other)}
        first = await client.call_tool("read_region", read)
        assert first.structured_content["error"]["code"] == "repo_not_served"
        roots[:] = [tmp_path]  # the client's roots changed: now both lie inside
        second = await client.call_tool("read_region", read)
        assert not second.is_error, text(second)
        if mode == "legacy":  # a client that declares roots but fails to list them
            roots.clear()
            failed = await client.call_tool("read_region", read)
            assert failed.structured_content["error"]["code"] == "repo_not_served"
            assert "no roots today" in text(failed)

    session(server(repo, other), body, mode=mode, list_roots_callback=list_roots)


@pytest.mark.slow
def test_without_roots_every_served_repository_may_be_named(tmp_path: Path, repo: Path):
    other = make_repo(tmp_path / "other", {"a.txt": "a\n"})

    async def body(client: Client) -> None:
        which = await client.call_tool("read_region", {"path": "a.txt"})
        assert which.is_error
        assert which.structured_content["error"]["code"] == "invalid_tool_input"
        got = await client.call_tool("read_region", {"path": "a.txt", "repo": str(other)})
        assert not got.is_error and got.structured_content["lines"] == [{"line": 1, "text": "a"}]
        listed = (await client.list_tools()).tools
        assert str(os.path.realpath(other)) in listed[0].input_schema["properties"]["repo"][
            "description"]

    session(server(repo, other), body)


# -- concurrency --------------------------------------------------------------------------------

@pytest.mark.slow
def test_concurrent_applies_to_one_repository_are_serialised(tmp_path: Path):
    files = {f"f{i}.txt": f"file {i}\nold\n" for i in range(6)}
    repo = make_repo(tmp_path / "r", {**files, "shared.txt": "x\nold\ny\n", "sub/README": "."})

    def edit(path: str, first: str) -> str:
        return f"--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n {first}\n-old\n+new\n"

    async def body(client: Client) -> list[Any]:
        results: list[Any] = []

        async def call(arguments: dict[str, Any]) -> None:
            results.append((arguments, await client.call_tool("apply_patch", arguments)))

        async with anyio.create_task_group() as tg:
            for i in range(6):  # index and files together: the index lock would refuse a race
                tg.start_soon(call, {"patch": edit(f"f{i}.txt", f"file {i}"), "target": "both"})
            for _ in range(4):
                tg.start_soon(call, {"patch": edit("shared.txt", "x")})
        return results

    results = session(server(cwd=repo / "sub"), body)  # no --repo: the current directory's
    outcomes = [(args["patch"].split("\n")[0], r.structured_content["status"],
                 (r.structured_content["error"] or {}).get("code")) for args, r in results]
    assert sorted(o for o in outcomes if "shared" not in o[0]) == [
        (f"--- a/f{i}.txt", "applied", None) for i in range(6)]
    shared = sorted(o[1:] for o in outcomes if "shared" in o[0])
    assert shared == [("applied", None)] + [("refused", "already_applied")] * 3
    for i in range(6):
        assert (repo / f"f{i}.txt").read_text() == f"file {i}\nnew\n"
        assert git(repo, "show", f":f{i}.txt") == f"file {i}\nnew\n"
    assert (repo / "shared.txt").read_text() == "x\nnew\ny\n"
    assert not (repo / ".git" / "holon-apply").exists() or not os.listdir(
        repo / ".git" / "holon-apply")


# -- killed mid-apply ---------------------------------------------------------------------------

# A client in its own process: it starts the server, prints the server's pid, sends one
# apply_patch and prints the outcome.
CLIENT = r"""
import os, sys, anyio
from mcp import Client, StdioServerParameters

def children():
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == str(os.getpid()):
            yield entry

async def main():
    repo, patch_file = sys.argv[1:3]
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "holon_git", "mcp", "--repo", repo],
                                   env=dict(os.environ))
    async with Client(params, mode="legacy") as client:
        print("server", *children(), flush=True)
        with open(patch_file) as fh:
            result = await client.call_tool("apply_patch", {"patch": fh.read()})
        print("result", result.structured_content["status"], flush=True)

anyio.run(main)
"""


class Big:
    """A repository and a patch large enough that an apply takes a while: it modifies,
    adds (in new directories), deletes and renames; ``old`` and ``new`` are the trees."""

    def __init__(self, where: Path, files: int = 300) -> None:
        contents = {f"d{i % 12}/f{i}.txt": "".join(f"file {i} line {n}\n" for n in range(8))
                    for i in range(files)}
        self.template = make_repo(where / "template", contents)
        parts = []
        for i in range(files):
            path = f"d{i % 12}/f{i}.txt"
            if i % 25 == 24:
                parts.append(f"--- a/{path}\n+++ /dev/null\n@@ -1,8 +0,0 @@\n"
                             + "".join(f"-file {i} line {n}\n" for n in range(8)))
            elif i % 25 == 23:
                parts.append(f"diff --git a/{path} b/moved/m{i}.txt\nrename from {path}\n"
                             f"rename to moved/m{i}.txt\n--- a/{path}\n+++ b/moved/m{i}.txt\n"
                             f"@@ -1,2 +1,2 @@\n-file {i} line 0\n+FILE {i}\n file {i} line 1\n")
            else:
                parts.append(f"--- a/{path}\n+++ b/{path}\n@@ -2,3 +2,3 @@\n"
                             f" file {i} line 1\n-file {i} line 2\n+changed {i}\n"
                             f" file {i} line 3\n")
            if i % 10 == 0:
                parts.append(f"--- /dev/null\n+++ b/new/n{i}/added.txt\n@@ -0,0 +1 @@\n+new\n")
        self.patch = where / "big.diff"
        self.patch.write_text("".join(parts))
        self.old = snapshot(self.template)
        probe = self.fresh(where / "probe")
        assert apply_patch(self.patch.read_bytes(), probe).ok
        self.new = snapshot(probe)

    def fresh(self, where: Path) -> Path:
        if where.exists():
            shutil.rmtree(where)
        shutil.copytree(self.template, where, symlinks=True)
        return where


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Big:
    return Big(tmp_path_factory.mktemp("big"))


def journals(repo: Path) -> list[str]:
    base = repo / ".git" / "holon-apply"
    return os.listdir(base) if base.exists() else []


def wait_for(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def start_client(repo: Path, patch: Path) -> tuple[subprocess.Popen[str], int]:
    client = subprocess.Popen([sys.executable, "-c", CLIENT, str(repo), str(patch)],
                              stdout=subprocess.PIPE, text=True, env=git_env(),
                              start_new_session=True)
    assert client.stdout is not None
    line = client.stdout.readline().split()
    assert line[:1] == ["server"] and len(line) == 2, line
    return client, int(line[1])


def recovered(repo: Path, big: Big) -> str:
    """'old' or 'new': what the tree is after `git holon-apply --recover` (a journal left,
    or the temporary files of a large patch staged while it was planned, before its
    journal); fails on anything else."""
    done = subprocess.run([sys.executable, "-m", "holon_git", "--recover"], cwd=repo,
                          capture_output=True, text=True, env=git_env())
    assert done.returncode == 0, done.stderr
    assert not journals(repo)
    now = snapshot(repo)
    return "old" if now == big.old else "new" if now == big.new else "mixed"


@pytest.mark.slow
@pytest.mark.parametrize("when", ["writing", "any time"])
def test_client_and_server_killed_mid_apply_leave_all_old_or_all_new(
        tmp_path: Path, big: Big, when: str):
    """SIGKILL to the client and the server's process group as the apply writes (its crash
    journal has appeared), or at a random moment of the call."""
    repo = big.fresh(tmp_path / "repo")
    client, server_pid = start_client(repo, big.patch)
    if when == "writing":
        wait_for(lambda: bool(journals(repo)) or not alive(server_pid))
    else:
        time.sleep(random.uniform(0, 0.15))
    os.killpg(server_pid, signal.SIGKILL)
    os.killpg(client.pid, signal.SIGKILL)
    client.wait()
    wait_for(lambda: not alive(server_pid))
    assert recovered(repo, big) in ("old", "new")


@pytest.mark.slow
def test_a_killed_client_leaves_the_apply_to_finish(tmp_path: Path, big: Big):
    """The client dies mid-call: the server reads the end of its input, completes the apply
    under way (all new, no journal) and exits."""
    repo = big.fresh(tmp_path / "repo")
    client, server_pid = start_client(repo, big.patch)
    wait_for(lambda: bool(journals(repo)) or not alive(server_pid))
    os.killpg(client.pid, signal.SIGKILL)
    client.wait()
    wait_for(lambda: not alive(server_pid))
    assert not journals(repo)
    assert snapshot(repo) == big.new


@pytest.mark.slow
def test_sigterm_waits_for_the_apply_in_progress(tmp_path: Path, big: Big):
    """SIGTERM (what a client sends a server that does not stop) mid-apply: the apply
    completes, then the server exits."""
    repo = big.fresh(tmp_path / "repo")
    client, server_pid = start_client(repo, big.patch)
    wait_for(lambda: bool(journals(repo)) or not alive(server_pid))
    os.kill(server_pid, signal.SIGTERM)
    wait_for(lambda: not alive(server_pid))
    client.kill()
    client.wait()
    assert not journals(repo)
    assert snapshot(repo) == big.new
