"""The documentation stays true: every error code raised is documented, example patches marked
for testing apply (or are refused as they say), every CLI option is in docs/cli.md, the
generated files (man page, hook scripts) are up to date, README links resolve, and the man page
is installed where `git help holon-apply` finds it."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from repos.builders import git_env, make_repo, snapshot
from slow_marker import SLOW_RUN

from holon_git.api import apply_patch
from holon_git.cli import cli
from holon_git.errors import HINTS, PatchError

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXAMPLE_REPO = ROOT / "examples" / "repo"


# error codes

def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _code_arg(call: ast.Call) -> ast.expr | None:
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "code"), None)


def _literals(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and re.fullmatch(r"[a-z]+(_[a-z0-9]+)*", n.value)]


def raised_codes() -> dict[str, list[str]]:
    """Every code passed to PatchError(...) in holon_git, with where it is raised.

    A code must be a string literal; or a local variable assigned only from literals; or the
    ``code`` parameter of a small helper (such as ``_error(code, ...)``) whose callers pass
    literals.
    """
    trees = {path: ast.parse(path.read_text(), filename=str(path))
             for path in sorted((ROOT / "holon_git").rglob("*.py"))}
    helpers, found = {"PatchError"}, {}
    functions = [(path, f) for path, tree in trees.items() for f in ast.walk(tree)
                 if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)]
    for _, func in functions:
        params = {a.arg for a in func.args.args + func.args.kwonlyargs}
        for call in ast.walk(func):
            if isinstance(call, ast.Call) and _name(call.func) == "PatchError":
                arg = _code_arg(call)
                if isinstance(arg, ast.Name) and arg.id in params:
                    helpers.add(func.name)
    for path, func in functions:
        params = {a.arg for a in func.args.args + func.args.kwonlyargs}
        for call in ast.walk(func):
            if not (isinstance(call, ast.Call) and _name(call.func) in helpers):
                continue
            arg, where = _code_arg(call), f"{path.relative_to(ROOT)}:{call.lineno}"
            if isinstance(arg, ast.Name) and arg.id in params:
                continue  # inside a helper: checked at the helper's call sites
            if isinstance(arg, ast.Name):  # a local: every value assigned to it
                values = [v for node in ast.walk(func) if isinstance(node, ast.Assign)
                          and any(isinstance(t, ast.Name) and t.id == arg.id
                                  for t in node.targets) for v in _literals(node.value)]
            else:
                values = [arg.value] if isinstance(arg, ast.Constant) else []
            assert values and all(isinstance(v, str) for v in values), \
                f"{where}: the error code is not a literal, so it cannot be checked"
            for value in values:
                found.setdefault(value, []).append(where)
    return found


def documented_codes() -> dict[str, str]:
    parts = re.split(r"^## `([a-z_]+)`\n", (DOCS / "errors.md").read_text(), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@pytest.mark.slow
def test_every_raised_code_is_registered_and_documented():
    raised = raised_codes()
    assert len(raised) > 20  # the scan really finds the raise sites
    documented = documented_codes()
    for code, sites in raised.items():
        assert code in HINTS, f"{code} raised at {sites} is not registered in errors.HINTS"
        assert code in documented, f"{code} raised at {sites} is not documented in errors.md"


def test_every_registered_code_is_documented_with_example_and_exact_hint():
    documented = documented_codes()
    assert set(HINTS) <= set(documented), sorted(set(HINTS) - set(documented))
    for code in HINTS:
        text = documented[code]
        assert "Example:" in text, code
        hint = re.search(r"^Hint: (.*)$", text, flags=re.M)
        assert hint is not None and hint.group(1) == HINTS[code], code


# Patch-level examples in errors.md that parsing alone must refuse with their own code.
PARSE_EXAMPLES = ("empty_patch", "patch_parse_error", "missing_file_header",
                  "invalid_hunk_header", "malformed_hunk", "truncated_patch",
                  "hunk_kind_mismatch", "missing_hunks", "file_path_mismatch",
                  "duplicate_file_patch", "path_escape", "inconsistent_header",
                  "rename_path_mismatch")


@pytest.mark.parametrize("code", PARSE_EXAMPLES)
def test_errors_md_parse_examples_raise_their_code(code: str, tmp_path: Path):
    example = re.search(r"Example:\n\n```[^\n]*\n(.*?)^```", documented_codes()[code],
                        flags=re.M | re.S)
    assert example is not None, code
    repo = make_repo(tmp_path / "r", {"README": "x\n"})
    before = snapshot(repo)
    receipt = apply_patch(example.group(1), repo)
    assert receipt.error is not None and receipt.error.code == code, receipt.to_json()
    assert snapshot(repo) == before


def test_errors_md_forged_journal_example_is_refused(tmp_path: Path):
    """The journal_invalid example, planted as a crash journal, is refused by --recover and
    changes nothing."""
    from holon_git.errors import PatchError
    from holon_git.recover import recover

    example = re.search(r"Example:\n\n```json\n(.*?)^```", documented_codes()["journal_invalid"],
                        flags=re.M | re.S)
    assert example is not None
    repo = make_repo(tmp_path / "r", {"README": "x\n"})
    where = repo / ".git" / "holon-apply" / "1700000000-4242-deadbeef"
    where.mkdir(parents=True)
    (where / "journal.json").write_text(example.group(1))
    (where / "preimages").write_bytes(b"")
    before = snapshot(repo)
    with pytest.raises(PatchError) as caught:
        recover(repo)
    assert caught.value.code == "journal_invalid"
    assert snapshot(repo) == before and not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert (where / "journal.json").exists()


def test_errors_md_patch_too_large_example_is_refused_past_a_lowered_cap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The real caps need a patch of 100,000 file patches; the example shows three, refused
    with the file cap lowered to two (and applied when it is three)."""
    from holon_git.parse import limits

    example = re.search(r"Example:\n.*?```[^\n]*\n(.*?)^```",
                        documented_codes()["patch_too_large"], flags=re.M | re.S)
    assert example is not None
    repo = make_repo(tmp_path / "r", {"README": "x\n"})
    before = snapshot(repo)
    monkeypatch.setattr(limits, "MAX_FILES", 2)
    receipt = apply_patch(example.group(1), repo, check=True)
    assert receipt.error is not None and receipt.error.code == "patch_too_large"
    assert receipt.error.details == {"limit": "file patches", "at_most": 2}
    assert snapshot(repo) == before
    monkeypatch.setattr(limits, "MAX_FILES", 3)
    assert apply_patch(example.group(1), repo, check=True).ok


# example patches

FENCE = re.compile(r"^```diff holon-example(?P<opts>[^\n]*)\n(?P<body>.*?)^```$", re.M | re.S)


def doc_examples() -> list[tuple[str, str, str]]:
    out = []
    for doc in sorted([*DOCS.glob("*.md"), ROOT / "README.md"]):
        for n, match in enumerate(FENCE.finditer(doc.read_text()), 1):
            out.append((f"{doc.name}#{n}", match.group("opts").strip(), match.group("body")))
    return out


EXAMPLES = doc_examples()
EXAMPLE_FLAGS = {"twice", "reverse", "after-previous", "cached"}


def test_docs_have_marked_examples():
    assert len(EXAMPLES) >= 2
    assert any(not opts for _, opts, _ in EXAMPLES)
    assert any(opts.startswith("refuse=") for _, opts, _ in EXAMPLES)


def _previous_example(name: str) -> str:
    doc, number = name.split("#")
    previous = {n: body for n, _, body in EXAMPLES}.get(f"{doc}#{int(number) - 1}")
    assert previous is not None, f"{name}: after-previous, but no example before it"
    return previous


@pytest.mark.parametrize("name, opts, body", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_doc_example_patch(name: str, opts: str, body: str, tmp_path: Path):
    """```diff holon-example``` blocks apply to examples/repo; ``refuse=CODE`` ones are
    refused with CODE and change nothing. Flags: ``twice`` applies the block once first (a
    re-send), ``after-previous`` applies the doc's example before it first (uncommitted: a
    stale patch), ``reverse`` applies with -R, ``cached`` to the index (--cached)."""
    words = opts.split()
    flags = {w for w in words if not w.startswith("refuse=")}
    assert flags <= EXAMPLE_FLAGS, f"{name}: unknown example option in {opts!r}"
    refuse = next((w[len("refuse="):] for w in words if w.startswith("refuse=")), None)
    files = {str(p.relative_to(EXAMPLE_REPO)): p.read_bytes()
             for p in EXAMPLE_REPO.rglob("*") if p.is_file()}
    repo = make_repo(tmp_path / "r", files)
    if "after-previous" in flags:
        assert apply_patch(_previous_example(name), repo).ok
    if "twice" in flags:
        assert apply_patch(body, repo).ok
    before = snapshot(repo)
    receipt = apply_patch(body, repo, reverse="reverse" in flags,
                          target="index" if "cached" in flags else "worktree")
    if refuse is not None:
        assert receipt.error is not None and receipt.error.code == refuse, receipt.to_json()
        assert snapshot(repo) == before
    else:
        assert receipt.ok, receipt.to_json()
        assert snapshot(repo) != before


# the CLI reference

def every_option() -> list[tuple[str, str]]:
    out = []
    for name, command in cli.commands.items():
        for param in command.params:
            if isinstance(param, click.Option):
                out.extend((name, opt) for opt in [*param.opts, *param.secondary_opts])
    return out


def test_every_cli_option_and_command_is_in_cli_md():
    text = (DOCS / "cli.md").read_text()
    for name in cli.commands:
        assert name == "apply" or f"`{name}" in text, f"command {name} is not in docs/cli.md"
    for command, opt in every_option():
        assert re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", text), \
            f"{command} option {opt} is not in docs/cli.md"


@pytest.mark.slow
def test_generated_files_are_up_to_date():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_docs.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_docs_tables_and_transcripts_are_generated_blocks():
    """providers.md's cost table and mcp.md's transcript are blocks gen_docs.py writes from
    what the tool answers (test_generated_files_are_up_to_date compares them with a new run),
    and a block whose body differs from that is rewritten."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_docs
    finally:
        sys.path.remove(str(ROOT / "tools"))
    wanted = {"providers.md": {"provider-cost", "provider-call", "provider-refusal",
                               "provider-retry-call", "provider-retry"},
              "mcp.md": {"mcp-refused", "mcp-read-region", "mcp-repaired"}}
    for doc, names in wanted.items():
        blocks = {m["name"]: m["body"] for m in gen_docs.MARKED.finditer((DOCS / doc).read_text())}
        assert set(blocks) == names, doc
        assert all(body.strip() for body in blocks.values()), doc
    stale = ("<!-- generated: provider-cost (x) -->\n| tool call | 578 |\n"
             "<!-- end: provider-cost -->\n")
    assert gen_docs.filled(stale) == ("<!-- generated: provider-cost (x) -->\n"
                                      + gen_docs.cost_table() + "<!-- end: provider-cost -->\n")


def test_man_page_notes_fit_the_terminal():
    """NOTES (the help's epilogue) is text man fills to the terminal's width; what is kept as
    written ('.nf') is short lines, where a paragraph kept so ran past 80 columns."""
    page = (ROOT / "man" / "man1" / "git-holon-apply.1").read_text()
    notes = page[page.index(".SH NOTES"):page.index(".SH ERRORS")]
    assert notes.index(".PP") < notes.index(".nf"), notes  # 'Exit status: ...' filled
    kept = notes[notes.index(".nf"):notes.index(".fi")].splitlines()[1:]
    assert kept and all(len(line.replace("\\-", "-")) <= 72 for line in kept), kept


def test_man_page_carries_every_option_of_the_help():
    page = (ROOT / "man" / "man1" / "git-holon-apply.1").read_text()
    for _, opt in every_option():
        assert opt.replace("-", "\\-") in page, opt


def test_readme_links_every_doc_and_they_exist():
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)#]+)\)", readme)
    for link in links:
        if not link.startswith("http"):
            assert (ROOT / link).exists(), link
    for doc in DOCS.glob("*.md"):
        assert f"docs/{doc.name}" in links, f"README does not link docs/{doc.name}"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("man") is None, reason="no man program on this system")
@pytest.mark.parametrize("editable", [False, True], ids=["install", "editable-install"])
def test_installed_man_page_is_found_by_git_help(tmp_path: Path, editable: bool,
                                                request: pytest.FixtureRequest):
    """A regular install (of the run's wheel, conftest.py) and an editable one (`pip install
    -e`, the README's quick start) put the page in PREFIX/share/man/man1, which man searches
    for PREFIX/bin on PATH; `git help holon-apply` then shows it."""
    prefix = tmp_path / "prefix"
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    # --ignore-installed: without it pip would uninstall the running (editable) holon-git
    install = [*pip, "install", "--no-deps", "--ignore-installed", "--prefix", str(prefix)]
    if editable:
        subprocess.run([*install, "-e", str(ROOT)], check=True, capture_output=True)
    else:
        wheel = request.getfixturevalue("built_wheel")
        subprocess.run([*install, str(wheel)], check=True, capture_output=True)
    page = prefix / "share" / "man" / "man1" / "git-holon-apply.1"
    assert page.read_bytes() == (ROOT / "man" / "man1" / "git-holon-apply.1").read_bytes()
    env = git_env({"MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100"})
    env.pop("MANPATH", None)
    env["PATH"] = str(prefix / "bin") + os.pathsep + env["PATH"]
    where = subprocess.run(["man", "-w", "git-holon-apply"], env=env, capture_output=True,
                           text=True)
    assert where.stdout.strip() == str(page), where.stderr
    shown = subprocess.run(["git", "help", "holon-apply"], env=env, capture_output=True,
                           text=True, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "GIT-HOLON-APPLY(1)" in shown.stdout and "--holon-output" in shown.stdout.replace(
        "\u2010", "-")


def quick_start_lines() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Quick start"):readme.index("## Use")]
    block = section[section.index("```sh\n") + 6:section.index("\n```", section.index("```sh"))]
    return block.splitlines()


def test_quick_start_is_two_commands_in_a_virtual_environment_and_ci_runs_the_second():
    install, test = quick_start_lines()
    for line in (install, test):  # each works alone in a new shell, on an externally managed python
        assert line.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e ")
    assert install.endswith("sh examples/quickstart.sh") and "[test]" in test
    # every test: first the default run (under two minutes), then the ones marked slow
    assert test.endswith(f"&& python -m pytest -q -n auto && {SLOW_RUN}")
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == test


@pytest.mark.parametrize("installed", [True, False], ids=["runs", "fails"])
def test_quick_start_script_leaves_no_temporary_directory(tmp_path: Path, installed: bool):
    """examples/quickstart.sh removes its throwaway repository when it ends, also when it
    fails (here: no git-holon-apply on PATH); it prints the plain summary, not the receipt,
    and leaves the receipt in one file it names (issue 45)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = git_env({"TMPDIR": str(scratch)})
    path = [p for p in env.get("PATH", "").split(os.pathsep)
            if not (Path(p) / "git-holon-apply").exists()]
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent)] * installed + path)
    done = subprocess.run(["sh", str(ROOT / "examples" / "quickstart.sh")], env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert (done.returncode == 0) is installed, done.stderr
    assert ("Applied 3 files (1 added), 3 hunks." in done.stdout.splitlines()) is installed
    assert '"status"' not in done.stdout
    left = scratch / "holon-example-receipt.json"
    assert list(scratch.iterdir()) == ([left] if installed else [])
    if installed:
        assert "== the receipt (git holon-apply --check --json examples/fix.patch): " \
            f"{left}" in done.stdout.splitlines()
        assert json.loads(left.read_text())["status"] == "checked"


# Models retired or announced for retirement by their SDKs (anthropic 1.13's
# DEPRECATED_MODELS, with their end-of-life dates), which the docs must not show; when the SDK
# is installed, its own list is used too.
RETIRED_MODELS = {
    "claude-3-sonnet-20240229", "claude-3-opus-20240229", "claude-2.1", "claude-2.0",
    "claude-3-7-sonnet-latest", "claude-3-7-sonnet-20250219", "claude-3-5-haiku-latest",
    "claude-3-5-haiku-20241022", "claude-opus-4-0", "claude-opus-4-20250514",
    "claude-sonnet-4-0", "claude-sonnet-4-20250514", "claude-mythos-preview",
    "claude-sonnet-4-5", "claude-sonnet-4-5-20250929",
}


def test_docs_name_no_retired_model():
    retired = set(RETIRED_MODELS)
    try:
        from anthropic.resources.messages.messages import DEPRECATED_MODELS
    except ImportError:  # the SDK is no dependency: the list above stands for it
        pass
    else:
        retired |= set(DEPRECATED_MODELS)
    named = set()
    for doc in [*DOCS.glob("*.md"), ROOT / "README.md"]:
        named |= set(re.findall(r'model="([^"]+)"|"model": "([^"]+)"', doc.read_text()))
    models = {one for pair in named for one in pair if one}
    assert models, "no model named: the pattern no longer finds them"
    assert models & retired == set()


def test_receipt_md_example_has_the_fields_of_a_real_receipt(tmp_path: Path):
    """The example in receipt.md lists a real receipt's fields, in their order: top level,
    per file and per hunk (a fenced markdown patch whose first hunk drifted)."""
    text = (DOCS / "receipt.md").read_text()
    start = text.index("```json\n") + len("```json\n")
    example = json.loads(text[start:text.index("\n```", start)])
    repo = make_repo(tmp_path / "r", {"src/greet.py": "".join(f"l{i}\n" for i in range(1, 20))})
    patch = ("```diff\n--- a/src/greet.py\n+++ b/src/greet.py\n@@ -2,2 +2,2 @@\n l4\n-l5\n+L5\n"
             "@@ -12,1 +12,1 @@\n-l12\n+L12\n```\n")
    real = apply_patch(patch, repo).to_dict()
    assert real["status"] == "applied" and real["diagnostics"], real
    assert list(example) == list(real)
    assert list(example["files"][0]) == list(real["files"][0])
    for shown, made in zip(example["files"][0]["hunks"], real["files"][0]["hunks"],
                           strict=True):
        assert list(shown) == list(made)


# A shell transcript right after a holon-example block shows what the command prints for it
TRANSCRIPT = re.compile(r"^```diff holon-example(?P<opts>[^\n]*)\n(?P<body>.*?)^```\n"
                        r"(?:(?!^```)[^\n]*\n)*?^```sh\n(?P<session>\$ git holon-apply .*?)^```$",
                        re.M | re.S)


def transcripts() -> list[tuple[str, str, str]]:
    out = []
    for doc in sorted([*DOCS.glob("*.md"), ROOT / "README.md"]):
        for n, match in enumerate(TRANSCRIPT.finditer(doc.read_text()), 1):
            out.append((f"{doc.name}#{n}", match.group("body"), match.group("session")))
    return out


def _shown_matches(shown: list[str], printed: list[str]) -> bool:
    """Each shown line is printed as is, or, ending in '...', starts the printed line."""
    if len(shown) != len(printed):
        return False
    return all(p.startswith(s[:-3]) if s.endswith("...") else p == s
               for s, p in zip(shown, printed, strict=True))


@pytest.mark.parametrize("name, body, session", transcripts(), ids=[t[0] for t in transcripts()])
def test_doc_transcripts_show_what_the_command_prints(name: str, body: str, session: str,
                                                      tmp_path: Path):
    """`$ git holon-apply ARGS PATCH` after an example: the lines after it are what the
    command prints (stdout, then stderr) for that example in examples/repo; `$ echo $?` is
    followed by its exit status."""
    from clisupport import holon

    files = {str(p.relative_to(EXAMPLE_REPO)): p.read_bytes()
             for p in EXAMPLE_REPO.rglob("*") if p.is_file()}
    repo = make_repo(tmp_path / "r", files)
    commands = re.split(r"^\$ ", session, flags=re.M)[1:]
    status = None
    for command in commands:
        line, *shown = command.rstrip("\n").split("\n")
        if line == "echo $?":
            assert shown == [str(status)], name
            continue
        args = line.split()[2:]
        (repo / args[-1]).write_text(body)
        done = holon(repo, *args)
        status = done.returncode
        printed = (done.stdout + done.stderr).splitlines()
        assert _shown_matches(shown, printed), f"{name}: {printed}"


def test_doc_transcripts_are_found():
    assert len(transcripts()) >= 2


PARSE_ERROR_CASES = [  # in the order of errors.md's patch_parse_error table
    "*** Begin Patch\n*** Update File: a.py\n@@\n-old\n+new\n",
    "prose first\n*** Begin Patch\n*** Delete File: a.py\n*** End Patch\n",
    "*** Begin Patch\n*** Frobnicate File: a.py\n*** End Patch\n",
    "*** Begin Patch\n*** Move File: a.py b.py\n*** End Patch\n",
    "*** Begin Patch\n*** Delete File: a.py\n-x\n*** End Patch\n",
    '[{"path": "a.py", "old_str": ',
    b'[{"path": "a.py", "old_str": "\xff", "new_str": ""}]',
    "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n",
]


def test_errors_md_patch_parse_error_hints_are_the_printed_ones():
    from holon_git.parse import parse_patch

    section = documented_codes()["patch_parse_error"]
    rows = re.findall(r"^\| [^|]+ \| (.+) \|$", section, flags=re.M)[1:]  # after the header
    assert len(rows) == len(PARSE_ERROR_CASES)
    for text, shown in zip(PARSE_ERROR_CASES, rows, strict=True):
        with pytest.raises(PatchError) as raised:
            parse_patch(text)
        assert raised.value.code == "patch_parse_error", text
        hint = raised.value.hint
        assert hint.startswith(shown[:-4]) if shown.endswith(" ...") else hint == shown, hint


def test_tests_readme_names_every_module_and_only_test_files_that_exist():
    """tests/README.md's index: every module of holon_git/ has a row; every test file it
    names exists."""
    index = (ROOT / "tests" / "README.md").read_text()
    rows = [line for line in index.splitlines() if line.startswith("| `")]
    named_modules = {name for row in rows for name in re.findall(r"`([a-z0-9_/]+\.py)`",
                                                                  row.split(" | ")[0])}
    modules = {str(p.relative_to(ROOT / "holon_git")) for p in (ROOT / "holon_git").rglob("*.py")
               if p.name not in ("__init__.py", "__main__.py")}
    assert modules - named_modules == set(), "modules without a row in tests/README.md"
    assert named_modules - modules == set(), "rows for modules that do not exist"
    for name in re.findall(r"`((?:security/)?test_[a-z_]+\.py)`", index):
        assert (ROOT / "tests" / name).is_file(), name


@pytest.mark.slow
def test_tests_readme_one_repo_fixture_and_one_apply_helper_pair():
    """tests/README.md's rules for the shared pieces: a module never builds its own `repo`
    fixture (it overrides `repo_files`, or extends the shared one: ``def repo(repo)``), and
    the library tests' `applied`/`refused` are gitsupport's (a module's own of those names
    calls them)."""
    builds_own, own_helpers = [], []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name in ("conftest.py", "gitsupport.py") or "scenarios" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.FunctionDef):
                continue
            params = [a.arg for a in node.args.args]
            if node.name == "repo" and params[:1] != ["repo"]:
                builds_own.append(str(path.relative_to(ROOT)))
            calls = {n.func.id for n in ast.walk(node)
                     if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
            if node.name in ("applied", "refused") and params[:1] == ["repo"] and not calls & {
                    "applied_patch", "refused_patch", "applied", "refused"}:
                own_helpers.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert builds_own == [], "a module builds its own repo fixture"
    assert own_helpers == [], "a module has its own apply helper"


def test_hooks_md_pins_a_commit_as_the_repository_has_no_tags():
    """pre-commit's rev must name something that exists: the repository has no release tags,
    so the example gives a full commit id."""
    rev = re.search(r"^\s+rev: (\S+)", (DOCS / "hooks.md").read_text(), flags=re.M)
    assert rev is not None and re.fullmatch(r"[0-9a-f]{40}", rev.group(1)), rev


def test_every_link_between_documents_resolves():
    """Every relative link in the documentation names a file of the repository (providers.md
    once pointed at a specification that is not in it)."""
    for doc in [*DOCS.glob("*.md"), ROOT / "README.md", ROOT / "tests" / "README.md"]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text()):
            if not target.startswith(("http://", "https://", "mailto:")):
                assert (doc.parent / target).exists(), f"{doc.name} links {target}"


def test_architecture_md_ladder_table_names_every_rung_in_order():
    """Issue 29 item 1: docs/architecture.md shows the ladder as a table, rung by rung in the
    order core/place/ladder.py tries them (the five levels, then the last rungs)."""
    from holon_git.core.place.ladder import LAST_RUNGS
    from holon_git.core.place.match import LEVELS

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text[text.index("| rung | what it tolerates | what it reports |"):]
    rows = [line.split("|")[1].strip() for line in table.splitlines()[2:]
            if line.startswith("| ")]
    named = [row for row in rows if not row.startswith(("each of", "*"))]
    last = [rung.name for rung in LAST_RUNGS]
    assert named[:len(LEVELS)] == list(LEVELS)
    assert [row.split(",")[0] for row in named[len(LEVELS):len(LEVELS) + len(last)]] == last



def _json_blocks(text: str) -> list[str]:
    return re.findall(r"^```json\n(.*?)^```$", text, re.M | re.S)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_providers_md_example_call_gives_the_result_it_shows(tmp_path: Path, provider: str):
    """The model's call in providers.md, run on examples/repo, gives exactly the tool result
    the next request is shown carrying (its hunk's line included)."""
    from holon_git.provider import run_tool_call

    text = (DOCS / "providers.md").read_text()
    text = text[text.index("## OpenAI" if provider == "openai" else "## Anthropic"):]
    blocks = [json.loads(block) for block in _json_blocks(text)[:3]]
    call = next(b for b in blocks if b.get("type") in ("custom_tool_call", "tool_use"))
    shown = next(b for b in blocks if b.get("type") == "custom_tool_call_output"
                 or b.get("role") == "user")
    shown_text = shown["output"] if provider == "openai" else shown["content"][0]["content"]
    files = {str(p.relative_to(EXAMPLE_REPO)): p.read_bytes()
             for p in EXAMPLE_REPO.rglob("*") if p.is_file()}
    repo = make_repo(tmp_path / "r", files)
    outcome = run_tool_call(provider, call if provider == "anthropic" else call["input"], repo)
    assert outcome.text == shown_text


# Models the SDKs name (anthropic 2.17.0's Model, openai 3.63.0's ResponsesModel), for when
# they are not installed: the docs name only models that exist
KNOWN_MODELS = {"gpt-5", "gpt-5.5", "gpt-6-sol", "claude-sonnet-5-5", "claude-opus-5-5",
                "claude-sonnet-5", "claude-haiku-5-5"}


def test_docs_name_only_models_the_sdks_know():
    import typing

    known = set(KNOWN_MODELS)
    for module, name in (("anthropic.types", "Model"),
                         ("openai.types.shared", "ResponsesModel")):
        try:
            alias = getattr(__import__(module, fromlist=[name]), name)
        except ImportError:  # the SDKs are no dependency: the set above stands for them
            continue
        known |= {arg for part in typing.get_args(alias) for arg in typing.get_args(part)
                  if isinstance(arg, str)}
    named = set()
    for doc in [*DOCS.glob("*.md"), ROOT / "README.md"]:
        named |= {one for pair in re.findall(r'model="([^"]+)"|"model": "([^"]+)"',
                                             doc.read_text()) for one in pair if one}
    assert named and named <= known, named - known


@pytest.mark.slow
def test_the_quick_starts_test_run_says_bringing_up_nodes_once(tmp_path: Path):
    """`python -m pytest -q -n 2`, its output not a terminal (as in CI or a pipe): xdist's
    status line once, not twice (conftest.py)."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-p",
                           "no:cacheprovider", "tests/test_cli_habits.py", "-k",
                           "version_is_a_command"],
                          cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env={**os.environ, "TMPDIR": str(tmp_path)}, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("bringing up nodes...") == 1, done.stdout
