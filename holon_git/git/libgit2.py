"""pygit2, loaded on first use: the one place holon-git defers an import for start-up time.

Importing pygit2 (libgit2, OpenSSL) costs a plain working-tree apply more than everything
else it does, and most applies never need it. So every module of holon_git.git imports
``pygit2`` from here at its top, like any other import, and what it gets is a stand-in that
imports the real module the first time one of its attributes is read (``pygit2.Index``,
``pygit2.GitError``...), then passes everything through. No other package imports pygit2
(an import-linter contract in pyproject.toml); nothing else in the code base defers an import
to keep pygit2 out of a run that does not use it. ``coded_failure`` turns what libgit2 raises
into the coded refusal the receipt carries.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

from ..errors import PatchError


class _OnFirstUse(ModuleType):
    def __getattr__(self, name: str) -> Any:  # only for names not copied in yet
        import pygit2

        self.__dict__.update(pygit2.__dict__)  # from now on, plain attribute reads
        return getattr(pygit2, name)


pygit2: Any = _OnFirstUse("pygit2")


def loaded() -> bool:
    """Whether pygit2 was imported (by this process, for any reason)."""
    return "pygit2" in sys.modules


def coded_failure(exc: Exception) -> PatchError | None:
    """libgit2's failures as pygit2 raises them, coded: an OS-level one (a lock file that
    could not be renamed while `git gc` ran, a full disk) is an OSError, the rest GitError.
    The targets undo themselves and release their locks first, so nothing has changed.
    None for any other exception."""
    if isinstance(exc, OSError):
        return PatchError("io_error", f"the repository refused a read or write: "
                          f"{exc.strerror or exc}",
                          hint="nothing was changed; retry once the other git process (a "
                          "gc, a commit) has finished, or check the disk")
    if loaded() and isinstance(exc, pygit2.GitError):
        return PatchError("git_error", f"libgit2 refused the operation: {exc}")
    return None
