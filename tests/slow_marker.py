"""The marker ``slow`` and the default run that leaves its tests out (a pytest plugin,
loaded by conftest.py).

The default run, ``python -m pytest -q -n auto`` with no paths, no ``-k`` and no ``-m``,
leaves out the tests marked slow, so that it stays under two minutes on a busy 2-core
machine; ``python -m pytest -q -n auto -m slow`` runs them, and the README's test command
and .ci/run run both. A run that chooses its tests (a file, a test id, ``-k``, ``-m``) gets
every test it chooses, slow or not.

A test is marked slow when it takes over half a second on a quiet 2-core machine: it runs
many processes (kills at every step, faults at every call, servers and clients), many
hypothesis examples, builds and installs packages, or runs the type checker. Find
candidates with ``python -m pytest -q -n auto --durations=20``.
"""

from __future__ import annotations

import pytest

SLOW_RUN = "python -m pytest -q -n auto -m slow"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: over half a second on a quiet 2-core machine; the default run "
                   f"leaves it out, `{SLOW_RUN}` runs it")


def leaves_out_slow_tests(config: pytest.Config) -> bool:
    return (not config.option.markexpr and not config.option.keyword
            and config.args_source is not pytest.Config.ArgsSource.ARGS)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not leaves_out_slow_tests(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
        config.hook.pytest_deselected(items=slow)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            config: pytest.Config) -> None:
    # xdist's controller collects nothing (its workers do): it says so all the same
    if leaves_out_slow_tests(config) and not hasattr(config, "workerinput"):
        terminalreporter.write_line(f"tests marked slow were left out: `{SLOW_RUN}` runs them")
