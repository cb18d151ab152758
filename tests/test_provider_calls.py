"""handle_tool_call end to end on real repositories, for both providers: what the model reads
back, what changed on disk (or, on refusal, that nothing did)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from repos.builders import git_state, make_repo, snapshot

from holon_git.provider import handle_tool_call, result_item, run_tool_call

GREET = (
    '"""Greetings."""\n'
    "import sys\n"
    "\n"
    "\n"
    "def greet(name):\n"
    '    return "Hello, " + name\n'
    "\n"
    "\n"
    "def farewell(name):\n"
    '    return "Goodbye, " + name\n'
    "\n"
    "\n"
    'if __name__ == "__main__":\n'
    "    print(greet(sys.argv[1]))\n"
)
FILES = {"src/greet.py": GREET, "README.txt": "Greeter\r\n\r\nSee src/greet.py.\r\n"}

# Line numbers two too low, as models often write them.
EDIT = (
    "--- a/src/greet.py\n+++ b/src/greet.py\n@@ -3,4 +3,4 @@\n \n def greet(name):\n"
    '-    return "Hello, " + name\n+    return f"Hello, {name}!"\n \n'
    "--- /dev/null\n+++ b/src/__init__.py\n@@ -0,0 +1 @@\n+\n"
)
# The model misremembers the farewell text.
STALE = (
    "--- a/src/greet.py\n+++ b/src/greet.py\n@@ -9,3 +9,3 @@\n def farewell(name):\n"
    '-    return "Bye, " + name\n+    return f"Goodbye, {name}!"\n \n'
)


def _call(provider: str, patch: str) -> object:
    return patch if provider == "openai" else {"patch": patch}


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return FILES


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_success(repo: Path, provider: str) -> None:
    text = handle_tool_call(provider, _call(provider, EDIT), repo)
    assert text == (
        "ApplyPatch applied: 2 files.\n"
        "modify src/greet.py: +1 -1, 1 hunk at line 4 (header said 3)\n"
        "add src/__init__.py: +1"
    )
    assert (repo / "src/greet.py").read_text() == GREET.replace(
        '"Hello, " + name', 'f"Hello, {name}!"')
    assert (repo / "src/__init__.py").read_text() == "\n"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_context_not_found_shows_the_current_text(repo: Path, provider: str) -> None:
    before, state = snapshot(repo), git_state(repo)
    outcome = run_tool_call(provider, _call(provider, STALE), repo)
    assert not outcome.ok
    assert snapshot(repo) == before and git_state(repo) == state
    assert outcome.receipt.error.code == "context_not_found"
    lines = outcome.text.split("\n")
    assert lines[0] == "ApplyPatch refused the patch; nothing was changed."
    assert lines[1] == "error: context_not_found (src/greet.py, hunk 1, patch line 3)"
    assert lines[2].startswith("what: the hunk's old lines were not found; nearest match at line 9")
    assert "expected '    return \"Bye, \" + name'" in lines[2]
    assert lines[3].startswith("fix: re-emit the hunk with context and removed lines copied")
    assert lines[4] == "current text of src/greet.py, lines 9-11 (number|text):"
    current = GREET.split("\n")
    assert lines[5:] == [f"{n}|{current[n - 1]}" for n in (9, 10, 11)]


def _region(text: str) -> dict[int, str]:
    rows = re.findall(r"^(\d+)\|(.*)$", text, re.M)
    return {int(number): line for number, line in rows}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_refusal_is_enough_to_retry(repo: Path, provider: str) -> None:
    """A model that copies the shown lines into its hunk succeeds without re-reading."""
    first = handle_tool_call(provider, _call(provider, STALE), repo)
    region = _region(first)
    start = min(region)
    old = [region[n] for n in sorted(region)]
    new = [line.replace('"Goodbye, " + name', 'f"Goodbye, {name}!"') for line in old]
    assert new != old
    body = "".join(f" {a}\n" if a == b else f"-{a}\n+{b}\n" for a, b in zip(old, new, strict=True))
    retry = (f"--- a/src/greet.py\n+++ b/src/greet.py\n"
             f"@@ -{start},{len(old)} +{start},{len(new)} @@\n{body}")
    second = handle_tool_call(provider, _call(provider, retry), repo)
    assert second == ("ApplyPatch applied: 1 file.\n"
                      "modify src/greet.py: +1 -1, 1 hunk at line 9")
    assert 'return f"Goodbye, {name}!"' in (repo / "src/greet.py").read_text()


def test_anthropic_input_shapes(tmp_path: Path) -> None:
    shapes = {
        "dict": {"patch": EDIT},
        "json text": json.dumps({"patch": EDIT}),
        "json bytes": json.dumps({"patch": EDIT}).encode(),
        "tool_use block": {"type": "tool_use", "id": "toolu_1", "name": "ApplyPatch",
                           "input": {"patch": EDIT}},
        "sdk block": SimpleNamespace(type="tool_use", id="toolu_1", input={"patch": EDIT}),
    }
    for n, (name, call) in enumerate(shapes.items()):
        repo = make_repo(tmp_path / f"r{n}", FILES)
        outcome = run_tool_call("anthropic", call, repo)
        assert outcome.ok, (name, outcome.text)


def test_openai_input_shapes(tmp_path: Path) -> None:
    shapes = {
        "raw text": EDIT,
        "raw bytes": EDIT.encode(),
        "custom_tool_call item": {"type": "custom_tool_call", "call_id": "call_1",
                                  "name": "ApplyPatch", "input": EDIT},
        "sdk item": SimpleNamespace(type="custom_tool_call", call_id="call_1", input=EDIT),
    }
    for n, (name, call) in enumerate(shapes.items()):
        repo = make_repo(tmp_path / f"r{n}", FILES)
        outcome = run_tool_call("openai", call, repo)
        assert outcome.ok, (name, outcome.text)


@pytest.mark.parametrize(("call", "what"), [
    ("--- a/x\n+++ b/x\n", "not valid JSON"),
    ('{"diff": "--- a/x"}', "'patch' property is missing (it has 'diff' instead)"),
    ({"patch": 42}, "'patch' property is a int, not a string"),
    ([EDIT], "must be a JSON object"),
    ('"--- a/x"', "must be a JSON object"),
])
def test_anthropic_bad_input_is_refused(repo: Path, call: object, what: str) -> None:
    before = snapshot(repo)
    outcome = run_tool_call("anthropic", call, repo)
    assert outcome.receipt.error.code == "invalid_tool_input"
    assert what in outcome.text
    assert "fix: call ApplyPatch with the unified diff as its input" in outcome.text
    assert snapshot(repo) == before
    assert result_item("anthropic", "toolu_9", outcome)["is_error"] is True


def test_openai_call_without_input_is_refused(repo: Path) -> None:
    outcome = run_tool_call("openai", {"type": "custom_tool_call", "call_id": "c"}, repo)
    assert outcome.receipt.error.code == "invalid_tool_input"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_envelope_is_applied_as_the_mcp_server_and_the_cli_apply_it(repo: Path,
                                                                        provider: str) -> None:
    """The prompts ask for unified diffs; an envelope a model sends anyway is applied, as
    everywhere else, rather than refused (the tool's description says so)."""
    envelope = ("*** Begin Patch\n*** Update File: src/greet.py\n@@\n-import sys\n+import os\n"
                "*** End Patch\n")
    outcome = run_tool_call(provider, _call(provider, envelope), repo)
    assert outcome.ok, outcome.text
    assert "import os\n" in (repo / "src/greet.py").read_text()


def test_parse_error_names_the_rule(repo: Path) -> None:
    broken = "--- a/src/greet.py\n+++ b/src/greet.py\n@@ -1,4 +1,4 @@\n import sys\nfoo\n-x\n+y\n"
    text = handle_tool_call("openai", broken, repo)
    assert "error: malformed_hunk (src/greet.py, hunk 1, patch line 5)" in text
    assert "fix: every hunk body line starts with ' ' (context), '-' (remove) or '+' (add)" in text
    assert "|" not in text.split("fix:", 1)[1]  # no region for a parse error


def test_ambiguous_context_lists_the_candidates(repo: Path) -> None:
    ambiguous = "--- a/src/greet.py\n+++ b/src/greet.py\n@@ -1,2 +1,3 @@\n \n \n+# note\n"
    text = handle_tool_call("openai", ambiguous, repo)
    assert "error: ambiguous_context (src/greet.py, hunk 1" in text
    assert "at lines 3, 7, 11" in text
    assert "add surrounding context lines until they are unique" in text


def test_all_or_nothing_across_files(repo: Path) -> None:
    before = snapshot(repo)
    text = handle_tool_call("openai", EDIT + STALE.replace("src/greet.py", "README.txt"), repo)
    assert "error: context_not_found (README.txt, hunk 1" in text
    assert snapshot(repo) == before


def test_tolerances_and_ignored_metadata_are_reported(repo: Path) -> None:
    patch = (
        "--- a/README.txt\n+++ b/README.txt\n@@ -2,2 +2,3 @@\n \n See src/greet.py.\n"
        "+Run: python src/greet.py\n"
        "diff --git a/run.sh b/run.sh\nnew file mode 100755\nindex 0000000..1111111\n"
        "--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1 @@\n+python src/greet.py \"$@\"\n"
    )
    text = handle_tool_call("anthropic", {"patch": patch}, repo)
    assert text == (
        "ApplyPatch applied: 2 files.\n"
        "modify README.txt: +1, 1 hunk at line 2; tolerated: line_endings\n"
        "add run.sh: +1; ignored metadata: index 0000000..1111111"
    )
    assert (repo / "README.txt").read_bytes().endswith(b"See src/greet.py.\r\nRun: python "
                                                        b"src/greet.py\r\n")
    assert (repo / "run.sh").stat().st_mode & 0o100  # 'new file mode 100755' is applied


def test_patch_level_tolerances_are_reported(repo: Path) -> None:
    fenced = "Here you go:\n```diff\n" + EDIT + "```\n"
    text = handle_tool_call("openai", fenced, repo)
    assert text.endswith("\npatch text tolerated: markdown_fence")


def test_rename_and_delete_lines(repo: Path) -> None:
    # Rename-only last: a '---'/'+++' pair right after it would be read as its own.
    patch = ("--- a/src/greet.py\n+++ /dev/null\n@@ -1,14 +0,0 @@\n"
             + "".join(f"-{line}\n" for line in GREET.splitlines())
             + "diff --git a/README.txt b/docs/README.txt\nsimilarity index 100%\n"
             "rename from README.txt\nrename to docs/README.txt\n")
    text = handle_tool_call("openai", patch, repo)
    assert text == ("ApplyPatch applied: 2 files.\n"
                    "delete src/greet.py: -14\n"
                    "rename README.txt -> docs/README.txt: content unchanged; "
                    "ignored metadata: similarity index 100%")


def test_check_writes_nothing(repo: Path) -> None:
    before = snapshot(repo)
    outcome = run_tool_call("openai", EDIT, repo, check=True)
    assert outcome.ok
    assert outcome.text.startswith("ApplyPatch would apply (checked, nothing written): 2 files.")
    assert snapshot(repo) == before


def test_result_items(repo: Path) -> None:
    good = run_tool_call("openai", EDIT, repo)
    assert result_item("openai", "call_1", good) == {
        "type": "custom_tool_call_output", "call_id": "call_1", "output": good.text}
    assert result_item("anthropic", "toolu_1", good) == {
        "type": "tool_result", "tool_use_id": "toolu_1", "content": good.text}
    bad = run_tool_call("anthropic", {"patch": STALE}, repo)
    assert result_item("anthropic", "toolu_2", bad)["is_error"] is True
    assert result_item("openai", "call_2", bad)["output"] == bad.text


def test_unknown_provider_is_a_programming_error(repo: Path) -> None:
    with pytest.raises(ValueError, match="unknown provider"):
        handle_tool_call("gemini", EDIT, repo)


def test_long_region_is_clipped(tmp_path: Path) -> None:
    lines = [f"value_{i} = {i}" + " # padding" * 40 for i in range(100)]
    repo = make_repo(tmp_path / "r", {"big.py": "\n".join(lines) + "\n"})
    old = [f" {line}" for line in lines[10:60]]
    old[25] = "-value_35 = 'changed'"
    patch = "--- a/big.py\n+++ b/big.py\n@@ -11,50 +11,50 @@\n" + "\n".join(old) + "\n+x\n"
    text = handle_tool_call("openai", patch, repo)
    shown = _region(text)
    assert len(shown) == 40 and min(shown) == 11
    assert all(len(line) <= 240 for line in shown.values())
    assert "... 10 more lines not shown" in text


def test_typical_failure_stays_cheap(repo: Path) -> None:
    """A refused 3-line hunk in a small file costs a few hundred characters (docs/providers.md
    shows what typical calls cost, as tools/gen_docs.py measures them)."""
    text = handle_tool_call("anthropic", {"patch": STALE}, repo)
    assert len(text) < 700


def test_invalid_tool_input_is_catalogued() -> None:
    from holon_git.errors import HINTS

    doc = (Path(__file__).resolve().parent.parent / "docs" / "errors.md").read_text()
    entry = doc.split("## `invalid_tool_input`", 1)[1].split("\n## ", 1)[0]
    assert f"Hint: {HINTS['invalid_tool_input']}" in entry
    assert "Example:" in entry
