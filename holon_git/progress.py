"""Progress on a terminal for long work: many files, or more than a second.

The library reports progress through a callback, ``progress(stage, done, total)``; this module
is the CLI's renderer of it. It draws one line on stderr, rewritten in place, and only when
stderr is a terminal and the output is meant for a person (not --json, not -q), so pipes, logs
and agents never see it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TextIO

ProgressCallback = Callable[[str, int, int], None]

MANY_FILES = 200  # from this many files on, progress shows from the start
SLOW_SECONDS = 1.0  # otherwise it shows once the work has taken this long
_INTERVAL = 0.1  # redraw at most this often


def wanted(stream: TextIO, *, as_json: bool, quiet: bool) -> bool:
    """Should progress be drawn on ``stream``? Only on a terminal, for a person."""
    if as_json or quiet or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or replaced stream
        return False


class TerminalProgress:
    """Draws ``stage done/total`` on one terminal line; ``close()`` erases it."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.last_drawn: float | None = None
        self.shown = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = self.clock()
        if total < MANY_FILES and now - self.started < SLOW_SECONDS:
            return
        finished = done >= total
        if self.last_drawn is not None and now - self.last_drawn < _INTERVAL and not finished:
            return
        self.last_drawn = now
        percent = 100 * done // total if total else 100
        self.stream.write(f"\r\x1b[K{stage} {done}/{total} files ({percent}%)")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
