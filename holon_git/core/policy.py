"""Path policy over a parsed patch: which file patches apply, and which paths are protected.

Pure: patterns come in as strings (the targets read them from git config and the committed
.holon/protect file). Patterns are gitignore-style (pathspec's GitIgnoreSpec): ``*.lock``
matches at any depth, ``/top.txt`` only at the root, ``dir/`` everything below ``dir``, and a
later ``!pattern`` re-includes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import PatchError, first_of
from .model import Diagnostic, FilePatch, Patch

PROTECT_FILE = ".holon/protect"


@dataclass(frozen=True)
class Protection:
    """The protected-path patterns in force, and whether paths compare without case (git's
    core.ignorecase: on such a filesystem 'Secret.txt' is 'secret.txt')."""

    patterns: list[str] = field(default_factory=list)
    ignore_case: bool = False


def _spec(patterns: Iterable[str]) -> Any:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(list(patterns))


def protect_file_patterns(text: bytes) -> list[str]:
    """The patterns of a .holon/protect file: one per line, '#' comments and blanks skipped."""
    out = []
    for raw in text.decode("utf-8", "surrogateescape").splitlines():
        line = raw.rstrip("\r")
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(line)
    return out


def _selector_path(fp: FilePatch) -> str:
    # As `git apply --include/--exclude`: the new name, or the old one for a deletion.
    return fp.path


def select_files(patch: Patch, include: Sequence[str] = (),
                 exclude: Sequence[str] = ()) -> Patch:
    """Keep the file patches --include/--exclude select; note each one skipped.

    A file patch is skipped when its path matches an --exclude pattern, or when --include
    patterns were given and its path matches none of them. If nothing is left the patch is
    refused: an apply that silently changes nothing would look like success.
    """
    if not include and not exclude:
        return patch
    included = _spec(include) if include else None
    excluded = _spec(exclude) if exclude else None
    kept: list[FilePatch] = []
    notes: list[Diagnostic] = []
    for fp in patch.files:
        path = _selector_path(fp)
        if excluded is not None and excluded.match_file(path):
            reason = "--exclude"
        elif included is not None and not included.match_file(path):
            reason = "--include"
        else:
            kept.append(fp)
            continue
        notes.append(Diagnostic("skipped_file", f"{path}: not applied ({reason})",
                                fp.patch_line))
    if not kept:
        raise PatchError("empty_patch", "every file patch was skipped by --include/--exclude",
                         hint="check the --include/--exclude patterns against the patch's "
                         "paths", details={"skipped": [_selector_path(f) for f in patch.files]})
    return replace(patch, files=kept, diagnostics=[*patch.diagnostics, *notes])


def check_protected(patch: Patch, protection: Protection | Sequence[str]) -> None:
    """Refuse a patch that touches a protected path (either side of a rename counts): the
    first such path, carrying every other one (``PatchError.more``).

    The policy file itself is always protected: a patch may not change its own rules.
    """
    if not isinstance(protection, Protection):
        protection = Protection(list(protection))
    fold = str.lower if protection.ignore_case else _same
    patterns = protection.patterns
    spec = _spec(fold(p) for p in patterns) if patterns else None
    refusals = []
    for fp in patch.files:
        for path in fp.paths:
            try:
                _refuse_if_protected(path, spec, protection, fp.patch_line)
            except PatchError as err:
                refusals.append(err)
    if refusals:
        raise first_of(refusals)


def check_protected_path(path: str, protection: Protection | Sequence[str],
                         hint: str = "") -> None:
    """Refuse one repository-relative path that the protect rules cover (read_region)."""
    if not isinstance(protection, Protection):
        protection = Protection(list(protection))
    fold = str.lower if protection.ignore_case else _same
    patterns = protection.patterns
    _refuse_if_protected(path, _spec(fold(p) for p in patterns) if patterns else None,
                         protection, None, hint)


def _refuse_if_protected(path: str, spec: Any, protection: Protection,
                         patch_line: int | None, hint: str = "") -> None:
    fold = str.lower if protection.ignore_case else _same
    key = fold(path)
    if key == fold(PROTECT_FILE) or (spec is not None and spec.match_file(key)):
        rule = "the policy file" if key == fold(PROTECT_FILE) else \
            f"holon.protect / {PROTECT_FILE}"
        raise PatchError("protected_path", f"{path!r} is protected by {rule}", hint=hint,
                         path=path, patch_line=patch_line,
                         details={"patterns": list(protection.patterns)})


def _same(text: str) -> str:
    return text
