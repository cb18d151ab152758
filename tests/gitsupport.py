"""Helpers for the git-native target tests: refusal checks and twin repositories for
comparing holon-git with `git apply` itself."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from repos.builders import git, git_dir, git_state, index_entries, lock_files, snapshot

from holon_git import apply_patch
from holon_git.errors import PatchError
from holon_git.receipt import Receipt


def everything(repo: Path) -> dict[str, Any]:
    """Working tree (unless bare), git state and index entries."""
    state: dict[str, Any] = {"git": git_state(repo)}
    if (repo / ".git").exists():
        state["files"] = snapshot(repo)
        state["index"] = index_entries(repo)
    return state


def refused(repo: Path, patch: str | bytes, code: str | tuple[str, ...],
            state: Callable[[], Any] | None = None, **options: Any) -> PatchError:
    """Apply through the library (``options``: apply_patch's); it must refuse with ``code``
    (or one of a tuple of codes) and change nothing at all: ``state()`` is the same before and
    after (default: working tree, git state and index, ``everything``) and no lock file is
    left. The one refusal helper of the library tests; returns the error."""
    take = state or (lambda: everything(repo))
    before = take()
    receipt = apply_patch(patch, repo, **options)
    assert receipt.status == "refused", f"applied: {receipt.to_json()}"
    codes = (code,) if isinstance(code, str) else code
    assert receipt.error is not None and receipt.error.code in codes, receipt.error
    assert take() == before, "a refused patch changed something"
    assert lock_files(repo) == [], "a lock file was left behind"
    return receipt.error


def applied(repo: Path, patch: str | bytes, **options: Any) -> Receipt:
    """Apply through the library; it must apply (or, with check=True, would) and leave no
    lock file. The one success helper of the library tests; returns the receipt."""
    receipt = apply_patch(patch, repo, **options)
    assert receipt.ok, receipt.error and receipt.error.to_dict()
    assert receipt.status == ("checked" if options.get("check") else "applied")
    assert lock_files(repo) == [], "a lock file was left behind"
    return receipt


def twin(repo: Path) -> Path:
    """An exact copy (working tree, index, objects) to run `git apply` in."""
    copy = repo.with_name(repo.name + "-twin")
    shutil.copytree(repo, copy, symlinks=True)
    if (copy / ".git").exists():  # new inodes: let git re-validate its stat data
        git(copy, "update-index", "-q", "--refresh", check=False)
    return copy


def git_apply(repo: Path, patch: str | bytes, *options: str) -> None:
    data = patch.encode() if isinstance(patch, str) else patch
    git(repo, "apply", *options, "-", input=data)


def blob(repo: Path, oid: str) -> bytes:
    import subprocess

    from repos.builders import git_env

    return subprocess.run(["git", "cat-file", "blob", oid], cwd=repo, capture_output=True,
                          check=True, env=git_env()).stdout


def head(repo: Path, ref: str = "HEAD") -> str:
    return git(repo, "rev-parse", ref).strip()


__all__ = ["applied", "blob", "everything", "git_apply", "git_dir", "head", "refused", "twin"]


def forget_resend_records(repo: Path) -> None:
    """Strip the history log's re-send records (patch digest, content written), keeping its
    pre-images and the proofs that they are their paths' own. The re-sends a test sends
    next are then judged by the hunk rules and the pre-images alone (core/plan/applied.py
    would refuse them first)."""
    import json

    log = repo / ".git" / "holon-apply-history"
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    log.write_text("".join(json.dumps({k: e[k] for k in ("time", "path", "blob", "proof")
                                       if k in e}) + "\n" for e in entries))
