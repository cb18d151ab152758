"""The MCP server over stdio, on the official SDK's low-level Server: the only module that
imports ``mcp``.

Each call is checked (arguments, the client's roots, the repository), then run in a worker
thread while holding its repository's lock, so calls to one repository run one at a time and
calls to different ones in parallel. A refusal is a tool result with isError, never a protocol
error; a line that is no valid request gets the JSON-RPC error the specification gives it
(wire.py). Stopping: at the end of input the server finishes the calls in progress and exits; on
SIGTERM or SIGINT it lets the applies in progress finish and exits at once (a SIGKILL leaves at
most a crash journal, which ``git holon-apply --recover`` rolls back).
"""

from __future__ import annotations

import gc
import os
import signal
import threading
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from ..errors import PatchError
from ..fs.umask import settle as settle_umask
from ..version import __version__
from .calls import ToolAnswer, answer, refusal
from .confine import Confinement, roots_from_uris
from .params import SET_ASIDE, set_aside_misfits
from .tools import (
    APPLY,
    REPLACE,
    TOOLS,
    bad_arguments,
    check_arguments,
    instructions,
    tool_specs,
)
from .wire import stdio_wire

T = TypeVar("T")
ROOTS_KEY = "roots"  # the key of the roots request in an input_required result (2026-07-28)
ROOTS_TIMEOUT = 10.0  # seconds a client may take to list its roots


class Writes:
    """Applies in progress (worker threads), so a stop signal can wait for them: a started
    apply always finishes, and none starts once the process is stopping."""

    def __init__(self) -> None:
        self._idle = threading.Condition()
        self._running = 0
        self.stopping = False

    def run(self, func: Callable[[], T]) -> T:
        with self._idle:
            if self.stopping:  # a call that came while the applies in progress finish
                raise PatchError("io_error", "the server is stopping; nothing was changed",
                                 hint="call again once the client has restarted the server")
            self._running += 1
        try:
            return func()
        finally:
            with self._idle:
                self._running -= 1
                self._idle.notify_all()

    def stop(self, signum: int, frame: object) -> None:
        """Signal handler: wait for the applies in progress, then end the process."""
        with self._idle:
            self.stopping = True
            while self._running:
                self._idle.wait()
            os._exit(128 + signum)  # still holding the lock: no apply can start now


class HolonServer:
    """The tools of one server process over the repositories ``confinement`` allows."""

    def __init__(self, confinement: Confinement) -> None:
        self.confinement = confinement
        self.locks: dict[str, anyio.Lock] = {}
        self.writes = Writes()

    def lowlevel(self) -> Server[Any]:
        server: Server[Any] = Server("holon-git", version=__version__, title="holon-git",
                                     instructions=instructions(),
                                     on_list_tools=self.list_tools,
                                     on_call_tool=self.call_tool)
        server.middleware.append(set_aside_misfits)
        return server

    async def list_tools(self, ctx: ServerRequestContext[Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        tools = []
        for spec in tool_specs():
            if len(self.confinement.repos) > 1:
                spec.input_schema["properties"]["repo"]["description"] += (
                    f" Served here: {', '.join(self.confinement.repos)}.")
            tools.append(types.Tool(name=spec.name, title=spec.title,
                                    description=spec.description,
                                    input_schema=spec.input_schema,
                                    output_schema=spec.output_schema,
                                    annotations=types.ToolAnnotations(**spec.annotations)))
        return types.ListToolsResult(tools=tools)

    async def call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
                        ) -> types.CallToolResult | types.InputRequiredResult:
        tool = params.name
        if tool not in TOOLS:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {tool!r}; this "
                           f"server has {', '.join(TOOLS)}")
        arguments: Any = {} if params.arguments is None else params.arguments
        try:
            set_aside = SET_ASIDE.get()
            if set_aside is not None:
                raise bad_arguments(set_aside, tool)
            arguments = check_arguments(tool, arguments)
            roots = await self.client_roots(ctx, params)
            if isinstance(roots, types.InputRequiredResult):
                return roots
            repo = self.confinement.resolve(arguments.get("repo"), roots, tool)
        except PatchError as err:
            return _result(refusal(tool, err, arguments))
        run = partial(answer, tool, arguments, repo)
        if tool in (APPLY, REPLACE) and not arguments.get("check_only"):
            run = partial(self.writes.run, run)
        async with self.locks.setdefault(repo, anyio.Lock()):
            try:
                outcome = await anyio.to_thread.run_sync(run)
            except PatchError as err:  # the server is stopping
                outcome = refusal(tool, err, arguments)
        return _result(outcome)

    async def client_roots(self, ctx: ServerRequestContext[Any],
                           params: types.CallToolRequestParams
                           ) -> tuple[str, ...] | types.InputRequiredResult | None:
        """The client's roots as local directories, asked for on every call (so a change is
        seen at once); None when the client offers none. On a 2026-07-28 connection the
        question is an input_required result the client answers by calling again."""
        capabilities = ctx.session.client_capabilities
        if capabilities is None or capabilities.roots is None:
            return None
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            listed = (params.input_responses or {}).get(ROOTS_KEY)
            if listed is None:
                return types.InputRequiredResult(
                    input_requests={ROOTS_KEY: types.ListRootsRequest()})
            uris = _root_uris(listed)
        else:
            try:
                with anyio.fail_after(ROOTS_TIMEOUT):
                    result = await ctx.session.send_request(types.ListRootsRequest(),
                                                            types.ListRootsResult)
            except (MCPError, TimeoutError) as exc:
                raise PatchError("repo_not_served", "the client offers roots but did not list "
                                 f"them ({exc or 'no answer'}), so no repository is known to be "
                                 "inside them", hint="retry; if it persists, the client's roots "
                                 "support is broken: start the server with --repo only") from None
            uris = [str(root.uri) for root in result.roots]
        if uris is None:
            raise PatchError("repo_not_served", "the client's answer to roots/list is not a "
                             "list of roots", hint="retry the call")
        return roots_from_uris(uris)


def _root_uris(listed: Any) -> list[str] | None:
    """The root URIs of a roots/list answer, whatever model the SDK parsed it into."""
    data = listed.model_dump(mode="json") if hasattr(listed, "model_dump") else listed
    roots = data.get("roots") if isinstance(data, Mapping) else None
    if not isinstance(roots, list):
        return None
    return [root["uri"] for root in roots if isinstance(root, Mapping)
            and isinstance(root.get("uri"), str)]


def _result(outcome: ToolAnswer) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=outcome.text)],
                                structured_content=outcome.structured,
                                is_error=outcome.is_error)


def serve(repos: Sequence[str]) -> None:
    """Serve the tools over stdin/stdout until the client closes the connection; raises
    PatchError('not_a_repository') before serving when a repository is unusable."""
    # The CLI pauses the cycle collector for its one short command; a server lives long and
    # the SDK's async machinery makes reference cycles (each apply still pauses it itself).
    gc.enable()
    settle_umask()  # before any worker thread: where reading the umask means setting it
    holon = HolonServer(Confinement(repos))
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, holon.writes.stop)
    server = holon.lowlevel()

    async def run() -> None:
        async with stdio_wire() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
