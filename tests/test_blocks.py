"""SEARCH/REPLACE blocks read from a model's reply as it is (parse/blocks.py): aider's, Cline's
and Roo Code's markers, file names as each writes them, through the same engine as any
edit (core/plan/edits.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from clisupport import holon
from gitsupport import applied, refused
from repos.builders import git, make_repo

from holon_git.parse import detect_format, parse_patch

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
README = "# Calc\n\nAdds numbers.\n"


@pytest.fixture
def repo_files() -> Mapping[str, str | bytes]:
    return {"src/calc.py": CALC, "README.md": README, "twice.txt": "end\nmiddle\nend\n"}


AIDER = """I'll rename the argument and document it.

src/calc.py
```python
<<<<<<< SEARCH
def add(a, b):
    return a + b
=======
def add(x, y):
    return x + y
>>>>>>> REPLACE
```

And the other one, in the same file:

```python
<<<<<<< SEARCH
    return a - b
=======
    return b - a
>>>>>>> REPLACE
```

README.md
```markdown
<<<<<<< SEARCH
Adds numbers.
=======
Adds and subtracts numbers.
>>>>>>> REPLACE
```

That's all.
"""

CALC_AFTER = CALC.replace("add(a, b):\n    return a + b", "add(x, y):\n    return x + y") \
    .replace("return a - b", "return b - a")


def read(repo: Path, path: str) -> str:
    return (repo / path).read_text()


def test_an_aider_reply_applies_as_it_is(repo: Path):
    receipt = applied(repo, AIDER)
    assert receipt.format == "blocks"
    assert read(repo, "src/calc.py") == CALC_AFTER
    assert read(repo, "README.md") == README.replace("Adds numbers.", "Adds and subtracts "
                                                     "numbers.")
    assert [change.edit for change in receipt.files] == [1, 2, 3]
    # each edit is named with the line of its SEARCH marker
    assert parse_patch(AIDER).files[1].patch_line == 17


def test_a_re_sent_reply_is_already_applied_and_reverses(repo: Path):
    applied(repo, AIDER)
    refused(repo, AIDER, "already_applied")
    applied(repo, AIDER, reverse=True)
    assert read(repo, "src/calc.py") == CALC


CLINE = """<replace_in_file>
<path>src/calc.py</path>
<diff>
------- SEARCH
    return a - b
=======
    return a - b  # difference
+++++++ REPLACE
</diff>
</replace_in_file>
"""


def test_clines_markers_and_path_tag(repo: Path):
    assert detect_format(CLINE.encode()) == "blocks"
    applied(repo, CLINE)
    assert read(repo, "src/calc.py") == CALC.replace("a - b", "a - b  # difference")


ROO = """<apply_diff>
<path>twice.txt</path>
<diff>
<<<<<<< SEARCH
:start_line:3
-------
end
=======
END
>>>>>>> REPLACE
</diff>
</apply_diff>
"""


def test_roos_start_line_chooses_among_copies(repo: Path):
    applied(repo, ROO)
    assert read(repo, "twice.txt") == "end\nmiddle\nEND\n"
    # without the hint, the two copies are refused, named by their lines
    git(repo, "checkout", "twice.txt")
    err = refused(repo, ROO.replace(":start_line:3\n-------\n", "").replace("END", "FIN"),
                  "ambiguous_context")
    assert err.details["candidate_lines"] == [1, 3]


def test_an_empty_search_creates_a_file_or_appends_as_aider_does(repo: Path):
    reply = ("docs/new.md\n```\n<<<<<<< SEARCH\n=======\n# New\n>>>>>>> REPLACE\n```\n\n"
             "README.md\n```\n<<<<<<< SEARCH\n=======\nMore.\n>>>>>>> REPLACE\n```\n")
    applied(repo, reply)
    assert read(repo, "docs/new.md") == "# New\n"
    assert read(repo, "README.md") == README + "More.\n"
    refused(repo, reply, "already_applied")


def test_a_search_not_in_the_file_goes_down_the_ladder(repo: Path):
    reply = "src/calc.py\n<<<<<<< SEARCH\ndef sub(a, b):\n  return a - b\n=======\n" \
            "def sub(a, b):\n  return a - b - 0\n>>>>>>> REPLACE\n"
    receipt = applied(repo, reply)
    assert "    return a - b - 0\n" in read(repo, "src/calc.py")
    assert "whitespace" in receipt.files[0].hunks[0].tolerances


def test_the_command_line_applies_a_reply_file_and_converts_it(repo: Path):
    (repo.parent / "reply.txt").write_text(AIDER)
    ran = holon(repo, "convert", str(repo.parent / "reply.txt"))
    assert ran.returncode == 0, ran.stderr
    assert "@@ -1,6 +1,6 @@\n-def add(a, b):\n-    return a + b\n+def add(x, y):\n" in ran.stdout
    ran = holon(repo, "--json", str(repo.parent / "reply.txt"))
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["format"] == "blocks"
    assert read(repo, "src/calc.py") == CALC_AFTER
    git(repo, "checkout", ".")
    assert holon(repo, "--format", "blocks", "-", stdin=CLINE).returncode == 0


@pytest.mark.parametrize(("reply", "code", "words"), [
    ("src/calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return 0\n",
     "patch_parse_error", "not closed"),
    ("src/calc.py\n<<<<<<< SEARCH\n    return a - b\n>>>>>>> REPLACE\n",
     "patch_parse_error", "no '=======' line"),
    ("src/calc.py\n<<<<<<< SEARCH\n    return a - b\n", "patch_parse_error", "no '======='"),
    ("Here is the fix:\n\n<<<<<<< SEARCH\n    return a - b\n=======\n    return 0\n"
     ">>>>>>> REPLACE\n", "patch_parse_error", "no file name"),
    ("../etc/passwd\n<<<<<<< SEARCH\nroot\n=======\nx\n>>>>>>> REPLACE\n", "path_escape", ""),
    ("src/calc.py\n<<<<<<< SEARCH\nno such line\n=======\nx\n>>>>>>> REPLACE\n",
     "context_not_found", "edit 1"),
    ("src/calc.py\n<<<<<<< SEARCH\n\xff\n=======\nx\n>>>>>>> REPLACE\n".encode("latin-1"),
     "context_not_found", ""),
])
def test_malformed_replies_are_refused_with_nothing_changed(repo: Path, reply: str | bytes,
                                                            code: str, words: str):
    err = refused(repo, reply, code)
    assert words in err.message


def test_atomic_over_several_files(repo: Path):
    reply = AIDER.replace("Adds numbers.\n=======", "Subtracts numbers.\n=======")
    err = refused(repo, reply, "context_not_found")
    assert err.path == "README.md" and err.details["edit"] == 3


def test_edits_written_as_blocks_and_json_read_back_the_same():
    from holon_git import Edit
    from holon_git.errors import PatchError
    from holon_git.parse.blocks import blocks_text
    from holon_git.parse.edits import edits_json

    edits = [Edit("src/calc.py", "    return a + b\n", "    return b + a\n"),
             Edit("README.md", "Adds numbers.\n", "")]
    for text, format in ((blocks_text(edits), "blocks"), (edits_json(edits), "edits")):
        patch = parse_patch(text)
        assert patch.format == format
        assert [(fp.path, fp.hunks[0].edit and fp.hunks[0].edit.old,
                 fp.hunks[0].edit and fp.hunks[0].edit.new) for fp in patch.files] == [
            ("src/calc.py", b"    return a + b\n", b"    return b + a\n"),
            ("README.md", b"Adds numbers.\n", b"")]
    with pytest.raises(PatchError):
        blocks_text([Edit("a.py", "inside a line", "x")])
    assert json.loads(edits_json([Edit("a.py", "x", "y", replace_all=True)])) == [
        {"path": "a.py", "old_str": "x", "new_str": "y", "replace_all": True}]


def test_blocks_on_every_target_and_a_stale_file_merged(repo: Path):
    from gitsupport import head

    applied(repo, CLINE, target="index")
    assert "# difference" in git(repo, "show", ":src/calc.py")
    assert read(repo, "src/calc.py") == CALC
    git(repo, "reset", "-q")
    parent = head(repo)
    receipt = applied(repo, CLINE, commit=True, message="blocks")
    assert receipt.extra["commit"] == head(repo) != parent
    git(repo, "reset", "-q", "--hard", parent)
    git(repo, "checkout", "-q", "-b", "side")
    applied(repo, CLINE, ref="main", message="onto main")
    assert "# difference" in git(repo, "show", "main:src/calc.py")
    # the model read the committed file; a line of its SEARCH text changed since, apart
    # from the line it changes
    (repo / "src/calc.py").write_text(CALC.replace("def add(a, b):", "def add(a, b):  # +"))
    reply = f"src/calc.py\n<<<<<<< SEARCH\n{CALC}=======\n" \
        f"{CALC.replace('a - b', 'a - b  # ok')}>>>>>>> REPLACE\n"
    receipt = applied(repo, reply)
    assert receipt.files[0].three_way is not None
    assert read(repo, "src/calc.py") == CALC.replace("def add(a, b):", "def add(a, b):  # +") \
        .replace("a - b", "a - b  # ok")


def test_a_block_over_a_files_last_line_without_a_newline_keeps_it_so(tmp_path: Path):
    # a block's lines each end with a newline, the file's last line too; the file's own
    # missing newline is kept, not added by the block
    repo = make_repo(tmp_path / "r", {"tail.py": "x = 1\nreturn_value = x\nDONE = True",
                                      "crlf.txt": b"one\r\ntwo"})
    applied(repo, "tail.py\n<<<<<<< SEARCH\nDONE = True\n=======\nDONE = False\n"
            ">>>>>>> REPLACE\n")
    assert (repo / "tail.py").read_bytes() == b"x = 1\nreturn_value = x\nDONE = False"
    applied(repo, json.dumps([{"path": "crlf.txt", "old_str": "two\r\n", "new_str": "2\r\n"}]))
    assert (repo / "crlf.txt").read_bytes() == b"one\r\n2"
    # read so, the old text must still be there once, at the end
    refused(repo, "tail.py\n<<<<<<< SEARCH\nx = 2\n=======\nx = 3\n>>>>>>> REPLACE\n",
            "context_not_found")
