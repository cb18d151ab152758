"""The benchmark's scenarios, one module each, in the order bench/run.py runs them.

A scenario module has a NAME (what --only takes), a docstring saying what it measures (the
README's section on it says the same, with its targets) and ``run(cache, options)``, which
returns its table rows (a scenario with a table of its own, budgets, adds it to
``options.later``, printed after the main one). Adding a scenario: write its module and add
it to ALL.
"""

from __future__ import annotations

from scenarios import (
    bigfile,
    budgets,
    commit,
    inprocess,
    large,
    limits,
    mcp,
    repeats,
    searchbound,
    startup,
)

ALL = (large, bigfile, repeats, limits, searchbound, startup, inprocess, mcp, commit, budgets)
NAMES = tuple(module.NAME for module in ALL)
