"""Plain git hook scripts for repositories that do not use the pre-commit framework.

The scripts are shipped in the repository's hooks/ directory (generated from this module by
tools/gen_docs.py; a test keeps them identical) and installed by
`git holon-apply install-hooks`. Each one only calls git-holon-apply, so upgrading holon-git
upgrades the checks without reinstalling the hooks.

An installed hook names the git-holon-apply of the environment that installed it by its
absolute path: git runs hooks with the PATH of whoever commits, often a shell where that
environment is not active. When that command is gone (the environment was removed), the hook
runs the git-holon-apply on PATH. The shipped scripts name none and always use PATH.
"""

from __future__ import annotations

import shlex

MARKER = "# installed by holon-git (git holon-apply install-hooks)"
NAMES = ("pre-commit", "pre-merge-commit")
_PURPOSES = {
    "pre-commit": "Runs before a commit is recorded.",
    # `git merge` runs pre-merge-commit, not pre-commit, for a merge it commits by itself:
    # without it a merge could bring in changes to protected paths unchecked.
    "pre-merge-commit": "Runs before a merge commit is recorded.",
}

_CHECKS = """\
# The git-holon-apply that installed this hook (empty: none). When it is gone, the one on
# PATH runs instead.
INSTALLED={command}
HOLON_APPLY=$INSTALLED
if [ -z "$HOLON_APPLY" ] || [ ! -x "$HOLON_APPLY" ]; then
    HOLON_APPLY=git-holon-apply
    if ! command -v git-holon-apply >/dev/null 2>&1; then
        GONE=${INSTALLED:+ and $INSTALLED is gone}
        echo "holon-git hook: git-holon-apply is not on PATH$GONE; install holon-git, or" \\
            "remove $0 to stop running this hook" >&2
        exit 1
    fi
fi

# Staged changes may not touch a protected path (git config holon.protect, .holon/protect).
"$HOLON_APPLY" protect-check || exit 1

# Staged *.diff / *.patch files must be patches holon-git accepts; with
# `git config holon.applyCheck true` they must also apply to the index being committed.
if [ "$(git config --type=bool holon.applyCheck 2>/dev/null)" = true ]; then
    exec "$HOLON_APPLY" patch-check --apply-check
fi
exec "$HOLON_APPLY" patch-check
"""


def script(name: str, command: str | None = None) -> str:
    """The hook ``name`` calling ``command`` (an absolute path), or git-holon-apply on PATH."""
    header = (f"#!/bin/sh\n{MARKER}\n# {_PURPOSES[name]}\n"
              "# Skip once with `git commit --no-verify`.\n")
    return header + "\n" + _CHECKS.replace("{command}", shlex.quote(command) if command else "''")


# The scripts as shipped in hooks/: git-holon-apply from PATH.
HOOKS: dict[str, str] = {name: script(name) for name in NAMES}
