"""git configuration that libgit2 does not read for us.

* The command line's: ``git -c key=value holon-apply`` hands its settings down in the
  environment, as GIT_CONFIG_PARAMETERS (``'key'='value' 'key2'='value2'``, single-quoted as
  git's sq_quote writes them; older gits wrote ``'key=value'``) and as
  GIT_CONFIG_COUNT/GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n>. git reads them after every file,
  so they win for single-valued keys and add to multi-valued ones.
* The *protected* configuration (system, global and command line, never the repository's own
  files), which is where git reads ``safe.directory``: a repository cannot vouch for itself.

A malformed variable is refused, as git refuses it ("bogus format"): a protection it carries
must not lapse silently.
"""

from __future__ import annotations

import os
import subprocess

from ..errors import PatchError
from .libgit2 import pygit2

Pair = tuple[str, "str | None"]  # (canonical key, value; None for a bare boolean 'key')
_TRUE = ("1", "true", "yes", "on")


def _bogus(variable: str, why: str) -> PatchError:
    return PatchError("usage_error", f"{variable} is malformed ({why}); git itself would refuse "
                      "it", hint=f"unset {variable} or set it as 'git -c key=value' does")


def canonical_key(key: str) -> str | None:
    """'Holon.Protect' -> 'holon.protect' (section and name lower-cased, a subsection kept);
    None for a key git would not accept."""
    first, dot, rest = key.partition(".")
    if not dot or not first:
        return None
    middle, _, name = rest.rpartition(".")
    if not name:
        return None
    section = first.lower()
    return f"{section}.{middle}.{name.lower()}" if middle else f"{section}.{name.lower()}"


def _sq_dequote_step(text: str, start: int) -> tuple[str, int]:
    """One single-quoted word from ``text[start]`` (git's sq_dequote_step): its value and the
    index just past it. Outside the quotes, only \\' and \\! may appear, each followed by a
    new quote."""
    if start >= len(text) or text[start] != "'":
        raise ValueError("a word does not start with a quote")
    out: list[str] = []
    i = start + 1
    while True:
        if i >= len(text):
            raise ValueError("an unterminated quote")
        ch = text[i]
        if ch != "'":
            out.append(ch)
            i += 1
            continue
        i += 1  # stepped out of the quotes
        if text[i:i + 1] == "\\" and text[i + 1:i + 2] in ("'", "!") \
                and text[i + 2:i + 3] == "'":
            out.append(text[i + 1])
            i += 3
            continue
        return "".join(out), i


def _old_style(word: str) -> Pair:
    """'key=value' (or 'key', a bare boolean), as git_config_parse_parameter splits it."""
    key, equals, value = word.partition("=")
    key = key.strip()
    if not key:
        raise ValueError(f"an empty key in {word!r}")
    return key, value if equals else None


def parse_parameters(text: str) -> list[Pair]:
    """The (key, value) pairs of a GIT_CONFIG_PARAMETERS value, in order."""
    pairs: list[Pair] = []
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        key, i = _sq_dequote_step(text, i)
        if i >= len(text) or text[i].isspace():
            pairs.append(_old_style(key))
            continue
        if text[i] != "=":
            raise ValueError("a word is followed by neither '=' nor a space")
        i += 1
        if i < len(text) and text[i] == "'":
            value, i = _sq_dequote_step(text, i)
            if i < len(text) and not text[i].isspace():
                raise ValueError("a value is followed by neither a space nor the end")
            pairs.append((key, value))
        elif i >= len(text) or text[i].isspace():
            pairs.append((key, None))
        else:
            raise ValueError("an unquoted value")
    return pairs


def command_line(environ: os._Environ[str] | dict[str, str] | None = None) -> list[Pair]:
    """Every setting ``git -c`` passed down, canonical keys, in git's reading order
    (GIT_CONFIG_COUNT's pairs, then GIT_CONFIG_PARAMETERS)."""
    env = os.environ if environ is None else environ
    pairs: list[Pair] = []
    count = env.get("GIT_CONFIG_COUNT")
    if count is not None and count != "":
        if not count.isdigit():
            raise _bogus("GIT_CONFIG_COUNT", "not a number")
        for n in range(int(count)):
            key, value = env.get(f"GIT_CONFIG_KEY_{n}"), env.get(f"GIT_CONFIG_VALUE_{n}")
            if not key:
                raise _bogus("GIT_CONFIG_COUNT", f"GIT_CONFIG_KEY_{n} is missing")
            if value is None:
                raise _bogus("GIT_CONFIG_COUNT", f"GIT_CONFIG_VALUE_{n} is missing")
            pairs.append((key, value))
    text = env.get("GIT_CONFIG_PARAMETERS")
    if text:
        try:
            pairs.extend(parse_parameters(text))
        except ValueError as exc:
            raise _bogus("GIT_CONFIG_PARAMETERS", str(exc)) from None
    out: list[Pair] = []
    for key, value in pairs:
        canonical = canonical_key(key)
        if canonical is None:
            raise _bogus("GIT_CONFIG_PARAMETERS", f"the key {key!r} is not section.name")
        out.append((canonical, value))
    return out


def command_line_values(name: str) -> list[str | None]:
    """The values ``git -c`` gives ``name`` (canonical form), in order."""
    return [value for key, value in command_line() if key == name]


def command_line_bool(name: str) -> bool | None:
    """The last boolean ``git -c`` gives ``name``; None when it gives none."""
    values = command_line_values(name)
    if not values:
        return None
    last = values[-1]
    return last is None or last.strip().lower() in _TRUE or _nonzero(last)


def _nonzero(text: str) -> bool:
    try:
        return int(text.strip()) != 0
    except ValueError:
        return False


def command_line_includes() -> bool:
    """Does ``git -c`` pass an include (``include.path``, ``includeIf.*.path``)? git follows
    it, so the values it brings are read by git (``git_values``)."""
    if "GIT_CONFIG_PARAMETERS" not in os.environ and "GIT_CONFIG_COUNT" not in os.environ:
        return False
    return any(key.startswith(("include.", "includeif.")) for key, _ in command_line())


GIT_CONFIG_TIMEOUT = 10.0  # seconds: an include naming a FIFO must not hang every apply


def _unreadable(key: str, why: str) -> PatchError:
    return PatchError("config_unreadable", f"cannot read {key} as git reads it: {why}; "
                      "without it the protected paths are unknown, so nothing is applied",
                      details={"key": key})


def git_values(git_dir: str, key: str) -> list[str]:
    """Every value of ``key`` as git itself reads it for the repository at ``git_dir``
    (given as GIT_DIR, which git trusts as holon-git located and checked it): system,
    global, the repository's and the worktree's files and ``git -c``, with every include
    and includeIf evaluated by git (libgit2 knows no ``hasconfig:``, and read a
    GIT_CONFIG_GLOBAL file not named .gitconfig through a stand-in, so its relative includes
    were lost). Values are bytes, held as text with surrogateescape (a Latin-1 pattern is the
    bytes it names, as a path is). Fails closed: git refusing, missing or hanging is
    ``config_unreadable``."""
    env = dict(os.environ)
    env["GIT_DIR"] = git_dir
    try:
        done = subprocess.run(["git", "config", "-z", "--get-all", key], cwd=git_dir,
                              env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=GIT_CONFIG_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise _unreadable(key, f"git config took over {GIT_CONFIG_TIMEOUT:.0f} s (an include "
                          "that never ends?)") from None
    except OSError as exc:
        raise _unreadable(key, f"git cannot be run ({exc.strerror})") from None
    if done.returncode == 1 and not done.stdout and not done.stderr.strip():
        return []  # no such key
    if done.returncode != 0:
        complaint = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise _unreadable(key, complaint[0] if complaint else
                          f"git config exited with status {done.returncode}")
    return [value.decode("utf-8", "surrogateescape")
            for value in done.stdout.split(b"\0")[:-1]]


def protected_files() -> list[str]:
    """git's system and global configuration files, in reading order (what exists of them
    is read; GIT_CONFIG_NOSYSTEM, GIT_CONFIG_SYSTEM and GIT_CONFIG_GLOBAL honoured)."""
    env = os.environ
    files = []
    if env.get("GIT_CONFIG_NOSYSTEM", "").lower() not in _TRUE:
        files.append(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    if env.get("GIT_CONFIG_GLOBAL"):
        files.append(env["GIT_CONFIG_GLOBAL"])
    else:
        home = os.path.expanduser("~")
        xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        files += [os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig")]
    return files


def protected_values(name: str) -> list[str | None]:
    """Every value of ``name`` in the protected configuration, in git's reading order:
    system, global (includes followed), then the command line."""
    values: list[str | None] = []
    for path in protected_files():
        if os.path.isfile(path):
            values.extend(_file_values(path, name))
    values.extend(command_line_values(name))
    return values


def _file_values(path: str, name: str) -> list[str | None]:
    try:
        config = pygit2.Config(path)
        return list(config.get_multivar(name))
    except (pygit2.GitError, OSError, KeyError, ValueError):
        return []
