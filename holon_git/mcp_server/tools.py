"""The three MCP tools as the model sees them, and their arguments checked against the schemas.

One source of truth: what a patch looks like comes from the provider glue (the Anthropic JSON
tool's description and ``patch`` property, and its prompt as the server's instructions, with
the tool called ``apply_patch``); tools.json adds only what is MCP's own: the options, check_patch,
read_region, and the output schemas. Nothing here imports the MCP SDK.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from ..errors import PatchError
from ..provider.definitions import ANTHROPIC, TOOL_NAME, prompt, tool_definition

APPLY, CHECK, READ, REPLACE = "apply_patch", "check_patch", "read_region", "str_replace"
# the arguments whose text is the file's own (a NUL byte may be part of it)
_TEXT_ARGUMENTS = ("patch", "old_str", "new_str")
# A surrogate JSON decoded alone (a "\\ud800" escape) that is not a byte surrogateescape
# keeps (\\udc80-\\udcff: a path whose bytes are not UTF-8, as this tool decodes paths)
_LONE_SURROGATE = re.compile("[\ud800-\udc7f\udd00-\udfff]")
TOOLS = (APPLY, CHECK, REPLACE, READ)
PATCH_TOOLS = (APPLY, CHECK)


@cache
def _data() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("tools.json").read_text(encoding="utf-8")
    return json.loads(text)


def _renamed(text: str) -> str:
    """Provider text, for the tool as MCP names it."""
    return text.replace(TOOL_NAME, APPLY)


def instructions() -> str:
    """The server's instructions (initialize result): how to write patches, and the tools."""
    return f"{_renamed(prompt(ANTHROPIC)).rstrip()}\n\n{_data()['instructions']}\n"


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    annotations: dict[str, Any] = field(default_factory=dict)


@cache
def _specs() -> dict[str, ToolSpec]:
    data = _data()
    shared = tool_definition(ANTHROPIC)
    properties = dict(data["properties"])
    properties["patch"] = shared["input_schema"]["properties"]["patch"]
    specs = {}
    for name, tool in data["tools"].items():
        description = tool["description"]
        if name == APPLY:
            description = f"{_renamed(shared['description'])}\n\n{description}"
        schema = {
            "type": "object",
            "properties": {key: properties[key] for key in tool["properties"]},
            "required": tool.get("required", ["patch"]),
            "additionalProperties": False,
        }
        output = data["output_schemas"]["region" if name == READ else "receipt"]
        specs[name] = ToolSpec(name, tool["title"], description, schema, output,
                               tool["annotations"])
    return specs


def tool_specs() -> list[ToolSpec]:
    """The tools, each a fresh copy (callers may change them)."""
    return [copy.deepcopy(spec) for spec in _specs().values()]


def bad_arguments(message: str, tool: str) -> PatchError:
    return PatchError("invalid_tool_input", message,
                      hint=f"call {tool} with arguments that match its input schema (tools/list)")


def _refuse_unknown(tool: str, arguments: dict[str, Any], schema: dict[str, Any]) -> None:
    """Arguments the tool does not take, named with the ones it does, and with a required
    one that is missing ({"diff": ...} for {"patch": ...}): the schema's first error would
    name only the missing one."""
    unknown = [key for key in arguments if key not in schema["properties"]]
    if not unknown:
        return
    names = ", ".join(repr(str(key)[:60]) for key in unknown)
    message = (f"unknown argument{'s' if len(unknown) > 1 else ''} {names}: {tool} takes "
               f"{', '.join(schema['properties'])}")
    missing = [key for key in schema["required"] if key not in arguments]
    if missing:
        message += f"; the required {', '.join(map(repr, missing))} is missing"
        if len(unknown) == len(missing) == 1:
            message += f": rename {names} to {missing[0]!r}"
    raise bad_arguments(message, tool)


def _holds_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return _LONE_SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(map(_holds_lone_surrogate, value)) or \
            any(map(_holds_lone_surrogate, value.values()))
    return isinstance(value, list) and any(map(_holds_lone_surrogate, value))


def check_arguments(tool: str, arguments: Any) -> dict[str, Any]:
    """The arguments of a call to ``tool``, checked against its input schema, or
    PatchError('invalid_tool_input') naming the first argument that does not fit."""
    from jsonschema import exceptions, validators

    if not isinstance(arguments, dict):
        raise bad_arguments("the arguments must be a JSON object", tool)
    schema = _specs()[tool].input_schema
    _refuse_unknown(tool, arguments, schema)
    validator = validators.validator_for(schema)(schema)
    error = exceptions.best_match(validator.iter_errors(arguments))
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path)
        raise bad_arguments(f"argument {where!r}: {error.message}" if where
                            else error.message, tool)
    arguments = dict(arguments)
    for key in ("start_line", "end_line"):
        if isinstance(arguments.get(key), float):  # 3.0 is an integer to JSON Schema
            arguments[key] = int(arguments[key])
    for key, value in arguments.items():
        if key not in _TEXT_ARGUMENTS and isinstance(value, str) and "\0" in value:
            raise bad_arguments(f"argument {key!r}: a NUL character names no path", tool)
        if _holds_lone_surrogate(value):
            raise bad_arguments(f"argument {key!r} holds a lone surrogate (a JSON \\ud800 "
                                "escape), which is no text: send the characters themselves",
                                tool)
    start, end = arguments.get("start_line", 1), arguments.get("end_line")
    if tool == READ and end is not None and end < start:
        raise bad_arguments(f"end_line {end} is before start_line {start}", tool)
    return arguments
