"""The command's process ends as soon as the command is over.

A normal interpreter exit tears down every module and frees every object one by one: after a
large patch, 20-30 ms spent on memory the process is about to give back whole. The console
script (``cli.main`` run without arguments, as the ``holon-apply`` and ``git-holon-apply``
scripts and ``python -m holon_git`` run it) ends through ``run_then_exit`` instead: it
flushes stdout and stderr, runs the atexit callbacks (a scratch directory's removal,
git/repository.py), and leaves with ``os._exit``. The library never does this, nor does
``cli.main(argv)`` called with arguments (tests, scripts): they get SystemExit as usual.

Whenever leaving at once could lose something, the normal exit is taken: another thread
still running (the interpreter's exit would wait for it), or stdout or stderr refusing the
flush (the interpreter then reports it as usual).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import NoReturn


def run_then_exit(command: Callable[[], None]) -> NoReturn:
    """Run ``command`` and end the process with its exit status; an exception other than
    SystemExit goes on as usual (the interpreter prints it)."""
    try:
        command()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    exit_now(code)


def exit_now(code: object) -> NoReturn:
    """End the process with ``code`` as SystemExit would (None is 0, a message is printed
    and is 1), without tearing the interpreter down when nothing can be lost."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        raise SystemExit(status)
    import atexit

    run_callbacks = getattr(atexit, "_run_exitfuncs", None)  # what the interpreter's exit runs
    if run_callbacks is None:
        raise SystemExit(status)
    run_callbacks()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        raise SystemExit(status) from None
    os._exit(status & 0xFF)
