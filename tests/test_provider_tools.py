"""Tool definitions and prompt guidance for both providers: snapshots, shape, shipped data."""

from __future__ import annotations

import json
import os
import re
import zipfile
from importlib import resources
from pathlib import Path

import pytest
from _grammar import accepts
from repos.builders import make_repo

from holon_git import apply_patch, parse_patch
from holon_git.provider import PROVIDERS, TOOL_NAME, grammar, prompt, tool_definition

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = os.environ.get("HOLON_UPDATE_SNAPSHOTS") == "1"


def _check_snapshot(name: str, text: str) -> None:
    """Compare with tests/snapshots/NAME; HOLON_UPDATE_SNAPSHOTS=1 rewrites it instead."""
    path = SNAPSHOTS / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {name}; run with HOLON_UPDATE_SNAPSHOTS=1 to record it"
    assert text == path.read_text(encoding="utf-8"), f"{name} changed; review and re-record"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_tool_definition_snapshot(provider: str) -> None:
    rendered = json.dumps(tool_definition(provider), indent=2, ensure_ascii=False) + "\n"
    _check_snapshot(f"{provider}_tool.json", rendered)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_prompt_snapshot(provider: str) -> None:
    _check_snapshot(f"{provider}_prompt.txt", prompt(provider))


def test_openai_tool_is_a_custom_tool_with_the_lark_grammar() -> None:
    tool = tool_definition("openai")
    assert set(tool) == {"type", "name", "description", "format"}
    assert tool["type"] == "custom" and tool["name"] == TOOL_NAME
    assert tool["format"] == {"type": "grammar", "syntax": "lark", "definition": grammar()}
    assert isinstance(tool["description"], str) and tool["description"]


def test_anthropic_tool_is_a_json_tool_with_one_required_string() -> None:
    tool = tool_definition("anthropic")
    assert set(tool) == {"name", "description", "input_schema"}
    assert tool["name"] == TOOL_NAME
    schema = tool["input_schema"]
    assert schema["type"] == "object"
    assert list(schema["properties"]) == ["patch"]
    assert schema["properties"]["patch"]["type"] == "string"
    assert schema["required"] == ["patch"]
    flat = json.dumps(tool).lower()
    for claim in ("grammar", "lark", "freeform", "free-form", '"custom"'):
        assert claim not in flat


def test_tool_definitions_are_fresh_copies() -> None:
    first = tool_definition("openai")
    first["format"]["definition"] = "changed"
    assert tool_definition("openai")["format"]["definition"] == grammar()


def test_unknown_provider_is_refused() -> None:
    for call in (tool_definition, prompt):
        with pytest.raises(ValueError, match="unknown provider"):
            call("gemini")


# -- what the prompts say ---------------------------------------------------------------------

def _anthropic_example() -> dict:
    line = next(line for line in prompt("anthropic").splitlines() if line.startswith('{"patch"'))
    return json.loads(line)


def _openai_example() -> str:
    text = prompt("openai")
    block = text.split("Example input:\n", 1)[1].split("\n\n", 1)[0]
    return block + "\n"


def test_prompts_carry_the_same_diff_each_in_its_provider_shape() -> None:
    example = _anthropic_example()
    assert set(example) == {"patch"}
    assert example["patch"] == _openai_example()
    assert '{"patch"' not in prompt("openai")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_prompt_covers_the_contract_points(provider: str) -> None:
    text = prompt(provider)
    assert "Use the ApplyPatch tool" in text
    assert "unified diff" in text
    assert "*** Begin Patch" in text and "Do not use the old" in text
    assert "line numbers" in text and "drift" in text
    assert "--- /dev/null" in text and "+++ /dev/null" in text and "rename from" in text


def test_prompt_example_is_valid_and_applies(tmp_path: Path) -> None:
    patch = _openai_example()
    assert accepts(patch)
    assert not parse_patch(patch).diagnostics
    lines = [f"# line {i}\n" for i in range(1, 11)] + [
        "def main():\n", "    config = load_config()\n", "    run(config)\n", "    return 0\n"]
    repo = make_repo(tmp_path / "r", {"src/app.py": "".join(lines)})
    receipt = apply_patch(patch, repo)
    assert receipt.ok, receipt.error
    assert receipt.files[0].hunks[0].applied_line == 12
    written = (repo / "src/app.py").read_text()
    assert written.endswith("    run(config, verbose=True)\n    return 0\n")


# -- shipped as package data ------------------------------------------------------------------

DATA_FILES = ["grammar.lark", "openai_tool.json", "anthropic_tool.json", "openai_prompt.txt",
              "anthropic_prompt.txt", "anthropic_edit_tool.json", "openai_edit_tool.json"]


def test_data_files_load_through_importlib_resources() -> None:
    package = resources.files("holon_git.provider")
    for name in DATA_FILES:
        assert package.joinpath(name).read_text(encoding="utf-8").strip(), name


@pytest.mark.slow
def test_the_wheel_ships_every_package_data_file(built_wheel: Path) -> None:
    """The built wheel (conftest.py: built once for the run) holds every file of the package
    that is not Python source: the provider's grammar, tools and prompts, the MCP tools,
    py.typed."""
    provider_dir = ROOT / "holon_git" / "provider"
    data = sorted(p.name for p in provider_dir.iterdir()
                  if p.is_file() and p.suffix not in (".py", ".pyc"))
    assert sorted(DATA_FILES) == data
    shipped = set(zipfile.ZipFile(built_wheel).namelist())
    package = ROOT / "holon_git"
    wanted = {path.relative_to(ROOT).as_posix() for path in package.rglob("*")
              if path.is_file() and path.suffix not in (".py", ".pyc")}
    assert {f"holon_git/provider/{name}" for name in DATA_FILES} <= wanted
    assert {"holon_git/py.typed", "holon_git/mcp_server/tools.json"} <= wanted
    assert wanted <= shipped, wanted - shipped


def test_grammar_comment_points_to_the_docs() -> None:
    assert re.search(r"docs/providers\.md", grammar())
    assert (ROOT / "docs" / "providers.md").exists()
