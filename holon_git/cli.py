"""`git holon-apply`: the command line over holon_git.api. The only module that imports click.

Exit codes: 0 applied (or would apply), 1 refused, 2 usage error.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from .errors import PatchError

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
    from .parse import merge_patches, parse_patch

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
    where = []
    if err.hunk is not None:
        where.append(f"hunk {err.hunk}")
    if err.path is not None:
        where.append(("of " if where else "") + err.path)
    if err.patch_line is not None:
        where.append(f"(patch line {err.patch_line})")
    location = " ".join(where)
    lines = [f"error: {err.code}: {location + ': ' if location else ''}{err.message}"]
    lines.append(f"hint: {err.hint}")
    return "\n".join(lines)


def _stat_lines(files: list[Any]) -> list[str]:
    rows = []
    for fp in files:
        added = sum(h.added for h in fp.hunks)
        removed = sum(h.removed for h in fp.hunks)
        name = fp.path if fp.kind.value != "rename" else f"{fp.old_path} => {fp.new_path}"
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


_ACTION_LETTER = {"modify": "M", "add": "A", "delete": "D", "rename": "R"}


def _summary(receipt: Any, verbose: bool) -> list[str]:
    files = receipt.files
    hunks = sum(len(f.hunks) for f in files)
    verb = "Would apply" if receipt.status == "checked" else "Applied"
    out = [f"{verb} {len(files)} file{'s' if len(files) != 1 else ''}, "
           f"{hunks} hunk{'s' if hunks != 1 else ''}."]
    for change in files:
        name = change.path if change.action != "rename" else (
            f"{change.old_path} -> {change.new_path}")
        if verbose:
            out.append(f"  {_ACTION_LETTER[change.action]} {name} (+{change.added} "
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
    if verbose:
        out.extend(f"  note: {d.message}" for d in receipt.diagnostics)
        out.extend(f"  note: {d.message}" for f in files for d in f.diagnostics)
    return out


@cli.command("apply", context_settings=CONTEXT)
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
@click.option("--recover", is_flag=True, help="Restore the files an interrupted apply was "
              "changing (from its journal under .git/holon-apply/) and exit.")
@click.option("-v", "--verbose", is_flag=True, help="Report every file and hunk placement.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
def apply_command(patch_files: tuple[str, ...], check: bool, as_json: bool, stat: bool,
                  force_apply: bool, reverse: bool, strip: int | None, fmt: str, repo: str,
                  recover: bool, verbose: bool, quiet: bool) -> None:
    """Apply PATCH (a unified diff, or stdin) to the working tree: every file or none.

    Hunks are placed by their context lines; line numbers are hints. A patch that cannot be
    placed exactly once changes nothing and exits 1 with a coded error and a hint.
    """
    from .api import apply_patch
    from .receipt import REFUSED, Receipt

    if recover:
        if patch_files:
            raise click.UsageError("--recover takes no patch")
        _recover(repo, as_json, quiet)
    inputs = _read_inputs(patch_files)
    try:
        patch = _parse_all(inputs, fmt, strip)
    except PatchError as err:
        receipt = Receipt(REFUSED, reverse=reverse, error=err)
    else:
        if stat:
            click.echo("\n".join(_stat_lines(patch.files)))
            if not (force_apply or check):
                sys.exit(EXIT_OK)
        receipt = apply_patch(patch, repo, check=check, reverse=reverse)
    if as_json:
        click.echo(receipt.to_json())
    if receipt.error is not None:
        click.echo(_describe_error(receipt.error), err=True)
        sys.exit(EXIT_REFUSED)
    if not as_json and not quiet:
        click.echo("\n".join(_summary(receipt, verbose)))
    sys.exit(EXIT_OK)


def _recover(repo: str, as_json: bool, quiet: bool) -> None:
    import json

    from .api import recover

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
        journals, busy = done["journals"], done["busy"]
        if not journals:
            click.echo("Nothing to recover.")
        else:
            click.echo(f"Recovered {len(journals)} interrupted apply(s): restored "
                       f"{len(done['restored'])} file(s), removed {len(done['removed'])}.")
        if busy:
            click.echo(f"{len(busy)} apply(s) still running were left alone.")
    sys.exit(EXIT_OK)


_PROVIDER = click.option("--provider", type=click.Choice(["openai", "anthropic"]), required=True,
                         help="The model provider's API family.")


@cli.command("tool-spec", context_settings=CONTEXT)
@_PROVIDER
def tool_spec_command(provider: str) -> None:
    """Print the ApplyPatch tool definition for the provider's API, as JSON."""
    import json

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


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    try:
        cli.main(args=argv, prog_name=_prog_name(), standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except (KeyboardInterrupt, click.Abort):
        # a write stops only at a safe point and undoes itself (targets/interrupts.py)
        click.echo("interrupted; nothing was changed", err=True)
        sys.exit(130)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)


def _prog_name() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "holon-apply"
    return "git holon-apply" if name == "git-holon-apply" else "holon-apply"
