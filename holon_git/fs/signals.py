"""Ctrl-C and SIGTERM held off while a write cannot stop cleanly: the library's one mechanism.

Python raises KeyboardInterrupt between any two bytecodes, for example after a rename but
before the transaction noted it, so the undo would miss that file. While a hold is in force
the signals are only recorded; the code calls ``checkpoint()`` where stopping is safe, and the
stop becomes an ordinary rollback. What happens to a signal no checkpoint acted on is the
hold's ``at_end``:

* ``DROP``: it is forgotten. A hold around a whole write and its report, or one whose write
  has passed its commit point: the apply completes and reports instead of surfacing as an
  interrupt between the commit and the report.
* ``RAISE``: it is raised as ``Interrupted`` when the block ends without an exception (a
  write that leaves its undo to the caller).
* ``FORWARD``: it is handed to the handler in force before the hold (an enclosing hold
  records it; Python's own raises KeyboardInterrupt), so a commit point is passed completely
  or not at all.

A SIGTERM a checkpoint acted on still ends the process once the hold ends (after the undo), as
it asked.

While an apply holds a lock (``index.lock``, a branch's), SIGTERM and SIGHUP are Ctrl-C too
(``TerminateAsInterrupt``, around every writing apply from before its target takes a lock):
by default they end the process where it stands, and the lock it held stayed behind, refusing
every later apply and git command (``index_locked``). Within that scope they raise
``Interrupted`` as Ctrl-C does, every hold holds them as it holds Ctrl-C, and once the scope
has unwound (the lock released, the write undone) the process ends by the signal, as it asked.
A handler the caller set (or ``nohup``'s SIG_IGN) is left as it is.

Holds nest; a signal the enclosing hold received and no checkpoint acted on yet is taken
over by the hold entered next (the API holds Ctrl-C around the whole write, and the
write's own hold, entered a little later, has the checkpoints); outside the main thread (where
Python delivers no signals) a hold does nothing. The CLI keeps only its top-level
KeyboardInterrupt handling.
"""

from __future__ import annotations

import os

# _signal is the C module under signal: the wrapper's enum classes cost 2 ms to build and
# its enum conversions 15 us a call, a noticeable share of an in-process one-file apply.
from _signal import SIG_DFL, SIGINT, SIGTERM
from _signal import getsignal as _handler_of
from _signal import signal as _set_handler
from types import FrameType
from typing import Any

DROP, RAISE, FORWARD = "drop", "raise", "forward"
_SIGHUP: int | None = getattr(__import__("_signal"), "SIGHUP", None)  # not on Windows
# the signals that end the process by default and, in a TerminateAsInterrupt, raise instead
STOPPING = (SIGTERM,) if _SIGHUP is None else (SIGTERM, _SIGHUP)
_NAMES = {SIGINT: "SIGINT", SIGTERM: "SIGTERM", **({_SIGHUP: "SIGHUP"} if _SIGHUP else {})}


class Interrupted(KeyboardInterrupt):
    def __init__(self, signum: int) -> None:
        super().__init__(_NAMES.get(signum, str(signum)))
        self.signum = signum


_HOLDS: list[HeldSignals] = []  # the holds in force, innermost last
_SCOPES: list[TerminateAsInterrupt] = []  # the scopes in force, innermost last


class HeldSignals:
    """Context manager: SIGINT (and, with ``terminate``, SIGTERM) recorded, not raised, while
    the block runs; ``at_end`` says what becomes of one that no checkpoint acted on."""

    def __init__(self, *, terminate: bool = False, at_end: str = DROP) -> None:
        assert at_end in (DROP, RAISE, FORWARD)
        self.signals: tuple[int, ...] = (SIGINT, SIGTERM) if terminate else (SIGINT,)
        self.at_end = at_end
        self.received: int | None = None  # the first signal that came, until acted on
        self.acted: int | None = None  # the signal a checkpoint (or the end) raised
        self._frame: FrameType | None = None
        self._previous: dict[int, Any] = {}

    def _record(self, signum: int, frame: FrameType | None) -> None:
        if self.received is None and self.acted is None:
            self.received, self._frame = signum, frame

    def __enter__(self) -> HeldSignals:
        if _SCOPES:  # SIGTERM and SIGHUP raise as Ctrl-C does: held as it is
            self.signals = tuple(dict.fromkeys((*self.signals, *_SCOPES[-1].taken)))
        try:
            for sig in self.signals:
                self._previous[sig] = _set_handler(sig, self._record)
        except ValueError:  # not the main thread: no signal reaches this code
            for sig, handler in self._previous.items():
                _set_handler(sig, handler)
            self._previous.clear()
            return self
        if _HOLDS and _HOLDS[-1].received in self.signals:
            # one came just before this hold, while only the enclosing one was in force (the
            # API's hold, before the write's): this hold's checkpoints act on it, or the
            # enclosing hold, which has no checkpoint left, would drop it
            outer = _HOLDS[-1]
            self.received, self._frame = outer.received, outer._frame
            outer.received = None
        _HOLDS.append(self)
        return self

    def checkpoint(self) -> None:
        """Stop here (raise Interrupted) if a signal came."""
        if self.received is not None:
            self.acted, self.received = self.received, None
            raise Interrupted(self.acted)

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if not self._previous:
            return
        for sig, handler in self._previous.items():
            _set_handler(sig, handler)
        _HOLDS.remove(self)
        pending, self.received = self.received, None
        if self.acted is not None and self.acted in STOPPING:  # the undo answered it; the
            os.kill(os.getpid(), self.acted)  # process still ends
        elif pending is None or self.acted is not None:
            return
        elif pending in STOPPING and self.at_end == DROP and _SCOPES:
            _SCOPES[-1].received = pending  # past the commit point: ends the process after
        elif self.at_end == RAISE and exc_type is None:
            self.acted = pending
            raise Interrupted(pending)
        elif self.at_end == FORWARD:
            previous = self._previous[pending]
            if callable(previous):
                previous(pending, self._frame)  # Python's default handler raises here
            elif previous == SIG_DFL:
                os.kill(os.getpid(), pending)


def checkpoint() -> None:
    """Stop here (raise) if a signal came while the innermost hold was in force."""
    if _HOLDS:
        _HOLDS[-1].checkpoint()


class TerminateAsInterrupt:
    """Context manager: SIGTERM and SIGHUP (those still at their default, which ends the
    process on the spot) raise ``Interrupted`` while the block runs, as Ctrl-C does, and are
    held by every hold inside it; when the block ends, after the unwinding released what was
    held, the process ends by the first such signal that came. Outside the main thread it
    does nothing (no signal reaches the thread)."""

    def __init__(self) -> None:
        self.taken: tuple[int, ...] = ()  # the signals this scope handles
        self.received: int | None = None
        self._previous: dict[int, Any] = {}

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        if self.received is None:  # one raise: a second signal does not cut the unwinding
            self.received = signum
            raise Interrupted(signum)

    def __enter__(self) -> TerminateAsInterrupt:
        try:
            for sig in STOPPING:
                if _handler_of(sig) == SIG_DFL:
                    self._previous[sig] = _set_handler(sig, self._stop)
        except ValueError:  # not the main thread
            for sig, handler in self._previous.items():
                _set_handler(sig, handler)
            self._previous.clear()
            return self
        self.taken = tuple(self._previous)
        _SCOPES.append(self)
        return self

    def __exit__(self, exc_type: object, exc: object, *rest: object) -> None:
        if not self.taken:
            return
        _SCOPES.remove(self)
        for sig, handler in self._previous.items():
            _set_handler(sig, handler)
        signum = self.received
        if signum is None and isinstance(exc, Interrupted) and exc.signum in self.taken:
            signum = exc.signum  # a hold's checkpoint acted on it: the undo is done
        if signum is not None:
            os.kill(os.getpid(), signum)  # the default action: the process ends by it
