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

# typing and collections.abc cost a tenth of the package's import: the guard below must be in
# force before that much has loaded
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

COMMANDS = ("git-holon-apply", "holon-apply")  # the console scripts (pyproject.toml)
_VALUED = ("-W", "-X", "--check-hash-based-pycs")  # interpreter options that take a value


def is_the_command() -> bool:
    """Is this process the command (a console script, or ``python -m holon_git``) rather
    than a program using the library? Asked while the package loads, before any of it runs:
    the console script's name is its ``sys.argv[0]``; under ``-m``, ``sys.argv[0]`` is still
    ``-m`` then, and ``sys.orig_argv`` names the module."""
    name = os.path.basename(sys.argv[0]) if sys.argv else ""
    if os.path.splitext(name)[0] in COMMANDS:
        return True
    args = iter(getattr(sys, "orig_argv", [])[1:])
    for arg in args:
        if arg == "-m":
            return next(args, None) == "holon_git"
        if arg.startswith("-m"):
            return arg == "-mholon_git"
        if arg in _VALUED:
            next(args, None)
        elif not arg.startswith("-") or arg == "-c":
            return False
    return False


def _interrupted_while_loading(signum: int, frame: Any) -> None:
    """Ctrl-C before the command line handles it (the package still loading): nothing was
    done yet, so the command ends as the command line ends an interrupt, without a
    traceback."""
    sys.stderr.write("interrupted; nothing was changed\n")
    raise SystemExit(130)


def exit_cleanly_on_ctrl_c_while_loading() -> None:
    """For the command only: until the command line takes Ctrl-C over (cli.main), one ends
    the process with status 130 and its usual message, not with a KeyboardInterrupt's
    traceback from the middle of an import. A program using the library keeps Python's
    KeyboardInterrupt."""
    import _signal

    if is_the_command() and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        _signal.signal(_signal.SIGINT, _interrupted_while_loading)


def loading_guard() -> Callable[[int, Any], None]:
    """The Ctrl-C handler in force while the command loads (cli.main replaces it)."""
    return _interrupted_while_loading


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
