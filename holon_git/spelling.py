"""What the command line makes of a word typed as git users type it (docs/cli.md,
"Abbreviations and typos"): a unique prefix of a long option stands for the option, as in
git's parse-options (``--rej`` is ``--reject``); a word that is neither a command nor a file,
but one slip away from a command, is taken for that command misspelt, as git suggests
``commit`` for ``comit``. No click here: cli.py hands over the names its commands take.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .errors import PatchError


def expand_long_options(args: Sequence[str], takes_value: Mapping[str, bool],
                        command: str) -> list[str]:
    """``args`` with each long option given by a unique prefix of its name spelled out
    (``--rej`` -> ``--reject``, ``--direc=src`` -> ``--directory=src``). ``takes_value`` maps
    every option name the command takes (short ones included) to whether it takes a value,
    so that a value that starts with ``--`` (``-m --reject``) is left as it is; after ``--``
    nothing is read as an option. A prefix of several names is a usage error naming them
    all; a word that is no prefix is left for the parser to refuse."""
    out: list[str] = []
    value_next = False
    for at, arg in enumerate(args):
        if value_next:
            out.append(arg)
            value_next = False
            continue
        if arg == "--":
            out.extend(args[at:])
            break
        if arg.startswith("--") and len(arg) > 2:
            name, equals, value = arg.partition("=")
            if name not in takes_value:
                name = _unique_prefix(name, takes_value, command)
            arg = name + equals + value
            value_next = takes_value.get(name, False) and not equals
        elif len(arg) == 2 and arg.startswith("-"):
            value_next = takes_value.get(arg, False)
        out.append(arg)
    return out


def _unique_prefix(typed: str, names: Iterable[str], command: str) -> str:
    matches = sorted(name for name in names if name.startswith(typed))
    if len(matches) > 1:
        raise PatchError("usage_error", f"ambiguous option: {typed} (could be "
                         f"{', '.join(matches[:-1])} or {matches[-1]})",
                         hint=f"type more of the option's name; see '{command} -h'")
    return matches[0] if matches else typed


def misspelt_command(word: str, commands: Iterable[str]) -> str | None:
    """The command ``word`` is one slip away from (a letter wrong, missing, extra or two
    swapped: ``mpc`` for ``mcp``), when there is exactly one; None otherwise."""
    close = [command for command in commands
             if _slips(word.lower(), command) <= (1 if len(command) < 8 else 2)]
    return close[0] if len(close) == 1 else None


def _slips(a: str, b: str) -> int:
    """Edits from ``a`` to ``b``, a swap of two neighbours counting as one (optimal string
    alignment distance, as git's own suggestion counts them)."""
    if abs(len(a) - len(b)) > 2:
        return 3
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(rows[i - 1][j] + 1, row[j - 1] + 1,
                         rows[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]
