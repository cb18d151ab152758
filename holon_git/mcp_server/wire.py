"""JSON-RPC over stdin and stdout, one message a line, with an answer for every request.

The SDK's own stdio transport hands a line it cannot validate to the server as an exception,
which the server only logs: a line that is not JSON, ``[]``, a request missing its
``method``, and a request holding a lone surrogate (``"\\ud800"``: valid JSON by its grammar,
which pydantic's parser refuses) got no answer at all, and the client waited forever. Here
each line is read as the JSON-RPC 2.0 specification says:

- not JSON: ``-32700`` (parse error), id null;
- JSON that is not a request object (a number, ``[]``): ``-32600`` (invalid request), id null;
- a batch (MCP sends none: one message a line): ``-32600`` for each request in it, with its
  id, as one array;
- an object that is not a valid message: ``-32600`` with its id when it has one (a
  notification, which has none, is never answered);
- a valid message whose strings hold lone surrogates: served, as any other (the tools refuse
  such an argument as ``invalid_tool_input``, tools.check_arguments).

Messages out are written as the SDK writes them; one that UTF-8 cannot encode (an id holding
a lone surrogate, echoed) is written with JSON's ``\\uXXXX`` escapes instead, as it came in.
While serving, descriptors 0 and 1 point at the null device and at stderr, as the SDK's
transport has them, so a child process reads nothing and writes nothing onto the wire.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any, BinaryIO

import anyio
import mcp.types as types
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

Outgoing = SessionMessage | bytes  # a message of the server's, or an answer already written
NO_BATCHES = "batches are not supported: MCP sends one JSON-RPC message a line"


def _rpc_error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _id_of(value: Any) -> Any:
    """The request id to answer with: a string or an integer, else null."""
    if isinstance(value, dict):
        found = value.get("id")
        if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)):
            return found
    return None


def _notification(value: Any) -> bool:
    return isinstance(value, dict) and "method" in value and "id" not in value


def encoded(value: Any) -> bytes:
    """One line of JSON: UTF-8, with ``\\uXXXX`` escapes where UTF-8 cannot say it."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(value, separators=(",", ":")) + "\n").encode("ascii")


def read_line(line: bytes) -> SessionMessage | bytes | None:
    """A line from the client: the message to serve, the answer to write back at once, or
    None (a blank line, an invalid notification)."""
    text = line.decode("utf-8", "replace")  # as the SDK's transport decodes its input
    if not text.strip():
        return None
    try:  # the SDK's own reading, so every line it served is served alike
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValidationError:
        pass
    try:
        value = json.loads(text)
    except ValueError:
        return encoded(_rpc_error(None, types.PARSE_ERROR, "Parse error: the line is not JSON"))
    except RecursionError:
        return encoded(_rpc_error(None, types.PARSE_ERROR, "Parse error: the line nests deeper "
                              "than this server reads"))
    if isinstance(value, list):
        if not value:
            return encoded(_rpc_error(None, types.INVALID_REQUEST, "Invalid Request: an empty "
                                  "batch"))
        answers = [_rpc_error(_id_of(item), types.INVALID_REQUEST, f"Invalid Request: {NO_BATCHES}")
                   for item in value if not _notification(item)]
        return encoded(answers) if answers else None
    if isinstance(value, dict):
        try:  # valid but for what pydantic's parser refuses (a lone surrogate)
            return SessionMessage(types.jsonrpc_message_adapter.validate_python(value,
                                                                               by_name=False))
        except (ValidationError, RecursionError):
            pass
        if _notification(value):
            return None
    return encoded(_rpc_error(_id_of(value), types.INVALID_REQUEST, "Invalid Request: not a "
                          "JSON-RPC 2.0 request object"))


def written(message: Outgoing) -> bytes:
    """A message out as the line to write."""
    if isinstance(message, bytes):
        return message
    try:
        return message.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + \
            b"\n"
    except PydanticSerializationError:  # a lone surrogate, echoed from the request
        return encoded(message.message.model_dump(by_alias=True, exclude_unset=True,
                                                  mode="json"))


def _claim(fd: int, mode: str, diversion: Callable[[], int]
           ) -> tuple[BinaryIO, Callable[[], object]]:
    """The wire at ``fd`` as a private descriptor, ``fd`` itself pointed at ``diversion``;
    and how to give the wire back."""
    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    other = diversion()
    os.dup2(other, fd)
    os.close(other)
    wire: BinaryIO = os.fdopen(private, mode, closefd=False)  # type: ignore[assignment]
    return wire, lambda: os.dup2(private, fd)


@asynccontextmanager
async def stdio_wire() -> AsyncIterator[tuple[Any, Any]]:
    """The server's read and write streams over stdin and stdout (see the module's
    docstring), open until the client closes stdin and the server its write stream."""
    wire_in, give_back_in = _claim(0, "rb", lambda: os.open(os.devnull, os.O_RDONLY))
    try:
        wire_out, give_back_out = _claim(1, "wb", lambda: os.dup(2))
    except OSError:
        give_back_in()
        raise
    stdin, stdout = anyio.wrap_file(wire_in), anyio.wrap_file(wire_out)
    incoming, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, outgoing = create_context_streams[Outgoing](0)

    async def reader() -> None:
        async with incoming:
            async for line in stdin:
                message = read_line(line)
                if isinstance(message, SessionMessage):
                    await incoming.send(message)
                elif message is not None:
                    with suppress(anyio.ClosedResourceError):
                        await write_stream.send(message)

    async def writer() -> None:
        async with outgoing:
            async for message in outgoing:
                await stdout.write(written(message))
                await stdout.flush()

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(reader)
            tasks.start_soon(writer)
            yield read_stream, write_stream
    finally:
        give_back_out()
        give_back_in()
