"""JSON-RPC over stdin and stdout, one message a line, with an answer for every request.

The SDK's own stdio transport hands a line it cannot validate to the server as an exception,
which the server only logs: a line that is not JSON, ``[]``, a request missing its
``method``, and a request holding a lone surrogate (``"\\ud800"``: valid JSON by its grammar,
which pydantic's parser refuses) got no answer at all, and the client waited forever. Here
each line is read as the JSON-RPC 2.0 specification says:

- not UTF-8, or not JSON: ``-32700`` (parse error), id null: a byte UTF-8 cannot decode is
  never read as U+FFFD and served (it would be written into a file as ``EF BF BD``);
- longer than ``MAX_LINE_BYTES``: ``-32600``, id null, the line skipped without being held
  in memory;
- JSON that is not a request object (a number): ``-32600`` (invalid request), id null;
- a batch (a line that begins with ``[``; MCP sends none: one message a line): one
  ``-32600``, id null, whatever the batch holds (an error per member of a million-member
  batch would be held in memory all at once);
- an object whose ``id`` is there but neither a string nor an integer (null, a boolean, a
  float, an object, an array): ``-32600``, id null (it is no notification, which has no
  ``id``, so it must not go unanswered);
- an object that is not a valid message: ``-32600`` with its id when it has one (a
  notification, which has none, is never answered);
- a valid message whose strings hold lone surrogates: served, as any other (the tools refuse
  such an argument as ``invalid_tool_input``, tools.check_arguments).

At the end of input the reader waits for the answers to the requests it handed the server
(but those the client cancelled) before it closes the server's input: the SDK cancels the
handlers still running when its input closes, and an apply that had finished in its worker
thread then lost its answer.

Messages out are written as the SDK writes them; one that UTF-8 cannot encode (an id holding
a lone surrogate, echoed) is written with JSON's ``\\uXXXX`` escapes instead, as it came in.
While serving, descriptors 0 and 1 point at the null device and at stderr, as the SDK's
transport has them, so a child process reads nothing and writes nothing onto the wire.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, suppress
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
import mcp.types as types
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

Outgoing = SessionMessage | bytes  # a message of the server's, or an answer already written
NO_BATCHES = "batches are not supported: MCP sends one JSON-RPC message a line"
MAX_LINE_BYTES = 4 * 1024 * 1024  # one message; reading it may take some 40 times that
END = object()  # the end of input


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


def _bad_id(value: Any) -> bool:
    """An object with an ``id`` that is no request id (null, a boolean, a float, an object,
    an array): the SDK would serve it as a notification, never answered."""
    return isinstance(value, dict) and "id" in value and _id_of(value) is None


def _invalid(message: str) -> bytes:
    return encoded(_rpc_error(None, types.INVALID_REQUEST, f"Invalid Request: {message}"))


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
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return encoded(_rpc_error(None, types.PARSE_ERROR, "Parse error: the line is not "
                                  f"UTF-8 (byte {exc.start + 1})"))
    stripped = text.strip()
    if not stripped:
        return None
    if stripped.startswith("["):  # read no further: its members could be millions
        return _invalid(NO_BATCHES)
    try:  # the SDK's own reading, so every line it served is served alike
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        if not (isinstance(message, types.JSONRPCNotification) and _bad_id(json.loads(text))):
            return SessionMessage(message)
        return _invalid("the id must be a string or an integer")
    except ValidationError:
        pass
    try:
        value = json.loads(text)
    except ValueError:
        return encoded(_rpc_error(None, types.PARSE_ERROR, "Parse error: the line is not JSON"))
    except RecursionError:
        return encoded(_rpc_error(None, types.PARSE_ERROR, "Parse error: the line nests deeper "
                              "than this server reads"))
    if _bad_id(value):
        return _invalid("the id must be a string or an integer")
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


def read_lines(wire_in: BinaryIO, limit: int = MAX_LINE_BYTES) -> Iterator[bytes | None]:
    """The lines of ``wire_in`` as they come, each at most ``limit`` bytes (its newline
    included), None for a longer one, whose bytes are read and dropped, never held."""
    while True:
        line = wire_in.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit:
            yield line
            continue
        while line and not line.endswith(b"\n"):  # the rest of the long line, dropped
            line = wire_in.readline(limit)
        yield None


class Pending:
    """The requests handed to the server and not yet answered (nor cancelled by the
    client), so the end of input waits for their answers."""

    def __init__(self) -> None:
        self.ids: Counter[Any] = Counter()
        self.settled = anyio.Event()

    def asked(self, message: SessionMessage) -> None:
        inner = message.message
        if isinstance(inner, types.JSONRPCRequest):
            self.ids[_key(inner.id)] += 1
        elif isinstance(inner, types.JSONRPCNotification) and \
                inner.method == "notifications/cancelled" and isinstance(inner.params, dict):
            self._done(inner.params.get("requestId"))

    def answered(self, message: Outgoing) -> None:
        if isinstance(message, SessionMessage) and isinstance(
                message.message, types.JSONRPCResponse | types.JSONRPCError):
            self._done(message.message.id)

    def _done(self, request_id: Any) -> None:
        key = _key(request_id)
        if self.ids[key] > 1:
            self.ids[key] -= 1
        else:
            self.ids.pop(key, None)
        if not self.ids:
            self.settled.set()

    async def wait(self) -> None:
        while self.ids:
            self.settled = anyio.Event()
            await self.settled.wait()


def _key(request_id: Any) -> str:
    """A request id as the SDK correlates them (a cancel may name 7 as "7")."""
    return str(request_id)


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
    stdout = anyio.wrap_file(wire_out)
    incoming, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, outgoing = create_context_streams[Outgoing](0)

    pending = Pending()

    async def reader() -> None:
        async with incoming:
            lines = read_lines(wire_in)
            while (line := await anyio.to_thread.run_sync(next, lines, END)) is not END:
                message = read_line(line) if isinstance(line, bytes) else _invalid(
                    f"the line is longer than {MAX_LINE_BYTES:,} bytes")
                if isinstance(message, SessionMessage):
                    pending.asked(message)
                    await incoming.send(message)
                elif message is not None:
                    with suppress(anyio.ClosedResourceError):
                        await write_stream.send(message)
            await pending.wait()  # the answers to the requests under way, then the end

    async def writer() -> None:
        async with outgoing:
            async for message in outgoing:
                await stdout.write(written(message))
                await stdout.flush()
                pending.answered(message)

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(reader)
            tasks.start_soon(writer)
            yield read_stream, write_stream
    finally:
        give_back_out()
        give_back_in()
