"""One MCP tool call, answered: the text for the model, the structured content, and whether
it is an error. Synchronous and SDK-free; the server runs it in a worker thread."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..api import apply_request
from ..errors import PatchError
from ..provider.calls import repo_relative
from ..provider.results import format_refusal, format_result
from ..quoting import safe, safe_text
from ..receipt import REFUSED, Receipt
from ..request import ApplyRequest
from .region import read_region
from .tools import CHECK, READ, REPLACE

# the str_replace tool's arguments that make its edit (docs/edits.md reads them)
_EDIT_ARGUMENTS = ("path", "old_str", "new_str", "replace_all", "expected_replacements")


@dataclass(frozen=True)
class ToolAnswer:
    text: str
    structured: dict[str, Any]
    is_error: bool

    def __post_init__(self) -> None:
        # a path that is not UTF-8 (a lone surrogate) would stop the SDK's encoder, and the
        # server with it: quoted as git quotes it, whatever produced the answer
        object.__setattr__(self, "text", safe_text(self.text))
        object.__setattr__(self, "structured", safe(self.structured))


def apply_call(arguments: Mapping[str, Any], repo: str, *, check: bool = False,
               edit: bool = False) -> Receipt:
    """The one apply call a patch tool's (checked) arguments make; every path rule, protect
    rule and stale check of the CLI applies unchanged. ``edit``: the str_replace tool, whose
    arguments are one JSON edit (parse/edits.py)."""
    try:
        request = ApplyRequest(repo=repo, target=arguments.get("target", "worktree"),
                               check=check or bool(arguments.get("check_only", False)),
                               expect_sha256=arguments.get("expect_sha256") or None,
                               format="edits" if edit else "auto")
    except PatchError as err:
        return Receipt(REFUSED, target=str(arguments.get("target", "worktree")), error=err)
    if edit:
        one = {key: arguments[key] for key in _EDIT_ARGUMENTS if key in arguments}
        one["path"] = repo_relative(one["path"], repo)
        if one.get("replace_all") is False:
            del one["replace_all"]  # the schema's default, beside expected_replacements
        text = json.dumps([one], ensure_ascii=False).encode("utf-8", "surrogateescape")
        return apply_request(text, request)
    return apply_request(arguments["patch"], request)


def refusal(tool: str, err: PatchError, arguments: Mapping[str, Any] | None = None) -> ToolAnswer:
    """The answer to a call refused before it reached a repository."""
    if tool == READ:
        path = arguments.get("path") if isinstance(arguments, Mapping) else None
        structured = {"status": "refused", "path": path if isinstance(path, str) else None,
                      "error": err.to_dict()}
        return ToolAnswer(format_refusal(err, f"{tool} refused; nothing was read."), structured,
                          True)
    target = arguments.get("target") if isinstance(arguments, Mapping) else None
    receipt = Receipt(REFUSED, target=target if isinstance(target, str) else "worktree",
                      error=err)
    return ToolAnswer(format_result(receipt, tool), receipt.to_dict(), True)


def answer(tool: str, arguments: Mapping[str, Any], repo: str) -> ToolAnswer:
    """Run a call whose arguments were checked (tools.check_arguments) in ``repo``."""
    if tool == READ:
        try:
            region = read_region(repo, arguments["path"], arguments.get("start_line", 1),
                                 arguments.get("end_line"))
        except PatchError as err:
            return refusal(tool, err, arguments)
        return ToolAnswer(region.text(), region.to_dict(), False)
    receipt = apply_call(arguments, repo, check=tool == CHECK, edit=tool == REPLACE)
    return ToolAnswer(format_result(receipt, tool), receipt.to_dict(), not receipt.ok)
