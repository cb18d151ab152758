"""Plain git hook scripts for repositories that do not use the pre-commit framework.

The scripts are shipped in the repository's hooks/ directory (generated from this module by
tools/gen_docs.py; a test keeps them identical) and installed by
`git holon-apply install-hooks`. Each one only calls `git holon-apply`, so upgrading holon-git
upgrades the checks without reinstalling the hooks.
"""

from __future__ import annotations

MARKER = "# installed by holon-git (git holon-apply install-hooks)"

_CHECKS = """\
if ! command -v git-holon-apply >/dev/null 2>&1; then
    echo "holon-git hook: git-holon-apply is not on PATH; install holon-git, or remove" \\
        "$0 to stop running this hook" >&2
    exit 1
fi

# Staged changes may not touch a protected path (git config holon.protect, .holon/protect).
git holon-apply protect-check || exit 1

# Staged *.diff / *.patch files must be patches holon-git accepts; with
# `git config holon.applyCheck true` they must also apply to the index being committed.
if [ "$(git config --type=bool holon.applyCheck 2>/dev/null)" = true ]; then
    exec git holon-apply patch-check --apply-check
fi
exec git holon-apply patch-check
"""


def _script(purpose: str) -> str:
    header = f"#!/bin/sh\n{MARKER}\n# {purpose}\n# Skip once with `git commit --no-verify`.\n"
    return f"{header}\n{_CHECKS}"


HOOKS: dict[str, str] = {
    "pre-commit": _script("Runs before a commit is recorded."),
    # `git merge` runs pre-merge-commit, not pre-commit, for a merge it commits by itself:
    # without it a merge could bring in changes to protected paths unchecked.
    "pre-merge-commit": _script("Runs before a merge commit is recorded."),
}
