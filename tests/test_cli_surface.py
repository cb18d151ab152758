"""The command line's surface as a new user meets it (issue 22): one error style, a receipt
for every outcome with --json, usage errors that exit 2, help that tells the truth."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clisupport import PATCH, holon, report_lines
from repos.builders import git_state, make_repo, snapshot


def one_error(stderr: str, code: str) -> str:
    """The error line of ``stderr`` (which must be exactly 'error: CODE: ...' and 'hint: ...'),
    without its prefix."""
    lines = report_lines(stderr)
    assert len(lines) == 2, stderr
    assert lines[0].startswith(f"error: {code}: "), stderr
    assert lines[1].startswith("hint: "), stderr
    return lines[0][len(f"error: {code}: "):]


USAGE_ERRORS = [
    (["-m", "x"], "-m/--message is for --commit or --ref"),
    (["missing.diff"], "cannot read patch 'missing.diff'"),
    (["--emit-diff", "-"], "--emit-diff - and --json both write to stdout"),
    (["--no-such-option"], "No such option"),
    (["-p", "-1"], "-p"),
    (["--format", "xml"], "'xml' is not one of"),
    (["--commit"], "--commit and --ref need a commit message"),
    (["--ref", "main", "--cached", "-m", "m"], "--ref commits onto a branch; it cannot"),
    (["--ref", "main", "--commit", "-m", "m"], "give one of them"),
    (["--base", "main"], "--base is the commit a new --ref branch starts from"),
    (["--retry", "2"], "--retry is for --ref"),
    (["--fsync", "--cached"], "--fsync is for writes to the working tree"),
    (["--no-atomic", "--index"], "--no-atomic applies to the working tree only"),
    (["--expect-sha256", "f.txt"], "expected PATH=HEX"),
    (["--expect-sha256", "f.txt=abc"], "f.txt=abc: the sha256 is not 64 hex digits"),
    (["--force"], "--force and --write-receipt go with --holon-output"),
    (["--recover", "x.diff"], "--recover takes no patch"),
]


@pytest.mark.parametrize("args, words", USAGE_ERRORS, ids=[" ".join(a) for a, _ in USAGE_ERRORS])
def test_every_usage_error_with_json_prints_a_receipt_and_exits_2(repo: Path, args: list[str],
                                                                  words: str):
    before, state = snapshot(repo), git_state(repo)
    done = holon(repo, "--json", *args, stdin=PATCH)
    assert done.returncode == 2, done.stderr
    receipt = json.loads(done.stdout)
    assert receipt["status"] == "refused"
    if "--recover" not in args:  # --recover reports in its own shape (docs/cli.md)
        assert receipt["receipt_version"] == 1 and receipt["files"] == []
    assert receipt["error"]["code"] == "usage_error"
    assert words in receipt["error"]["message"]
    assert one_error(done.stderr, "usage_error") == receipt["error"]["message"]
    assert snapshot(repo) == before and git_state(repo) == state


@pytest.mark.parametrize("args, words", [e for e in USAGE_ERRORS if "--emit-diff" not in e[0]])
def test_usage_errors_without_json_print_nothing_on_stdout(repo: Path, args: list[str],
                                                          words: str):
    done = holon(repo, *args, stdin=PATCH)
    assert done.returncode == 2 and done.stdout == ""
    assert words in one_error(done.stderr, "usage_error")


def test_usage_text_never_names_the_hidden_subcommand(repo: Path):
    for args in (["--no-such-option"], ["apply", "--no-such-option"], ["--check", "-h"],
                 ["apply", "-h"], ["-h"]):
        done = holon(repo, *args)
        assert not re.search(r"holon-apply apply\b", done.stdout + done.stderr), args
    assert holon(repo, "--check", "-h").stdout.startswith("Usage: holon-apply [OPTIONS]")
    hint = holon(repo, "tool-call").stderr.splitlines()[-1]
    assert hint == "hint: see 'holon-apply tool-call -h'"


def test_help_lists_h_and_version_and_an_epilogue_that_holds(repo: Path):
    for args in (["-h"], ["--help"], ["--check", "-h"]):
        text = holon(repo, *args).stdout
        assert "-h, --help" in text and "--version" in text, args
        epilogue = " ".join(text[text.index("Exit status:"):].split())
        assert "1 refused: nothing was changed (with --no-atomic, the files written before " \
            "the refusal stay written" in epilogue
        assert "git help holon-apply" in epilogue and "docs/" not in epilogue
    assert holon(repo, "--check", "--version").stdout.startswith("holon-git ")


@pytest.mark.parametrize("command", [[], ["convert"], ["tool-call", "--provider", "openai"]])
def test_a_repository_path_that_is_no_directory_is_a_usage_error(repo: Path, tmp_path: Path,
                                                                 patch_file: Path,
                                                                 command: list[str]):
    missing = tmp_path / "nowhere"
    done = holon(repo, *command, "--repo", str(missing), str(patch_file))
    assert done.returncode == 2, done.stderr
    shown = done.stderr if not command or command[0] != "tool-call" else done.stdout
    assert "usage_error" in shown and str(missing) in shown
    assert not missing.exists()


def test_usage_messages_name_the_option_and_details_the_request_field(tmp_path: Path):
    """A usage error names the offending option as the command line spells it ('--ref'),
    never a Python field name in its text; its details name the request's fields, for
    Python ('fields': ['ref'])."""
    from holon_git import apply_patch

    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\nthree\nfour\nfive\n"})
    for options, flag, field in (
            ({"durable": True, "target": "index"}, "--fsync", "durable"),
            ({"target": "ref"}, "--ref", "ref"),
            ({"commit": True}, "-m/--message", "message"),
            ({"retry": 1}, "--retry", "retry"),
            ({"author": "A <a@x>"}, "--author", "author"),
            ({"atomic": False, "emit_diff": True}, "--no-atomic", "atomic"),
            ({"strip": -1}, "-p", "strip"),
            ({"ref": "main", "target": "both", "message": "m"}, "--index", "target"),
            ({"ref": "main", "commit": True, "message": "m"}, "--commit", "commit"),
            ({"base": "main"}, "--base", "base")):
        receipt = apply_patch(PATCH, repo, **options)
        assert receipt.error is not None and receipt.error.code == "usage_error", options
        message = receipt.error.message
        assert flag in message and field in receipt.error.details["fields"], message
        assert not re.search(r"\([a-z_]+(=[^)]*)?\)", message), message  # no '(field)'
        # ...and the hint tells a Python caller the keywords those options are
        assert f"in apply_patch(), these options are the keywords {field}=" in \
            receipt.error.hint or f" {field}=" in receipt.error.hint, receipt.error.hint
    done = holon(repo, "-m", "x", "-", stdin=PATCH)
    assert "error: usage_error: -m/--message is for --commit or --ref\n" in done.stderr


def test_several_patch_files_a_planning_error_names_its_file(repo: Path, tmp_path: Path):
    (repo / "g.txt").write_text("g\n")
    first, second = tmp_path / "1.diff", tmp_path / "2.diff"
    first.write_text(PATCH)
    second.write_text("--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-nope\n+G\n")
    done = holon(repo, "--json", str(first), str(second))
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "context_not_found" and error["details"]["patch_file"] == str(second)
    assert one_error(done.stderr, "context_not_found").startswith(
        f"{second}: hunk 1 of g.txt (patch line 3): ")
    # the same file patch line in the other file: told apart by the patch line's file patch
    first.write_text("--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-g\n+G\n")
    second.write_text(PATCH.replace("-three", "-tree"))
    error = json.loads(holon(repo, "--json", str(first), str(second)).stdout)["error"]
    assert error["path"] == "f.txt" and error["details"]["patch_file"] == str(second)
    # one patch file: nothing to tell apart
    error = json.loads(holon(repo, "--json", str(second)).stdout)["error"]
    assert "patch_file" not in error.get("details", {})


def test_tool_call_takes_the_input_object_or_the_whole_tool_use_block(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"a.txt": "one\ntwo\n"})
    patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
    block = {"type": "tool_use", "id": "toolu_1", "name": "ApplyPatch", "input": {"patch": patch}}
    for call in ({"patch": patch}, block):
        done = holon(repo, "tool-call", "--provider", "anthropic", "--check",
                     stdin=json.dumps(call))
        assert done.returncode == 0, done.stdout
        assert done.stdout.startswith("ApplyPatch would apply")
    bad = holon(repo, "tool-call", "--provider", "anthropic", stdin=json.dumps(
        {"type": "tool_use", "input": {"diff": patch}}))
    assert bad.returncode == 1 and "invalid_tool_input" in bad.stdout


def test_exit_status_follows_the_error_in_every_command(repo: Path, tmp_path: Path):
    """usage_error exits 2, a refusal 1, whichever command it comes from."""
    plain = tmp_path / "plain"
    plain.mkdir()
    assert holon(repo, "patch-check", "missing.diff").returncode == 2
    assert holon(repo, "install-hooks", "post-commit").returncode == 2
    assert holon(repo, "convert", "--to", "xml").returncode == 2
    done = holon(plain, "protect-check")
    assert done.returncode == 1 and one_error(done.stderr, "not_a_repository")
    done = holon(repo, "convert", "-", stdin=PATCH.replace("-three", "-tree"))
    assert done.returncode == 1 and one_error(done.stderr, "context_not_found")


def test_help_names_no_flag_pair_default_by_a_bare_name(repo: Path):
    """click shows a flag pair's default as its first name without dashes ('-3, --3way /
    --no-3way ... [default: 3]'): no pair shows one; its help says which is the default."""
    import click

    from holon_git.cli import cli

    text = " ".join(holon(repo, "-h").stdout.split())
    assert "[default: 3]" not in text and "[default: atomic]" not in text
    assert "--3way is the default" in text and "All files or none (the default)" in text
    for command in cli.commands.values():
        for param in command.params:
            if isinstance(param, click.Option) and param.secondary_opts:
                assert not param.show_default, (command.name, param.name)


@pytest.mark.parametrize("typed, command", [(["instal-hooks"], "install-hooks"),
                                            (["patch-chek"], "patch-check"),
                                            (["tool-spek"], "tool-spec"),
                                            (["tool-spc", "--provider", "openai"], "tool-spec"),
                                            (["mpc", "--repo", "."], "mcp"),
                                            (["verison"], "version")])
def test_a_missing_patch_spelled_like_a_command_suggests_it(repo: Path, typed: list[str],
                                                            command: str):
    """Before the command's options are read as the apply's ('No such option: --provider'),
    as git says "'comit' is not a git command" and suggests commit; one slip (a letter
    wrong, missing, extra, or two swapped) away."""
    done = holon(repo, *typed)
    message = one_error(done.stderr, "usage_error")
    assert done.returncode == 2
    assert message == f"'{typed[0]}' is neither a command nor a patch file (did you mean " \
        f"{command}?)"
    assert f"holon-apply {command}' runs that command" in done.stderr


def test_a_missing_patch_unlike_any_command_suggests_none(repo: Path, tmp_path: Path):
    (repo / "instal-hooks").write_text("not a patch\n")  # a file of that name is a patch
    for typed in ("fix.diff", "install"):
        done = holon(repo, typed)
        assert done.returncode == 2 and "did you mean" not in done.stderr, done.stderr
    done = holon(repo, "instal-hooks")
    assert "did you mean" not in done.stderr and "cannot read" not in done.stderr
