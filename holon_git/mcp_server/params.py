"""tools/call's params as the server reads them: what the SDK's model would refuse with a
bare JSON-RPC error (-32602) set aside, so the tool answers it as ``invalid_tool_input``."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

SET_ASIDE: ContextVar[str | None] = ContextVar("holon_set_aside", default=None)
"""What the middleware set aside from the tools/call being handled (the handler runs in the
middleware's own task, so it sees this), said for the model; None when nothing."""


async def set_aside_misfits(ctx: ServerRequestContext[Any, Any], call_next: CallNext
                            ) -> HandlerResult:
    """Server middleware, run before the SDK validates params: a tools/call's misfits taken
    out of its params (which then validate) and left in SET_ASIDE for the tool to refuse."""
    if ctx.method != "tools/call" or not isinstance(ctx.params, Mapping):
        return await call_next(ctx)
    params, problem = without_misfits(dict(ctx.params))
    if problem is None:
        return await call_next(ctx)
    token = SET_ASIDE.set(problem)
    try:
        return await call_next(replace(ctx, params=params))
    finally:
        SET_ASIDE.reset(token)


def without_misfits(data: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """``data`` without a non-object ``arguments``, ``_meta`` or non-token ``progressToken``,
    and what was wrong with the first of them."""
    data, problems = dict(data), []
    if data.get("arguments") is not None and not isinstance(data["arguments"], dict):
        problems.append("the arguments must be a JSON object, not "
                        f"{_json_kind(data.pop('arguments'))}")
    meta = data.get("_meta")
    if meta is not None and not isinstance(meta, dict):
        problems.append(f"_meta must be a JSON object, not {_json_kind(data.pop('_meta'))}")
    elif isinstance(meta, dict) and "progressToken" in meta:
        token = meta["progressToken"]
        if not isinstance(token, str) and (not isinstance(token, int) or isinstance(token, bool)):
            data["_meta"] = {key: value for key, value in meta.items() if key != "progressToken"}
            problems.append("_meta.progressToken must be a string or an integer, not "
                            f"{_json_kind(token)}")
    return data, problems[0] if problems else None


def _json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    kinds = ((str, "a string"), (int, "an integer"), (float, "a number"), (list, "an array"),
             (dict, "an object"))
    return next((name for kind, name in kinds if isinstance(value, kind)), "a value")
