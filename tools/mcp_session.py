"""A real session with the MCP server (docs/mcp.md), and its start-up time.

    python tools/mcp_session.py                 # the transcript, as JSON-RPC lines
    python tools/mcp_session.py --startup 20    # median time from process start to the
                                                # initialize response, over 20 starts

Runs `python -m holon_git mcp` over raw stdio in a copy of examples/repo: a patch refused
for ambiguous context, read_region, the repaired patch checked and applied. Needs the mcp
extra.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "fixtures"))

from repos.builders import git_env, make_repo  # noqa: E402

# The model adds a function after greet() but gives only blank lines as context, and a line
# number far off: the blank pair occurs three times.
REFUSED = ("--- a/src/greet.py\n+++ b/src/greet.py\n@@ -20,2 +20,6 @@\n \n \n"
           "+def shout(name):\n+    return greet(name).upper()\n+\n+\n")
# The same, after read_region showed lines 4-8: the line before the blank pair makes it unique.
REPAIRED = ("--- a/src/greet.py\n+++ b/src/greet.py\n@@ -5,3 +5,7 @@\n"
            '     return "Hello, " + name\n \n \n'
            "+def shout(name):\n+    return greet(name).upper()\n+\n+\n")
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "transcript", "version": "1"}}}


def repository(where: Path) -> Path:
    files = {str(p.relative_to(ROOT / "examples" / "repo")): p.read_bytes()
             for p in (ROOT / "examples" / "repo").rglob("*") if p.is_file()}
    return make_repo(where / "repo", files)


def start(repo: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "holon_git", "mcp"], cwd=repo, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=git_env())


def send(proc: subprocess.Popen[str], message: dict[str, Any]) -> dict[str, Any] | None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline()) if "id" in message else None


def startup(repo: Path, runs: int) -> None:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        proc = start(repo)
        send(proc, INITIALIZE)
        times.append(time.perf_counter() - began)
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    print(f"process start to initialize response, {runs} runs: median "
          f"{statistics.median(times) * 1000:.0f} ms (min {min(times) * 1000:.0f}, "
          f"max {max(times) * 1000:.0f})")


def exchanges(repo: Path) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """The session, run: each message sent with the server's reply (None for a
    notification), the long parts of initialize and tools/list shortened."""
    proc = start(repo)
    out: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    messages: list[dict[str, Any]] = [INITIALIZE,
                                      {"jsonrpc": "2.0", "method": "notifications/initialized"},
                                      {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    calls = [("apply_patch", {"patch": REFUSED}),
             ("read_region", {"path": "src/greet.py", "start_line": 4, "end_line": 8}),
             ("check_patch", {"patch": REPAIRED}),
             ("apply_patch", {"patch": REPAIRED})]
    messages += [{"jsonrpc": "2.0", "id": number, "method": "tools/call",
                  "params": {"name": name, "arguments": arguments}}
                 for number, (name, arguments) in enumerate(calls, 3)]
    for message in messages:
        reply = send(proc, message)
        if reply is not None:
            result = reply.get("result", {})
            if "tools" in result:  # the definitions are long: names only
                result["tools"] = [{"name": tool["name"], "...": "..."}
                                   for tool in result["tools"]]
            if "instructions" in result:
                result["instructions"] = result["instructions"][:60] + "..."
        out.append((message, reply))
    assert proc.stdin is not None
    proc.stdin.close()
    status = proc.wait()
    assert status == 0, f"the server exited with status {status}"
    return out


def exchange_lines(message: dict[str, Any], reply: dict[str, Any] | None) -> str:
    """One exchange as docs/mcp.md shows it: the line sent, then the line received."""
    return f"-> {json.dumps(message)}\n" + (f"<- {json.dumps(reply)}\n" if reply else "")


def transcript(repo: Path) -> None:
    for message, reply in exchanges(repo):
        print(exchange_lines(message, reply))
        if reply is not None and message.get("method") == "tools/call":
            print(f"   (the text the model reads, isError={reply['result']['isError']}):")
            print("   " + reply["result"]["content"][0]["text"].replace("\n", "\n   ") + "\n")
    print("(stdin closed; the server exited with status 0)")


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        repo = repository(Path(scratch))
        if argv[:1] == ["--startup"]:
            startup(repo, int(argv[1]) if len(argv) > 1 else 20)
        else:
            transcript(repo)
            print("\nsrc/greet.py now:\n" + (repo / "src" / "greet.py").read_text())
        shutil.rmtree(repo)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
