"""Issue 43, class 6: a file patch is one transport. Written with tabs for the file's four
spaces, its hunks are read the same way: a hunk whose context happens to match exactly does
not keep tabs the others have mapped back; its added lines are mapped back by the others'
reading, before or after it in the file patch, when every reading agrees, and it is refused
when they disagree."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitsupport import applied, refused
from repos.builders import make_repo

SOURCE = ("import os\n\n\ndef f():\n    a = 1\n    return a\n\n\ndef g():\n    b = 2\n"
          "    if b:\n        b += 1\n    return b\n")
MAPPED_HUNK = ("@@ -9,5 +13,5 @@\n def g():\n \tb = 2\n \tif b:\n-\t\tb += 1\n+\t\tb += 2\n"
               " \treturn b\n")
EXACT_HUNK = "@@ -1,4 +1,8 @@\n import os\n \n \n+def h():\n+\treturn 3\n+\n+\n def f():\n"


MAPPED_BACK = SOURCE.replace("import os\n\n\n", "import os\n\n\ndef h():\n    return 3\n\n\n"
                             ).replace("b += 1", "b += 2")


@pytest.mark.parametrize("order", ["exact-first", "exact-last"])
def test_a_hunk_that_matched_exactly_is_mapped_back_like_the_others(tmp_path: Path,
                                                                    order: str) -> None:
    """Before the fix the exact hunk was refused (indentation_mismatch): it would have kept
    the tab its sibling maps back. Now it takes the sibling's reading (a tab is four spaces),
    whichever comes first: the file gets spaces throughout."""
    repo = make_repo(tmp_path / "r", {"m.py": SOURCE})
    hunks = (EXACT_HUNK + MAPPED_HUNK if order == "exact-first"
             else MAPPED_HUNK.replace("+13,5", "+9,5") + EXACT_HUNK)
    receipt = applied(repo, "--- a/m.py\n+++ b/m.py\n" + hunks)
    assert (repo / "m.py").read_text() == MAPPED_BACK
    exact = receipt.files[0].hunks[0 if order == "exact-first" else 1]
    assert exact.tolerances == ["reindented"]


def test_hunks_that_disagree_on_a_tab_refuse_the_exact_one(tmp_path: Path) -> None:
    """Two hunks written with tabs, one showing a tab is four spaces, the other (its lines
    one level deeper in the file) eight: what the exact hunk's tab stands for, the file
    patch does not say with one voice, and it is refused, the file untouched."""
    source = SOURCE + "\n\nclass K:\n    def m(self):\n        c = 3\n        return c\n"
    repo = make_repo(tmp_path / "r", {"m.py": source})
    deeper = ("@@ -17,3 +21,3 @@\n     def m(self):\n-\tc = 3\n+\tc = 4\n \treturn c\n")
    err = refused(repo, "--- a/m.py\n+++ b/m.py\n" + EXACT_HUNK + MAPPED_HUNK + deeper,
                  "indentation_mismatch")
    assert "tabs for the file's spaces" in err.message and err.hunk == 1


def test_each_hunk_alone_is_read_as_before(tmp_path: Path) -> None:
    """Alone, the tab-written hunk is mapped back; the exact one keeps the tab it adds (no
    other hunk says the patch was written with tabs for spaces)."""
    repo = make_repo(tmp_path / "r", {"m.py": SOURCE})
    applied(repo, "--- a/m.py\n+++ b/m.py\n" + MAPPED_HUNK.replace("+13,5", "+9,5"))
    assert "        b += 2\n" in (repo / "m.py").read_text()
    applied(repo, "--- a/m.py\n+++ b/m.py\n" + EXACT_HUNK)
    assert "def h():\n\treturn 3\n" in (repo / "m.py").read_text()
