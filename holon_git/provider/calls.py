"""Running one ApplyPatch tool call and answering it in the provider's terms."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from ..api import apply_request
from ..errors import PatchError
from ..receipt import REFUSED, Receipt
from ..request import ApplyRequest
from .definitions import ANTHROPIC, EDIT_TOOL_NAMES, OPENAI, TOOL_NAME, check_provider
from .results import format_result


@dataclass
class ToolOutcome:
    """What a tool call did: the text for the model, and the full receipt for the runtime."""

    text: str
    receipt: Receipt

    @property
    def ok(self) -> bool:
        return self.receipt.ok


def _bad_input(message: str) -> PatchError:
    return PatchError("invalid_tool_input", message)


def _field(call: Any, name: str) -> Any:
    return call.get(name) if isinstance(call, dict) else getattr(call, name, None)


# the fields that make a tool input an edit by its text (the edit tools), not {"patch": ...}
_EDIT_FIELDS = ("command", "path", "file_path")


def patch_from_call(provider: str, call: Any) -> str:
    """The patch text a tool call carries, or PatchError('invalid_tool_input').

    OpenAI: the custom tool call's raw ``input`` string (or the ``custom_tool_call`` item);
    a ``function_call`` item of the edit tool (``str_replace``): its ``arguments``, JSON edits.
    Anthropic: the tool input, a dict or its JSON text, ``{"patch": "..."}`` (or the
    ``tool_use`` content block holding it); the text editor tool's input (``command``,
    ``path``, ``old_str``, ...): those JSON edits (parse/edits.py reads them).
    """
    check_provider(provider)
    if provider == OPENAI and _field(call, "type") == "function_call":
        arguments = _field(call, "arguments")
        if not isinstance(arguments, str):
            raise _bad_input("the function call carries no 'arguments' string")
        return arguments  # JSON: the edit, detected as such (docs/edits.md)
    if provider == OPENAI:
        if not isinstance(call, str | bytes):
            call = _field(call, "input")
        if isinstance(call, bytes):
            call = call.decode("utf-8", "surrogateescape")
        if not isinstance(call, str):
            raise _bad_input("the custom tool call carries no input text")
        return call
    if isinstance(call, bytes):
        call = call.decode("utf-8", "surrogateescape")
    if not isinstance(call, str | dict):
        call = getattr(call, "input", None)  # an SDK ToolUseBlock
    if isinstance(call, str):
        try:
            call = json.loads(call)
        except json.JSONDecodeError as exc:
            raise _bad_input(f"the tool input is not valid JSON ({exc.msg} at character "
                             f"{exc.pos})") from None
    if isinstance(call, dict) and call.get("type") == "tool_use":  # the whole content block
        call = call.get("input")
    if not isinstance(call, dict):
        raise _bad_input("the tool input must be a JSON object with a 'patch' string")
    if "patch" not in call and any(name in call for name in _EDIT_FIELDS):
        return json.dumps(call, ensure_ascii=False)  # the text editor tool's edit
    patch = call.get("patch")
    if not isinstance(patch, str):
        what = "is missing" if patch is None else f"is a {type(patch).__name__}, not a string"
        others = [repr(str(key)[:60]) for key in call if key != "patch"]
        if patch is None and others:  # {"diff": ...}: say what it has instead
            what += f" (it has {', '.join(others)} instead)"
        raise _bad_input(f"the tool input's 'patch' property {what}")
    return patch


def repo_relative(path: str, repo: str) -> str:
    """An edit tool's absolute path inside ``repo`` as a path relative to it (the text editor
    tool and most coding agents name files by absolute path); any other path as given, for
    the path rules to judge (an absolute path outside the repository is ``path_escape``).
    Lexical only: the relative path then meets every rule a patch's path meets."""
    if not path.startswith("/"):
        return path
    normal = os.path.normpath(path)
    for top in dict.fromkeys((os.path.abspath(repo), os.path.realpath(repo))):
        if normal.startswith(top.rstrip("/") + "/"):
            return os.path.relpath(normal, top)
    return path


def _with_repo_relative_paths(text: str, repo: str) -> str:
    """JSON edits with each absolute path inside ``repo`` made relative (repo_relative);
    text that is not a JSON list or object of edits is returned as it is, for the parser
    to refuse."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text
    edits = value.get("edits", [value]) if isinstance(value, dict) else value
    if not isinstance(edits, list):
        return text
    for edit in edits:
        for key in ("path", "file_path"):
            if isinstance(edit, dict) and isinstance(edit.get(key), str):
                edit[key] = repo_relative(edit[key], repo)
    return json.dumps(value, ensure_ascii=False)


def run_tool_call(provider: str, call: Any, repo: str | os.PathLike[str] = ".", *,
                  target: str = "worktree", check: bool = False) -> ToolOutcome:
    """Apply the patch a tool call carries to ``repo``; all or nothing, never raises
    PatchError. The outcome's text is the tool result for the model."""
    tool = TOOL_NAME
    try:
        request = ApplyRequest(repo=os.fspath(repo), target=target, check=check)
        patch = patch_from_call(provider, call)
    except PatchError as err:
        receipt = Receipt(REFUSED, target=target, error=err)
    else:
        if patch.lstrip()[:1] in ("{", "["):  # JSON: an edit tool's call (docs/edits.md)
            tool = EDIT_TOOL_NAMES[provider]
            patch = _with_repo_relative_paths(patch, request.repo)
        receipt = apply_request(patch, request)
    return ToolOutcome(format_result(receipt, tool), receipt)


def handle_tool_call(provider: str, call: Any, repo: str | os.PathLike[str] = ".", *,
                     target: str = "worktree", check: bool = False) -> str:
    """Apply the patch a tool call carries and return the tool result text for the model."""
    return run_tool_call(provider, call, repo, target=target, check=check).text


def result_item(provider: str, call_id: str, outcome: ToolOutcome) -> dict[str, Any]:
    """The message item that carries the tool result back to the model.

    OpenAI: a ``custom_tool_call_output`` input item. Anthropic: a ``tool_result`` content
    block for the next user message, flagged ``is_error`` when the patch was refused.
    """
    if check_provider(provider) == OPENAI:
        return {"type": "custom_tool_call_output", "call_id": call_id, "output": outcome.text}
    assert provider == ANTHROPIC
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id,
                             "content": outcome.text}
    if not outcome.ok:
        block["is_error"] = True
    return block
