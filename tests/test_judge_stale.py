"""Issue 43, item 3 (classes 3 and 4 of the Why): evidence of a changed place. A patch whose
``index`` line names a version of the file other than its current text allows two readings:
the model's slip on this file, and a stale patch written against the version it names. A
placement stands only when both lead to the same edit; where the stale reading is a
`git merge-file` conflict (a change right next to the patch's) or another place, the hunk is
refused, and the message names the place to re-read.

Each test is a module written here whose file changed since the patch was written: the patch
carries the index line `git diff` writes (the blob of the version it was written against),
and the repository holds only the current text (or, where said, that version at HEAD with the
change uncommitted). The same hunk with an index line naming the current text (a fresh
file: the stale reading is ruled out) still applies where the judge let it before.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from gitsupport import applied, refused
from repos.builders import make_repo
from strategies import git_diff_patch


def blob_id(text: str) -> str:
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def with_index(path: str, base: str, wanted: str, named: str | None = None) -> str:
    """git's diff of ``base`` to ``wanted`` (its section texts git's own), with the headers
    `git diff` writes: the index line names ``named`` (default: ``base``) as the old blob."""
    hunks = git_diff_patch(path, base.encode(), wanted.encode()).decode()
    body = hunks[hunks.index("@@"):]
    old = blob_id(base if named is None else named)
    return (f"diff --git a/{path} b/{path}\nindex {old[:7]}..{blob_id(wanted)[:7]} 100644\n"
            f"--- a/{path}\n+++ b/{path}\n{body}")


def only_current(tmp_path: Path, path: str, current: str) -> Path:
    """A repository holding only the current text (the version the patch names is not in
    it): HEAD, the index and the working tree agree."""
    return make_repo(tmp_path / "r", {path: current})


# -- a hunk that claims the file's end, where lines follow now ------------------------------

STREAM = '''\
class Stream:
    def __init__(self, handle):
        self.handle = handle
        self.buffer = []

    def write(self, chunk):
        self.buffer.append(chunk)

    def close(self):
        self.flush()
        self.handle.close()
'''
STREAM_WANTED = STREAM.replace("        self.handle.close()\n",
                               "        if self.handle is not None:\n"
                               "            self.handle.close()\n")
# since the patch was written, a method was appended after close()
STREAM_NOW = STREAM + '''
    def flush(self):
        self.handle.write("".join(self.buffer))
        self.buffer.clear()
'''


def test_a_hunk_that_ended_the_file_is_refused_where_lines_follow_now(tmp_path: Path) -> None:
    """The hunk has three lines of context before its change and none after: in the version
    it names, the change ended the file. Here a method follows it, appended right next to the
    change (git merge-file: a conflict). Refused, naming the lines; before, it applied."""
    repo = only_current(tmp_path, "stream.py", STREAM_NOW)
    patch = with_index("stream.py", STREAM, STREAM_WANTED)
    error = refused(repo, patch, "context_not_found")
    assert "claims the file's end" in error.message
    assert "re-read lines" in error.message
    assert error.details["evidence"]["lines"] == [8]


def test_a_hunk_that_ended_the_file_merges_as_a_conflict_from_head(tmp_path: Path) -> None:
    """The version the patch names is HEAD, the method appended uncommitted: the merge from
    HEAD conflicts with it, as git merge-file does."""
    repo = make_repo(tmp_path / "r", {"stream.py": STREAM})
    (repo / "stream.py").write_text(STREAM_NOW)
    refused(repo, with_index("stream.py", STREAM, STREAM_WANTED), "merge_conflict")


def test_a_hunk_at_the_end_of_the_version_it_names_still_applies(tmp_path: Path) -> None:
    """The index line names the current text: no stale reading; the hunk is at the file's
    end and applies, as does the same hunk with lines after it and no index line (the edge
    binds insertions only: test_edge_claims)."""
    repo = only_current(tmp_path, "stream.py", STREAM)
    applied(repo, with_index("stream.py", STREAM, STREAM_WANTED))
    assert (repo / "stream.py").read_text() == STREAM_WANTED


# -- a rewritten line right next to the change ----------------------------------------------

PARSER = '''\
def parse_number(text, pos):
    if text.startswith("0x", pos):
        return pos + 2, int(text[pos + 2 :], 16)
    if text.startswith("inf", pos):
        return pos + 3, float("inf")

    raise ValueError(f"bad number at {pos}")


def parse_name(text, pos):
    end = pos
    while end < len(text) and text[end].isalnum():
        end += 1
    return end, text[pos:end]
'''
PARSER_WANTED = PARSER.replace('        return pos + 3, float("inf")\n\n',
                               '        value = float("inf")\n        return pos + 3, value\n')
# since: the error line right after the change was rewritten (another exception, its
# arguments reordered): not an "edited form" by the share of words it keeps
PARSER_NOW = PARSER.replace('    raise ValueError(f"bad number at {pos}")\n',
                            '    raise ParseError("number expected", source=text, at=pos)\n')


def test_a_rewritten_line_next_to_the_change_is_a_conflict(tmp_path: Path) -> None:
    """The hunk's trailing context starts with the line the file rewrote since; read without
    that side, its leading context and changed lines fit once. The stale reading says the
    file changed right beside the edit: refused, naming that line."""
    repo = only_current(tmp_path, "parser.py", PARSER_NOW)
    error = refused(repo, with_index("parser.py", PARSER, PARSER_WANTED), "context_not_found")
    assert "trailing context line next to the change" in error.message
    assert "line 7 is" in error.message


def test_the_same_slip_on_the_version_named_still_applies(tmp_path: Path) -> None:
    """The index line names the current text: the trailing line is the model's slip (it is
    nowhere in the file), and the hunk applies by its other lines, as before."""
    repo = only_current(tmp_path, "parser.py", PARSER_NOW)
    patch = with_index("parser.py", PARSER, PARSER_WANTED, named=PARSER_NOW)
    applied(repo, patch)
    assert (repo / "parser.py").read_text() == PARSER_NOW.replace(
        '        return pos + 3, float("inf")\n\n',
        '        value = float("inf")\n        return pos + 3, value\n')


# -- a side that is the file's lines shifted: its first lines deleted since -----------------

IMPORTS = '''\
import json
import os
import sys
import codecs
import platform

CONFIG = os.environ.get("TOOL_CONFIG", "tool.json")


def load():
    with open(CONFIG) as handle:
        return json.load(handle)
'''
IMPORTS_WANTED = IMPORTS.replace("import sys\n", "import sys\nimport logging\n")
IMPORTS_NOW = IMPORTS.replace("import codecs\nimport platform\n", "")


def test_a_trailing_side_whose_first_lines_were_deleted_is_a_conflict(tmp_path: Path) -> None:
    """The insertion's trailing context starts with two imports deleted since; the rest of
    that side is the file's lines moved up. Read without it, the insertion fits after
    'import sys'; the stale reading says the lines right after the insertion changed."""
    repo = only_current(tmp_path, "tool.py", IMPORTS_NOW)
    error = refused(repo, with_index("tool.py", IMPORTS, IMPORTS_WANTED), "context_not_found")
    assert "'import codecs'" in error.message
    assert "re-read lines" in error.message


# -- a target rewritten since, its distinctive leading line still where it was --------------

SCAN = '''\
def has_partner(kinds, labels, pos):
    found = False
    for i in range(pos - 1, -1, -1):
        kind = kinds.get(labels[i])
        if kind == "transparent":
            continue
        if kind in ("left", "dual"):
            found = True
        break
    if not found:
        return False

    found = False
    for i in range(pos + 1, len(labels)):
        kind = kinds.get(labels[i])
        if kind == "transparent":
            continue
        if kind in ("right", "dual"):
            found = True
            break
    return found
'''
SCAN_WANTED = SCAN.replace('''            found = True
            break
    return found
''', '''            found = True
            trace("partner found")
            break
    return found
''')
# since: the second loop's 'if' became an 'elif' with an 'else: break' after it
SCAN_NOW = SCAN.replace('''        if kind in ("right", "dual"):
            found = True
            break
    return found
''', '''        elif kind in ("right", "dual"):
            found = True
            break
        else:
            break
    return found
''')


def test_a_target_rewritten_since_is_not_taken_by_its_trailing_lines(tmp_path: Path) -> None:
    """The hunk inserts after 'found = True'; the 'if' line above it is an 'elif' now, and
    an 'else: break' was added below. Read without its leading context, the insertion fits
    before the second 'break' alone; but its leading side is still there, right where the
    patch's lines used to be, edited: refused, naming the lines."""
    repo = only_current(tmp_path, "scan.py", SCAN_NOW)
    error = refused(repo, with_index("scan.py", SCAN, SCAN_WANTED), "context_not_found")
    assert "leading context line next to the change" in error.message
    assert "line 21 is '        else:'" in error.message


# -- a look-alike block in a sibling function, the section text naming the other -----------

CHECKS = '''\
def test_wide_letters():
    phrase = "\\u1100\\u1161"
    expect_each = (2, 0)
    expect_total = 2

    # exercise,
    each = tuple(map(width, phrase))
    total = text_width(phrase)

    # verify.
    assert each == expect_each
    assert total == expect_total


def test_combining_marks():
    phrase = "e\\u0301a\\u0300"
    expect_each = (1, 0, 1, 0)
    expect_total = 2

    # exercise,
    each = tuple(map(width, phrase))
    total = text_width(phrase)

    # verify.
    assert each == expect_each
    assert total == expect_total
'''
# the patch drops the per-letter widths in test_combining_marks
CHECKS_WANTED = CHECKS[: CHECKS.index("def test_combining_marks")] + CHECKS[
    CHECKS.index("def test_combining_marks"):].replace(
    "    each = tuple(map(width, phrase))\n", "", 1)
# since: test_combining_marks's phrase changed and its total with it
CHECKS_NOW = CHECKS.replace('    phrase = "e\\u0301a\\u0300"\n    expect_each = (1, 0, 1, 0)\n'
                            '    expect_total = 2\n',
                            '    phrase = "e\\u0301"\n    expect_each = (1, 0)\n'
                            '    expect_total = 1\n')


def test_an_exact_copy_in_a_sibling_is_not_the_place_the_section_names(
        tmp_path: Path) -> None:
    """The hunk's lines, as written, occur exactly once: in test_wide_letters, whose total
    is still 2. Its header names test_combining_marks, and its number points there, where
    the total changed since. The stale reading puts the edit in test_combining_marks: the
    exact copy in the sibling is refused, naming the scope."""
    repo = only_current(tmp_path, "test_width.py", CHECKS_NOW)
    patch = with_index("test_width.py", CHECKS, CHECKS_WANTED)
    assert " @@ def test_combining_marks():\n" in patch
    error = refused(repo, patch, "context_not_found")
    assert "'def test_combining_marks():'" in error.message
    assert (repo / "test_width.py").read_text() == CHECKS_NOW



# -- what is no evidence of a changed place: the narrowness of the rules above --------------

HEADER = '''\
import base64
import string
import struct
import typing as _t


def encode(data):
    return base64.b64encode(data)
'''
HEADER_WANTED = HEADER.replace("import string\n", "import hmac\n")
# since: a docstring above the imports, and the typing alias renamed
HEADER_NOW = '"""Encoding helpers."""\n' + HEADER.replace("import typing as _t\n",
                                                         "import typing as t\n")


def test_lines_added_beyond_the_context_at_the_start_are_no_conflict(tmp_path: Path) -> None:
    """The hunk starts at line 1 with a context line before its change: the docstring added
    above that line since is not next to the change (git merge-file merges it cleanly), and
    the hunk, read without its trailing context (its last line was renamed), applies."""
    repo = only_current(tmp_path, "enc.py", HEADER_NOW)
    applied(repo, with_index("enc.py", HEADER, HEADER_WANTED))
    assert (repo / "enc.py").read_text() == HEADER_NOW.replace("import string\n",
                                                               "import hmac\n")


ALGORITHMS = '''\
class NoSigning(Algorithm):
    """Signs nothing."""

    def sign(self, key, value):
        return b""


class HmacSigning(Algorithm):
    """Signs with an HMAC."""

    digest = staticmethod(hashlib.sha256)
'''
ALGORITHMS_WANTED = ALGORITHMS.replace('    """Signs with an HMAC."""\n',
                                       '    """Signs with an HMAC."""\n    name = "hmac"\n')
# since: a helper function between the two classes
ALGORITHMS_NOW = ALGORITHMS.replace('\n\nclass HmacSigning', '''

def _lazy_sha256(data=b""):
    return hashlib.sha256(data)


class HmacSigning''')


def test_a_definition_added_above_the_hunk_is_no_evidence(tmp_path: Path) -> None:
    """The section text git wrote names the class above the hunk in the version the patch
    names; a helper added between them since means git would name the helper now. The
    hunk's lines are exact at one place, away from its number: the edit is the same in both
    readings, and it applies."""
    repo = only_current(tmp_path, "algorithms.py", ALGORITHMS_NOW)
    patch = with_index("algorithms.py", ALGORITHMS, ALGORITHMS_WANTED)
    assert " @@ class NoSigning(Algorithm):\n" in patch
    applied(repo, patch)
    assert (repo / "algorithms.py").read_text() == ALGORITHMS_NOW.replace(
        '    """Signs with an HMAC."""\n', '    """Signs with an HMAC."""\n    name = "hmac"\n')


# -- the line above the change wrapped onto several lines since ------------------------------

REPORT = '''\
def report(db, query):
    if not query:
        return []
    rows = db.fetch(query, limit=100, timeout=30)
    return [format_row(row) for row in rows]


def summary(rows):
    return len(rows)
'''
REPORT_WANTED = REPORT.replace("    return [format_row(row) for row in rows]\n",
                               "    shown = [format_row(row) for row in rows]\n"
                               "    return shown\n")
REPORT_NOW = REPORT.replace("    rows = db.fetch(query, limit=100, timeout=30)\n",
                            "    rows = db.fetch(\n        query, limit=100, timeout=30\n    )\n")


def test_a_neighbour_wrapped_since_is_a_conflict(tmp_path: Path) -> None:
    """The call right above the changed line was wrapped onto three lines since. Read
    without its leading context, the change fits once; the stale reading says the line
    next to it changed (git merge-file: a conflict). Refused, naming the closing line that
    sits there now."""
    repo = only_current(tmp_path, "report.py", REPORT_NOW)
    error = refused(repo, with_index("report.py", REPORT, REPORT_WANTED), "context_not_found")
    assert "leading context line next to the change" in error.message
    assert "line 6 is '    )'" in error.message


# -- one rule for a changed place where the number points (item 10: two rules merged) --------

SENDERS = '''\
import logging

log = logging.getLogger(__name__)


def first(items, limit):
    """Send the first batch of items."""
    batch = items[:limit]
    payload = encode(batch, compact=True)
    response = client.post(payload, retries=3)
    check(response)
    return response


class Worker:
    def second(self, items):
        """Send every item, one batch at a time."""
        for chunk in split(items):
            batch = chunk
            payload = encode(batch)
            response = client.post(payload)
            check(response)
        return True
'''
# written when first() read 'payload = encode(batch)' and 'client.post(payload)'
FOR_FIRST = '''\
--- a/sender.py
+++ b/sender.py
@@ -9,3 +9,3 @@
     payload = encode(batch)
-    response = client.post(payload)
+    response = client.post(payload, timeout=5)
     check(response)
'''


def test_a_loose_match_is_refused_where_the_number_holds_an_edited_removed_line(
        tmp_path: Path) -> None:
    """No section text, no index line. The whitespace level finds the hunk's lines in
    Worker.second, one level deeper; where its number points, in first(), two of its three
    lines changed since (so its old side is not the file's lines but for one), but its
    removed line is there, edited. One rule (judge._written_elsewhere) weighs both
    signs of the place the hunk was written for, for a loose placement as for a last rung's:
    refused, naming line 10; before, the look-alike in Worker.second took the edit."""
    repo = make_repo(tmp_path / "r", {"sender.py": SENDERS})
    error = refused(repo, FOR_FIRST, "context_not_found")
    assert "line 10 is '    response = client.post(payload, retries=3)'" in error.message
