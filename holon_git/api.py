"""The library API scripts call; the CLI is a thin layer over it.

    receipt = apply_patch(open("fix.diff", "rb").read(), repo="path/to/repo")
    if not receipt.ok:
        print(receipt.error.code, receipt.error.hint)
"""

from __future__ import annotations

import os

from .errors import PatchError
from .model import Patch
from .parse import parse_patch
from .plan import plan_patch
from .receipt import APPLIED, CHECKED, REFUSED, Receipt


def apply_patch(
    patch: bytes | str | Patch,
    repo: str | os.PathLike[str] = ".",
    *,
    target: str = "worktree",
    check: bool = False,
    reverse: bool = False,
    strip: int | None = None,
    format: str = "auto",
) -> Receipt:
    """Apply ``patch`` to ``repo`` all or nothing; never raises PatchError, returns a Receipt.

    ``check=True`` plans without writing. A refused patch leaves everything as it was and the
    receipt's ``error`` says why.
    """
    receipt = Receipt(REFUSED, target=target, reverse=reverse)
    try:
        parsed = patch if isinstance(patch, Patch) else parse_patch(patch, format=format,
                                                                     strip=strip)
        receipt.format = parsed.format
        receipt.diagnostics = list(parsed.diagnostics)
        if reverse:
            parsed = parsed.reversed()
        from .targets import open_target

        destination = open_target(target, os.fspath(repo))
        try:
            plan = plan_patch(parsed, destination.read, reverse=reverse)
            receipt = Receipt.from_plan(plan, CHECKED if check else APPLIED, target=target,
                                        reverse=reverse)
            if not check:
                receipt.extra.update(destination.write(plan))
        finally:
            destination.close()
    except PatchError as err:
        receipt.status = REFUSED
        receipt.error = err
    return receipt


def check_patch(patch: bytes | str | Patch, repo: str | os.PathLike[str] = ".",
                **options: object) -> Receipt:
    """Plan ``patch`` against ``repo`` and report whether it would apply; writes nothing."""
    return apply_patch(patch, repo, check=True, **options)  # type: ignore[arg-type]


def recover(repo: str | os.PathLike[str] = ".") -> dict[str, object]:
    """Undo what interrupted working-tree applies left half done, from their crash journals
    under .git/holon-apply/: every path back to its old content. Returns what was done
    (journals, restored, removed, busy). Raises PatchError, touching nothing, when a path
    changed after the interrupted apply."""
    from .targets.journal import Recovery
    from .targets.journal import recover as recover_journals
    from .targets.repo import locate

    location = locate(os.fspath(repo))
    if location.git_dir is None or location.work_tree is None:
        return Recovery().to_dict()
    return recover_journals(location.git_dir, location.work_tree).to_dict()
