"""Ctrl-C and SIGTERM during a write: acted on only where the transaction can stop cleanly.

Python raises KeyboardInterrupt between any two bytecodes, for example after a rename but
before the transaction noted it, so the undo would miss that file. While a write runs, the
signals are only recorded; the transaction calls ``checkpoint()`` where stopping is safe, and
the stop becomes an ordinary rollback.
"""

from __future__ import annotations

import os
import signal
import threading
from _signal import signal as _set_handler
from types import FrameType

# _set_handler is the C function under signal.signal: the wrapper's enum conversions cost
# 15 us a call, which four calls make a noticeable share of an in-process one-file apply.
_SIGNALS = (int(signal.SIGINT), int(signal.SIGTERM))


class Interrupted(KeyboardInterrupt):
    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class DeferredSignals:
    """Context manager; a no-op outside the main thread (signals only reach it there)."""

    def __init__(self, redeliver: bool = False) -> None:
        self.redeliver = redeliver  # a signal no checkpoint acted on is raised at the end
        self.received: int | None = None
        self._old: dict[int, object] = {}
        self.raised = False

    def _record(self, signum: int, frame: FrameType | None) -> None:
        if self.received is None:
            self.received = signum

    def __enter__(self) -> DeferredSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in _SIGNALS:
                self._old[sig] = _set_handler(sig, self._record)
        return self

    def checkpoint(self) -> None:
        """Stop here (raise) if a signal arrived."""
        if self.received is not None:
            self.raised = True
            raise Interrupted(self.received)

    def __exit__(self, exc_type: object, *exc: object) -> None:
        for sig, handler in self._old.items():
            _set_handler(sig, handler)
        if self.received is None:
            return
        # A SIGTERM the rollback answered still ends the process, as it asked.
        if self.raised and self.received == signal.SIGTERM:
            os.kill(os.getpid(), signal.SIGTERM)
        elif self.redeliver and not self.raised and exc_type is None:
            self.raised = True
            raise Interrupted(self.received)


_HOLDS: list[HeldInterrupt] = []  # the active holds, innermost last


class HeldInterrupt:
    """Ctrl-C (SIGINT only) held around a whole write and its report, by the library.

    Writes that stop at safe points install their own handlers inside it and act on a
    Ctrl-C themselves; a write that does not calls ``checkpoint()`` (this module's) before
    its commit point. A Ctrl-C noted after the commit point is dropped: the apply completes
    and reports, instead of surfacing as an interrupt between the commit and the report.
    """

    def __init__(self) -> None:
        self.received = False
        self._old: object = None
        self._active = False

    def _record(self, signum: int, frame: FrameType | None) -> None:
        self.received = True

    def __enter__(self) -> HeldInterrupt:
        if threading.current_thread() is threading.main_thread():
            self._old = _set_handler(_SIGNALS[0], self._record)
            self._active = True
            _HOLDS.append(self)
        return self

    def checkpoint(self) -> None:
        if self.received:
            self.received = False
            raise Interrupted(_SIGNALS[0])

    def __exit__(self, *exc: object) -> None:
        if self._active:
            _HOLDS.remove(self)
            _set_handler(_SIGNALS[0], self._old)


def checkpoint() -> None:
    """Stop here (raise) if a Ctrl-C arrived while the innermost HeldInterrupt was held."""
    if _HOLDS:
        _HOLDS[-1].checkpoint()
