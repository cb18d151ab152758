"""Commits: identities, the branch to advance, and moving it by compare-and-swap.

The branch is locked through libgit2's reference transaction (``refs/heads/X.lock``, created
exclusively), its value re-read under the lock and compared with the value the patch was
applied against; only then is it moved, with a reflog entry where git would write one
(core.logAllRefUpdates: on by default in repositories with a working tree).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ..errors import PatchError
from .branches import Tip, head_branch, ref_value
from .libgit2 import pygit2
from .repository import GitRepo, git_error

_IDENT = re.compile(r"^\s*([^<>]*?)\s*<([^<>]*)>\s*$")


def parse_ident(text: str) -> tuple[str, str]:
    """'Name <email>' -> (name, email), as --author takes it."""
    found = _IDENT.match(text)
    if not found or not found.group(1):
        raise PatchError("usage_error", f"--author {text!r} is not 'Name <email>'")
    return found.group(1), found.group(2)


def parse_git_date(text: str) -> tuple[int, int]:
    """GIT_AUTHOR_DATE/GIT_COMMITTER_DATE -> (unix seconds, UTC offset in minutes).

    Accepts git's internal form ('@1700000000 +0100' or '1700000000 +0100'), ISO 8601
    ('2001-01-01T00:00:00Z', '2001-01-01 00:00:00 +0100') and RFC 2822.
    """
    text = text.strip()
    internal = re.fullmatch(r"@?(\d+)(?:\s+([+-])(\d\d)(\d\d))?", text)
    if internal:
        offset = 0
        if internal.group(2):
            offset = int(internal.group(3)) * 60 + int(internal.group(4))
            offset = -offset if internal.group(2) == "-" else offset
        return int(internal.group(1)), offset
    when: datetime | None = None
    iso = re.sub(r"\s+([+-]\d\d):?(\d\d)$", r"\1:\2", text).replace("Z", "+00:00")
    try:
        when = datetime.fromisoformat(iso)
    except ValueError:
        from email.utils import parsedate_to_datetime  # RFC 2822 dates only: start-up counts

        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            when = None
    if when is None:
        raise PatchError("usage_error", f"cannot read the date {text!r}",
                         hint="use '@<unix seconds> +hhmm' or ISO 8601")
    if when.tzinfo is None:
        when = when.astimezone()
    delta = when.utcoffset()
    offset = int(delta.total_seconds() // 60) if delta is not None else 0
    return int(when.timestamp()), offset


def _now() -> tuple[int, int]:
    now = time.time()
    offset = datetime.fromtimestamp(now, timezone.utc).astimezone().utcoffset()
    return int(now), int(offset.total_seconds() // 60) if offset else 0


def clean_message(message: str) -> str:
    """git's 'whitespace' cleanup (the default for -m): no trailing spaces, no leading or
    trailing blank lines, runs of blank lines collapsed; one final newline."""
    lines = [line.rstrip() for line in message.replace("\r\n", "\n").split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    if not out:
        raise PatchError("usage_error", "the commit message is empty",
                         hint="pass a message with -m/--message")
    return "\n".join(out) + "\n"


@dataclass
class Identities:
    author: pygit2.Signature
    committer: pygit2.Signature


def identities(git: GitRepo, author_option: str | None,
               author_date: str | None = None) -> Identities:
    """Author and committer as `git commit --author` would pick them: from GIT_AUTHOR_* and
    GIT_COMMITTER_*, author.*/committer.* and user.* configuration, and EMAIL. As git does,
    a commit with no identity to make it under is refused (``identity_unknown``); the
    committer may also take --author's, or the author's from the environment."""
    env = os.environ

    def pick(role: str) -> tuple[str | None, str | None]:
        upper = role.upper()
        name = (env.get(f"GIT_{upper}_NAME") or git.config_str(f"{role}.name")
                or git.config_str("user.name"))
        email = (env.get(f"GIT_{upper}_EMAIL") or git.config_str(f"{role}.email")
                 or git.config_str("user.email") or env.get("EMAIL"))
        return name, email

    def when(role: str) -> tuple[int, int]:
        text = author_date if role == "author" and author_date else \
            env.get(f"GIT_{role.upper()}_DATE")
        return parse_git_date(text) if text else _now()

    explicit = parse_ident(author_option) if author_option else None
    a_name, a_email = explicit or pick("author")
    c_name, c_email = pick("committer")
    c_name, c_email = c_name or a_name, c_email or a_email
    if not c_name or not c_email:
        missing = " and ".join(key for key, value in (("user.name", c_name),
                                                       ("user.email", c_email)) if not value)
        verb = "are" if " and " in missing else "is"
        raise PatchError("identity_unknown", f"no identity to commit as: {missing} {verb} not "
                         "configured (nor given by --author or GIT_COMMITTER_NAME/"
                         "GIT_COMMITTER_EMAIL)", details={"missing": missing.split(" and ")})
    a_name, a_email = a_name or c_name, a_email or c_email
    try:
        author = pygit2.Signature(a_name, a_email, *when("author"))
        committer = pygit2.Signature(c_name, c_email, *when("committer"))
    except (ValueError, pygit2.GitError) as exc:
        raise PatchError("usage_error", f"invalid identity: {exc}") from exc
    return Identities(author, committer)


class BranchUpdate:
    """Create the commit object, then move the branch only if nobody else did."""

    def __init__(self, git: GitRepo, tip: Tip, message: str, author: str | None = None,
                 on_ref_update: Callable[[], None] | None = None,
                 author_date: str | None = None) -> None:
        self.git = git
        self.repo = git.repo
        self.tip = tip
        # a --check commits nothing and needs no message
        self.message = clean_message(message) if message.strip() else ""
        # author: "Name <email>", or git's author rules; author_date: a mail's Date:
        self.ids = identities(git, author, author_date)
        # called after the commit object exists, just before the compare-and-swap
        self.on_ref_update = on_ref_update
        self._txn: Any = None
        self.parent = tip.parent  # the next commit's parent: the tip, or an earlier commit
        self.earlier: list[str] = []  # a series' commits before the last (commit_earlier)

    def commit_earlier(self, tree_id: pygit2.Oid, message: str, author: str | None,
                       author_date: str | None) -> pygit2.Oid:
        """One commit of a series before its last (git am's mails): a commit object only,
        the parent of the next; the branch moves once, to the last."""
        ids = identities(self.git, author, author_date)
        self.parent = self._create(tree_id, clean_message(message), ids)
        self.earlier.append(str(self.parent))
        return self.parent

    def create_commit(self, tree_id: pygit2.Oid) -> pygit2.Oid:
        return self._create(tree_id, self.message, self.ids)

    def _create(self, tree_id: pygit2.Oid, message: str, ids: Identities) -> pygit2.Oid:
        parents = [self.parent] if self.parent is not None else []
        try:
            # the message's bytes as given (a Latin-1 -m is stored as is, as git commit does)
            return self.repo.create_commit(None, ids.author, ids.committer,
                                           message.encode("utf-8", "surrogateescape"),
                                           tree_id, parents)
        except pygit2.GitError as exc:
            raise git_error(exc, "creating the commit") from exc

    def lock(self) -> None:
        """Lock the branch and check it still holds the commit the patch was applied on."""
        txn = self.repo.transaction()
        try:
            txn.lock_ref(self.tip.ref)
        except pygit2.GitError as exc:
            txn.__exit__(type(exc), exc, None)
            raise PatchError("ref_locked", f"cannot lock {self.tip.ref}: {exc}",
                             path=None) from None
        self._txn = txn
        try:
            current = ref_value(self.repo, self.tip.ref)
            moved_head = self.tip.checked_out and head_branch(self.repo) != self.tip.ref
        except BaseException as exc:
            self.abort(exc)
            raise
        if current != self.tip.old or moved_head:
            err = PatchError(
                "head_moved", f"{self.tip.ref} moved from {self.tip.old or '(unborn)'} to "
                f"{current or '(deleted)'} while the patch was being applied",
                details={"ref": self.tip.ref, "expected": str(self.tip.old or ""),
                         "found": str(current or "")})
            self.abort(err)
            raise err

    def commit(self, commit_id: pygit2.Oid) -> None:
        """Move the locked branch to ``commit_id``, with a reflog entry, and unlock it."""
        txn, self._txn = self._txn, None
        subject = self.message.split("\n", 1)[0]
        initial = " (initial)" if self.tip.parent is None else ""
        reflog = f"holon-apply{initial}: {subject}"
        try:
            _set_target(txn, self.tip.ref, commit_id, self.ids.committer, reflog)
            txn.__exit__(None, None, None)  # the context-manager exit commits, then frees
        except pygit2.GitError as exc:
            txn.__exit__(type(exc), exc, None)  # frees (and so unlocks) without committing
            raise git_error(exc, f"updating {self.tip.ref}") from exc

    def revert(self, commit_id: pygit2.Oid) -> bool:
        """Undo commit(): move the branch back to the old tip, if it still holds ``commit_id``
        (the index could not follow it). True if the branch is back."""
        if self.tip.old is None:
            return False
        txn = self.repo.transaction()
        try:
            txn.lock_ref(self.tip.ref)
            if ref_value(self.repo, self.tip.ref) != commit_id:
                txn.__exit__(RuntimeError, None, None)
                return False
            _set_target(txn, self.tip.ref, self.tip.old, self.ids.committer,
                        "holon-apply: undone, the index could not be written")
            txn.__exit__(None, None, None)
        except pygit2.GitError as exc:
            txn.__exit__(type(exc), exc, None)
            return False
        return True

    def abort(self, exc: BaseException | None = None) -> None:
        txn, self._txn = self._txn, None
        if txn is not None:
            txn.__exit__(type(exc) if exc else RuntimeError, exc, None)  # free, no commit

    def run_hook(self) -> None:
        if self.on_ref_update is not None:
            self.on_ref_update()

    def result(self, commit_id: pygit2.Oid, tree_id: pygit2.Oid) -> dict[str, object]:
        result: dict[str, object] = {
            "commit": str(commit_id), "tree": str(tree_id), "ref": self.tip.ref,
            "parent": str(self.parent) if self.parent is not None else None}
        if self.earlier:  # a series: every commit it made, the first first
            result["commits"] = [*self.earlier, str(commit_id)]
        return result


def _set_target(txn: Any, ref: str, target: pygit2.Oid, who: pygit2.Signature,
                message: str) -> None:
    """ReferenceTransaction.set_target, with the reflog signature passed through correctly
    (pygit2 1.21 hands libgit2 the Signature's pointer bytes instead of the pointer)."""
    try:
        check_error, C, ffi = pygit2.errors.check_error, pygit2.C, pygit2.ffi
        signature = ffi.new("git_signature **")
        ffi.buffer(signature)[:] = who._pointer[:]
        oid = ffi.new("git_oid *")
        ffi.buffer(oid)[:] = target.raw
        check_error(C.git_transaction_set_target(
            txn._tx, ref.encode(), oid, signature[0],
            message.encode("utf-8", "surrogateescape")))
    except (AttributeError, TypeError):
        txn.set_target(ref, target, None, message)
