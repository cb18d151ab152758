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
