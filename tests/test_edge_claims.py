"""git's edge rule binds insertions only (issue 29): a hunk that claims a file's start (it
starts at line 1 with context) or end (context, and none after its changes) is weak evidence
when its copy sits away from that edge, and the three-way rescue then merges from the version
where it sits there. For an insertion that is right: nothing else refuses it when it is sent
again. A hunk anchored by removed lines that occur once is placed by them: an agent's own
lines added at the top of the file moved it down, and the merge from the version where it
sat at line 1 conflicts with those lines for nothing.

At the end edge, issue 43 (item 3) weighs the stale reading where the repository holds the
version the hunk sits at the end of: lines added right after a change that ended the file
are a `git merge-file` conflict there, so such a hunk is merged from that version, and
refused when the merge conflicts.

The replays: small modules changed as a commit would change them, the patch written against
the committed file, and three lines the agent added at the top (or the end) left uncommitted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import applied, everything, forget_resend_records, git_apply, refused
from repos.builders import make_repo
from strategies import difflib_patch

HEADER = b"# -*- coding: utf-8 -*-\n# Copyright the authors.\n# SPDX-License-Identifier: MIT\n"
FOOTER = b"\n\nif __name__ == '__main__':\n    main()\n"

# (name, the committed file, the commit's version): each first hunk starts at line 1
COMMITS = [
    ("swap an import",
     b"import os\nimport sys\n\nfrom .utils import helper\n\n\ndef main():\n"
     b"    return helper(os.getcwd())\n",
     b"import pathlib\nimport sys\n\nfrom .utils import helper\n\n\ndef main():\n"
     b"    return helper(pathlib.Path.cwd())\n"),
    ("rewrite the docstring",
     b'"""Command line tools."""\nfrom __future__ import annotations\n\nimport click\n\n\n'
     b"@click.command()\ndef cli():\n    pass\n",
     b'"""Command line tools for the project.\n\nRun `tool --help`.\n"""\n'
     b"from __future__ import annotations\n\nimport click\n\n\n@click.command()\ndef cli():\n"
     b"    pass\n"),
    ("drop the first line and change the last",
     b"#!/usr/bin/env python\nimport json\n\n\ndef load(path):\n    with open(path) as fh:\n"
     b"        return json.load(fh)\n",
     b"import json\n\n\ndef load(path):\n    with open(path, encoding='utf-8') as fh:\n"
     b"        return json.load(fh)\n"),
]


def module_repo(tmp_path: Path, committed: bytes, extra: bytes, at_top: bool) -> Path:
    repo = make_repo(tmp_path / "r", {"pkg/mod.py": committed})
    (repo / "pkg/mod.py").write_bytes(extra + committed if at_top else committed + extra)
    return repo


@pytest.mark.parametrize("name, committed, wanted", COMMITS, ids=[c[0] for c in COMMITS])
def test_lines_added_at_the_top_do_not_stop_a_hunk_anchored_by_removed_lines(
        tmp_path: Path, name: str, committed: bytes, wanted: bytes) -> None:
    repo = module_repo(tmp_path, committed, HEADER, at_top=True)
    patch = difflib_patch("pkg/mod.py", committed, wanted, 3)
    receipt = applied(repo, patch)
    assert (repo / "pkg/mod.py").read_bytes() == HEADER + wanted
    assert all(h.applied_line > 1 for h in receipt.files[0].hunks[:1])
    assert receipt.files[0].three_way is None  # placed, not merged
    state = everything(repo)
    forget_resend_records(repo)  # the hunk rules alone refuse the re-send
    refused(repo, patch, "already_applied")
    assert everything(repo) == state


def test_lines_added_right_after_a_change_that_claims_the_end_are_a_conflict(
        tmp_path: Path) -> None:
    """Issue 43 (item 3) reverses what issue 29 pinned here (the hunk applied over the lines
    added after it): the hunk changes the file's last line and claims the end, HEAD holds it
    exactly there, and lines were added right after the change since. That is a line gained
    next to a change, which `git merge-file` calls a conflict (its merge from HEAD conflicts),
    so the stale reading from HEAD and the slip reading ("the model left out the trailing
    context") lead to two edits: refused, as it is when the patch's index line names HEAD.
    The same lines added away from the change (a blank line between) merge cleanly."""
    committed = b"def main():\n    run()\n    stop()\n"
    wanted = b"def main():\n    run()\n    stop(now=True)\n"
    repo = module_repo(tmp_path, committed, FOOTER, at_top=False)
    patch = difflib_patch("pkg/mod.py", committed, wanted, 3)
    state = everything(repo)
    refused(repo, patch, "merge_conflict")
    assert everything(repo) == state
    committed += b"\n"
    repo = module_repo(tmp_path / "spaced", committed, FOOTER, at_top=False)
    applied(repo, difflib_patch("pkg/mod.py", committed, wanted + b"\n", 3))
    assert (repo / "pkg/mod.py").read_bytes() == wanted + b"\n" + FOOTER


def test_an_insertion_at_the_top_still_claims_the_start(tmp_path: Path) -> None:
    """No removed line anchors it: its context sits three lines down now, and the merge from
    HEAD, where it sits at the start, conflicts with the agent's own lines there (as git
    merge-file does): refused, as `git apply` refuses it."""
    committed = b"import os\nimport sys\n\n\ndef main():\n    pass\n"
    wanted = b"from __future__ import annotations\n" + committed
    repo = module_repo(tmp_path, committed, HEADER, at_top=True)
    patch = difflib_patch("pkg/mod.py", committed, wanted, 3)
    refused(repo, patch, "merge_conflict")
    with pytest.raises(RuntimeError):
        git_apply(repo, patch)


def test_removed_lines_that_occur_twice_do_not_anchor(tmp_path: Path) -> None:
    """The removed line occurs again further down: the edge still decides which copy is
    meant, through the version where the hunk sits at line 1 (merged cleanly here: the
    agent's lines are at the end)."""
    committed = b"import os\nimport sys\n\nx = 1\nimport os\n"
    wanted = committed.replace(b"import os\n", b"import posix\n", 1)
    repo = make_repo(tmp_path / "r", {"pkg/mod.py": committed})
    (repo / "pkg/mod.py").write_bytes(b"y = 2\n" + committed)
    patch = difflib_patch("pkg/mod.py", committed, wanted, 3)
    refused(repo, patch, "merge_conflict")  # the merge meets the line added at the top
    (repo / "pkg/mod.py").write_bytes(committed + b"y = 2\n")
    receipt = applied(repo, patch)
    assert (repo / "pkg/mod.py").read_bytes() == wanted + b"y = 2\n"
    assert receipt.files[0].hunks[0].applied_line == 1
