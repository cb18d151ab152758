"""The history log's re-send digest: taken before staging, and placed (issue 28, items 6, 7).

Item 6, the attack: a patch of 17 large files (more than 8 MB of new content in flight), each
deleting one line from a run of equal lines, sent twice. The stagers let go of each new
content (``change.after``) while the plan went on, before the digests were taken: nothing was
recorded, and the re-send deleted a second line in every file (the file alone cannot tell a
re-send of such a deletion from a fresh one). Digests are now taken before a content is
handed to the stagers.

Item 7: the same edit sent for a second, identical block (its line numbers naming the second
copy) was refused as a re-send of the first, on every retry. The digest now covers the hunks'
headers as written, so only the very same patch again is a re-send.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import everything
from repos.builders import make_repo

from holon_git import apply_patch
from holon_git.git import history

FILES = 17
LINES = 10_000
RUN_AT = 5_000  # a run of 8 equal lines starts here (0-based)


def big_file(index: int) -> str:
    lines = [f"file {index} line {n:05d} {'x' * 48}\n" for n in range(LINES)]
    lines[RUN_AT:RUN_AT + 8] = ["    same\n"] * 8
    return "".join(lines)


def deletion(index: int) -> str:
    """Delete one line of the run: context before it, then the run's lines as context."""
    before = f"file {index} line {RUN_AT - 1:05d} {'x' * 48}"
    header = f"@@ -{RUN_AT},4 +{RUN_AT},3 @@\n"
    return (f"--- a/f{index}.txt\n+++ b/f{index}.txt\n{header} {before}\n-    same\n"
            "     same\n     same\n")


@pytest.mark.slow
def test_a_large_patch_is_recorded_and_its_resend_refused(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {f"f{i}.txt": big_file(i) for i in range(FILES)})
    patch = "".join(deletion(i) for i in range(FILES))
    receipt = apply_patch(patch, repo)
    assert receipt.ok, receipt.error
    state = everything(repo)
    again = apply_patch(patch, repo)
    assert again.error is not None and again.error.code == "already_applied", again.to_json()
    assert everything(repo) == state
    for i in range(FILES):
        assert (repo / f"f{i}.txt").read_text().count("    same\n") == 7
    logged = history.read(str(repo / ".git"))
    assert len(logged) == FILES and all(e.patch and e.after for e in logged)


BLOCK = "def handler():\n    value = 1\n    return value\n"
TWO_BLOCKS = f"# first\n{BLOCK}\n# second\n{BLOCK}"


def edit_at(line: int) -> str:
    return (f"--- a/m.py\n+++ b/m.py\n@@ -{line},3 +{line},3 @@\n def handler():\n"
            "-    value = 1\n+    value = 2\n     return value\n")


def test_the_same_edit_to_a_second_identical_block_is_no_resend(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"m.py": TWO_BLOCKS})
    first, second = edit_at(2), edit_at(7)
    assert apply_patch(first, repo).ok
    assert (repo / "m.py").read_text().count("value = 2") == 1
    for _ in range(2):  # a true re-send of the first patch is refused, every time
        again = apply_patch(first, repo)
        assert again.error is not None and again.error.code == "already_applied"
    receipt = apply_patch(second, repo)  # the same lines, for the second block
    assert receipt.ok, receipt.error
    assert receipt.files[0].hunks[0].applied_line == 7
    assert (repo / "m.py").read_text() == TWO_BLOCKS.replace("value = 1", "value = 2")
    state = everything(repo)
    for patch in (second, first):
        again = apply_patch(patch, repo)
        assert again.error is not None and again.error.code == "already_applied"
    assert everything(repo) == state
