"""`git holon-apply`: the command line over the library. The only module that imports click.

Each command is a thin shell: it turns its options into the library's request, calls the
library and prints what comes back. Every outcome ends in ``run``, the one place that maps it
to an exit status: 0 done, 1 refused, 2 usage error (``PatchError.exit_status``; click's own
usage errors and unreadable patch files included). Every error is printed in one style,
``error: CODE: message`` and ``hint: ...`` on stderr, and with ``--json`` a receipt is printed
on stdout whatever went wrong.
"""

from __future__ import annotations

import _signal
import gc
import json
import os
import sys
from collections.abc import Sequence
from contextlib import nullcontext, suppress
from typing import Any

import click

from . import api
from .core.paths import listing_only
from .errors import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, PatchError
from .fast_exit import loading_guard, run_then_exit
from .inputs import ParsedInputs, parse_inputs, read_patch_files
from .parse import FORMATS
from .progress import TerminalProgress, wanted
from .quoting import safe, safe_text
from .receipt import REFUSED, Receipt
from .report import (
    GitListing,
    git_listing,
    partial_lines,
    recovery_lines,
    refusal_lines,
    reject_lines,
    stat_scale,
    summary_lines,
    whitespace_lines,
)
from .request import ApplyRequest, check_repository_path
from .spelling import expand_long_options, misspelt_command
from .whitespace import ACTIONS as WHITESPACE_ACTIONS
from .whitespace import DEFAULT as WHITESPACE_DEFAULT

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
EXIT_INTERRUPTED = 130


class Session:
    """What the one handler (``run``) needs to know of the command that ran."""

    def __init__(self) -> None:
        self.json = False  # apply --json: every outcome prints a receipt on stdout
        self.recover = False  # apply --recover: its report is not a receipt
        self.request: ApplyRequest | None = None  # once built: the refusal receipt's fields
        self.applied = False  # for Ctrl-C's message: did the write happen?
        self.reporter: TerminalProgress | None = None

    def progress(self, stage: str, done: int, total: int) -> None:
        """The library's progress callback: draws (on a terminal) and notes when the write is
        done. The library reports that with Ctrl-C still held, so a Ctrl-C right after it is
        not taken for one that stopped the apply."""
        if stage == "writing" and done == total > 0:  # (0, total) before, (total, total) after
            self.applied = True
        if self.reporter is not None:
            self.reporter(stage, done, total)


class Refused(Exception):
    """An apply the library refused: its receipt, for the one handler."""

    def __init__(self, receipt: Receipt) -> None:
        super().__init__(receipt.error)
        self.receipt = receipt


def _session() -> Session:
    return click.get_current_context().ensure_object(Session)


def usage(message: str, hint: str = "") -> PatchError:
    return PatchError("usage_error", message, hint=hint)


class _ApplyContext(click.Context):
    """The apply command's context: its usage line is the program's own
    (``git holon-apply [OPTIONS]``), never the hidden subcommand's name."""

    @property
    def command_path(self) -> str:
        return self.parent.command_path if self.parent is not None else super().command_path


class _GitCommand(click.Command):
    """A command whose long options may be abbreviated to any unique prefix, as git's are
    (spelling.py)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, self.expanded(ctx, args))

    def expanded(self, ctx: click.Context, args: list[str]) -> list[str]:
        takes_value = {name: not (param.is_flag or param.count)
                       for param in self.get_params(ctx) if isinstance(param, click.Option)
                       for name in (*param.opts, *param.secondary_opts)}
        return expand_long_options(args, takes_value, ctx.command_path)


class _ApplyCommand(_GitCommand):
    context_class = _ApplyContext

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Learn --json and --recover before click may refuse the arguments, so that its
        refusal, too, is reported as a receipt."""
        session = ctx.ensure_object(Session)
        session.json = "--json" in args[:args.index("--") if "--" in args else len(args)]
        args = self.expanded(ctx, args)
        try:
            opts, _, _ = self.make_parser(ctx).parse_args(args=list(args))
            given = {name for name, value in opts.items() if value}
        except click.UsageError:  # the real parse below says what is wrong
            end = args.index("--") if "--" in args else len(args)
            given = {name for name, flag in (("as_json", "--json"), ("recover", "--recover"))
                     if flag in args[:end]}
        session.json, session.recover = "as_json" in given, "recover" in given
        return click.Command.parse_args(self, ctx, args)


class _DefaultToApply(click.Group):
    """`holon-apply PATCH` means `holon-apply apply PATCH`; other words name subcommands."""

    GROUP_OPTIONS = ("-h", "--help", "--version")  # the group's own: help lists subcommands
    command_class = _GitCommand

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        first = args[0] if args else "-"
        if first in ("help", "version") and not os.path.lexists(first):
            # git's 'git help' and 'git version': a file of that name is still a patch
            wanted = args[1] if first == "help" and args[1:] else "apply"
            args = ["--version"] if first == "version" else ["--help"] \
                if wanted == "apply" or wanted not in self.commands else [wanted, "--help"]
        elif not first.startswith("-") and first not in self.commands \
                and not os.path.lexists(first):
            _refuse_misspelt_command(first, ctx.command_path)
        if not args or (args[0] not in self.commands and args[0] not in self.GROUP_OPTIONS):
            args = ["apply", *args]
        return super().parse_args(ctx, args)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        apply_cmd = self.commands["apply"]
        with click.Context(apply_cmd, info_name=ctx.info_name, parent=None,
                           **apply_cmd.context_settings) as sub:
            apply_cmd.format_help(sub, formatter)
        # each command's whole first sentence: click's default cuts it at 45 or 70 characters
        others = [(name, cmd.get_short_help_str(limit=1000)) for name, cmd in self.commands.items()
                  if name != "apply"]
        if others:
            with formatter.section("Other commands"):
                formatter.write_dl(others)


class _Count(click.ParamType):
    """A whole number, 0 or more (-p, -C, --retry). Not click's IntRange, whose refusal
    ('is not a valid integer range', 'not in the range x>=0') and help ('[x>=0]') are in its
    own words."""

    name = "count"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> int:
        if isinstance(value, int) and value >= 0:
            return value
        text = str(value).strip()
        if text.isdigit() and text.isascii():
            return int(text)
        option = param.opts[0] if param is not None and param.opts else "this option"
        raise usage(f"{option} takes a whole number, 0 or more, not {str(value)!r}")


COUNT = _Count()
_VERSION = click.version_option(package_name="holon-git", message="holon-git %(version)s",
                                help="Print holon-git's version and exit.")


@click.group(cls=_DefaultToApply, context_settings=CONTEXT)
@_VERSION
def cli() -> None:
    """Apply patches written by language models to a git repository."""


def _git_habits(command: Any) -> Any:
    """git apply's options that holon-git accepts and that change nothing, because it already
    does what they ask (docs/cli.md, "git apply's options")."""
    for decls, kwargs in reversed(ACCEPTED_GIT_OPTIONS):
        command = click.option(*decls, expose_value=False, **kwargs)(command)
    return command


ACCEPTED_GIT_OPTIONS: list[tuple[tuple[str, ...], dict[str, Any]]] = [
    (("-C", "min_context"), {"type": COUNT, "metavar": "N", "help": "Accepted, "
     "no effect: how much of a hunk's context must match is holon-git's placement rule "
     "(docs/patch-format.md, section 3), which places a hunk only where it is unique."}),
    (("--recount",), {"is_flag": True, "help": "Accepted, no effect: wrong counts in '@@' "
     "headers are already tolerated; a hunk is read from its body."}),
    (("--ignore-whitespace", "--ignore-space-change", "ignore_space"), {"is_flag": True,
     "help": "Accepted, no effect: lines that differ from the file only in whitespace "
     "already match (and are reported) when their indentation maps to the file's one way; "
     "when it does not, the hunk is refused (indentation_mismatch) with or without it, "
     "unlike git (docs/cli.md)."}),
]

# the first paragraph filled to the width (by click for -h, by man in the man page's NOTES);
# the second kept as written ('\b'), so that no command is cut at its hyphen
_APPLY_EPILOG = """Exit status: 0 applied (or would apply); 1 refused: nothing was changed (with
--no-atomic, the files written before the refusal stay written; the receipt lists them; with
--reject, what applied is written and the refused hunks are in *.rej files); 2 usage error.
Every refusal is listed, not only the first.

\b
Other commands: 'git holon-apply COMMAND -h'.
The manual, with every error code and its hint: 'git help holon-apply'."""


@cli.command("apply", cls=_ApplyCommand, context_settings=CONTEXT, epilog=_APPLY_EPILOG)
@click.argument("patch_files", metavar="[PATCH|-]...", nargs=-1, type=click.Path(dir_okay=False,
                allow_dash=True))
@click.option("--check", is_flag=True, help="Plan the patch and report; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the receipt as JSON on stdout.")
@click.option("--stat", is_flag=True, help="Show a diffstat of the patch; implies no apply "
              "unless --apply is given.")
@click.option("--apply", "force_apply", is_flag=True, help="Apply even with --stat, "
              "--numstat or --summary.")
@click.option("-R", "--reverse", is_flag=True, help="Apply the patch in reverse.")
@click.option("-p", "strip", type=COUNT, default=None, metavar="N",
              help="Remove N leading path components (default: detect a/ b/ prefixes).")
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="auto",
              show_default=True, help="Patch format: unified, envelope, edits (JSON "
              "str_replace edits) or blocks (SEARCH/REPLACE); auto detects it.")
@click.option("--repo", "repo", type=click.Path(file_okay=False), default=".", metavar="DIR",
              help="Repository to apply to (default: the current directory's).")
@click.option("--cached", is_flag=True, help="Apply to the index only (blobs in, blobs out); "
              "leave the working tree alone.")
@click.option("--index", "to_index", is_flag=True, help="Apply to the working tree and the "
              "index together; refuse paths where the two differ.")
@click.option("--commit", is_flag=True, help="Also commit on the current branch (implies "
              "--index unless --cached is given).")
@click.option("-m", "--message", default=None, metavar="MESSAGE",
              help="Commit message for --commit/--ref (without it, git format-patch mails "
              "commit as git am commits them).")
@click.option("--author", default=None, metavar="'NAME <EMAIL>'", help="Commit author.")
@click.option("--ref", default=None, metavar="BRANCH", help="Apply to BRANCH's tree in the "
              "object database and advance it with a commit (works in bare repositories). "
              "The branch checked out here moves with its index and working tree, which must "
              "be clean at the paths the patch touches.")
@click.option("--base", default=None, metavar="REV", help="With --ref: create BRANCH at REV "
              "(a branch, tag or commit) and commit onto it.")
@click.option("--include", multiple=True, metavar="PATTERN", help="Apply only file patches "
              "whose path matches PATTERN (gitignore-style; repeatable).")
@click.option("--exclude", multiple=True, metavar="PATTERN", help="Skip file patches whose "
              "path matches PATTERN (gitignore-style; repeatable).")
@click.option("--emit-diff", "emit_diff", default=None, metavar="FILE",
              type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the canonical git diff of what was applied to FILE ('-': stdout).")
@click.option("--holon-output", "holon_output", type=click.Path(file_okay=False), default=None,
              metavar="DIR", help="Apply a Holon run's output folder: DIR/diff.patch (or "
              "patch.diff) if DIR/manifest.json reports success.")
@click.option("--force", is_flag=True, help="With --holon-output: apply even if the run's "
              "status is not success.")
@click.option("--write-receipt", is_flag=True, help="With --holon-output: also write the "
              "receipt to DIR/apply-receipt.json.")
@click.option("--atomic/--no-atomic", default=True,
              help="All files or none (the default); --no-atomic applies file by file, in "
              "order, and stops at the first refusal.")
@click.option("--reject", is_flag=True, help="Apply what applies and leave each refused hunk "
              "in PATH.rej beside its file, as git apply --reject; exit 1 if any was refused. "
              "Implies --no-atomic (working tree only), but every file patch is tried.")
@click.option("--unidiff-zero", "unidiff_zero", is_flag=True, help="Trust the line numbers "
              "of hunks with no context (diff -U0), as git apply --unidiff-zero does, even where "
              "the patch's index line names another version of the file or their removed lines "
              "repeat. Without it, a patch with no context at all still goes by its numbers, "
              "unless something contradicts them (docs/patch-format.md, section 3).")
# no show_default for a flag pair: click names its default by its first name without the
# dashes ('[default: 3]'); the help says which is the default
@click.option("-3", "--3way/--no-3way", "three_way", default=True,
              help="When a file's hunks do not match its current text, merge from the version "
              "they were written against (the patch's index line, the index, HEAD, or this "
              "tool's recent pre-images); --no-3way does not merge, and a hunk whose lines are "
              "not found goes straight to the ladder's last rungs (docs/patch-format.md). "
              "--3way is the default; unlike git's -3, it does not imply --index.")
@click.option("--whitespace", type=click.Choice(WHITESPACE_ACTIONS), default=WHITESPACE_DEFAULT,
              show_default=True, metavar="ACTION", help="Whitespace errors in the added lines "
              "(trailing whitespace, space before tab in the indentation, blank lines at the "
              "end of a file), as git: nowarn, warn, fix (or strip) them, error (refuse), "
              "error-all.")
@click.option("--directory", default="", metavar="ROOT", help="Put ROOT before every path "
              "in the patch (after -p), as git apply --directory.")
@click.option("--allow-empty", is_flag=True, help="A patch with no file patch (or none "
              "left by --include/--exclude) applies as nothing and exits 0.")
@click.option("-N", "--intent-to-add", "intent_to_add", is_flag=True, help="After a "
              "working-tree apply, mark the new files as intended to be added to the index "
              "(git add -N).")
@click.option("--numstat", is_flag=True, help="Like --stat, as numbers: 'added deleted path' "
              "per file; implies no apply unless --apply is given.")
@click.option("--summary", is_flag=True, help="Print the created, deleted and renamed files "
              "and mode changes; implies no apply unless --apply is given.")
@click.option("-z", "nul", is_flag=True, help="With --numstat: end each line with a NUL "
              "and leave the path unquoted, as git does.")
@_git_habits
@click.option("--expect-sha256", "expect", metavar="PATH=HEX", multiple=True,
              help="Refuse the whole patch (stale_file) unless PATH's current content has this "
              "sha256; 'PATH=' asserts PATH does not exist. Repeatable.")
@click.option("--retry", type=COUNT, default=0, metavar="N",
              help="With --ref: if another writer moves the branch first, plan again on its new "
              "tip, up to N times.")
@click.option("--fsync", "durable", is_flag=True, help="Also fsync the new files, their "
              "directories and the crash journal, so a power loss leaves all old or all new "
              "(git never fsyncs working-tree files; neither does the default).")
@click.option("--recover", is_flag=True, help="Restore the files an interrupted apply was "
              "changing (from its journal under .git/holon-apply/) and exit.")
@click.option("-v", "--verbose", is_flag=True, help="Report every file and hunk placement.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
@_VERSION
def apply_command(patch_files: tuple[str, ...], check: bool, as_json: bool, stat: bool,
                  force_apply: bool, reverse: bool, strip: int | None, fmt: str, repo: str,
                  cached: bool, to_index: bool, commit: bool, message: str | None,
                  author: str | None, ref: str | None, base: str | None,
                  include: tuple[str, ...],
                  exclude: tuple[str, ...], emit_diff: str | None, holon_output: str | None,
                  force: bool, write_receipt: bool, atomic: bool, expect: tuple[str, ...],
                  retry: int, durable: bool, recover: bool, verbose: bool,
                  quiet: bool, three_way: bool, whitespace: str, directory: str,
                  allow_empty: bool, intent_to_add: bool, numstat: bool, summary: bool,
                  nul: bool, reject: bool, unidiff_zero: bool) -> int:
    """Apply PATCH (a unified diff, a '*** Begin Patch' envelope, JSON str_replace edits or a
    reply with SEARCH/REPLACE blocks, or stdin) to the working tree: every file or none.

    Hunks are placed by their context lines; line numbers are hints. A patch that cannot be
    placed exactly once changes nothing and exits 1 with a coded error and a hint.
    """
    session = _session()
    if recover:
        if patch_files:
            raise usage("--recover takes no patch")
        return _recover(repo, as_json, quiet)
    if holon_output is not None and patch_files:
        raise usage("--holon-output reads the patch from DIR; give no PATCH")
    if holon_output is None and (force or write_receipt):
        raise usage("--force and --write-receipt go with --holon-output")
    if emit_diff == "-" and as_json:
        raise usage("--emit-diff - and --json both write to stdout; give a file")
    listings = [flag for flag, on in (("--stat", stat), ("--numstat", numstat),
                                      ("--summary", summary)) if on]
    if listings and as_json:
        raise usage(f"{listings[0]} and --json both write to stdout; give one of them")
    if quiet and verbose:
        raise usage("-q/--quiet and -v/--verbose ask for opposite things; give one of them")
    if reject and atomic and click.get_current_context().get_parameter_source("atomic") \
            is click.core.ParameterSource.COMMANDLINE:
        raise usage("--reject applies what applies, file by file; it cannot go with --atomic",
                    hint="drop --atomic (--reject implies --no-atomic), or drop --reject to "
                    "apply all or nothing")
    if not patch_files and holon_output is None:
        _refuse_swallowed_patch(include, exclude)
    run = diff_to = None
    try:  # a refusal from here on is also written to DIR/apply-receipt.json (--write-receipt)
        if holon_output is not None:
            from .holon_output import load_run_output

            wants_message = (commit or ref is not None) and not (message or "").strip()
            run = load_run_output(holon_output, force=force, commit=wants_message)
            message = run.message or message
        request = session.request = ApplyRequest(
            repo=repo, target="index" if cached else "both" if to_index else "worktree",
            check=check, reverse=reverse, strip=strip, format=fmt, include=include,
            exclude=exclude, atomic=atomic, reject=reject, durable=durable,
            three_way=three_way, unidiff_zero=unidiff_zero,
            whitespace=whitespace, directory=directory, allow_empty=allow_empty,
            intent_to_add=intent_to_add,
            emit_diff=emit_diff is not None, expect_sha256=_expectations(expect),
            commit=commit, message=message, author=author, ref=ref, base=base, retry=retry,
            progress=session.progress)
        if emit_diff is not None and emit_diff != "-":
            from .fs.emit import diff_destination

            diff_to = diff_destination(emit_diff, repo)  # refused now, before any change
        if run is not None and holon_output is not None:
            inputs = [(os.path.join(holon_output, run.patch_name), run.patch)]
        else:
            inputs = _read_patches(patch_files)
        # a listing that applies nothing takes the paths git takes (core/paths.py)
        with listing_only() if listings and not (force_apply or check) else nullcontext():
            parsed = parse_inputs(inputs, request.format, request.strip,
                                  allow_empty=request.allow_empty)
            inputs.clear()  # the model holds what is needed: the raw text need not stay
            if listings:
                _write_out(_listing(parsed, request, (stat, numstat, summary), nul))
    except PatchError as err:
        receipt = _refusal(err, session.request)
    else:
        if listings and not (force_apply or check):
            return EXIT_OK
        receipt = _apply(parsed, request, session, as_json=as_json, quiet=quiet)
    session.applied = receipt.status in ("applied", "partial")
    if holon_output is not None:
        _record_holon_output(holon_output, run, receipt, write_receipt)
    if receipt.diff is not None and emit_diff is not None:
        _write_diff(emit_diff, diff_to, receipt.diff)
    if receipt.error is not None:
        raise Refused(receipt)
    if as_json:
        _echo(receipt.to_json())
    if not as_json and not quiet and emit_diff != "-" and not listings:
        _echo("\n".join(summary_lines(receipt, verbose)))  # git prints only the listings
    if not quiet:
        for line in whitespace_lines(receipt):
            _echo(line, err=True)
    return EXIT_OK


def _listing(parsed: ParsedInputs, request: ApplyRequest, wanted: tuple[bool, bool, bool],
             nul: bool) -> bytes:
    """--stat, --numstat and --summary (``wanted``), in git's order, of the patch as it would
    apply (-R, --directory, --include/--exclude taken into account), as git writes them: one
    listing for each patch file, as git gives each its own (its own --stat total), --stat's
    name width and bar scale kept from one file to the next as git keeps them."""
    quote_fully = api.quotes_paths_fully(request.repo)
    listed = []
    scale = (0, 0)
    for patch in parsed.parts:
        if not patch.files:
            continue  # an empty patch (--allow-empty): git lists nothing for it
        try:
            files = api.prepared_patch(patch, request).files
        except PatchError as err:
            if err.code != "empty_patch" or "skipped" not in err.details:
                raise
            files = []  # every file patch left out by --include/--exclude: git lists none
        named = [path for fp in patch.files for path in fp.paths]
        if request.reverse and len(named) == len(set(named)):
            files = files[::-1]  # git -R lists the file patches last to first, as
            # Patch.reversed orders them only when they share a path
        how = GitListing(quote_fully=quote_fully, nul=nul, reverse=request.reverse,
                         unified=patch.format == "unified", scale=scale)
        scale = stat_scale(files, how)
        listed.append(git_listing(files, *wanted, how))
    return b"".join(listed)


def _read_patches(names: Sequence[str]) -> list[tuple[str, bytes]]:
    """read_patch_files; when the first name is no file and is spelled like a command
    ('instal-hooks'), the refusal suggests the command, as a mistyped option's does."""
    try:
        return read_patch_files(names)
    except PatchError as err:
        command = _command_like(names[0]) if names else None
        if command is not None:
            err.message += f" (did you mean {command}?)"
            err.hint = f"'{_prog_name()} {command}' runs that command; see '{_prog_name()} -h'"
        raise


def _command_like(name: str) -> str | None:
    """The command (not apply) ``name`` is a misspelling of, when it names no file."""
    if os.path.lexists(name):
        return None
    return misspelt_command(name, [command for command in cli.commands if command != "apply"])


def _refuse_misspelt_command(word: str, program: str) -> None:
    """The first word, no file, one slip away from a command: git's 'is not a git command'
    with its suggestion, before the command's options are read as the apply's."""
    command = misspelt_command(word, [*(name for name in cli.commands if name != "apply"),
                                      "help", "version"])
    if command is not None:
        raise usage(f"'{word}' is neither a command nor a patch file (did you mean "
                    f"{command}?)", hint=f"'{program} {command}' runs that command; see "
                    f"'{program} -h'")


_PATCH_STARTS = (b"diff --git ", b"--- ", b"*** Begin Patch")


def _is_patch_file(name: str) -> bool:
    """A file named like a patch, or one that starts like one (a pattern may well name a
    file of the repository)."""
    if name.endswith((".diff", ".patch")):
        return os.path.isfile(name)
    try:
        with open(name, "rb") as fh:
            return fh.read(64).lstrip().startswith(_PATCH_STARTS)
    except OSError:
        return False


def _refuse_swallowed_patch(include: tuple[str, ...], exclude: tuple[str, ...]) -> None:
    """No PATCH was named, so stdin would be read: when the last --include/--exclude
    value names a patch file, it was surely meant as the PATCH; when stdin is a terminal,
    nothing is coming."""
    for flag, values in (("--include", include), ("--exclude", exclude)):
        if values and _is_patch_file(values[-1]):
            raise usage(f"{flag} took {values[-1]!r} as its PATTERN, and no PATCH was named",
                        hint=f"give the pattern before the patch: {flag}=PATTERN "
                        f"{values[-1]}")
    if sys.stdin is not None and sys.stdin.isatty():
        raise usage("no PATCH was named and stdin is a terminal",
                    hint="name the patch file, or pipe the patch in: ... | git holon-apply -")


def _apply(parsed: ParsedInputs, request: ApplyRequest, session: Session, *, as_json: bool,
           quiet: bool) -> Receipt:
    stream = sys.stderr
    if wanted(stream, as_json=as_json, quiet=quiet):
        session.reporter = TerminalProgress(stream)
    try:
        receipt = api.apply_request(parsed.patch, request)
    finally:
        if session.reporter is not None:
            session.reporter.close()
    for err in receipt.errors:
        parsed.name_the_file(err)
    return receipt


def _recover(repo: str, as_json: bool, quiet: bool) -> int:
    from .recover import recover  # the journal machinery: only for --recover

    check_repository_path(repo)
    done = recover(repo)
    if as_json:
        _echo(json.dumps(safe({"status": "recovered", **done}), indent=2, ensure_ascii=False))
    elif not quiet:
        _echo("\n".join(recovery_lines(done)))
    return EXIT_OK


def _record_holon_output(directory: str, run: Any, receipt: Receipt, write: bool) -> None:
    from .holon_output import write_receipt

    if run is not None:
        receipt.extra.update(run.receipt_fields())
    if not write:
        return
    try:
        write_receipt(directory, receipt.to_json())
    except OSError as exc:
        _echo(f"warning: cannot write the receipt into {directory}: {exc.strerror}",
                   err=True)


def _write_diff(name: str, destination: Any, diff: bytes) -> None:
    if name == "-":
        _write_out(diff)
        return
    from .fs.emit import write_diff

    try:
        write_diff(destination, diff)
    except OSError as exc:
        _echo(f"warning: cannot write the diff to {name}: {exc.strerror or exc}",
                   err=True)
    except PatchError as err:
        _echo(f"warning: the diff was not written to {name}: {err.message}", err=True)


def _expectations(values: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        path, sep, digest = value.rpartition("=")
        if not sep or not path:
            raise usage(f"--expect-sha256: expected PATH=HEX, got {value!r}")
        if path in out:
            raise usage(f"--expect-sha256: {path!r} is given twice")
        out[path] = digest
    return out


@cli.command("convert", context_settings=CONTEXT)
@click.argument("patch_file", metavar="PATCH|-", required=False, default="-",
                type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--to", "to", type=click.Choice(["unified"]), default="unified", show_default=True,
              help="Output format.")
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="auto",
              show_default=True, help="Input patch format.")
@click.option("-p", "strip", type=COUNT, default=None, metavar="N",
              help="Remove N leading path components (unified input).")
@click.option("--repo", "repo", type=click.Path(file_okay=False), default=".", metavar="DIR",
              help="Repository whose working tree the patch is planned against.")
def convert_command(patch_file: str, to: str, fmt: str, strip: int | None, repo: str) -> int:
    """Print PATCH as a unified diff with real line numbers, planned against the current
    working tree (nothing is written). Applying the output to the same tree gives the same
    result as applying PATCH."""
    ((_, data),) = read_patch_files((patch_file,))
    out = api.convert_patch(data, repo, to=to, format=fmt, strip=strip)
    _write_out(out)
    return EXIT_OK


_PROVIDER = click.option("--provider", type=click.Choice(["openai", "anthropic"]), required=True,
                         help="The model provider's API family.")


@cli.command("tool-spec", context_settings=CONTEXT)
@_PROVIDER
def tool_spec_command(provider: str) -> None:
    """Print the ApplyPatch tool definition for the provider's API, as JSON."""
    from .provider import tool_definition

    _echo(json.dumps(tool_definition(provider), indent=2, ensure_ascii=False))


@cli.command("grammar", context_settings=CONTEXT)
def grammar_command() -> None:
    """Print the Lark grammar of the unified-diff subset ApplyPatch accepts."""
    from .provider import grammar

    _echo(grammar(), nl=False)


@cli.command("prompt", context_settings=CONTEXT)
@_PROVIDER
def prompt_command(provider: str) -> None:
    """Print the guidance for the model's instructions on using ApplyPatch."""
    from .provider import prompt

    _echo(prompt(provider), nl=False)


@cli.command("tool-call", context_settings=CONTEXT)
@click.argument("call_file", metavar="[CALL|-]", required=False, default="-",
                type=click.Path(dir_okay=False, allow_dash=True))
@_PROVIDER
@click.option("--repo", "repo", type=click.Path(file_okay=False), default=".", metavar="DIR",
              help="Repository to apply to (default: the current directory's).")
@click.option("--check", is_flag=True, help="Plan the patch and report; write nothing.")
def tool_call_command(call_file: str, provider: str, repo: str, check: bool) -> int:
    """Run one ApplyPatch tool call and print the tool result for the model.

    CALL (or stdin) is the call's input: the raw diff for openai; for anthropic the JSON
    input object ({"patch": ...}) or the whole tool_use block holding it. Exits 0 when the
    patch applied, 1 when it was refused, 2 on a usage error.
    """
    from .provider import run_tool_call

    (_, data), = read_patch_files((call_file,))
    outcome = run_tool_call(provider, data, repo, check=check)
    _echo(outcome.text)
    error = outcome.receipt.error
    return EXIT_OK if error is None else error.exit_status


# holon-git is installed from a clone (it is on no package index): the extra comes from there.
MCP_INSTALL = "pip install -e '.[mcp]'"
# The modules whose absence means the extra is not installed: mcp, and anyio, which mcp
# brings and which the server imports first.
MCP_MODULES = ("mcp", "anyio")


def _mcp_missing(exc: ImportError) -> PatchError:
    """The usage error for `mcp` when the SDK cannot be imported, with the command to run."""
    import shlex  # only this rare path quotes a path

    clone = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.isfile(os.path.join(clone, "pyproject.toml")):  # installed from this clone
        install = "pip install -e " + shlex.quote(clone + "[mcp]")
    else:
        install = f"{MCP_INSTALL} from a clone of holon-git"
    if (exc.name or "").split(".")[0] in MCP_MODULES:
        message = "the MCP server needs the mcp package (the mcp extra), which is not installed"
    else:  # installed, but broken or of another major version
        message = f"the MCP server could not import the mcp package: {exc}"
    return usage(message, hint=f"install the mcp extra into this environment: {install}")


@cli.command("mcp", context_settings=CONTEXT)
@click.option("--repo", "repos", multiple=True, type=click.Path(file_okay=False),
              metavar="PATH", help="A repository to serve (repeatable; default: the current "
              "directory's). Calls naming any other repository are refused.")
def mcp_command(repos: tuple[str, ...]) -> int:
    """Serve apply_patch, check_patch and read_region to an MCP client over stdio.

    Register the command 'git-holon-apply mcp --repo PATH' with the client (docs/mcp.md).
    The client's roots narrow the served repositories further. Needs the mcp extra: from
    the holon-git clone, pip install -e '.[mcp]'. Exits 0 when the client closes the
    connection.
    """
    try:  # the MCP SDK is imported here only: no other command pays for it
        from .mcp_server.server import serve
    except ImportError as exc:
        raise _mcp_missing(exc) from None
    try:
        serve(repos)
    except PatchError as err:
        err.exit_status = EXIT_USAGE  # the server's repositories are how it was started
        raise
    return EXIT_OK


def _problems(problems: Sequence[object]) -> int:
    for item in problems:
        _echo(str(item), err=True)
    return EXIT_REFUSED if problems else EXIT_OK


@cli.command("patch-check", context_settings=CONTEXT)
@click.argument("files", metavar="[FILE]...", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--apply-check", is_flag=True, help="Also require each patch to apply cleanly "
              "to the index as it is about to be committed.")
def patch_check_command(files: tuple[str, ...], apply_check: bool) -> int:
    """Check that patch files parse (and, with --apply-check, apply).

    FILE defaults to the staged *.diff and *.patch files, read as staged. Each must parse
    as a V1 unified diff or a '*** Begin Patch' envelope. Prints one line per problem,
    'path:line: code: message (hint)', and exits 1 if there is any. Used by the
    holon-patch-check pre-commit hook and the plain pre-commit hook.
    """
    from .hooks.checks import check_patch_files, staged_patch_problems

    if files:
        return _problems(check_patch_files(read_patch_files(files), apply_check=apply_check))
    return _problems(staged_patch_problems(apply_check=apply_check))


@cli.command("protect-check", context_settings=CONTEXT)
def protect_check_command() -> int:
    """Refuse staged changes to protected paths.

    The patterns are the apply policy's: git config holon.protect and the .holon/protect
    file as committed at HEAD; the policy file itself is always protected. Prints one line
    per staged path the apply policy protects and exits 1 if there is any.
    Used by the holon-protect pre-commit hook and the plain pre-commit hook.
    """
    from .hooks.checks import staged_protect_problems

    return _problems(staged_protect_problems())


@cli.command("install-hooks", context_settings=CONTEXT)
@click.argument("names", metavar="[HOOK]...", nargs=-1)
@click.option("--force", is_flag=True, help="Replace an existing hook that is not holon-git's.")
def install_hooks_command(names: tuple[str, ...], force: bool) -> int:
    """Install holon-git's plain git hooks into this repository.

    HOOK is pre-commit or pre-merge-commit (default: both). They go into the repository's
    hooks directory (core.hooksPath honoured) and run patch-check and protect-check with
    this environment's git-holon-apply, named by its absolute path (the one on PATH once it
    is gone). An existing hook that is not holon-git's is left alone unless --force is given.
    """
    from .hooks.install import install_hooks

    for item in install_hooks(".", names, force=force):
        _echo(f"{item.action}: {item.path}")
    return EXIT_OK


# -- the one handler ------------------------------------------------------------------------

def run(argv: Sequence[str] | None = None, interrupts: Sequence[int] = (),
        session: Session | None = None) -> int:
    """Run the command line ``argv`` in this process and return its exit status; every
    outcome, success, refusal, usage error (click's included) or Ctrl-C, is reported here.
    ``interrupts``: the Ctrl-Cs received so far (see ``main``)."""
    session = session or Session()
    try:
        status = cli.main(args=list(argv) if argv is not None else None,
                          prog_name=_prog_name(), standalone_mode=False, obj=session)
    except click.ClickException as exc:
        return _fail(_from_click(exc), session)
    except PatchError as err:
        return _fail(err, session)
    except Refused as refused:
        return _fail(refused.receipt.error, session, refused.receipt)  # type: ignore[arg-type]
    except ImportError:
        # Ctrl-C inside a C extension's import (pygit2 loads ssl) surfaces as an ImportError
        if not interrupts:
            raise
        return _interrupted(session)
    except (KeyboardInterrupt, click.Abort):
        return _interrupted(session)
    return status if isinstance(status, int) else EXIT_OK


def _from_click(exc: click.ClickException) -> PatchError:
    """click's own refusal of the arguments, as a usage error in this tool's style."""
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if ctx is not None else _prog_name()
    message = exc.format_message()
    if isinstance(exc, click.NoSuchOption):
        message = _unknown_option(exc.option_name, exc.possibilities or ())
    elif message.startswith("Got unexpected extra argument"):
        # click's 'Got unexpected extra argument (x)' (or 'arguments (x y)')
        extra = message[message.index("(") + 1:message.rindex(")")]
        message = f"{where} takes no {'arguments' if ' ' in extra else 'argument'}: {extra}"
    elif isinstance(exc, click.MissingParameter) and exc.param is not None:
        # click's says 'Missing option ...  Choose from:' and a tab-indented list
        name = exc.param.opts[0] if exc.param.opts else exc.param.human_readable_name
        choices = getattr(exc.param.type, "choices", None)
        message = f"{name} is required" + (f": one of {', '.join(map(str, choices))}"
                                           if choices else "")
    return PatchError("usage_error", message, hint=f"see '{where} -h'",
                      exit_status=exc.exit_code)


# git apply's options that holon-git does not take, and why
GIT_ONLY_OPTIONS = {
    "--inaccurate-eof": "holon-git reads a missing final newline from the patch's "
    "'\\ No newline at end of file' markers",
    "--build-fake-ancestor": "the three-way rescue finds the base versions itself",
    "--no-add": "an apply that drops the added lines is not one holon-git makes",
    "--allow-overlap": "overlapping hunks are refused (overlapping_edits)",
    "--binary": "binary patches are refused (unsupported_git_patch_feature)",
    "--allow-binary-replacement": "binary patches are refused (unsupported_git_patch_feature)",
    "--unsafe-paths": "paths outside the repository are always refused (path_escape)",
}


def _unknown_option(name: str, possibilities: Sequence[str]) -> str:
    """No such option: a git apply option holon-git does not take says why; otherwise a
    suggestion only for a misspelling (never another option that merely starts alike, such
    as --ref for --reject)."""
    if name in GIT_ONLY_OPTIONS:
        return f"git apply's {name} is not supported: {GIT_ONLY_OPTIONS[name]}"
    import difflib  # only for a mistyped option: start-up counts

    close = difflib.get_close_matches(name, list(possibilities), n=1, cutoff=0.85)
    return f"No such option: {name}" + (f" (did you mean {close[0]}?)" if close else "")


def _fail(err: PatchError, session: Session, receipt: Receipt | None = None) -> int:
    """Report a refusal or usage error: with --json a receipt on stdout (a recovery report
    for --recover), then the error and its hint on stderr; returns the exit status."""
    if session.json:
        if session.recover:
            _echo(json.dumps({"status": "refused", "error": err.to_dict()}, indent=2,
                                  ensure_ascii=False))
        else:
            _echo((receipt or _refusal(err, session.request)).to_json())
    refusals = receipt.errors if receipt is not None and receipt.errors else [err]
    _echo("\n".join(refusal_lines(refusals)), err=True)
    if receipt is not None and receipt.reject:
        _echo("\n".join(reject_lines(receipt)), err=True)
    elif receipt is not None and not receipt.atomic:
        _echo("\n".join(partial_lines(receipt)), err=True)
    return err.exit_status


def _refusal(err: PatchError, request: ApplyRequest | None) -> Receipt:
    if request is None:
        return Receipt(REFUSED, error=err)
    return Receipt(REFUSED, target=request.target, reverse=request.reverse,
                   atomic=request.atomic, error=err)


def _interrupted(session: Session) -> int:
    # a write stops only at a safe point and undoes itself (fs/signals.py)
    if session.applied:
        _echo("interrupted after the patch was applied", err=True)
    else:
        _echo("interrupted; nothing was changed", err=True)
    return EXIT_INTERRUPTED


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: ``run`` with the process set up for one command. Run as
    the command (no ``argv``), the process ends as soon as the command is over
    (fast_exit.py); called with ``argv`` (tests, scripts), it raises SystemExit as usual."""
    if argv is None:
        run_then_exit(lambda: main(sys.argv[1:]))
    collecting = gc.isenabled()
    gc.disable()  # as in api.apply_request: the parse, too, makes many objects and no cycles
    session = Session()
    interrupts = _note_interrupts()
    try:
        status = run(argv, interrupts, session)
    except KeyboardInterrupt:  # just before run's own handling began, or just after it ended
        status = _interrupted(session)
    finally:
        # the command is over: a Ctrl-C now would only print a traceback from the interpreter's
        # shutdown
        _ignore_ctrl_c()
        if collecting:
            gc.enable()
    sys.exit(status)


def _ignore_ctrl_c() -> None:
    """SIGINT ignored from now on; setting it runs a handler still pending, which raises."""
    while True:
        try:
            _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
            return
        except KeyboardInterrupt:
            continue


def _note_interrupts() -> list[int]:
    """Let Ctrl-C raise KeyboardInterrupt as usual, and remember that it came."""
    # _signal: the C module under signal, whose enum classes cost 2 ms of start-up to build
    received: list[int] = []

    def interrupt(signum: int, frame: object) -> None:
        received.append(signum)
        raise KeyboardInterrupt

    if _signal.getsignal(_signal.SIGINT) in (_signal.default_int_handler, loading_guard()):
        _signal.signal(_signal.SIGINT, interrupt)
    return received


def _echo(text: str, err: bool = False, nl: bool = True) -> None:
    """click.echo, with every byte of a path that is not UTF-8 written as git's octal escape
    (a strict UTF-8 stdout cannot print the lone surrogate it decodes to)."""
    try:
        click.echo(safe_text(text), err=err, nl=nl)
    except OSError as exc:
        _output_lost(exc, err)


def _write_out(data: bytes) -> None:
    """Bytes to stdout (a diff), as _echo."""
    try:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except OSError as exc:
        _output_lost(exc, False)


def _output_lost(exc: OSError, err: bool) -> None:
    """stdout (or stderr) refused a write: full (ENOSPC), closed (EPIPE). What was done
    stays done and the exit status says so (0 for an apply that was applied); the stream is
    pointed at /dev/null, so nothing later (the interpreter's last flush included) fails
    again, and a note goes to stderr."""
    fd = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(fd, 2 if err else 1)
    finally:
        os.close(fd)
    if not err:
        with suppress(OSError):
            click.echo(f"note: the report could not be printed: {exc.strerror or exc}; "
                       "the exit status stands", err=True)


def _prog_name() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "holon-apply"
    return "git holon-apply" if name == "git-holon-apply" else "holon-apply"
