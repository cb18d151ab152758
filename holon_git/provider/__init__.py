"""holon-git's ApplyPatch tool for model providers: definitions, prompts, and tool calls.

    from holon_git.provider import tool_definition, prompt, handle_tool_call

    tools = [tool_definition("anthropic")]          # or "openai"
    instructions = prompt("anthropic")
    text = handle_tool_call("anthropic", tool_use.input, repo="path/to/repo")

    tools = [edit_tool_definition("anthropic")]     # the text editor tool; "openai": a
                                                    # function tool, str_replace
    text = handle_tool_call("anthropic", tool_use, repo="path/to/repo")   # its edits too

The patch body is the same unified-diff subset for both providers (docs/providers.md); only the
outer tool shape differs.
"""

from __future__ import annotations

from .calls import ToolOutcome, handle_tool_call, patch_from_call, result_item, run_tool_call
from .definitions import (
    ANTHROPIC,
    EDIT_TOOL_NAMES,
    OPENAI,
    PROVIDERS,
    TOOL_NAME,
    edit_tool_definition,
    grammar,
    prompt,
    tool_definition,
)
from .results import format_result

__all__ = [
    "ANTHROPIC",
    "EDIT_TOOL_NAMES",
    "OPENAI",
    "PROVIDERS",
    "TOOL_NAME",
    "ToolOutcome",
    "edit_tool_definition",
    "format_result",
    "grammar",
    "handle_tool_call",
    "patch_from_call",
    "prompt",
    "result_item",
    "run_tool_call",
    "tool_definition",
]
