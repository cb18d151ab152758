"""The process's umask, read without setting it.

``os.umask()`` reads the mask only by setting it: between its two calls, a file another
thread of the process creates gets the temporary mask, maybe looser than the user's (the MCP
server applies in worker threads). On Linux the mask is read from ``/proc/self/status``
(``Umask:``, since Linux 4.7), every time, so a later change of it is seen. Elsewhere it is
read once by setting it, and remembered: the command line and the MCP server do that at
start-up (``settle``), in the main thread, before any other thread runs.
"""

from __future__ import annotations

import os

_remembered: int | None = None


def _from_proc() -> int | None:
    try:
        with open("/proc/self/status", "rb") as fh:
            status = fh.read()
    except OSError:
        return None
    at = status.find(b"\nUmask:")
    if at < 0:
        return None
    try:
        return int(status[at + 7:status.index(b"\n", at + 1)].strip(), 8) & 0o777
    except ValueError:
        return None


def current() -> int:
    """The process's umask, never changed to read it where /proc tells it."""
    mask = _from_proc()
    if mask is not None:
        return mask
    global _remembered
    if _remembered is None:
        _remembered = os.umask(0o022)
        os.umask(_remembered)
    return _remembered


def settle() -> None:
    """At start-up, in the main thread: where only setting the mask reads it, read it now,
    before any thread could create a file meanwhile."""
    if _from_proc() is None:
        current()
