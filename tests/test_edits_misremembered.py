"""Edits by their text whose old text the model misremembered (issue 44): placed by the
ladder's last rungs as a diff's hunk is (a line invented, a line skipped, a blank line
short), and refused where an edit, which carries no line number, no section text and no
word on which of its lines are context, does not say the place or the result: a side that
fits another place (the two-places trap), a blank line whose side changes the result."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from gitsupport import applied, refused
from repos.builders import make_repo

SETTINGS = '''import os


from settings.defaults import DEFAULT_OPTIONS


class Loader:
    """
    Load the settings of a project from its folder.
    """

    def run(self, folder):
        with open(os.path.join(folder, "settings.toml")) as handle:
            text = handle.read()
        return parse_settings(text, DEFAULT_OPTIONS)


def first():
    return 1


def second():
    return 2
'''


@pytest.fixture
def repo_files() -> Mapping[str, str | bytes]:
    return {"conf.py": SETTINGS}


def edit(old: str, new: str) -> str:
    return json.dumps([{"path": "conf.py", "old_str": old, "new_str": new}])


def blocks(old: str, new: str) -> str:
    return f"conf.py\n```\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n```\n"


def text(repo: Path) -> str:
    return (repo / "conf.py").read_text()


RUN = ("    def run(self, folder):\n"
       "        with open(os.path.join(folder, \"settings.toml\")) as handle:\n"
       "            text = handle.read()\n")


@pytest.mark.parametrize("form", [edit, blocks])
def test_an_invented_line_is_left_out_and_the_edit_placed_by_the_rest(repo: Path, form):
    # the line after the changed one is not the file's, nor anywhere in it
    old = RUN + "        return parse_settings(text, DEFAULT_OPTIONS)\n    # end of run"
    new = old.replace("(text, DEFAULT_OPTIONS)", "(text, DEFAULT_OPTIONS, strict=True)")
    receipt = applied(repo, form(old, new))
    assert text(repo) == SETTINGS.replace("(text, DEFAULT_OPTIONS)",
                                          "(text, DEFAULT_OPTIONS, strict=True)")
    assert receipt.files[0].hunks[0].tolerances == ["context_invented"]
    assert "# end of run" in receipt.files[0].diagnostics[0].message


def test_an_invented_line_found_elsewhere_in_the_file_is_refused(repo: Path):
    # the 'invented' line is the file's, further up: the edit may describe that place
    old = (RUN + "        return parse_settings(text, DEFAULT_OPTIONS)\n"
           "from settings.defaults import DEFAULT_OPTIONS")
    new = old.replace("(text, DEFAULT_OPTIONS)", "(text)")
    refused(repo, edit(old, new), "context_not_found")


def test_a_skipped_line_is_kept_and_the_edit_placed(repo: Path):
    # the docstring's lines are skipped between two context lines, away from the change
    old = ('class Loader:\n    """\n    Load the settings of a project from its folder.\n\n'
           "    def run(self, folder):\n        with open(os.path.join(folder, "
           "\"settings.toml\")) as handle:\n            text = handle.read()")
    new = old.replace("text = handle.read()", "text = handle.read().strip()")
    receipt = applied(repo, edit(old, new))
    assert text(repo) == SETTINGS.replace("handle.read()", "handle.read().strip()")
    assert receipt.files[0].hunks[0].tolerances == ["context_gap"]


def test_a_blank_line_short_between_kept_lines_is_the_model_s_slip(repo: Path):
    # one blank line where the file has two, between lines the edit keeps
    old = "def first():\n    return 1\n\ndef second():\n    return 2"
    new = old.replace("return 2", "return 22")
    receipt = applied(repo, edit(old, new))
    assert text(repo) == SETTINGS.replace("return 2\n", "return 22\n")
    assert receipt.files[0].hunks[0].tolerances == ["context_gap"]


def test_a_blank_line_short_where_its_side_changes_the_result_is_refused(repo: Path):
    # The edit inserts a function between two; its old text has one blank line where the
    # file has two. The blank line it kept is the first or the second of the file's: a diff
    # says which by its context lines, an edit does not, and the two readings put the new
    # function's blank lines differently. Refused, nothing changed.
    old = "    return 1\n\ndef second():"
    new = "    return 1\n\n\ndef middle():\n    return 0\n\ndef second():"
    err = refused(repo, edit(old, new), "context_not_found")
    assert "an edit does not say which" in err.message


@pytest.mark.parametrize("form", [edit, blocks])
@pytest.mark.parametrize("inserted", ["import json\n", "import json\n\n\n"])
def test_the_two_places_trap_is_refused(repo: Path, form, inserted: str):
    # An insertion whose leading lines are the class's (lines 7-9) and whose trailing lines
    # are the imports' (lines 2-4): each side is the file's, at two places. Read without its
    # leading side, the edit fits the imports; but the class holds as many of its old lines
    # (no line number says which is meant), and read with the inserted lines a line up
    # among the blank lines (an edit does not say which of them it keeps) the leading side
    # fits too. Refused, not placed at either.
    old = ('class Loader:\n    """\n    Load the settings of a project from its folder.\n\n\n'
           "from settings.defaults import DEFAULT_OPTIONS")
    new = old.replace("folder.\n\n\n", "folder.\n\n" + inserted)
    err = refused(repo, form(old, new), "context_not_found")
    assert any(said in err.message for said in (
        "2 places", "an edit does not say which", "no line number to say which place"))


IMPORTS = ("import os\nimport sys\n\nimport deprecated_helpers\n\nfrom app import settings\n"
           "from app import views\n\n\ndef main():\n    views.serve(settings.PORT)\n")


def test_a_skipped_line_beside_a_removal_is_read_the_way_the_edit_fits(tmp_path: Path):
    # The edit removes an import and one of the blank lines around it, and skips the file's
    # 'from app import settings'. Read with the blank line after the import removed, the
    # skipped line is next to the removal (a conflict, refused); read with the blank line
    # before it removed (an edit does not say which), it is between two kept lines: that
    # reading places the edit.
    repo = make_repo(tmp_path / "r", {"app.py": IMPORTS})
    old = "import sys\n\nimport deprecated_helpers\n\nfrom app import views"
    new = "import sys\n\nfrom app import views"
    receipt = applied(repo, json.dumps([{"path": "app.py", "old_str": old, "new_str": new}]))
    assert (repo / "app.py").read_text() == IMPORTS.replace("import deprecated_helpers\n\n", "")
    assert receipt.files[0].hunks[0].tolerances == ["context_gap"]


SOCKETS = ("import json\nimport socket\n\n\ndef serve(port):\n    server = socket.socket()\n"
           "    server.bind((\"\", port))\n    return json.dumps({\"port\": port})\n")


def test_a_short_line_once_in_the_file_places_an_edit_whose_other_line_is_invented(
        tmp_path: Path):
    # 'import socket' alone is too little to say where a diff's hunk goes without its line
    # number; in an edit, a line of the file once, with nothing else as close, says it
    repo = make_repo(tmp_path / "r", {"serve.py": SOCKETS})
    old = "from helpers import retry_forever\nimport socket\n"
    new = "from helpers import retry_forever\nimport select\nimport socket\n"
    edit_text = json.dumps([{"path": "serve.py", "old_str": old, "new_str": new}])
    receipt = applied(repo, edit_text)
    assert (repo / "serve.py").read_text() == SOCKETS.replace(
        "import socket\n", "import select\nimport socket\n")
    assert receipt.files[0].hunks[0].tolerances == ["context_invented"]


def test_a_short_line_twice_in_the_file_does_not_place_it(tmp_path: Path):
    twice = SOCKETS + "\n\ndef client():\n    import socket\n    return socket.socket()\n"
    repo = make_repo(tmp_path / "r", {"serve.py": twice})
    old = "from helpers import retry_forever\nimport socket\n"
    new = "from helpers import retry_forever\nimport select\nimport socket\n"
    refused(repo, json.dumps([{"path": "serve.py", "old_str": old, "new_str": new}]),
            "context_not_found")
