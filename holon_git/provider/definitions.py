"""The ApplyPatch tool as each provider family declares it, and the guidance for the model.

Everything here is data shipped in this package (grammar.lark, *_tool.json, *_prompt.txt); the
functions only load and assemble it.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

TOOL_NAME = "ApplyPatch"
# the edit tools (docs/edits.md): Anthropic's text editor tool, and a function tool of the same
# arguments for OpenAI
EDIT_TOOL_NAMES = {"anthropic": "str_replace_based_edit_tool", "openai": "str_replace"}
OPENAI, ANTHROPIC = "openai", "anthropic"
PROVIDERS = (OPENAI, ANTHROPIC)


def check_provider(provider: str) -> str:
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r}; expected one of {', '.join(PROVIDERS)}")
    return provider


@cache
def _data(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def grammar() -> str:
    """The Lark grammar of the V1 unified-diff subset (the OpenAI custom tool's format)."""
    return _data("grammar.lark")


def prompt(provider: str) -> str:
    """Guidance for the model's instructions: when to use ApplyPatch and how to write the diff."""
    return _data(f"{check_provider(provider)}_prompt.txt")


def tool_definition(provider: str) -> dict[str, Any]:
    """The tool entry for the provider's request ``tools`` list (a fresh dict each call).

    OpenAI Responses API: a custom tool whose input is constrained by the Lark grammar.
    Anthropic Messages API: a JSON tool with one required string property, ``patch``.
    """
    definition = json.loads(_data(f"{check_provider(provider)}_tool.json"))
    if provider == OPENAI:
        definition["format"]["definition"] = grammar()
    return definition


def edit_tool_definition(provider: str) -> dict[str, Any]:
    """The edit tool entry for the provider's request ``tools`` list (a fresh dict each call).

    Anthropic Messages API: the text editor tool (``text_editor_20250728``, named
    ``str_replace_based_edit_tool``), whose schema the API supplies; its ``str_replace``,
    ``create`` and ``insert`` calls apply here (``view`` is the runtime's to answer).
    OpenAI Responses API: a function tool, ``str_replace``, taking ``path``, ``old_str``,
    ``new_str`` and ``replace_all``. ``handle_tool_call`` takes the calls of both.
    """
    return json.loads(_data(f"{check_provider(provider)}_edit_tool.json"))
