"""The MCP server's tools without the protocol: their definitions, argument checks, which
repositories a call may use, read_region, and one call answered — on real repositories.
(tests/test_mcp_server.py runs the same through the SDK's stdio client.)"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from repos.builders import git, make_bare_repo, make_repo, snapshot

from holon_git.errors import PatchError
from holon_git.mcp_server import region as region_module
from holon_git.mcp_server.calls import answer, refusal
from holon_git.mcp_server.confine import Confinement, roots_from_uris
from holon_git.mcp_server.region import read_region
from holon_git.mcp_server.tools import (
    APPLY,
    CHECK,
    READ,
    REPLACE,
    check_arguments,
    instructions,
    tool_specs,
)
from holon_git.provider import prompt, tool_definition

GREET = 'def greet(name):\n    return "Hello, " + name\n\n\ndef farewell(name):\n' \
    '    return "Goodbye, " + name\n'
DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"src/greet.py": GREET, "README": "hi\n"}


def code_of(call, *args, **kwargs) -> str:
    with pytest.raises(PatchError) as caught:
        call(*args, **kwargs)
    return caught.value.code


# -- the definitions ---------------------------------------------------------------------------

def test_tools_reuse_the_provider_text_under_their_mcp_name():
    specs = {spec.name: spec for spec in tool_specs()}
    assert list(specs) == [APPLY, CHECK, REPLACE, READ]
    assert specs[REPLACE].input_schema["required"] == ["path", "old_str", "new_str"]
    anthropic = tool_definition("anthropic")
    apply_spec = specs[APPLY]
    assert apply_spec.description.startswith(
        anthropic["description"].replace("ApplyPatch", "apply_patch"))
    for name in (APPLY, CHECK):
        assert specs[name].input_schema["properties"]["patch"] == \
            anthropic["input_schema"]["properties"]["patch"]
        assert specs[name].input_schema["required"] == ["patch"]
    assert specs[READ].input_schema["required"] == ["path"]
    assert instructions().startswith(prompt("anthropic").replace("ApplyPatch", "apply_patch")
                                     .rstrip())
    for spec in specs.values():
        assert "ApplyPatch" not in spec.description + json.dumps(spec.input_schema)
        assert spec.input_schema["additionalProperties"] is False


def test_schemas_are_valid_json_schema():
    from jsonschema import validators

    for spec in tool_specs():
        for schema in (spec.input_schema, spec.output_schema):
            validators.validator_for(schema).check_schema(schema)
            assert schema["type"] == "object"


@pytest.mark.parametrize("tool, arguments, named", [
    (APPLY, {}, "patch"),
    (APPLY, {"patch": 3}, "patch"),
    (APPLY, {"patch": "x", "target": "ref"}, "target"),
    (APPLY, {"patch": "x", "diff": "y"}, "diff"),
    (APPLY, {"patch": "x", "expect_sha256": {"a": 1}}, "expect_sha256/a"),
    (CHECK, {"patch": "x", "check_only": True}, "check_only"),
    (READ, {"path": "a", "start_line": 0}, "start_line"),
    (READ, {"path": "a", "start_line": 5, "end_line": 4}, "end_line"),
    (READ, {"start_line": 1}, "path"),
    (READ, [], "object"),
])
def test_arguments_that_do_not_fit_the_schema_are_refused(tool, arguments, named):
    with pytest.raises(PatchError) as caught:
        check_arguments(tool, arguments)
    assert caught.value.code == "invalid_tool_input"
    assert named in caught.value.message and tool in caught.value.hint


def test_arguments_that_fit_pass_unchanged():
    arguments = {"patch": "x", "check_only": True, "target": "both", "expect_sha256": {"a": ""},
                 "repo": "/r"}
    assert check_arguments(APPLY, arguments) == arguments
    assert check_arguments(READ, {"path": "a", "start_line": 3, "end_line": 3})


# -- which repository ---------------------------------------------------------------------------

def test_served_repositories_are_their_working_tree_tops(tmp_path: Path, repo: Path):
    other = make_repo(tmp_path / "other", {"a": "a\n"})
    served = Confinement([str(repo / "src"), str(other), str(repo)])
    assert served.repos == (os.path.realpath(repo), os.path.realpath(other))
    assert code_of(Confinement, [str(tmp_path)]) == "not_a_repository"
    assert code_of(Confinement, [str(tmp_path / "missing")]) == "not_a_repository"
    bare = make_bare_repo(tmp_path / "bare.git")
    assert code_of(Confinement, [str(bare)]) == "not_a_repository"


def test_a_call_may_name_only_a_served_repository(tmp_path: Path, repo: Path):
    top = os.path.realpath(repo)
    nested = make_repo(repo / "vendor" / "lib", {"x": "x\n"})
    outside = make_repo(tmp_path / "outside", {"x": "x\n"})
    (tmp_path / "link").symlink_to(repo)
    served = Confinement([str(repo)])
    assert served.resolve(None, None, APPLY) == top
    assert served.resolve(str(repo / "src"), None, APPLY) == top
    assert served.resolve(str(tmp_path / "link"), None, APPLY) == top
    for path in (nested, outside, tmp_path, tmp_path / "missing", "relative/missing"):
        assert code_of(served.resolve, str(path), None, APPLY) == "repo_not_served"


def test_client_roots_narrow_the_served_repositories(tmp_path: Path, repo: Path):
    other = make_repo(tmp_path / "other", {"a": "a\n"})
    served = Confinement([str(repo), str(other)])
    top, other_top = os.path.realpath(repo), os.path.realpath(other)
    assert code_of(served.resolve, None, None, APPLY) == "invalid_tool_input"  # which one?
    only_repo = roots_from_uris([repo.as_uri()])
    assert served.resolve(None, only_repo, APPLY) == top
    assert code_of(served.resolve, str(other), only_repo, APPLY) == "repo_not_served"
    both = roots_from_uris([tmp_path.as_uri()])
    assert served.resolve(str(other), both, APPLY) == other_top
    inside_repo = roots_from_uris([(repo / "src").as_uri()])  # part of a repository: not all
    assert code_of(served.resolve, None, inside_repo, APPLY) == "repo_not_served"
    assert code_of(served.resolve, str(repo), inside_repo, APPLY) == "repo_not_served"


def test_roots_from_uris():
    assert roots_from_uris([]) is None
    assert roots_from_uris(["https://example.com/x", "git://h/r"]) is None
    assert roots_from_uris(["file:///tmp/a%20b", "file://localhost/srv", "file://host/x"]) == (
        os.path.realpath("/tmp/a b"), os.path.realpath("/srv"))


# -- read_region --------------------------------------------------------------------------------

def test_read_region_numbers_the_lines(repo: Path):
    region = read_region(str(repo), "src/greet.py", 5, 6)
    assert region.text() == (
        "src/greet.py, lines 5-6 of 6 (number|text):\n"
        "5|def farewell(name):\n"
        '6|    return "Goodbye, " + name\n'
        f"sha256: {hashlib.sha256(GREET.encode()).hexdigest()}")
    data = region.to_dict()
    assert data["lines"] == [{"line": 5, "text": "def farewell(name):"},
                             {"line": 6, "text": '    return "Goodbye, " + name'}]
    assert (data["total_lines"], data["line_endings"], data["final_newline"]) == (6, "lf", True)
    assert read_region(str(repo), "./src//greet.py").end_line == 6  # the path is normalized


@pytest.mark.parametrize("content, endings, note", [
    (b"a\r\nb\r\n", "crlf", "line endings: CRLF"),
    (b"a\r\nb\n", "mixed", "line endings: MIXED"),
    (b"a\nb", "lf", "no newline at the end of the file"),
    (b"only", "none", "no newline at the end of the file"),
    (b"a\n\xe9t\xe9\n", "lf", "not valid UTF-8"),
])
def test_read_region_notes_what_the_text_does_not_show(tmp_path: Path, content: bytes,
                                                       endings: str, note: str):
    repo = make_repo(tmp_path / "r", {"f": content})
    region = read_region(str(repo), "f")
    assert region.line_endings == endings
    assert any(line.startswith(note) for line in region.notes), region.notes
    assert "\r" not in "".join(text for _, text in region.lines)


def test_read_region_of_an_empty_file_and_past_the_end(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"empty": b"", "three": b"1\n2\n3\n"})
    assert read_region(str(repo), "empty").text().startswith("empty is empty (0 lines).")
    past = read_region(str(repo), "three", 7, 9)
    assert past.lines == [] and past.text().startswith("three has 3 lines; nothing at line 7")
    assert read_region(str(repo), "three", 2, 99).lines == [(2, "2"), (3, "3")]


def test_read_region_stops_at_its_caps_and_says_where_to_go_on(tmp_path: Path):
    many = "".join(f"line {n}\n" for n in range(1, 1001))
    wide = "".join("x" * 3_000 + f" {n}\n" for n in range(1, 40))
    huge = "y" * 10_000 + "\n"
    repo = make_repo(tmp_path / "r", {"many": many, "wide": wide, "huge": huge})
    region = read_region(str(repo), "many", 10)
    assert len(region.lines) == region_module.MAX_LINES and region.next_line == 410
    assert "start_line=410" in region.text()
    region = read_region(str(repo), "wide")
    assert region.next_line == len(region.lines) + 1 < 40
    assert sum(len(text) for _, text in region.lines) <= region_module.MAX_CHARS + 3_010
    region = read_region(str(repo), "huge")
    assert region.lines[0][1].endswith("[... 6000 more characters]")
    assert "lines clipped at 4000 characters: 1" in region.text()
    assert read_region(str(repo), "many", 999).next_line is None


@pytest.mark.parametrize("path, code", [
    ("../outside", "path_escape"),
    ("/etc/passwd", "path_escape"),
    (".git/config", "path_escape"),
    (".GIT/config", "path_escape"),
    ("src", "not_a_regular_file"),
    ("missing.py", "not_found"),
    ("link", "symlink_in_path"),
    ("out/x", "path_escape"),
    ("logo.png", "binary_file"),
    (".holon/protect", "protected_path"),
    ("deploy/prod.yml", "protected_path"),
    ("a\x01b", "invalid_path"),
])
def test_read_region_follows_the_path_rules_of_patches(tmp_path: Path, path: str, code: str):
    (tmp_path / "secret").write_text("outside\n")
    repo = make_repo(tmp_path / "r", {"src/a.py": "a\n", "logo.png": b"\x89PNG\0\0",
                                      ".holon/protect": "deploy/\n", "deploy/prod.yml": "x\n"},
                     symlinks={"link": "src/a.py", "out": str(tmp_path)})
    assert code_of(read_region, str(repo), path) == code


@given(lines=st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs"],
                                                     blacklist_characters="\n\r\0"),
                              max_size=12), max_size=30),
       crlf=st.booleans(), final_newline=st.booleans(),
       start=st.integers(1, 35), length=st.integers(0, 40))
def test_read_region_shows_exactly_the_lines_asked_for(tmp_path_factory, lines: list[str],
                                                       crlf: bool, final_newline: bool,
                                                       start: int, length: int):
    """The shown lines, numbered from start_line, are the file's lines there, whatever the
    text, line endings and final newline; joined back they give the file's bytes."""
    newline = "\r\n" if crlf else "\n"
    text = newline.join(lines) + (newline if final_newline and lines else "")
    content = text.encode()
    repo = tmp_path_factory.getbasetemp() / "region-property"
    if not repo.exists():
        make_repo(repo)
    (repo / "f.txt").write_bytes(content)
    region = read_region(str(repo), "f.txt", start, start + length)
    expected = content.decode().split(newline)
    if content.endswith(newline.encode()) or not content:
        expected.pop()
    assert region.total_lines == len(expected)
    assert region.lines == [(n, expected[n - 1])
                            for n in range(start, min(start + length, len(expected)) + 1)]
    assert region.sha256 == hashlib.sha256(content).hexdigest()
    shown = region.text().split("\n")  # not splitlines(): the text may hold \x1e, \u2028
    assert shown[1:1 + len(region.lines)] == [f"{n}|{t}" for n, t in region.lines]
    if region.total_lines and start == 1 and start + length >= len(expected):
        rebuilt = newline.join(t for _, t in region.lines)
        assert rebuilt + (newline if region.final_newline else "") == text


# -- a call answered ----------------------------------------------------------------------------

EDIT = ("--- a/src/greet.py\n+++ b/src/greet.py\n@@ -5,2 +5,2 @@\n def farewell(name):\n"
        '-    return "Goodbye, " + name\n+    return f"Goodbye, {name}!"\n')


def test_apply_check_and_stale_check_through_answer(repo: Path):
    before = snapshot(repo)
    checked = answer(CHECK, {"patch": EDIT}, str(repo))
    assert not checked.is_error and checked.structured["status"] == "checked"
    assert checked.text.startswith("check_patch would apply (checked, nothing written): 1 file.")
    assert snapshot(repo) == before
    assert answer(APPLY, {"patch": EDIT, "check_only": True}, str(repo)).structured[
        "status"] == "checked"
    stale = answer(APPLY, {"patch": EDIT, "expect_sha256": {"src/greet.py": "0" * 64}}, str(repo))
    assert stale.is_error and stale.structured["error"]["code"] == "stale_file"
    assert snapshot(repo) == before
    sha = answer(READ, {"path": "src/greet.py"}, str(repo)).structured["sha256"]
    done = answer(APPLY, {"patch": EDIT, "expect_sha256": {"src/greet.py": sha}}, str(repo))
    assert not done.is_error and done.structured["status"] == "applied"
    assert done.text == "apply_patch applied: 1 file.\nmodify src/greet.py: +1 -1, 1 hunk at line 5"
    assert 'f"Goodbye, {name}!"' in (repo / "src/greet.py").read_text()


def test_apply_to_the_index_only(repo: Path):
    head, files = git(repo, "rev-parse", "HEAD"), snapshot(repo)
    done = answer(APPLY, {"patch": EDIT, "target": "index"}, str(repo))
    assert not done.is_error and done.structured["target"] == "index"
    assert snapshot(repo) == files and git(repo, "rev-parse", "HEAD") == head
    assert "Goodbye, {name}!" in git(repo, "show", ":src/greet.py")


def test_refusals_carry_the_code_in_text_and_structured_content(repo: Path):
    err = PatchError("repo_not_served", "'/x' is not a directory")
    for tool in (APPLY, CHECK):
        refused = refusal(tool, err, {"patch": "x", "target": "both"})
        assert refused.is_error and refused.structured["status"] == "refused"
        assert refused.structured["target"] == "both"
        assert refused.structured["error"]["code"] == "repo_not_served"
        assert refused.text.splitlines()[:2] == [
            f"{tool} refused the patch; nothing was changed.", "error: repo_not_served"]
    read = refusal(READ, err, {"path": "a.py"})
    assert read.structured == {"status": "refused", "path": "a.py", "error": err.to_dict()}
    assert read.text.startswith("read_region refused; nothing was read.\nerror: repo_not_served")
    bad = answer(READ, {"path": "../x"}, str(repo))
    assert bad.is_error and bad.structured["error"]["code"] == "path_escape"


def _errors_md_example(code: str) -> dict:
    section = re.split(r"^## `([a-z_]+)`\n", (DOCS / "errors.md").read_text(), flags=re.M)
    text = dict(zip(section[1::2], section[2::2], strict=True))[code]
    found = re.search(r"Example:\n\n```\n(.*?)\n```", text, flags=re.S)
    assert found is not None, code
    return json.loads(found.group(1))


def test_errors_md_examples_of_the_mcp_codes(repo: Path):
    call = _errors_md_example("repo_not_served")
    arguments = check_arguments(call["name"], call["arguments"])
    served = Confinement([str(repo)])
    assert code_of(served.resolve, arguments["repo"], None, call["name"]) == "repo_not_served"
    call = _errors_md_example("binary_file")
    (repo / "assets").mkdir()
    (repo / "assets/logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    got = answer(call["name"], check_arguments(call["name"], call["arguments"]), str(repo))
    assert got.is_error and got.structured["error"]["code"] == "binary_file"


@pytest.mark.parametrize("arguments, message", [
    ({"diff": "--- a/f.txt"}, "unknown argument 'diff': apply_patch takes patch, check_only, "
     "target, expect_sha256, repo; the required 'patch' is missing: rename 'diff' to 'patch'"),
    ({"patch": "x", "diff": "y"}, "unknown argument 'diff': apply_patch takes patch, "
     "check_only, target, expect_sha256, repo"),
    ({"diff": "x", "file": "f"}, "unknown arguments 'diff', 'file': apply_patch takes patch, "
     "check_only, target, expect_sha256, repo; the required 'patch' is missing"),
], ids=["renamed", "extra", "two"])
def test_an_unknown_argument_is_named_beside_the_missing_one(arguments: dict, message: str):
    """{"diff": ...} for {"patch": ...}: the model learns which of its arguments is wrong,
    not only that 'patch' is missing."""
    with pytest.raises(PatchError) as caught:
        check_arguments(APPLY, arguments)
    assert caught.value.code == "invalid_tool_input"
    assert caught.value.message == message


def test_str_replace_reads_an_absolute_path_inside_the_repository(repo: Path):
    edit = {"path": str(repo / "src" / "greet.py"), "old_str": '"Hello, "',
            "new_str": '"Hi, "'}
    done = answer(REPLACE, edit, str(repo))
    assert not done.is_error, done.text
    assert done.structured["files"][0]["new_path"] == "src/greet.py"
    outside = answer(REPLACE, {**edit, "path": "/etc/passwd"}, str(repo))
    assert outside.is_error and outside.structured["error"]["code"] == "path_escape"
