"""What a git user types and reads (issue 45, item 6): long options by a unique prefix,
'help' and 'version' as commands, git's words for -p too many, no empty location, a hint
for a colored diff, long hints wrapped, no click jargon, -h's command list whole."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from clisupport import PATCH, holon, report_lines
from repos.builders import git_env, git_state, snapshot

from holon_git.report import WIDTH


def git_apply(repo: Path, *args: str, stdin: str | bytes) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(["git", "apply", *args], cwd=repo, input=data, capture_output=True,
                          env=git_env(), check=False)


@pytest.mark.parametrize("typed, full", [("--rej", "--reject"), ("--chec", "--check"),
                                         ("--numst", "--numstat"), ("--no-at", "--no-atomic")])
def test_a_unique_prefix_of_a_long_option_is_the_option(repo: Path, typed: str, full: str):
    """As git's parse-options takes them: the same output as the option spelt out."""
    shortened, spelt = holon(repo, typed, "-", stdin=PATCH), None
    (repo / "f.txt").write_text("one\ntwo\nthree\nfour\nfive\n")
    spelt = holon(repo, full, "-", stdin=PATCH)
    assert (shortened.returncode, shortened.stdout, shortened.stderr) == \
        (spelt.returncode, spelt.stdout, spelt.stderr)
    assert shortened.returncode == 0, shortened.stderr


def test_a_prefix_takes_its_value_after_an_equals_sign_or_as_the_next_word(repo: Path):
    (repo / "sub").mkdir()
    (repo / "sub" / "f.txt").write_text("one\ntwo\nthree\nfour\nfive\n")
    assert holon(repo, "--direc=sub", "-", stdin=PATCH).returncode == 0
    assert (repo / "sub" / "f.txt").read_text() == "one\ntwo\nTHREE\nfour\nfive\n"
    done = holon(repo, "--inc", "nothing/*", "--allow-em", "-", stdin=PATCH)
    assert done.returncode == 0 and (repo / "f.txt").read_text().startswith("one\ntwo\nthree")


def test_an_option_value_that_looks_like_an_option_is_left_alone(repo: Path):
    """'-m --rej' is the message '--rej', not --reject."""
    done = holon(repo, "--commit", "-m", "--rej", "-", stdin=PATCH)
    assert done.returncode == 0, done.stderr
    from repos.builders import git

    assert git(repo, "log", "-1", "--format=%s") == "--rej\n"


def test_an_ambiguous_prefix_names_every_option_it_could_be(repo: Path):
    before, state = snapshot(repo), git_state(repo)
    done = holon(repo, "--re", "-", stdin=PATCH)
    assert done.returncode == 2
    assert report_lines(done.stderr)[0] == (
        "error: usage_error: ambiguous option: --re (could be --recount, --recover, --ref, "
        "--reject, --repo, --retry or --reverse)")
    # git's own refusal of the same word is 'ambiguous option: re (could be ...)' too
    assert b"ambiguous option: re (could be --re" in git_apply(repo, "--re", stdin=PATCH).stderr
    assert snapshot(repo) == before and git_state(repo) == state


def test_subcommands_take_prefixes_too(repo: Path):
    done = holon(repo, "tool-spec", "--prov", "openai")
    assert done.returncode == 0 and '"name": "ApplyPatch"' in done.stdout


@pytest.mark.parametrize("args, command", [(["help"], None), (["help", "mcp"], "mcp"),
                                           (["help", "apply"], None),
                                           (["help", "nothing"], None)])
def test_help_is_a_command_as_in_git(repo: Path, args: list[str], command: str | None):
    done = holon(repo, *args)
    expected = holon(repo, *([command] if command else []), "-h")
    assert done.returncode == 0 and done.stdout == expected.stdout
    assert done.stdout.startswith("Usage: holon-apply " + (f"{command} " if command else ""))


def test_version_is_a_command_as_in_git(repo: Path):
    done = holon(repo, "version")
    assert done.returncode == 0 and done.stdout == holon(repo, "--version").stdout
    assert done.stdout.startswith("holon-git ")


def test_a_file_named_help_is_still_a_patch(repo: Path):
    (repo / "help").write_text(PATCH)
    done = holon(repo, "help")
    assert done.returncode == 0, done.stderr
    assert (repo / "f.txt").read_text() == "one\ntwo\nTHREE\nfour\nfive\n"


def test_p_too_many_is_said_in_gits_words_and_is_a_usage_error(repo: Path):
    git_patch = "diff --git a/f.txt b/f.txt\n" + PATCH
    before = snapshot(repo)
    done = holon(repo, "-p2", "-", stdin=git_patch)
    assert done.returncode == 2
    theirs = git_apply(repo, "-p2", stdin=git_patch)
    assert theirs.returncode == 128  # git's fatal error; holon-git's usage error exits 2
    assert b"lacks filename information when removing 2 leading pathname components" \
        in theirs.stderr
    assert report_lines(done.stderr) == [
        "error: usage_error: patch line 1: 'a/f.txt' lacks filename information when "
        "removing 2 leading pathname components",
        "hint: 'a/f.txt' has 2 pathname components: strip at most 1 (-p1), or give no -p "
        "('a/' and 'b/' prefixes are found without it)"]
    assert snapshot(repo) == before


def test_an_empty_patch_has_no_location_to_show(repo: Path):
    done = holon(repo, "-", stdin="")
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == "error: empty_patch: no file patch found in the input"
    done = holon(repo, "-", stdin="just some words\n")
    assert done.stderr.splitlines()[0] == "error: empty_patch: no file patch found in the input"


def test_a_colored_diff_is_refused_with_a_hint_to_make_it_without_color(repo: Path):
    (repo / "f.txt").write_text("one\ntwo\nTHREE\nfour\nfive\n")
    colored = subprocess.run(["git", "diff", "--color=always"], cwd=repo, capture_output=True,
                             env=git_env(), check=True).stdout
    subprocess.run(["git", "checkout", "--", "f.txt"], cwd=repo, env=git_env(), check=True)
    assert b"\x1b[" in colored
    before = snapshot(repo)
    done = holon(repo, "-", stdin=colored)
    assert done.returncode == 1 and snapshot(repo) == before
    assert report_lines(done.stderr) == [
        "error: empty_patch: no file patch found in the input; it holds terminal color codes",
        "hint: the patch was written with color (git diff --color, or color.ui=always to a "
        "file): make it again with --no-color"]
    plain = subprocess.run(["git", "diff", "--no-color"], cwd=repo, capture_output=True,
                           env=git_env(), check=True).stdout
    assert plain == b""  # the working tree is as before: the color made no edit


def test_a_long_hint_is_wrapped_at_its_words(repo: Path):
    done = holon(repo, "-", stdin=PATCH.replace("f.txt", "missing.txt"))
    assert done.returncode == 1
    hint = done.stderr[done.stderr.index("hint: "):].splitlines()
    assert len(hint) > 2 and all(len(line) <= WIDTH for line in hint), hint
    assert all(line.startswith("  ") for line in hint[1:])
    joined = " ".join(line.strip() for line in hint)
    assert "(a patch without 'diff --git' headers: from the directory you apply in;" in joined


@pytest.mark.parametrize("args, message", [
    (["-p", "-1"], "-p takes a whole number, 0 or more, not '-1'"),
    (["--retry", "x"], "--retry takes a whole number, 0 or more, not 'x'"),
    (["-C", "1.5"], "-C takes a whole number, 0 or more, not '1.5'"),
    (["tool-spec"], "--provider is required: one of openai, anthropic"),
    (["grammar", "x"], "holon-apply grammar takes no argument: x")])
def test_messages_use_no_click_jargon(repo: Path, args: list[str], message: str):
    done = holon(repo, *args, stdin=PATCH)
    assert done.returncode == 2
    assert report_lines(done.stderr)[0] == f"error: usage_error: {message}"


def test_help_and_man_page_use_no_click_jargon(repo: Path):
    from holon_git.cli import cli

    manual = (Path(__file__).parent.parent / "man" / "man1" / "git-holon-apply.1").read_text()
    for text in [holon(repo, "-h").stdout, manual,
                 *(holon(repo, name, "-h").stdout for name in cli.commands)]:
        assert "x>=" not in text and "integer range" not in text
        # click's type names as metavars: options name what they take (DIR, MESSAGE)
        assert not re.search(r"\b(TEXT|INTEGER|DIRECTORY|FILENAME|BOOLEAN)\b", text), text


def test_help_lists_every_command_with_its_whole_first_sentence(repo: Path):
    from holon_git.cli import cli

    text = holon(repo, "-h").stdout
    listed = " ".join(text[text.index("\nOther commands:\n"):].split())
    assert "..." not in listed
    for name, command in cli.commands.items():
        if name != "apply":
            first = (command.help or "").split("\n\n")[0].split(". ")[0]
            assert " ".join(first.split()).rstrip(".") in listed, name
