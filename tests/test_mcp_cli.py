"""`git holon-apply mcp` as a command: without the mcp extra, with unusable repositories, its
start-up and end over raw stdio, and no other command paying for the SDK."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from pathlib import Path

import pytest
from clisupport import holon, holon_process
from repos.builders import git_env, make_bare_repo

# `import mcp` fails as it would without the extra: a None entry in sys.modules stops it.
WITHOUT_MCP = ("import sys\nsys.modules['mcp'] = None\nfrom holon_git.cli import main\n"
               "main(sys.argv[1:])\n")
# Without the extra anyio is missing too (mcp brings it), and the server imports it first.
WITHOUT_ANYIO = WITHOUT_MCP.replace("'mcp'", "'anyio'")
CLONE = Path(__file__).resolve().parent.parent


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"a.txt": "a\n"}


@pytest.mark.parametrize("script", [WITHOUT_MCP, WITHOUT_ANYIO], ids=["mcp", "anyio"])
def test_without_the_extra_it_says_how_to_install_it(repo: Path, script: str):
    """It names the mcp package, whichever of its modules failed first, and the command that
    installs the extra from the clone holon-git runs from (it is on no package index)."""
    done = holon_process(repo, "mcp", command=[sys.executable, "-c", script])
    assert done.returncode == 2, done.stderr
    error, hint = done.stderr.splitlines()
    assert error == ("error: usage_error: the MCP server needs the mcp package (the mcp extra), "
                     "which is not installed")
    assert hint == ("hint: install the mcp extra into this environment: "
                    f"pip install -e '{CLONE}[mcp]'")
    assert done.stdout == ""


def test_an_unusable_repository_is_a_usage_error(tmp_path: Path, repo: Path):
    bare = make_bare_repo(tmp_path / "bare.git")
    plain = tmp_path / "plain"
    plain.mkdir()
    for args, words in ((["--repo", str(plain)], "not inside a git repository"),
                        (["--repo", str(repo), "--repo", str(bare)], "a bare repository"),
                        (["--repo", str(tmp_path / "missing")], "")):
        done = holon(tmp_path, "mcp", *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.startswith("error: not_a_repository: "), done.stderr
        assert words in done.stderr
    assert holon(plain, "mcp").returncode == 2  # default: the current directory's repository


@pytest.mark.slow
def test_other_commands_do_not_import_the_sdk(repo: Path):
    code = ("import sys\nfrom holon_git.cli import main\ncode = 0\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code\n"
            "print(code, 'mcp' in sys.modules, 'holon_git.mcp_server.server' in sys.modules,"
            " file=sys.stderr)\n")
    (repo / "fix.diff").write_text("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n")
    for args in (["--check", "fix.diff"], ["fix.diff"], ["-h"], ["mcp", "-h"]):
        done = holon_process(repo, *args, command=[sys.executable, "-c", code])
        assert done.stderr.split()[-3:] == ["0", "False", "False"], (args, done.stderr)
        if args == ["-h"]:
            assert "mcp" in done.stdout


def rpc(proc: subprocess.Popen[str], message: dict) -> dict | None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline()) if "id" in message else None


@pytest.mark.slow
def test_raw_stdio_initialize_list_and_exit_at_end_of_input(repo: Path):
    """JSON-RPC lines as any MCP client sends them; at the end of its input the server
    exits 0."""
    proc = subprocess.Popen([sys.executable, "-m", "holon_git", "mcp"], cwd=repo, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=git_env())
    init = rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
    assert init is not None and init["id"] == 1, init
    assert init["result"]["protocolVersion"] == "2025-06-18"
    assert init["result"]["serverInfo"]["name"] == "holon-git"
    assert "tools" in init["result"]["capabilities"]
    rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    listed = rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert listed is not None
    assert [t["name"] for t in listed["result"]["tools"]] == [
        "apply_patch", "check_patch", "str_replace", "read_region"]
    called = rpc(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "read_region", "arguments": {"path": "a.txt"}}})
    assert called is not None and called["result"]["isError"] is False
    assert called["result"]["content"][0]["text"].startswith("a.txt, lines 1-1 of 1")
    assert called["result"]["structuredContent"]["lines"] == [{"line": 1, "text": "a"}]
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    assert proc.stderr is not None and "Traceback" not in proc.stderr.read()


def test_no_document_says_to_install_from_a_package_index():
    """holon-git is on no package index: every page that says how to get the extra says the
    command that works from the clone."""
    pages = [CLONE / "README.md", *sorted((CLONE / "docs").glob("*.md")),
             CLONE / "man" / "man1" / "git-holon-apply.1"]
    for page in pages:
        text = page.read_text(encoding="utf-8").replace("\\-", "-")
        assert "pip install 'holon-git" not in text, page
    assert "pip install -e '.[mcp]'" in (CLONE / "docs" / "mcp.md").read_text(encoding="utf-8")


# Issue 35, item 9: lines the SDK's transport could not read got no answer at all (the client
# waited forever): JSON-RPC says what each gets.
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
CALL = {"jsonrpc": "2.0", "method": "tools/call"}
LINES: list[tuple[str, bytes, object]] = [
    ("surrogate in an argument", json.dumps({**CALL, "id": 10, "params": {
        "name": "read_region", "arguments": {"path": "a\ud800.txt"}}}).encode(), "tool"),
    ("surrogate in a patch", json.dumps({**CALL, "id": 11, "params": {
        "name": "apply_patch", "arguments": {"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@"
                                             "\n-a\n+\ud800\n"}}}).encode(), "tool"),
    ("surrogate in the id", b'{"jsonrpc": "2.0", "id": "x\\ud800", "method": "tools/list"}',
     "x\ud800"),
    ("not JSON", b"not json", (None, PARSE_ERROR)),
    ("cut short", b'{"jsonrpc": "2.0", "id": 12, "method": "tools/list"', (None, PARSE_ERROR)),
    ("not UTF-8", b'\xff{"jsonrpc": "2.0", "id": 13, "method": "tools/list"}',
     (None, PARSE_ERROR)),
    ("nested past the parser's depth", b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
     (None, PARSE_ERROR)),
    ("an empty batch", b"[]", (None, INVALID_REQUEST)),
    ("a number", b"42", (None, INVALID_REQUEST)),
    ("no method", b'{"jsonrpc": "2.0", "id": 14}', (14, INVALID_REQUEST)),
    ("no jsonrpc", b'{"id": "s", "method": "tools/list"}', ("s", INVALID_REQUEST)),
    # Issue 42, item 9: one error for a whole batch, not one per member held in memory.
    ("a batch", b'[{"jsonrpc": "2.0", "id": 15, "method": "tools/list"}, 1, '
                b'{"jsonrpc": "2.0", "method": "notifications/initialized"}]',
     (None, INVALID_REQUEST)),
    ("a batch of half a million", b"[" + b"1," * 500_000 + b"1]", (None, INVALID_REQUEST)),
    # Issue 42, item 10: an id that is no request id was served as a notification, unanswered.
    *((f"id {raw.decode()}", b'{"jsonrpc": "2.0", "id": ' + raw + b', "method": "tools/list"}',
       (None, INVALID_REQUEST)) for raw in (b"null", b"true", b"false", b"1.5", b"2.0", b"{}",
                                           b'{"a": 1}', b"[]", b"[1]")),
    # Issue 42, item 15: a byte that is not UTF-8 inside a patch was written as U+FFFD.
    ("not UTF-8 inside a patch", json.dumps({**CALL, "id": 16, "params": {
        "name": "apply_patch", "arguments": {"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@"
                                             "\n-a\n+XX\n"}}}).encode().replace(b"XX", b"\xff"),
     (None, PARSE_ERROR)),
    # Issue 42, item 18: params the SDK's model refuses got a bare -32602, not the tool result.
    *((f"arguments {raw.decode()}", b'{"jsonrpc": "2.0", "id": 17, "method": "tools/call", '
       b'"params": {"name": "apply_patch", "arguments": ' + raw + b"}}", "tool")
      for raw in (b"[1]", b'"patch"', b"3", b"true")),
    *((f"_meta {raw.decode()}", b'{"jsonrpc": "2.0", "id": 18, "method": "tools/call", '
       b'"params": {"name": "read_region", "arguments": {"path": "a.txt"}, "_meta": ' + raw +
       b"}}", "tool") for raw in (b'{"progressToken": {}}', b'{"progressToken": [1]}',
                                 b'{"progressToken": 1.5}', b'{"progressToken": null}', b"5")),
]


def answer_to(proc: subprocess.Popen[bytes], line: bytes) -> object:
    """The server's answer to ``line``, read within 20 s (None when it gave none)."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(line + b"\n")
    proc.stdin.flush()
    ready, _, _ = select.select([proc.stdout], [], [], 20)
    return json.loads(proc.stdout.readline()) if ready else None


@pytest.mark.slow
def test_every_line_gets_its_answer_from_the_real_server(repo: Path):
    proc = subprocess.Popen([sys.executable, "-m", "holon_git", "mcp"], cwd=repo,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=git_env())
    try:
        init = answer_to(proc, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                           "params": {"protocolVersion": "2025-06-18",
                                                      "capabilities": {}, "clientInfo": {
                                                          "name": "raw", "version": "0"}}})
                         .encode())
        assert isinstance(init, dict) and init["id"] == 1
        assert proc.stdin is not None
        proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        proc.stdin.write(b'{"jsonrpc": "2.0", "method": "no/such", "params": 3}\n')  # no answer
        proc.stdin.write(b"\n")  # a blank line: no message, no answer
        for name, line, expected in LINES:
            got = answer_to(proc, line)
            assert got is not None, f"{name}: no answer"
            if expected == "tool":  # a tool result, refused: the argument is no text
                assert isinstance(got, dict), (name, got)
                result = got["result"]
                assert result["isError"] is True, (name, got)
                assert result["structuredContent"]["error"]["code"] == "invalid_tool_input"
            elif isinstance(expected, str):  # served, the id echoed as it came
                assert isinstance(got, dict) and got["id"] == expected, (name, got)
                assert [t["name"] for t in got["result"]["tools"]][0] == "apply_patch"
            else:
                answers = got if isinstance(got, list) else [got]
                wanted = expected if isinstance(expected, list) else [expected]
                assert [(a["id"], a["error"]["code"]) for a in answers] == wanted, (name, got)
        # Issue 42, item 9: a line past the cap is skipped unread, and answered.
        from holon_git.mcp_server.wire import MAX_LINE_BYTES
        too_long = answer_to(proc, b'{"jsonrpc": "2.0", "id": 19, "method": "tools/list", "x": "'
                             + b"y" * MAX_LINE_BYTES + b'"}')
        assert isinstance(too_long, dict), too_long
        assert (too_long["id"], too_long["error"]["code"]) == (None, INVALID_REQUEST)
        assert "longer than" in too_long["error"]["message"]
        alive = answer_to(proc, b'{"jsonrpc": "2.0", "id": 99, "method": "tools/list"}')
        assert isinstance(alive, dict) and alive["id"] == 99 and "result" in alive
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
    assert (repo / "a.txt").read_text() == "a\n"


@pytest.mark.slow
def test_an_apply_in_flight_at_the_end_of_input_gets_its_answer(repo: Path):
    """Issue 42, item 16: the client sends an apply and closes stdin at once; the apply used
    to be made while its answer was dropped (the SDK cancels its handlers at end of input)."""
    files = 400
    patch = "".join(f"--- /dev/null\n+++ b/new/f{n}.txt\n@@ -0,0 +1 @@\n+line {n}\n"
                    for n in range(files))
    proc = subprocess.Popen([sys.executable, "-m", "holon_git", "mcp"], cwd=repo,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=git_env())
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "apply_patch", "arguments": {"patch": patch}}}
    lines = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}, call]
    out, err = proc.communicate(b"".join(json.dumps(line).encode() + b"\n" for line in lines),
                                timeout=120)
    assert proc.returncode == 0, err
    answers = {answer["id"]: answer for answer in map(json.loads, out.splitlines())}
    assert (repo / "new" / f"f{files - 1}.txt").read_text() == f"line {files - 1}\n"
    assert "result" in answers[2], answers[2]
    assert answers[2]["result"]["structuredContent"]["status"] == "applied"


def test_a_long_line_is_dropped_as_it_is_read():
    """Issue 42, item 9: lines are read at most ``limit`` bytes at a time; a longer one is
    None (answered -32600), its bytes dropped as they are read, and the next line is read."""
    import io

    from holon_git.mcp_server.wire import read_lines

    wire = io.BytesIO(b"a\n" + b"x" * 25 + b"\n" + b"y" * 9 + b"\n" + b"z" * 10 + b"\nlast")
    assert list(read_lines(wire, limit=10)) == [b"a\n", None, b"y" * 9 + b"\n", None, b"last"]


@pytest.mark.parametrize("line", [b"[" + b"1," * 100_000 + b"1]", b"  [{}, {}]", b"[",
                                  b'[{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]'])
def test_a_batch_is_one_error(line: bytes):
    """Issue 42, item 9: one -32600 for the whole line, however many members it holds (an
    error object per member, all in memory, was 480 MB for a 1 MB line)."""
    from holon_git.mcp_server.wire import read_line

    answer = read_line(line)
    assert isinstance(answer, bytes) and answer.count(b"\n") == 1
    assert json.loads(answer) == {"jsonrpc": "2.0", "id": None, "error": {
        "code": INVALID_REQUEST, "message": "Invalid Request: batches are not supported: MCP "
        "sends one JSON-RPC message a line"}}


@pytest.mark.parametrize("raw", [b"null", b"true", b"1.5", b"2.0", b"{}", b"[1]"])
def test_an_id_that_is_no_request_id_is_answered(raw: bytes):
    """Issue 42, item 10: served as a notification, such a request was never answered."""
    from holon_git.mcp_server.wire import read_line

    for line in (b'{"jsonrpc": "2.0", "id": ' + raw + b', "method": "tools/list"}',
                 b'{"jsonrpc": "2.0", "id": ' + raw + b', "method": "x", "params": 3}'):
        answer = read_line(line)
        assert isinstance(answer, bytes), (line, answer)
        assert json.loads(answer)["error"]["code"] == INVALID_REQUEST
        assert json.loads(answer)["id"] is None


def test_a_line_that_is_not_utf8_is_a_parse_error():
    """Issue 42, item 15: decoded with U+FFFD, the line was served (and EF BF BD written)."""
    from holon_git.mcp_server.wire import read_line

    line = json.dumps({**CALL, "id": 1, "params": {"name": "apply_patch", "arguments": {
        "patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+XX\n"}}}).encode()
    answer = read_line(line.replace(b"XX", b"\xff"))
    assert isinstance(answer, bytes)
    assert json.loads(answer)["error"]["code"] == PARSE_ERROR
    assert not isinstance(read_line(line), bytes)  # the same line in UTF-8 is served
