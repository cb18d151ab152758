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
@click.option("--atomic/--no-atomic", default=True, show_default=True,
              help="All files or none; --no-atomic applies file by file, in order, and stops "
              "at the first refusal.")
@click.option("--expect-sha256", "expect", metavar="PATH=HEX", multiple=True,
              help="Refuse the whole patch (stale_file) unless PATH's current content has this "
              "sha256; 'PATH=' asserts PATH does not exist. Repeatable.")
@click.option("-v", "--verbose", is_flag=True, help="Report every file and hunk placement.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
def apply_command(patch_files: tuple[str, ...], check: bool, as_json: bool, stat: bool,
                  force_apply: bool, reverse: bool, strip: int | None, fmt: str, repo: str,
                  atomic: bool, expect: tuple[str, ...], verbose: bool, quiet: bool) -> None:
    """Apply PATCH (a unified diff or a '*** Begin Patch' envelope, or stdin) to the working
    tree: every file or none.

    Hunks are placed by their context lines; line numbers are hints. A patch that cannot be
    placed exactly once changes nothing and exits 1 with a coded error and a hint.
    """
    from .api import apply_patch
    from .receipt import REFUSED, Receipt

    expect_sha256 = _expectations(expect)
    inputs = _read_inputs(patch_files)
    try:
        patch = _parse_all(inputs, fmt, strip)
    except PatchError as err:
        receipt = Receipt(REFUSED, reverse=reverse, atomic=atomic, error=err)
    else:
        if stat:
            click.echo("\n".join(_stat_lines(patch.files)))
            if not (force_apply or check):
                sys.exit(EXIT_OK)
        receipt = apply_patch(patch, repo, check=check, reverse=reverse, atomic=atomic,
                              expect_sha256=expect_sha256)
    if as_json:
        click.echo(receipt.to_json())
    if receipt.error is not None:
        click.echo(_describe_error(receipt.error), err=True)
        if not receipt.atomic:
            click.echo("\n".join(_partial_lines(receipt)), err=True)
        sys.exit(EXIT_REFUSED)
    if not as_json and not quiet:
        click.echo("\n".join(_summary(receipt, verbose)))
    sys.exit(EXIT_OK)


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
    def name(action: str, old: str | None, new: str | None) -> str:
        return f"{old} -> {new}" if action == "rename" else str(new or old)

    done = [name(c.action, c.old_path, c.new_path) for c in receipt.files]
    left = [name(u["action"], u["old_path"], u["new_path"]) for u in receipt.unapplied]
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
    from .api import convert_patch

    ((_, data),) = _read_inputs((patch_file,))
    try:
        out = convert_patch(data, repo, to=to, format=fmt, strip=strip)
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
        cli.main(args=argv, prog_name=_prog_name(), standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("interrupted; nothing was changed", err=True)
        sys.exit(130)


def _prog_name() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "holon-apply"
    return "git holon-apply" if name == "git-holon-apply" else "holon-apply"
