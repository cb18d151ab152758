"""`git holon-apply`: the command line over holon_git.api. The only module that imports click.

Exit codes: 0 applied (or would apply), 1 refused, 2 usage error.
"""

from __future__ import annotations

import _signal
import gc
import json
import os
import sys
from collections.abc import Callable
from typing import Any

import click

from . import api
from .core.model import FileKind, display_name
from .errors import PatchError
from .fast_exit import run_then_exit
from .parse import merge_patches, parse_patch
from .progress import TerminalProgress, wanted
from .receipt import REFUSED, Receipt

EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class _DefaultToApply(click.Group):
    """`holon-apply PATCH` means `holon-apply apply PATCH`; other words name subcommands."""

    GROUP_OPTIONS = ("-h", "--help", "--version")  # the group's own: help lists subcommands

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in self.GROUP_OPTIONS):
            args = ["apply", *args]
        return super().parse_args(ctx, args)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        apply_cmd = self.commands["apply"]
        with click.Context(apply_cmd, info_name=ctx.info_name, parent=None) as sub:
            apply_cmd.format_help(sub, formatter)
        others = [(name, cmd.get_short_help_str(70)) for name, cmd in self.commands.items()
                  if name != "apply"]
        if others:
            with formatter.section("Other commands"):
                formatter.write_dl(others)


@click.group(cls=_DefaultToApply, context_settings=CONTEXT)
@click.version_option(package_name="holon-git", message="holon-git %(version)s")
def cli() -> None:
    """Apply patches written by language models to a git repository."""


def _read_inputs(patch_files: tuple[str, ...]) -> list[tuple[str, bytes]]:
    if not patch_files:
        patch_files = ("-",)
    inputs = []
    for name in patch_files:
        if name == "-":
            inputs.append(("<stdin>", sys.stdin.buffer.read()))
            continue
        try:
            with open(name, "rb") as fh:
                inputs.append((name, fh.read()))
        except OSError as exc:
            raise click.UsageError(f"cannot read patch {name!r}: {exc.strerror}") from exc
    return inputs


def _parse_all(inputs: list[tuple[str, bytes]], fmt: str, strip: int | None) -> Any:
    patches = []
    for name, data in inputs:
        try:
            patches.append(parse_patch(data, format=fmt, strip=strip))
        except PatchError as err:
            if len(inputs) > 1:
                err.details.setdefault("patch_file", name)
            raise
    return merge_patches(patches)


def _describe_error(err: PatchError) -> str:
    location = err.where()
    lines = [f"error: {err.code}: {location + ': ' if location else ''}{err.message}"]
    lines.append(f"hint: {err.hint}")
    return "\n".join(lines)


def _stat_lines(files: list[Any]) -> list[str]:
    rows = []
    for fp in files:
        added = sum(h.added for h in fp.hunks)
        removed = sum(h.removed for h in fp.hunks)
        # git's diffstat names a rename 'old => new'
        name = fp.path if fp.kind is not FileKind.RENAME else f"{fp.old_path} => {fp.new_path}"
        rows.append((name, added, removed))
    width = max((len(name) for name, _, _ in rows), default=0)
    out = [f" {name.ljust(width)} | {a + r:>4} {'+' * min(a, 40)}{'-' * min(r, 40)}"
           for name, a, r in rows]
    total_a = sum(a for _, a, _ in rows)
    total_r = sum(r for _, _, r in rows)
    out.append(f" {len(rows)} file{'s' if len(rows) != 1 else ''} changed, "
               f"{total_a} insertion{'s' if total_a != 1 else ''}(+), "
               f"{total_r} deletion{'s' if total_r != 1 else ''}(-)")
    return out


_KIND_LETTER = {FileKind.MODIFY: "M", FileKind.ADD: "A", FileKind.DELETE: "D",
                FileKind.RENAME: "R"}


def _summary(receipt: Any, verbose: bool) -> list[str]:
    files = receipt.files
    hunks = sum(len(f.hunks) for f in files)
    verb = "Would apply" if receipt.status == "checked" else "Applied"
    paths = len({f.path for f in files})
    what = f"{paths} file{'s' if paths != 1 else ''}"
    if paths != len(files):  # file patches in sequence: several for one path
        what = f"{len(files)} file patches to {what}"
    out = [f"{verb} {what}, {hunks} hunk{'s' if hunks != 1 else ''}."]
    for change in files:
        name = change.display_name
        if verbose:
            out.append(f"  {_KIND_LETTER[change.kind]} {name} (+{change.added} "
                       f"-{change.removed})")
        for hunk in change.hunks:
            notes = list(hunk.tolerances)
            if hunk.by_line_number:
                notes.append("placed by line number")
            if verbose or notes:
                offset = f", offset {hunk.offset:+d}" if hunk.offset else ""
                extra = f" [{', '.join(notes)}]" if notes else ""
                out.append(f"    hunk {hunk.index} of {name} at line {hunk.applied_line}"
                           f"{offset}{extra}")
        if verbose and change.ignored_metadata:
            out.append(f"    ignored metadata: {'; '.join(change.ignored_metadata)}")
    if receipt.extra.get("commit"):
        out.append(f"Committed {receipt.extra['commit'][:12]} on {receipt.extra['ref']}.")
    for saved in receipt.extra.get("deleted_blobs", []):
        if saved["blob"]:
            out.append(f"  deleted {saved['path']}: content saved as blob {saved['blob']} "
                       f"(git cat-file -p {saved['blob'][:12]})")
        else:
            out.append(f"  deleted {saved['path']}: {saved['note']}")
    if verbose:
        out.extend(f"  note: {d.message}" for d in receipt.diagnostics)
        out.extend(f"  note: {d.message}" for f in files for d in f.diagnostics)
    return out


_APPLY_EPILOG = """\b
Exit status: 0 applied (or would apply), 1 refused (nothing was changed), 2 usage error.
Other commands: 'git holon-apply COMMAND -h'. Documentation: docs/cli.md, docs/errors.md."""


@cli.command("apply", context_settings=CONTEXT, epilog=_APPLY_EPILOG)
@click.argument("patch_files", metavar="[PATCH|-]...", nargs=-1, type=click.Path(dir_okay=False,
                allow_dash=True))
@click.option("--check", is_flag=True, help="Plan the patch and report; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the receipt as JSON on stdout.")
@click.option("--stat", is_flag=True, help="Show a diffstat of the patch; implies no apply "
              "unless --apply is given.")
@click.option("--apply", "force_apply", is_flag=True, help="Apply even with --stat.")
@click.option("-R", "--reverse", is_flag=True, help="Apply the patch in reverse.")
@click.option("-p", "strip", type=click.IntRange(min=0), default=None, metavar="N",
              help="Remove N leading path components (default: detect a/ b/ prefixes).")
@click.option("--format", "fmt", type=click.Choice(["auto", "unified", "envelope"]),
              default="auto", show_default=True, help="Patch format.")
@click.option("--repo", "repo", type=click.Path(file_okay=False), default=".",
              help="Repository to apply to (default: the current directory's).")
@click.option("--cached", is_flag=True, help="Apply to the index only (blobs in, blobs out); "
              "leave the working tree alone.")
@click.option("--index", "to_index", is_flag=True, help="Apply to the working tree and the "
              "index together; refuse paths where the two differ.")
@click.option("--commit", is_flag=True, help="Also commit on the current branch (implies "
              "--index unless --cached is given).")
@click.option("-m", "--message", default=None, help="Commit message for --commit/--ref.")
@click.option("--author", default=None, metavar="'NAME <EMAIL>'", help="Commit author.")
@click.option("--ref", default=None, metavar="BRANCH", help="Apply to BRANCH's tree in the "
              "object database and advance it with a commit; no working tree or index is "
              "touched (works in bare repositories).")
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
@click.option("--atomic/--no-atomic", default=True, show_default=True,
              help="All files or none; --no-atomic applies file by file, in order, and stops "
              "at the first refusal.")
@click.option("--3way/--no-3way", "three_way", default=True, show_default=True,
              help="When a file's hunks do not match its current text, merge from the version "
              "they were written against (the patch's index line, the index, HEAD, or this "
              "tool's recent pre-images); --no-3way refuses instead.")
@click.option("--expect-sha256", "expect", metavar="PATH=HEX", multiple=True,
              help="Refuse the whole patch (stale_file) unless PATH's current content has this "
              "sha256; 'PATH=' asserts PATH does not exist. Repeatable.")
@click.option("--retry", type=click.IntRange(min=0), default=0, metavar="N",
              help="With --ref: if another writer moves the branch first, plan again on its new "
              "tip, up to N times.")
@click.option("--fsync", "durable", is_flag=True, help="Also fsync the new files, their "
              "directories and the crash journal, so a power loss leaves all old or all new "
              "(git never fsyncs working-tree files; neither does the default).")
@click.option("--recover", is_flag=True, help="Restore the files an interrupted apply was "
              "changing (from its journal under .git/holon-apply/) and exit.")
@click.option("-v", "--verbose", is_flag=True, help="Report every file and hunk placement.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
def apply_command(patch_files: tuple[str, ...], check: bool, as_json: bool, stat: bool,
                  force_apply: bool, reverse: bool, strip: int | None, fmt: str, repo: str,
                  cached: bool, to_index: bool, commit: bool, message: str | None,
                  author: str | None, ref: str | None, include: tuple[str, ...],
                  exclude: tuple[str, ...], emit_diff: str | None, holon_output: str | None,
                  force: bool, write_receipt: bool, atomic: bool, expect: tuple[str, ...],
                  retry: int, durable: bool, recover: bool, verbose: bool,
                  quiet: bool, three_way: bool) -> None:
    """Apply PATCH (a unified diff or a '*** Begin Patch' envelope, or stdin) to the working
    tree: every file or none.

    Hunks are placed by their context lines; line numbers are hints. A patch that cannot be
    placed exactly once changes nothing and exits 1 with a coded error and a hint.
    """
    if recover:
        if patch_files:
            raise click.UsageError("--recover takes no patch")
        _recover(repo, as_json, quiet)
    if ref is not None and (cached or to_index):
        raise click.UsageError("--ref works in the object database only; drop --cached/--index")
    wants_commit = commit or ref is not None
    has_message = bool((message or "").strip())
    if wants_commit and not has_message and holon_output is None:
        raise click.UsageError("--commit and --ref need a commit message (-m/--message, or "
                               "--holon-output DIR with DIR/summary.md)")
    if message is not None and not wants_commit:
        raise click.UsageError("-m/--message is for --commit or --ref")
    if author is not None and not wants_commit:
        raise click.UsageError("--author is for --commit or --ref")
    if retry and ref is None:
        raise click.UsageError("--retry is for --ref")
    if emit_diff == "-" and as_json:
        raise click.UsageError("--emit-diff - and --json both write to stdout; give a file")
    target = "index" if cached else "both" if (to_index or commit) else "worktree"
    run = None
    expect_sha256 = _expectations(expect)
    diff_to = None
    try:
        if emit_diff is not None and emit_diff != "-":
            from .fs.emit import diff_destination

            diff_to = diff_destination(emit_diff, repo)  # refused now, before any change
        if holon_output is not None:
            run = _load_holon_output(holon_output, patch_files, force,
                                     commit=wants_commit and not has_message)
            inputs = [(os.path.join(holon_output, run.patch_name), run.patch)]
            message = run.message or message
        else:
            if force or write_receipt:
                raise click.UsageError("--force and --write-receipt go with --holon-output")
            inputs = _read_inputs(patch_files)
        patch = _parse_all(inputs, fmt, strip)
        inputs.clear()  # the model holds what is needed: the raw text need not stay in memory
    except PatchError as err:
        receipt = Receipt(REFUSED, target=target, reverse=reverse, atomic=atomic, error=err)
    else:
        if stat:
            click.echo("\n".join(_stat_lines(patch.files)))
            if not (force_apply or check):
                sys.exit(EXIT_OK)
        reporter = _progress_reporter(as_json=as_json, quiet=quiet)
        try:
            receipt = api.apply_patch(patch, repo, check=check, reverse=reverse, target=target,
                                  commit=commit, message=message, author=author, ref=ref,
                                  include=include, exclude=exclude,
                                  emit_diff=emit_diff is not None, atomic=atomic,
                                  expect_sha256=expect_sha256, retry=retry,
                                  progress=_noting_the_write(reporter), durable=durable,
                                  three_way=three_way)
        finally:
            if reporter is not None:
                reporter.close()
    _OUTCOME["applied"] = receipt.status in ("applied", "partial")
    if holon_output is not None:
        _record_holon_output(holon_output, run, receipt, write_receipt)
    if receipt.diff is not None and emit_diff is not None:
        _write_diff(emit_diff, diff_to, receipt.diff)
    if as_json:
        click.echo(receipt.to_json())
    if receipt.error is not None:
        click.echo(_describe_error(receipt.error), err=True)
        if not receipt.atomic:
            click.echo("\n".join(_partial_lines(receipt)), err=True)
        sys.exit(EXIT_USAGE if receipt.error.code == "usage_error" else EXIT_REFUSED)
    if not as_json and not quiet and emit_diff != "-":
        click.echo("\n".join(_summary(receipt, verbose)))
    sys.exit(EXIT_OK)


def _progress_reporter(*, as_json: bool, quiet: bool) -> Any:
    """A progress line on stderr for long work, when stderr is a terminal (holon_git.progress)."""
    stream = sys.stderr
    return TerminalProgress(stream) if wanted(stream, as_json=as_json, quiet=quiet) else None


def _recover(repo: str, as_json: bool, quiet: bool) -> None:
    from .recover import recover  # the journal machinery: only for --recover

    try:
        done = recover(repo)
    except PatchError as err:
        if as_json:
            click.echo(json.dumps({"status": "refused", "error": err.to_dict()}, indent=2))
        click.echo(_describe_error(err), err=True)
        sys.exit(EXIT_REFUSED)
    if as_json:
        click.echo(json.dumps({"status": "recovered", **done}, indent=2, ensure_ascii=False))
    elif not quiet:
        journals, busy, completed = done["journals"], done["busy"], done["completed"]
        if completed:
            click.echo(f"{len(completed)} interrupted apply(s) had passed their commit point; "
                       "their new files were kept.")
        if done["temporaries"]:
            click.echo(f"Removed {len(done['temporaries'])} temporary file(s) that killed "
                       "applies left in the working tree.")
        if not journals and not completed and not done["temporaries"]:
            click.echo("Nothing to recover.")
        elif journals:
            click.echo(f"Recovered {len(journals)} interrupted apply(s): restored "
                       f"{len(done['restored'])} file(s), removed {len(done['removed'])}.")
        if busy:
            click.echo(f"{len(busy)} apply(s) still running were left alone.")
    sys.exit(EXIT_OK)


def _load_holon_output(directory: str, patch_files: tuple[str, ...], force: bool,
                       commit: bool) -> Any:
    from .holon_output import load_run_output

    if patch_files:
        raise click.UsageError("--holon-output reads the patch from DIR; give no PATCH")
    return load_run_output(directory, force=force, commit=commit)


def _record_holon_output(directory: str, run: Any, receipt: Any, write: bool) -> None:
    from .holon_output import write_receipt

    if run is not None:
        receipt.extra.update(run.receipt_fields())
    if not write:
        return
    try:
        write_receipt(directory, receipt.to_json())
    except OSError as exc:
        click.echo(f"warning: cannot write the receipt into {directory}: {exc.strerror}",
                   err=True)


def _write_diff(name: str, destination: Any, diff: bytes) -> None:
    if name == "-":
        sys.stdout.buffer.write(diff)
        sys.stdout.buffer.flush()
        return
    from .fs.emit import write_diff

    try:
        write_diff(destination, diff)
    except OSError as exc:
        click.echo(f"warning: cannot write the diff to {name}: {exc.strerror or exc}",
                   err=True)
    except PatchError as err:
        click.echo(f"warning: the diff was not written to {name}: {err.message}", err=True)


def _expectations(values: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        path, sep, digest = value.rpartition("=")
        if not sep or not path:
            raise click.BadParameter(f"expected PATH=HEX, got {value!r}",
                                     param_hint="'--expect-sha256'")
        if path in out:
            raise click.BadParameter(f"{path!r} is given twice", param_hint="'--expect-sha256'")
        out[path] = digest
    return out


def _partial_lines(receipt: Any) -> list[str]:
    """For --no-atomic: exactly which files changed before the refusal and which did not."""
    done = [change.display_name for change in receipt.files]
    left = [display_name(u["action"], u["old_path"], u["new_path"]) for u in receipt.unapplied]
    if not done:
        out = ["nothing changed"]
    elif receipt.status == "partial":
        out = [f"changed before the refusal: {', '.join(done)}"]
    else:
        out = [f"would change before the refusal (nothing was written): {', '.join(done)}"]
    if left:
        out.append(f"not applied: {', '.join(left)}")
    return out


@cli.command("convert", context_settings=CONTEXT)
@click.argument("patch_file", metavar="PATCH|-", required=False, default="-",
                type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--to", "to", type=click.Choice(["unified"]), default="unified", show_default=True,
              help="Output format.")
@click.option("--format", "fmt", type=click.Choice(["auto", "unified", "envelope"]),
              default="auto", show_default=True, help="Input patch format.")
@click.option("-p", "strip", type=click.IntRange(min=0), default=None, metavar="N",
              help="Remove N leading path components (unified input).")
@click.option("--repo", "repo", type=click.Path(file_okay=False), default=".",
              help="Repository whose working tree the patch is planned against.")
def convert_command(patch_file: str, to: str, fmt: str, strip: int | None, repo: str) -> None:
    """Print PATCH as a unified diff with real line numbers, planned against the current
    working tree (nothing is written). Applying the output to the same tree gives the same
    result as applying PATCH."""
    ((_, data),) = _read_inputs((patch_file,))
    try:
        out = api.convert_patch(data, repo, to=to, format=fmt, strip=strip)
    except PatchError as err:
        click.echo(_describe_error(err), err=True)
        sys.exit(EXIT_REFUSED)
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    sys.exit(EXIT_OK)


_PROVIDER = click.option("--provider", type=click.Choice(["openai", "anthropic"]), required=True,
                         help="The model provider's API family.")


@cli.command("tool-spec", context_settings=CONTEXT)
@_PROVIDER
def tool_spec_command(provider: str) -> None:
    """Print the ApplyPatch tool definition for the provider's API, as JSON."""
    from .provider import tool_definition

    click.echo(json.dumps(tool_definition(provider), indent=2, ensure_ascii=False))


@cli.command("grammar", context_settings=CONTEXT)
def grammar_command() -> None:
    """Print the Lark grammar of the unified-diff subset ApplyPatch accepts."""
    from .provider import grammar

    click.echo(grammar(), nl=False)


@cli.command("prompt", context_settings=CONTEXT)
@_PROVIDER
def prompt_command(provider: str) -> None:
    """Print the guidance for the model's instructions on using ApplyPatch."""
    from .provider import prompt

    click.echo(prompt(provider), nl=False)


@cli.command("tool-call", context_settings=CONTEXT)
@click.argument("call_file", metavar="[CALL|-]", required=False, default="-",
                type=click.Path(dir_okay=False, allow_dash=True))
@_PROVIDER
@click.option("--repo", "repo", type=click.Path(file_okay=False), default=".",
              help="Repository to apply to (default: the current directory's).")
@click.option("--check", is_flag=True, help="Plan the patch and report; write nothing.")
def tool_call_command(call_file: str, provider: str, repo: str, check: bool) -> None:
    """Run one ApplyPatch tool call and print the tool result for the model.

    CALL (or stdin) is the call's input: the raw diff for openai, the JSON input object
    ({"patch": ...}) for anthropic. Exits 0 when the patch applied, 1 when it was refused.
    """
    from .provider import run_tool_call

    (_, data), = _read_inputs((call_file,))
    outcome = run_tool_call(provider, data, repo, check=check)
    click.echo(outcome.text)
    sys.exit(EXIT_OK if outcome.ok else EXIT_REFUSED)


MCP_INSTALL = "pip install 'holon-git[mcp]'"


@cli.command("mcp", context_settings=CONTEXT)
@click.option("--repo", "repos", multiple=True, type=click.Path(file_okay=False),
              metavar="PATH", help="A repository to serve (repeatable; default: the current "
              "directory's). Calls naming any other repository are refused.")
def mcp_command(repos: tuple[str, ...]) -> None:
    """Serve apply_patch, check_patch and read_region to an MCP client over stdio.

    Register the command 'git-holon-apply mcp --repo PATH' with the client (docs/mcp.md).
    The client's roots narrow the served repositories further. Needs the mcp extra:
    pip install 'holon-git[mcp]'. Exits 0 when the client closes the connection.
    """
    try:  # the MCP SDK is imported here only: no other command pays for it
        from .mcp_server.server import serve
    except ImportError as exc:
        click.echo(f"error: the MCP server needs the mcp package ({exc}); install it with: "
                   f"{MCP_INSTALL}", err=True)
        sys.exit(EXIT_USAGE)
    try:
        serve(repos)
    except PatchError as err:
        click.echo(_describe_error(err), err=True)
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_OK)


def _report_problems(problems: list[Any]) -> None:
    for item in problems:
        click.echo(str(item), err=True)
    sys.exit(EXIT_REFUSED if problems else EXIT_OK)


@cli.command("patch-check", context_settings=CONTEXT)
@click.argument("files", metavar="[FILE]...", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--apply-check", is_flag=True, help="Also require each patch to apply cleanly "
              "to the index as it is about to be committed.")
def patch_check_command(files: tuple[str, ...], apply_check: bool) -> None:
    """Check that patch files parse (and, with --apply-check, apply).

    FILE defaults to the staged *.diff and *.patch files, read as staged. Each must parse
    as a V1 unified diff or a '*** Begin Patch' envelope. Prints one line per problem,
    'path:line: code: message (hint)', and exits 1 if there is any. Used by the
    holon-patch-check pre-commit hook and the plain pre-commit hook.
    """
    from .hooks.checks import check_patch_files, staged_patch_problems

    try:
        if files:
            problems = check_patch_files(_read_inputs(files), apply_check=apply_check)
        else:
            problems = staged_patch_problems(apply_check=apply_check)
    except PatchError as err:
        click.echo(_describe_error(err), err=True)
        sys.exit(EXIT_REFUSED)
    _report_problems(problems)


@cli.command("protect-check", context_settings=CONTEXT)
def protect_check_command() -> None:
    """Refuse staged changes to protected paths.

    The patterns are the apply policy's: git config holon.protect and the .holon/protect
    file as committed at HEAD; the policy file itself is always protected. Prints one line
    per staged path the apply policy protects and exits 1 if there is any.
    Used by the holon-protect pre-commit hook and the plain pre-commit hook.
    """
    from .hooks.checks import staged_protect_problems

    try:
        problems = staged_protect_problems()
    except PatchError as err:
        click.echo(_describe_error(err), err=True)
        sys.exit(EXIT_REFUSED)
    _report_problems(problems)


@cli.command("install-hooks", context_settings=CONTEXT)
@click.argument("names", metavar="[HOOK]...", nargs=-1)
@click.option("--force", is_flag=True, help="Replace an existing hook that is not holon-git's.")
def install_hooks_command(names: tuple[str, ...], force: bool) -> None:
    """Install holon-git's plain git hooks into this repository.

    HOOK is pre-commit or pre-merge-commit (default: both). They go into the repository's
    hooks directory (core.hooksPath honoured) and run patch-check and protect-check. An
    existing hook that is not holon-git's is left alone unless --force is given.
    """
    from .hooks.install import install_hooks

    try:
        done = install_hooks(".", names, force=force)
    except PatchError as err:
        click.echo(_describe_error(err), err=True)
        sys.exit(EXIT_USAGE if err.code == "usage_error" else EXIT_REFUSED)
    for item in done:
        click.echo(f"{item.action}: {item.path}")


_OUTCOME = {"applied": False}  # for the Ctrl-C message: did the apply already happen?


def _noting_the_write(reporter: Callable[[str, int, int], None] | None,
                      ) -> Callable[[str, int, int], None]:
    """The progress callback: draws (on a terminal) and notes when the write is done. The
    library reports that with Ctrl-C still held, so a Ctrl-C right after it is not taken for
    one that stopped the apply."""

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "writing" and done == total > 0:  # (0, total) before, (total, total) after
            _OUTCOME["applied"] = True
        if reporter is not None:
            reporter(stage, done, total)

    return progress


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point. Run as the command (no ``argv``), the process ends as soon
    as the command is over (fast_exit.py)."""
    if argv is None:
        run_then_exit(lambda: main(sys.argv[1:]))
    collecting = gc.isenabled()
    gc.disable()  # as in api.apply_patch: the parse, too, makes many objects and no cycles
    interrupted = _note_interrupts()
    try:
        cli.main(args=argv, prog_name=_prog_name(), standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except ImportError:
        # Ctrl-C inside a C extension's import (pygit2 loads ssl) surfaces as an ImportError
        if not interrupted:
            raise
        _exit_interrupted()
    except (KeyboardInterrupt, click.Abort):
        _exit_interrupted()
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    finally:
        if collecting:
            gc.enable()
        # the command is over: a Ctrl-C now would only print a traceback from the interpreter's
        # shutdown
        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)


def _exit_interrupted() -> None:
    # a write stops only at a safe point and undoes itself (fs/signals.py)
    if _OUTCOME["applied"]:
        click.echo("interrupted after the patch was applied", err=True)
    else:
        click.echo("interrupted; nothing was changed", err=True)
    sys.exit(130)


def _note_interrupts() -> list[int]:
    """Let Ctrl-C raise KeyboardInterrupt as usual, and remember that it came."""
    # _signal: the C module under signal, whose enum classes cost 2 ms of start-up to build
    received: list[int] = []

    def interrupt(signum: int, frame: object) -> None:
        received.append(signum)
        raise KeyboardInterrupt

    if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        _signal.signal(_signal.SIGINT, interrupt)
    return received


def _prog_name() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "holon-apply"
    return "git holon-apply" if name == "git-holon-apply" else "holon-apply"
