"""Issue 43, class 6: a file patch is one transport. Written with tabs for the file's four
spaces, its hunks are read the same way: a hunk whose context happens to match exactly must
not keep tabs the others have mapped back."""

from __future__ import annotations

from pathlib import Path

from gitsupport import applied, refused
from repos.builders import make_repo

SOURCE = ("import os\n\n\ndef f():\n    a = 1\n    return a\n\n\ndef g():\n    b = 2\n"
          "    if b:\n        b += 1\n    return b\n")
MAPPED_HUNK = ("@@ -9,5 +13,5 @@\n def g():\n \tb = 2\n \tif b:\n-\t\tb += 1\n+\t\tb += 2\n"
               " \treturn b\n")
EXACT_HUNK = "@@ -1,4 +1,8 @@\n import os\n \n \n+def h():\n+\treturn 3\n+\n+\n def f():\n"


def test_a_hunk_that_would_keep_tabs_the_other_hunks_map_back_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": SOURCE})
    err = refused(repo, "--- a/m.py\n+++ b/m.py\n" + EXACT_HUNK + MAPPED_HUNK,
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
