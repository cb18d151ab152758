"""What to apply where and how: one frozen, validated request, built once by every entry point
(the command line, the hooks, the provider glue, the MCP server, Holon run outputs) and handed
to the library (``api.apply_request``).

    request = ApplyRequest(repo="srv/project.git", ref="main", message="Fix the parser")
    receipt = apply_request(patch_text, request)

Every invalid combination of options is refused here, when the request is built, with
``usage_error`` (exit status 2 on the command line); nothing has been read or written then.
Messages name the options as the command line spells them (``--ref``); the error's
``details["fields"]`` names this request's fields they stand for (``["ref"]``), for Python.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .core.plan.expect import expected_digests
from .errors import PatchError
from .parse import FORMATS
from .parse.directory import check_root
from .targets.base import CommitSpec
from .targets.registry import TARGETS
from .whitespace import ACTIONS as WHITESPACE_ACTIONS
from .whitespace import DEFAULT as WHITESPACE_DEFAULT

Progress = Callable[[str, int, int], None]
# the command line's option for each target (the request's field is ``target``)
_TARGET_OPTIONS = {"index": "--cached", "both": "--index"}


def _usage(message: str, hint: str = "", fields: tuple[str, ...] = ()) -> PatchError:
    """A usage error; ``fields``: the request's fields behind the options it names."""
    return PatchError("usage_error", message, hint=hint,
                      details={"fields": list(fields)} if fields else {})


def check_repository_path(repo: str) -> None:
    """A repository path must name a directory that exists (git finds the repository from
    there); anything else is a usage error naming the path."""
    if not os.path.isdir(repo):
        why = "is not a directory" if os.path.exists(repo) else "does not exist"
        raise _usage(f"--repo {repo!r} {why}",
                     hint="pass --repo a directory inside the repository (or the repository "
                     "itself); the default is the current directory")


@dataclass(frozen=True)
class ApplyRequest:
    """One apply, fully described. Field by field, with the command line's option:

    - ``repo`` (``--repo``): a directory in the repository; default the current one.
    - ``target``: ``worktree`` (default), ``index`` (``--cached``), ``both`` (``--index``),
      ``ref`` (``--ref``). ``commit=True`` (``--commit``) makes ``worktree`` ``both``; ``ref``
      makes the target ``ref``. The built request holds the target the apply uses.
    - ``check`` (``--check``), ``reverse`` (``-R``), ``strip`` (``-p``), ``format``
      (``--format``: auto, unified, envelope) for text patches.
    - ``include``/``exclude`` (``--include``/``--exclude``): gitignore-style patterns.
    - ``atomic`` (``--no-atomic`` is False), ``reject`` (``--reject``: apply what applies,
      write the refused hunks to ``*.rej`` files; working tree only, and never atomic, so
      it makes ``atomic`` False), ``durable`` (``--fsync``),
      ``three_way`` (``--no-3way`` is False), ``emit_diff`` (``--emit-diff``: the receipt
      carries the diff), ``unidiff_zero`` (``--unidiff-zero``: the line numbers of hunks with
      no context are trusted, as git trusts them).
    - ``expect_sha256`` (``--expect-sha256``): path -> sha256 hex ("" for "must not exist").
    - ``whitespace`` (``--whitespace``): what to do about whitespace errors the patch adds,
      git's ``nowarn``, ``warn`` (the default), ``fix`` (``strip``), ``error``, ``error-all``
      (holon_git/whitespace.py).
    - ``directory`` (``--directory``): put this directory before every path of the patch.
    - ``allow_empty`` (``--allow-empty``): a patch with no file patch applies as nothing.
    - ``intent_to_add`` (``-N``): after a working-tree apply, record the new files in the
      index as intended to be added (``git add -N``).
    - the commit: ``commit``, ``message`` (``-m``), ``author`` (``--author``), ``ref``,
      ``base`` (``--base``: create ``ref`` at this commit), ``retry`` (``--retry``),
      ``on_ref_update`` (called between the commit object and the branch's
      compare-and-swap).
    - ``progress(stage, done, total)``: called as the work advances.
    """

    repo: str = "."
    target: str = "worktree"
    check: bool = False
    reverse: bool = False
    strip: int | None = None
    format: str = "auto"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    atomic: bool = True
    reject: bool = False
    durable: bool = False
    three_way: bool = True
    unidiff_zero: bool = False
    emit_diff: bool = False
    expect_sha256: Mapping[str, str] | None = None
    whitespace: str = WHITESPACE_DEFAULT
    directory: str = ""
    allow_empty: bool = False
    intent_to_add: bool = False
    commit: bool = False
    message: str | None = None
    author: str | None = None
    ref: str | None = None
    base: str | None = None
    retry: int = 0
    on_ref_update: Callable[[], None] | None = field(default=None, compare=False)
    progress: Progress | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        normal = object.__setattr__
        normal(self, "repo", os.fspath(self.repo))
        normal(self, "include", tuple(self.include))
        normal(self, "exclude", tuple(self.exclude))
        normal(self, "expect_sha256", MappingProxyType(expected_digests(self.expect_sha256 or {})))
        normal(self, "target", self._resolved_target())
        self._check_commit()
        self._check_writes()
        if self.format not in FORMATS:
            raise _usage(f"--format {self.format!r} is not one of {', '.join(FORMATS)}",
                         fields=("format",))
        if self.whitespace not in WHITESPACE_ACTIONS:
            raise _usage(f"--whitespace={self.whitespace} is not one of "
                         f"{', '.join(WHITESPACE_ACTIONS)}", fields=("whitespace",))
        normal(self, "directory", check_root(self.directory or ""))
        if self.strip is not None and self.strip < 0:
            raise _usage(f"-p {self.strip}: the number of components to strip is at least 0",
                         fields=("strip",))
        check_repository_path(self.repo)

    def _resolved_target(self) -> str:
        target = self.target
        if target not in TARGETS:
            raise _usage(f"unknown target {target!r}; one of {', '.join(TARGETS)}",
                         fields=("target",))
        if self.ref is not None:
            if target not in ("worktree", "ref"):
                raise _usage(f"--ref commits onto a branch; it cannot go with "
                             f"{_TARGET_OPTIONS.get(target, target)}: drop that option",
                             fields=("ref", "target"))
            if self.commit:
                raise _usage("--commit commits on the current branch and --ref on the branch "
                             "it names: give one of them",
                             hint="--ref BRANCH alone commits onto BRANCH (and, when BRANCH is "
                             "checked out here, updates its index and working tree)",
                             fields=("commit", "ref"))
            return "ref"
        if target == "ref":
            raise _usage("the ref target needs a branch: --ref BRANCH", fields=("ref",))
        return "both" if self.commit and target == "worktree" else target

    @property
    def commits(self) -> bool:
        """Does the apply end in a commit (--commit or --ref)?"""
        return self.commit or self.ref is not None

    def _check_commit(self) -> None:
        if self.commits:
            pass  # no -m: the patch's git format-patch mails give the messages (api.py)
        elif self.message is not None:
            raise _usage("-m/--message is for --commit or --ref",
                         fields=("message", "commit", "ref"))
        elif self.author is not None:
            raise _usage("--author is for --commit or --ref", fields=("author", "commit", "ref"))
        if self.base is not None and self.ref is None:
            raise _usage("--base is the commit a new --ref branch starts from; give --ref too",
                         fields=("base", "ref"))
        for name, value in (("ref", self.ref), ("base", self.base)):
            _check_utf8(name, value)
        if self.retry < 0:
            raise _usage(f"--retry {self.retry}: the number of retries is at least 0",
                         fields=("retry",))
        if self.retry and self.ref is None:
            raise _usage("--retry is for --ref", fields=("retry", "ref"))

    def _check_writes(self) -> None:
        if self.reject:
            self._check_reject()
        if self.durable and self.target not in ("worktree", "both"):
            raise _usage("--fsync is for writes to the working tree (the default target and "
                         "--index); the index, objects and refs are written by libgit2",
                         fields=("durable", "target"))
        if self.intent_to_add and self.target != "worktree":
            raise _usage("-N/--intent-to-add marks new files in the index after a "
                         "working-tree apply; --cached, --index, --commit and --ref record them "
                         "in full already", fields=("intent_to_add", "target"))
        if not self.atomic and (self.target != "worktree" or self.emit_diff):
            raise _usage("--no-atomic applies to the working tree only; index, commit and ref "
                         "targets are always all or nothing, and --emit-diff needs the whole "
                         "patch planned", fields=("atomic", "target", "emit_diff"))

    def _check_reject(self) -> None:
        """--reject writes *.rej files beside the working tree's files, and applies what
        applies file by file: to the working tree only, never as one transaction."""
        if self.target != "worktree":
            what = {**_TARGET_OPTIONS, "ref": "--ref"}.get(self.target, self.target)
            if self.commit:
                what = "--commit"
            raise _usage(f"--reject leaves the refused hunks in *.rej files beside the working "
                         f"tree's files; it cannot go with {what}, whose targets are written "
                         "all or nothing",
                         hint="drop --reject to apply all or nothing there, or apply to the "
                         "working tree with --reject",
                         fields=("reject", "commit" if self.commit else "target"))
        if self.emit_diff:
            raise _usage("--reject and --emit-diff do not go together: the diff is of a whole "
                         "patch planned at once", fields=("reject", "emit_diff"))
        object.__setattr__(self, "atomic", False)

    def commit_spec(self) -> CommitSpec | None:
        """What the target commits with, or None when the apply makes no commit."""
        if not self.commits:
            return None
        return CommitSpec(self.message or "", self.author, self.ref, self.base,
                          self.on_ref_update)


def _check_utf8(name: str, value: object) -> None:
    """A branch name or revision is text git's library takes as UTF-8: one that is not (a
    command-line argument of other bytes arrives with surrogate escapes, a library caller may
    pass anything) is refused here, before any git call could fail on it with a traceback."""
    if value is None:
        return
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return
        except UnicodeEncodeError:
            pass
        try:  # the argument's own bytes, shown as Python escapes them: 'x\xff'
            raw = value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate no byte stands for
            raw = value.encode("utf-8", "backslashreplace")
        problem = f"--{name} '{raw.decode('utf-8', 'backslashreplace')}' is not UTF-8"
    else:
        problem = f"--{name} must be text (str), not {type(value).__name__}"
    raise _usage(problem, hint="name a branch or commit whose name is UTF-8 (git's library "
                 "reads ref names as UTF-8)", fields=(name,))
