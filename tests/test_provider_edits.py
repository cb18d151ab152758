"""The edit tools of the provider module (provider/definitions.py, provider/calls.py):
Anthropic's text editor tool, checked by the Anthropic SDK's own types, and an OpenAI
function tool; handle_tool_call applies the edits their calls carry."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from repos.builders import snapshot

from holon_git.provider import (
    EDIT_TOOL_NAMES,
    edit_tool_definition,
    handle_tool_call,
    run_tool_call,
)

SOURCE = "def greet(name):\n    return 'Hello, ' + name\n"


@pytest.fixture
def repo_files() -> Mapping[str, str | bytes]:
    return {"greet.py": SOURCE}


# The Anthropic SDK takes seconds to import: its tests are slow ones, and import it themselves.

@pytest.mark.slow
def test_the_anthropic_definition_is_the_sdks_text_editor_tool():
    pytest.importorskip("anthropic")  # the test extra installs it
    from anthropic.types import ToolTextEditor20250728Param
    from pydantic import TypeAdapter

    definition = edit_tool_definition("anthropic")
    checked = TypeAdapter(ToolTextEditor20250728Param).validate_python(definition)
    assert checked["name"] == EDIT_TOOL_NAMES["anthropic"] == "str_replace_based_edit_tool"
    with pytest.raises(Exception):  # noqa: B017  pydantic's ValidationError: the types check
        TypeAdapter(ToolTextEditor20250728Param).validate_python(
            {**definition, "name": "other"})


def tool_use(**arguments: object) -> Any:
    """The SDK's own tool_use content block, as a response holds it."""
    pytest.importorskip("anthropic")
    from anthropic.types import ToolUseBlock

    return ToolUseBlock(id="toolu_01", name="str_replace_based_edit_tool", input=arguments,
                        type="tool_use")


@pytest.mark.slow
def test_a_tool_use_block_is_handled(repo: Path):
    block = tool_use(command="str_replace", path="greet.py", old_str="'Hello, '",
                     new_str="'Hi, '")
    text = handle_tool_call("anthropic", block, repo)
    assert text.startswith("str_replace_based_edit_tool applied: 1 file."), text
    assert (repo / "greet.py").read_text() == SOURCE.replace("Hello", "Hi")
    again = run_tool_call("anthropic", block, repo)
    assert not again.ok and again.receipt.error is not None
    assert again.receipt.error.code == "already_applied"
    created = run_tool_call("anthropic", tool_use(command="create", path="new.py",
                                                  file_text="x = 1\n"), repo)
    assert created.ok and (repo / "new.py").read_text() == "x = 1\n"


@pytest.mark.slow
def test_malformed_text_editor_calls_are_refused_with_nothing_changed(repo: Path):
    before = snapshot(repo)
    for arguments, code in [
        ({"command": "str_replace", "path": "greet.py", "new_str": "x"}, "invalid_edit"),
        ({"command": "view", "path": "greet.py"}, "invalid_edit"),
        ({"command": "str_replace", "path": "/etc/passwd", "old_str": "root",
          "new_str": "x"}, "path_escape"),
        ({"command": "str_replace", "path": "greet.py", "old_str": "absent",
          "new_str": "x"}, "context_not_found"),
    ]:
        outcome = run_tool_call("anthropic", tool_use(**arguments), repo)
        assert outcome.receipt.error is not None and outcome.receipt.error.code == code
    assert snapshot(repo) == before


def test_the_openai_function_tool_and_its_call(repo: Path):
    definition = edit_tool_definition("openai")
    assert definition["type"] == "function" and definition["name"] == "str_replace"
    from jsonschema import validators

    schema = definition["parameters"]
    validators.validator_for(schema).check_schema(schema)
    call = {"type": "function_call", "call_id": "call_1", "name": "str_replace",
            "arguments": json.dumps({"path": "greet.py", "old_str": "name\n",
                                     "new_str": "name.title()\n"})}
    validators.validator_for(schema)(schema).validate(json.loads(call["arguments"]))
    text = handle_tool_call("openai", call, repo)
    assert text.startswith("str_replace applied"), text
    assert (repo / "greet.py").read_text() == SOURCE.replace("+ name", "+ name.title()")
    broken = run_tool_call("openai", {**call, "arguments": "{\"path\": "}, repo)
    assert broken.receipt.error is not None
    assert broken.receipt.error.code == "patch_parse_error"


def test_absolute_paths_inside_the_repository_are_read_as_relative(repo: Path):
    def call(path: str) -> dict[str, str]:
        return {"type": "function_call", "call_id": "c", "name": "str_replace",
                "arguments": json.dumps({"path": path, "old_str": "'Hello, '",
                                         "new_str": "'Hey, '"})}

    before = snapshot(repo)
    for outside in ("/etc/passwd", f"{repo}/../greet.py", f"{repo}-other/greet.py"):
        outcome = run_tool_call("openai", call(outside), repo)
        assert outcome.receipt.error is not None, outside
        assert outcome.receipt.error.code in ("path_escape", "not_found"), outside
    assert snapshot(repo) == before
    assert run_tool_call("openai", call(f"{repo}/greet.py"), repo).ok
    assert (repo / "greet.py").read_text() == SOURCE.replace("Hello", "Hey")
