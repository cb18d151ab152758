"""The checks behind the commit hooks (docs/hooks.md): patch files must parse (and, if asked,
apply to the index being committed), and staged changes may not touch protected paths.

Problems are reported one per line as ``path:line: code: message (hint)``, the shape editors
and CI log viewers link to.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import PatchError
from .policy import Protection

PATCH_SUFFIXES = (".diff", ".patch")


@dataclass(frozen=True)
class Problem:
    path: str  # the patch file, or the staged path
    line: int | None  # line in the patch file
    code: str
    message: str
    hint: str

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.code}: {self.message} ({self.hint})"


def problem(name: str, err: PatchError) -> Problem:
    where = err.where(with_patch_line=False)
    message = f"{where}: {err.message}" if where else err.message
    return Problem(name, err.patch_line or 1, err.code, message, err.hint)


def is_patch_file(path: str) -> bool:
    return path.lower().endswith(PATCH_SUFFIXES)


def check_patch_files(files: Iterable[tuple[str, bytes]], *, apply_check: bool = False,
                      repo: str = ".") -> list[Problem]:
    """Each (name, content) must parse as a V1 patch or an envelope; with ``apply_check``
    it must also apply cleanly to the index of ``repo`` (each file on its own)."""
    from .parse import parse_patch

    problems = []
    for name, data in files:
        try:
            patch = parse_patch(data)
        except PatchError as err:
            problems.append(problem(name, err))
            continue
        if apply_check:
            from .api import apply_patch

            receipt = apply_patch(patch, repo, target="index", check=True)
            if receipt.error is not None:
                problems.append(problem(name, receipt.error))
    return problems


PROTECT_HINT = "unstage the change (git restore --staged PATH); if it is deliberate, commit " \
    "with --no-verify"


def protected_problems(paths: Sequence[str], patterns: Protection | Sequence[str],
                       ) -> list[Problem]:
    """Every path the apply policy would refuse (holon_git.policy), as a problem."""
    from .model import FileKind, FilePatch, Patch
    from .policy import check_protected

    problems = []
    for path in paths:
        try:
            check_protected(Patch([FilePatch(FileKind.MODIFY, path, path)]), patterns)
        except PatchError as err:
            problems.append(Problem(path, None, err.code, err.message, PROTECT_HINT))
    return problems
