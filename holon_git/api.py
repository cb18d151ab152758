"""The library API scripts call; the CLI is a thin layer over it.

    receipt = apply_patch(Path("fix.diff"), repo="path/to/repo")  # or the patch text itself
    # the same, with the request built (and validated) first: holon_git/request.py
    receipt = apply_request(text, ApplyRequest(repo="path/to/repo", check=True))
    if not receipt.ok:
        print(receipt.error.code, receipt.error.hint)

    # straight onto a branch of a bare repository, as one commit or not at all
    receipt = apply_patch(text, repo="srv/project.git", ref="main", message="Fix the parser")
    print(receipt.commit)
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from functools import wraps
from typing import Any, TypeVar

from . import whitespace
from .core import paths
from .core.change import FileChange, Reader
from .core.model import Diagnostic, FileKind, FilePatch, Mail, Patch
from .core.place.match import one_search_budget
from .core.plan.expect import check_expected
from .core.plan.plan import plan_patch
from .core.policy import Protection, check_protected, check_protected_path, select_files
from .core.threeway import KnownVersions
from .errors import PatchError, first_of
from .git.libgit2 import coded_failure
from .parse import parse_patch
from .parse.directory import relocated
from .parse.edits import Edit, edits_patch
from .receipt import APPLIED, CHECKED, PARTIAL, REFUSED, Receipt
from .request import ApplyRequest, check_repository_path
from .targets.base import CommitSpec, Target
from .targets.registry import open_target
from .targets.saved import restore_deleted, with_current_content

F = TypeVar("F", bound=Callable[..., Any])
Series = list[tuple[Mail, list[FilePatch]]]  # git am's: each mail, and its file patches


def cycles_collected_after(func: F) -> F:
    """Pause Python's cycle collector while ``func`` runs (restoring it after).

    A large patch allocates hundreds of thousands of small objects that stay alive until the
    apply ends and hold no reference cycles; the collector would scan them again and again
    (a quarter of the parse time). Reference counting still frees everything as usual."""

    @wraps(func)
    def paused(*args: Any, **kwargs: Any) -> Any:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return func(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()

    return paused  # type: ignore[return-value]


# os.PathLike: a patch file to read; a sequence of Edit: edits by their text (docs/edits.md)
PatchInput = bytes | str | Patch | os.PathLike[str] | Sequence[Edit]


def apply_patch(patch: PatchInput, repo: str | os.PathLike[str] = ".",
                **options: Any) -> Receipt:
    """Apply ``patch`` (its text, a parsed Patch, a list of ``Edit``, or a path such as
    ``Path("fix.diff")`` of a file holding it) to ``repo``; never raises PatchError, returns
    a Receipt. The text may be any format ``parse_patch`` reads: a unified diff, an envelope,
    JSON edits or SEARCH/REPLACE blocks.

    ``options`` are the fields of ``ApplyRequest`` (holon_git/request.py), each named after
    its command-line option: ``target`` ("worktree", "index" like git apply --cached, "both"
    like --index), ``check``, ``reverse``, ``strip``, ``format``, ``include``/``exclude``,
    ``commit``/``message``/``author``, ``ref`` (commit onto that branch; with it ``base``),
    ``retry``, ``on_ref_update``, ``atomic``, ``reject``, ``expect_sha256``, ``durable``,
    ``three_way``, ``unidiff_zero``, ``whitespace``, ``directory``, ``allow_empty``,
    ``intent_to_add``, ``emit_diff`` and ``progress``. An invalid combination is refused with
    ``usage_error`` before anything is read. Same as
    ``apply_request(patch, ApplyRequest(repo=repo, **options))``, except that a str of one
    line naming a file is refused (``empty_patch``), saying to pass it as a Path: a str is
    the patch's text.
    """
    _known_options(options, "apply_patch" if not options.get("check") else "check_patch")
    try:
        request = ApplyRequest(repo=os.fspath(repo), **options)
        if isinstance(patch, str):
            _not_a_file_name(patch, request.repo)
    except PatchError as err:
        target = options.get("target", "worktree")
        receipt = Receipt(REFUSED, target=target if isinstance(target, str) else "worktree",
                          reverse=bool(options.get("reverse", False)),
                          atomic=bool(options.get("atomic", True)), error=err)
    else:
        receipt = apply_request(patch, request)
    if receipt.error is not None:
        _in_python_words(receipt.error, "apply_patch" if not options.get("check")
                         else "check_patch")
    return receipt


def _in_python_words(err: PatchError, function: str) -> None:
    """A usage error names options as the command line spells them (one message for every
    caller); a library caller is told, in the hint, the keywords those options are here."""
    fields = err.details.get("fields") if err.code == "usage_error" else None
    if fields:
        keywords = ", ".join(f"{name}=" for name in fields)
        err.hint = (err.hint + "; " if err.hint else "") + (
            f"in {function}(), these options are the keywords {keywords}")


@cycles_collected_after
def apply_request(patch: PatchInput, request: ApplyRequest) -> Receipt:
    """Apply ``patch`` as ``request`` says; never raises PatchError, returns a Receipt.

    ``request.check`` plans without writing. A refused patch leaves everything as it was and
    the receipt's ``error`` says why, and its ``errors`` every refusal: each file patch is
    planned first. ``atomic=False`` applies file by file in patch order and stops at the first
    refusal (working tree only); the receipt's ``files`` and ``unapplied_files`` then say which
    files changed and which did not. ``reject=True`` (--reject) applies what applies, file by file
    through the whole patch, and writes each refused hunk to its file's ``.rej``
    (core/plan/reject.py); the receipt's ``rejects`` names them. ``expect_sha256`` refuses the
    whole patch with ``stale_file`` on any mismatch. ``progress(stage, done, total)`` is called
    as the work advances: "planning" after each file, "writing" before (0 done) and after the
    write. ``durable=True`` also fsyncs the new files, their directories and the crash journal,
    so the apply survives a power loss as all old or all new; the default follows git, which
    never fsyncs working-tree files. ``three_way=False`` turns off the three-way rescue
    (docs/patch-format.md, section 3). ``retry=N`` (with ``ref``): when another writer moved
    the branch first (``head_moved``, ``ref_locked``), plan again on the new tip, up to N more
    times; ``receipt.attempts`` says how many times it was tried.
    """
    if isinstance(patch, os.PathLike) or not isinstance(patch, bytes | str | Patch):
        try:
            patch = (read_patch_file(patch) if isinstance(patch, os.PathLike)
                     else edits_patch(_edits(patch)))
        except PatchError as err:
            return Receipt(REFUSED, target=request.target, reverse=request.reverse,
                           atomic=request.atomic, error=err)
    # one search budget for the call: every plan it makes (--reject's and --no-atomic's, one
    # per group of file patches; --retry's, one per try) spends from it (issue 42, item 8)
    with one_search_budget(), _terminate_as_interrupt(request.check):
        if request.retry > 0 and request.ref is not None and not request.check:
            return _with_retries(patch, request)
        return _apply_once(patch, request)


def _edits(given: Sequence[Edit]) -> list[Edit]:
    """The library's edit list, each an ``Edit`` (anything else is a usage error)."""
    edits = list(given)
    for number, edit in enumerate(edits, 1):
        if not isinstance(edit, Edit):
            raise PatchError("usage_error", f"edit {number} is a {type(edit).__name__}, not an "
                             "Edit", hint="pass a list of holon_git.Edit, or the edits as "
                             "JSON text (docs/edits.md)")
    return edits


def _terminate_as_interrupt(check: bool) -> AbstractContextManager[object]:
    """From before the target takes its lock (index.lock, the branch's) until it let go of
    it, SIGTERM and SIGHUP unwind as Ctrl-C does, and then end the process (fs/signals.py).
    A --check takes no lock and writes nothing: signals keep their defaults."""
    if check:
        return nullcontext()
    from .fs.signals import TerminateAsInterrupt  # loaded only when writing

    return TerminateAsInterrupt()


def read_patch_file(path: os.PathLike[str]) -> bytes:
    """The bytes of a patch named by a path (``apply_patch(Path("fix.diff"))``)."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise PatchError("usage_error", f"cannot read patch {os.fspath(path)!r}: "
                         f"{exc.strerror or exc}", hint="pass the patch's text, or the path "
                         "of a readable patch file") from None


def _apply_once(patch: bytes | str | Patch, request: ApplyRequest) -> Receipt:
    target, check, reverse, progress = (request.target, request.check, request.reverse,
                                        request.progress)
    receipt = Receipt(REFUSED, target=target, reverse=reverse, atomic=request.atomic)
    try:
        parsed = patch if isinstance(patch, Patch) else parse_patch(
            patch, format=request.format, strip=request.strip)
        receipt.format = parsed.format
        receipt.diagnostics = list(parsed.diagnostics)
        parsed = _relocated(parsed, request)
        if reverse:
            parsed = restore_deleted(parsed, request.repo).reversed()
        parsed = select_files(parsed, request.include, request.exclude)
        if not parsed.files:
            raise PatchError("empty_patch", "the patch holds no file patch")
        parsed = _whitespace(parsed, request.whitespace)
        if request.unidiff_zero:  # git's --unidiff-zero: -U0 numbers trusted as given
            for fp in parsed.files:
                fp.numbers_given = True
        receipt.diagnostics = list(parsed.diagnostics)
        commit, series = _commit_of(parsed, request)
        destination = open_target(target, request.repo, check=check, commit=commit,
                                  durable=request.durable, intent_to_add=request.intent_to_add)
        try:
            protection = destination.protection()
            check_protected(parsed, protection)
            check_expected_paths(request.expect_sha256 or {}, protection)
            # the history log is asked for re-sends whatever the rescue setting (--no-3way
            # turns off the merge, not the re-send guard)
            history = destination.known_versions()
            versions = history if request.three_way else None
            if request.atomic:
                emit_diff = request.emit_diff
                # the plan marks the history log's digests before it hands each change to
                # on_planned (plan.plan_patch)
                on_planned = destination.prepare(parsed, stage=not (check or emit_diff))
                # a target that does not write from the plan's pre-images (the working tree
                # reads them again) lets the plan drop them (memory); but one file's would be
                # read back at once for the undo: keeping it saves a read
                keep = (emit_diff or len(parsed.files) == 1
                        or destination.needs_planned_preimages)
                plan = plan_patch(parsed, destination.read, reverse=reverse,
                                  expect_sha256=request.expect_sha256, progress=progress,
                                  keep_preimages=keep, on_planned=on_planned,
                                  three_way=versions, record=not check, history=history)
                destination.validate(plan)
                if len(series) > 1 and not check:
                    destination.commit_first(_earlier_commits(series, parsed, destination.read,
                                                              versions, history))
                diff = None
                if emit_diff:
                    from .git.diff import render_diff  # --emit-diff only: start-up counts

                    diff = render_diff(destination.diff_sides(plan))
                receipt = Receipt.from_plan(plan, CHECKED if check else APPLIED, target=target,
                                            reverse=reverse)
                if not check:
                    total = len(plan.changes)
                    if progress is not None:
                        progress("writing", 0, total)
                    from .fs.signals import HeldSignals  # loaded only when writing

                    # Ctrl-C is acted on inside the write, which undoes itself; once it has
                    # committed, one is too late to undo anything, so the apply completes
                    # and reports, rather than stopping between the commit and the report.
                    with HeldSignals() as held:
                        held.checkpoint()
                        receipt.extra.update(destination.write(plan))
                        if progress is not None:
                            progress("writing", total, total)
                receipt.diff = diff
            else:
                receipt.reject = request.reject
                _file_by_file(parsed, destination, receipt, check=check, reverse=reverse,
                              expect_sha256=request.expect_sha256 or {}, progress=progress,
                              three_way=versions,
                              protection=protection if request.reject else None)
        finally:
            destination.close()
    except Exception as exc:  # coded ones become the receipt's error; the rest re-raise
        err = exc if isinstance(exc, PatchError) else coded_failure(exc)
        if err is None:
            raise
        if err.code == "empty_patch" and request.allow_empty:
            return _nothing_to_apply(receipt, err, request)
        atomic = request.atomic
        receipt.status = PARTIAL if (not atomic and not check and receipt.files) else REFUSED
        receipt.error = err
    return receipt


def _commit_of(parsed: Patch, request: ApplyRequest) -> tuple[CommitSpec | None, Series]:
    """What the apply commits with: -m's message; or, without -m, git am's: each git
    format-patch mail of the patch a commit (its message, its From: and Date: as the author,
    unless --author), the last the plan's own, the others before it (``_earlier_commits``).
    Without -m a patch of no mails is refused, as a commit needs a message."""
    spec = request.commit_spec()
    if spec is None or spec.message.strip() or request.check:
        return spec, []
    groups: dict[int, list[FilePatch]] = {}
    if parsed.mails and not request.reverse and all(fp.mail is not None for fp in parsed.files):
        for fp in parsed.files:
            groups.setdefault(fp.mail or 0, []).append(fp)
    from .parse.mail import read_commit  # mails only: start-up counts

    mails = {number: read_commit(parsed.mails[number]) for number in groups}
    if not groups or None in mails.values():
        raise PatchError("usage_error", "--commit and --ref need a commit message: -m/--message",
                         hint="give -m MESSAGE, or apply git format-patch mails: each one's "
                         "subject and body are its commit's message, as git am takes them",
                         details={"fields": ["message"]})
    series = [(replace(mail, author=request.author or mail.author), groups[number])
              for number, mail in sorted(mails.items()) if mail is not None]
    last = series[-1][0]
    return spec._replace(message=last.message, author=last.author,
                         author_date=last.date), series


def _earlier_commits(series: Series, parsed: Patch, read: Reader,
                     three_way: KnownVersions | None,
                     history: KnownVersions | None) -> list[tuple[Mail, list[FileChange]]]:
    """The commits of a series of mails before its last: each mail with the changes of the
    mails up to it, planned from the same pre-images as the whole patch (which applies)."""
    earlier = []
    files: list[FilePatch] = []
    for mail, own in series[:-1]:
        files.extend(own)
        plan = plan_patch(replace(parsed, files=list(files)), read, three_way=three_way,
                          record=False, history=history)
        earlier.append((mail, plan.changes))
    return earlier


def _not_a_file_name(text: str, repo: str) -> None:
    """Patch text of one line is no patch; when it names a file (here, or in ``repo``), the
    caller meant that file: refused (empty_patch, as the text holds no patch), saying that a
    str is read as the patch's text and a Path names a file. Library callers only: a model's
    tool call (provider/, mcp_server/) goes through apply_request, and is told nothing about
    which files exist."""
    name = text.strip()
    if not name or "\n" in name or len(name) > 4096:
        return
    for where in (name, os.path.join(repo, name)):
        try:
            found = os.path.isfile(where)
        except (ValueError, OSError):  # a NUL byte, a name too long
            return
        if found:
            raise PatchError("empty_patch", f"the patch text {name!r} holds no patch: it is "
                             "the name of a file, and a str is read as the patch's text",
                             hint="to apply the patch in that file, pass its path as a Path: "
                             f"apply_patch(pathlib.Path({where!r}), ...)",
                             details={"file": where})


def check_expected_paths(expect_sha256: Mapping[str, str], protection: Protection) -> None:
    """--expect-sha256 names no protected path: its stale_file refusal would tell whether
    the file exists and its hash (an oracle for a file no patch may touch)."""
    for raw_path in expect_sha256:
        check_protected_path(paths.normalize(raw_path), protection,
                             hint="leave protected paths out of --expect-sha256")


def _relocated(patch: Patch, request: ApplyRequest) -> Patch:
    """The patch's paths from the top of the repository: --directory's ROOT before each, and
    the directory applied from before those of file patches without a 'diff --git' header
    (parse/directory.py)."""
    if all(fp.top_relative for fp in patch.files):
        prefix = ""  # the common case costs no look-up
    else:
        from .git.location import subdirectory

        prefix = subdirectory(request.repo)
    return relocated(patch, request.directory, prefix)


def _whitespace(patch: Patch, action: str) -> Patch:
    """--whitespace: warn about (note), fix or refuse the whitespace errors the patch adds."""
    if action == "nowarn":
        return patch
    found = whitespace.problems(patch)
    if not found:
        return patch
    if action in ("error", "error-all"):
        raise whitespace.refusal(found, action)
    fixing = action in ("fix", "strip")
    if fixing:
        patch = whitespace.fixed(patch)
    code, verb = ("whitespace_fixed", "fixed") if fixing else ("whitespace", "added")
    notes = [Diagnostic(code, f"{p.path}: {p.what} ({verb})", p.patch_line) for p in found]
    return replace(patch, diagnostics=[*patch.diagnostics, *notes])


def _nothing_to_apply(receipt: Receipt, err: PatchError, request: ApplyRequest) -> Receipt:
    """--allow-empty: a patch with nothing to apply succeeds, changing nothing."""
    receipt.status = CHECKED if request.check else APPLIED
    receipt.files = []
    receipt.diagnostics = [*receipt.diagnostics, Diagnostic("empty_patch", err.message)]
    return receipt


RETRYABLE = ("head_moved", "ref_locked")


def _with_retries(patch: bytes | str | Patch, request: ApplyRequest) -> Receipt:
    """Re-plan on the branch's new tip while another writer keeps winning the race."""
    import random  # retries are rare; start-up counts

    if not isinstance(patch, Patch):  # parse once; a parse error is not worth retrying
        try:
            patch = parse_patch(patch, format=request.format, strip=request.strip)
        except PatchError as err:
            return Receipt(REFUSED, target=request.target, reverse=request.reverse, error=err)
    for attempt in range(1, request.retry + 2):
        receipt = _apply_once(patch, request)
        if receipt.error is None or receipt.error.code not in RETRYABLE or \
                attempt > request.retry:
            break
        time.sleep(random.uniform(0, 0.005 * attempt))  # let the winner finish; spread retries
    receipt.extra["attempts"] = attempt
    return receipt


def _file_by_file(parsed: Patch, destination: Target, receipt: Receipt, *, check: bool,
                  reverse: bool, expect_sha256: Mapping[str, str],
                  progress: Callable[[str, int, int], None] | None,
                  three_way: KnownVersions | None = None,
                  protection: Protection | None = None) -> None:
    """Non-atomic: plan and write one file patch at a time, in order; the first refusal stops.

    Each file is still planned in full before it is written. File patches that share a path
    (a sequence: a swap, a rename and an edit of the new name) go together, all or nothing,
    so every file is either wholly written or untouched.

    --reject (``receipt.reject``; ``protection`` is the target's, for the .rej files): a
    refusal stops nothing. A file patch refused for some hunks applies without them and
    they go to its ``.rej`` file, written with it (core/plan/reject.py); a group refused
    otherwise is left unapplied; every refusal, the rejected hunks' included, is raised at
    the end (the first, carrying the others).
    """
    check_expected(expect_sha256, destination.read)
    reject = receipt.reject
    remaining = list(parsed.files)
    refused: list[FilePatch] = []
    refusals: list[PatchError] = []
    for group in _path_groups(parsed.files):
        # the group being applied first, then the rest in patch order
        receipt.unapplied_files = [_file_ref(fp) for fp in [*refused, *group]] + [
            _file_ref(fp) for fp in remaining if all(fp is not member for member in group)]
        remaining = [fp for fp in remaining if all(fp is not member for member in group)]
        try:
            plan = plan_patch(Patch(group, parsed.format), destination.read, reverse=reverse,
                              three_way=three_way, every_refusal=reject, reject=reject,
                              record=not check)
            if plan.rejects:
                from .core.plan.reject import check_reject_paths

                check_reject_paths(plan.rejects, parsed)
            if protection is not None:
                for rejects in plan.rejects:
                    check_protected_path(rejects.path, protection, hint="apply without "
                                         "--reject, or leave the hunks that go there out of "
                                         "the patch")
            destination.validate(plan)
        except PatchError as err:
            if not reject:
                raise
            refusals.append(err)
            refused.extend(group)
            continue
        if not check:
            try:
                written = destination.write(plan)
            except PatchError as err:  # the write failed (and undid itself): stop here
                if not refusals:
                    raise
                raise first_of([*refusals, err]) from None
            for key, value in written.items():
                if isinstance(value, list):
                    receipt.extra.setdefault(key, []).extend(value)
                else:
                    receipt.extra[key] = value
        receipt.files.extend(plan.receipt_files)
        receipt.rejects.extend(plan.rejects)
        refusals.extend(left_out.error for change in plan.receipt_files
                        for left_out in change.rejected)
        receipt.unapplied_files = [_file_ref(fp) for fp in [*refused, *remaining]]
        if progress is not None:
            progress("checking" if check else "applying", len(receipt.files),
                     len(parsed.files))
    if refusals:
        raise first_of(refusals)
    receipt.status = CHECKED if check else APPLIED


def _path_groups(files: list[FilePatch]) -> list[list[FilePatch]]:
    """The file patches in groups that share paths (transitively), each in patch order, the
    groups ordered by their first file patch."""
    group_of: dict[str, int] = {}  # path -> group number
    groups: list[list[FilePatch]] = []
    for fp in files:
        joined = sorted({group_of[path] for path in fp.paths if path in group_of})
        if not joined:
            groups.append([fp])
            number = len(groups) - 1
        else:
            number = joined[0]
            groups[number].append(fp)
            for other in joined[1:]:  # fp links groups that were apart: merge them
                groups[number].extend(groups[other])
                groups[other] = []
                for path, at in group_of.items():
                    if at == other:
                        group_of[path] = number
        for path in fp.paths:
            group_of[path] = number
    order = {id(fp): index for index, fp in enumerate(files)}
    return [sorted(group, key=lambda fp: order[id(fp)]) for group in groups if group]


def _file_ref(fp: FilePatch) -> dict[str, Any]:
    return {"action": fp.kind.value, "old_path": fp.old_path, "new_path": fp.new_path,
            "patch_line": fp.patch_line}


def prepared_patch(patch: Patch, request: ApplyRequest) -> Patch:
    """The patch as ``request``'s apply would plan it: its paths relocated (--directory, the
    directory applied from), reversed (-R), selected (--include/--exclude); a deletion
    without its content (an envelope's) is given the file's current content when the target
    can read it. For --stat, --numstat and --summary; nothing is planned or written, but a
    protected path is refused (protected_path) as every other mode refuses it: a listing
    would tell a protected file's line count."""
    parsed = _relocated(patch, request)
    if request.reverse:
        parsed = restore_deleted(parsed, request.repo).reversed()
    parsed = select_files(parsed, request.include, request.exclude)
    try:
        destination = open_target(request.target, request.repo, check=True,
                                  commit=request.commit_spec())
    except PatchError:
        # the target cannot be opened here (not a repository, a branch checked out
        # elsewhere): nothing is read from it, and HEAD's policy still holds
        try:
            fallback = open_target("worktree", request.repo, check=True)
        except PatchError:
            return parsed  # no repository: nothing to protect, nothing to read
        try:
            check_protected(parsed, fallback.protection())
        finally:
            fallback.close()
        return parsed  # the lines of a deletion without its content cannot be counted
    try:
        check_protected(parsed, destination.protection())
        if any(fp.kind is FileKind.DELETE and not fp.check_deleted_content
               for fp in parsed.files):
            parsed = with_current_content(parsed, destination.read)
    finally:
        destination.close()
    return parsed


def check_patch(patch: PatchInput, repo: str | os.PathLike[str] = ".",
                **options: Any) -> Receipt:
    """Plan ``patch`` against ``repo`` and report whether it would apply; writes nothing."""
    _known_options(options, "check_patch")
    return apply_patch(patch, repo, check=True, **options)


def _known_options(options: Mapping[str, Any], function: str) -> None:
    """A keyword that is no field of ApplyRequest is a TypeError, as Python's own, but
    naming the function called (not ApplyRequest.__init__) and the option meant."""
    import dataclasses

    fields = [field.name for field in dataclasses.fields(ApplyRequest) if field.name != "repo"]
    unknown = sorted(set(options) - set(fields))
    if not unknown:
        return
    import difflib  # only for a mistyped keyword

    close = difflib.get_close_matches(unknown[0], fields, n=1, cutoff=0.7)
    raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}"
                    + (f" (did you mean {close[0]!r}?)" if close else "")
                    + f"; its options are ApplyRequest's fields: {', '.join(fields)}")


def convert_patch(patch: bytes | str, repo: str | os.PathLike[str] = ".", *,
                  to: str = "unified", format: str = "auto", strip: int | None = None) -> bytes:
    """The unified diff equivalent of ``patch`` (any accepted format) against the current
    working tree of ``repo``, with real line numbers; raises PatchError when it would not
    apply. Writes nothing."""
    if to != "unified":
        raise PatchError("usage_error", f"cannot convert to {to!r}; only 'unified' is supported")
    from .core.convert import plan_to_unified  # difflib: only this command needs it

    repo = os.fspath(repo)
    check_repository_path(repo)
    parsed = parse_patch(patch, format=format, strip=strip)
    destination = open_target("worktree", repo)
    try:
        plan = plan_patch(parsed, destination.read)
    finally:
        destination.close()
    return plan_to_unified(plan)


def quotes_paths_fully(repo: str | os.PathLike[str] = ".") -> bool:
    """git's core.quotePath as git reads it in ``repo`` (``git -c`` first, then the
    configuration files; true when unset, and outside a repository): whether --stat and
    --numstat write a path's bytes of 0x80 and more as octal escapes."""
    from .git.config import command_line_bool
    from .git.repository import open_repository

    given = command_line_bool("core.quotepath")
    if given is not None:
        return given
    try:
        return open_repository(os.fspath(repo)).config_bool("core.quotepath", True)
    except PatchError:
        return True
