"""The library API scripts call; the CLI is a thin layer over it.

    receipt = apply_patch(open("fix.diff", "rb").read(), repo="path/to/repo")
    if not receipt.ok:
        print(receipt.error.code, receipt.error.hint)

    # straight onto a branch of a bare repository, as one commit or not at all
    receipt = apply_patch(text, repo="srv/project.git", ref="main", message="Fix the parser")
    print(receipt.extra["commit"])
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from .errors import PatchError
from .model import Patch
from .parse import parse_patch
from .plan import Plan, plan_patch
from .policy import check_protected, select_files
from .receipt import APPLIED, CHECKED, REFUSED, Receipt


def _resolve_target(target: str, commit: bool, ref: str | None,
                    message: str | None) -> str:
    from .targets import TARGETS

    if target not in TARGETS:
        raise PatchError("usage_error", f"unknown target {target!r}; one of {', '.join(TARGETS)}")
    if ref is not None:
        if target not in ("worktree", "ref"):
            raise PatchError("usage_error", "--ref applies in the object database only; it "
                             "does not combine with --cached or --index")
        target = "ref"
    elif target == "ref":
        raise PatchError("usage_error", "the ref target needs a branch (ref=...)")
    elif commit and target == "worktree":
        target = "both"
    if (commit or ref is not None) and not (message or "").strip():
        raise PatchError("usage_error", "a commit needs a message (-m/--message)")
    return target


def _render_diff(destination: object, plan: Plan) -> bytes:
    from .targets.gitdiff import plan_sides, render_diff

    return render_diff(getattr(destination, "diff_sides", plan_sides)(plan))


def apply_patch(
    patch: bytes | str | Patch,
    repo: str | os.PathLike[str] = ".",
    *,
    target: str = "worktree",
    check: bool = False,
    reverse: bool = False,
    strip: int | None = None,
    format: str = "auto",
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    commit: bool = False,
    message: str | None = None,
    author: str | None = None,
    ref: str | None = None,
    emit_diff: bool = False,
    on_ref_update: Callable[[], None] | None = None,
    retry: int = 0,
) -> Receipt:
    """Apply ``patch`` to ``repo`` all or nothing; never raises PatchError, returns a Receipt.

    ``target``: "worktree" (files), "index" (like git apply --cached), "both" (--index).
    ``commit=True`` also commits on the current branch ("worktree" then means "both");
    ``ref="main"`` applies to that branch in the object database only and commits there.
    ``message``/``author`` ("Name <email>") describe the commit. ``include``/``exclude``
    select file patches by gitignore-style pattern. ``emit_diff=True`` puts the canonical
    git diff of what was applied in ``receipt.diff``. ``on_ref_update`` is called after the
    commit object exists, just before the branch is compare-and-swapped.
    ``retry=N`` (with ``ref``): when another writer moved the branch first (``head_moved``,
    ``ref_locked``), plan again on the new tip, up to N more times; ``receipt.extra``
    records the ``attempts``.
    ``check=True`` plans without writing. A refused patch leaves everything as it was and the
    receipt's ``error`` says why.
    """
    if retry > 0 and ref is not None and not check:
        return _with_retries(retry, patch, repo, target=target, reverse=reverse, strip=strip,
                             format=format, include=include, exclude=exclude, commit=commit,
                             message=message, author=author, ref=ref, emit_diff=emit_diff,
                             on_ref_update=on_ref_update)
    receipt = Receipt(REFUSED, target=target, reverse=reverse)
    try:
        target = receipt.target = _resolve_target(target, commit, ref, message)
        parsed = patch if isinstance(patch, Patch) else parse_patch(patch, format=format,
                                                                     strip=strip)
        receipt.format = parsed.format
        receipt.diagnostics = list(parsed.diagnostics)
        if reverse:
            parsed = parsed.reversed()
        parsed = select_files(parsed, include, exclude)
        receipt.diagnostics = list(parsed.diagnostics)
        from .targets import CommitSpec, open_target

        spec = None
        if commit or ref is not None:
            spec = CommitSpec(message or "", author, ref, on_ref_update)
        destination = open_target(target, os.fspath(repo), check=check, commit=spec)
        try:
            check_protected(parsed, destination.protected_patterns())
            plan = plan_patch(parsed, destination.read, reverse=reverse)
            validate = getattr(destination, "validate", None)
            if validate is not None:
                validate(plan)
            diff = _render_diff(destination, plan) if emit_diff else None
            receipt = Receipt.from_plan(plan, CHECKED if check else APPLIED, target=target,
                                        reverse=reverse)
            if not check:
                receipt.extra.update(destination.write(plan))
            receipt.diff = diff
        finally:
            destination.close()
    except PatchError as err:
        receipt.status = REFUSED
        receipt.error = err
    return receipt


RETRYABLE = ("head_moved", "ref_locked")


def _with_retries(retry: int, patch: bytes | str | Patch, repo: str | os.PathLike[str],
                  **options: Any) -> Receipt:
    """Re-plan on the branch's new tip while another writer keeps winning the race."""
    import random
    import time

    if not isinstance(patch, Patch):  # parse once; a parse error is not worth retrying
        try:
            patch = parse_patch(patch, format=options["format"], strip=options["strip"])
        except PatchError as err:
            return Receipt(REFUSED, target="ref", reverse=options["reverse"], error=err)
    for attempt in range(1, retry + 2):
        receipt = apply_patch(patch, repo, **options)
        if receipt.error is None or receipt.error.code not in RETRYABLE or attempt > retry:
            break
        time.sleep(random.uniform(0, 0.005 * attempt))  # let the winner finish; spread retries
    receipt.extra["attempts"] = attempt
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
