"""The checks behind the commit hooks (docs/hooks.md): patch files must parse (and, if asked,
apply to the index being committed), and staged changes may not touch protected paths.

Problems are reported one per line as ``path:line: code: message (hint)``, the shape editors
and CI log viewers link to.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..api import apply_request
from ..core.model import FileKind, FilePatch, Patch
from ..core.policy import PROTECT_FILE, Protection, check_protected
from ..errors import PatchError
from ..git.command import read_staged, staged_changes, top_level
from ..git.protect import head_protection
from ..parse import parse_patch
from ..request import ApplyRequest

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
    problems = []
    request = ApplyRequest(repo=repo, target="index", check=True) if apply_check else None
    for name, data in files:
        try:
            patch = parse_patch(data)
        except PatchError as err:
            problems.append(problem(name, err))
            continue
        held = [fp.unsupported for fp in patch.files if fp.unsupported is not None]
        if held:  # read but not applied (a binary file patch: parse/left_out.py)
            problems.extend(problem(name, err) for err in held)
            continue
        if request is not None:
            receipt = apply_request(patch, request)
            problems.extend(problem(name, err) for err in receipt.errors)
    return problems


def protect_hint(path: str) -> str:
    """What to do about a staged change to a protected path, that path named: the policy
    file's own first commit, too, is refused (the file protects itself), so its hint says
    how that commit is made."""
    if path == PROTECT_FILE:
        return (f"{PROTECT_FILE} protects itself, from its first commit on: commit it on its "
                "own, deliberately, past the hook (git commit --no-verify)")
    return f"unstage it (git restore --staged {path}); if the change is deliberate, commit " \
        "with --no-verify"


def protected_problems(paths: Sequence[str], patterns: Protection | Sequence[str],
                       ) -> list[Problem]:
    """Every path the apply policy would refuse (holon_git.core.policy), as a problem."""
    problems = []
    for path in paths:
        try:
            check_protected(Patch([FilePatch(FileKind.MODIFY, path, path)]), patterns)
        except PatchError as err:
            problems.append(Problem(path, None, err.code, err.message, protect_hint(path)))
    return problems


def staged_patch_problems(repo: str = ".", *, apply_check: bool = False) -> list[Problem]:
    """check_patch_files over the staged *.diff and *.patch files, read as staged."""
    root = top_level(repo)
    inputs = [(change.path, read_staged(root, change.path)) for change in staged_changes(root)
              if change.status != "D" and is_patch_file(change.path)]
    return check_patch_files(inputs, apply_check=apply_check, repo=root)


def staged_protect_problems(repo: str = ".") -> list[Problem]:
    """Every staged path the apply policy protects (git config holon.protect and the
    .holon/protect file as committed at HEAD, with core.ignorecase)."""
    root = top_level(repo)
    return protected_problems([c.path for c in staged_changes(root)], head_protection(root))
