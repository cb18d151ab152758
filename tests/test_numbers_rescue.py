"""Issue 43, class 5: line numbers belong to the version a patch was written against. A hunk
told from its exact copies only by its line number, in a working tree an uncommitted edit
has shifted, is made in HEAD (where the numbers fit) and merged; a patch whose index line
names a committed blob is merged from that blob when its copies were told apart by number
there, even where a later change left one copy in the current text."""

from __future__ import annotations

import re
from pathlib import Path

from gitsupport import applied
from repos.builders import git, repo_and_git_patch

FUNC = ("def {name}(items):\n    total = 0\n    count = 0\n    for item in items:\n"
        "        total += item.price\n        count += 1\n    return total, count\n")
BASE = (FUNC.format(name="first") + "\n\n" + FUNC.format(name="second") + "\n\n"
        + "def third():\n    pass\n")
EDITED = BASE[: BASE.rindex("count += 1")] + "count += 2" + BASE[BASE.rindex("count += 1") + 10:]
SHIFT = "".join(f"import module_{n}\n" for n in range(7)) + "\n\n"


def _bare_patch(patch: bytes) -> str:
    """The patch without its index line and section text (as a model writes it)."""
    text = patch.decode()
    text = re.sub(r"^index .*\n", "", text, flags=re.M)
    return re.sub(r"^(@@ [^@]* @@).*$", r"\1", text, flags=re.M)


def test_a_copy_told_by_its_number_in_a_shifted_working_tree_is_merged_from_head(
        tmp_path: Path) -> None:
    repo, patch = repo_and_git_patch(tmp_path / "r", {"m.py": BASE}, {"m.py": EDITED})
    # uncommitted, 9 lines down: the first copy now sits at the second's line number
    (repo / "m.py").write_text(SHIFT + BASE)
    receipt = applied(repo, _bare_patch(patch))
    assert (repo / "m.py").read_text() == SHIFT + EDITED
    assert "three_way" in receipt.files[0].hunks[0].tolerances


def test_the_blob_an_index_line_names_decides_between_copies(tmp_path: Path) -> None:
    """Committed since the patch's base: lines inserted inside the first function's copy of
    the block. The second copy is now the only exact one, but the patch meant the first; the
    patch's index line names the base blob, where its line number told the copies apart."""
    # the patch meant the first function's copy, told from the second by its line number
    first = BASE.replace("count += 1", "count += 2", 1)
    repo, patch = repo_and_git_patch(tmp_path / "r", {"m.py": BASE}, {"m.py": first})
    changed = BASE.replace("    count = 0\n", "    count = 0\n    seen = set()\n", 1)
    (repo / "m.py").write_text(changed)
    git(repo, "commit", "-qam", "a later change inside the first function")
    text = re.sub(r"^(@@ [^@]* @@).*$", r"\1", patch.decode(), flags=re.M)
    applied(repo, text)
    assert (repo / "m.py").read_text() == changed.replace("count += 1", "count += 2", 1)
