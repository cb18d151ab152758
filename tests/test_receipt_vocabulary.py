"""The library's receipt and the JSON receipt speak one vocabulary (docs/receipt.md): every
field of ``to_dict()``, at every level, is an attribute of the same name holding the same
value, and every field receipt.md's tables name is one."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from gitsupport import applied
from repos.builders import git

from holon_git import apply_patch
from holon_git.core.change import FileChange, HunkResult
from holon_git.receipt import Receipt

ROOT = Path(__file__).resolve().parent.parent
LINES = "".join(f"line {i}\n" for i in range(1, 21))
DRIFTED = "--- a/f.txt\n+++ b/f.txt\n@@ -3,3 +3,3 @@\n line 5\n-line 6\n+LINE 6\n line 7\n"
ADD = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n"
DELETE = "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
RENAME = ("diff --git a/old.txt b/moved.txt\nsimilarity index 100%\nrename from old.txt\n"
          "rename to moved.txt\n")
STALE_HUNK = "@@ -15,1 +15,1 @@\n-not in the file\n+x\n"
MISSING = "--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n"


@pytest.fixture
def repo_files() -> dict[str, str | bytes]:
    """What the shared `repo` fixture (conftest.py) commits for this module."""
    return {"f.txt": LINES, "gone.txt": "gone\n", "old.txt": "old\n"}


def same(obj: Any, value: Any, where: str) -> None:
    """``value`` (a part of to_dict()) is what ``obj`` holds under the same names."""
    if isinstance(value, dict) and not isinstance(obj, dict):
        for key, item in value.items():
            assert hasattr(obj, key), f"{where} has no attribute {key!r}"
            same(getattr(obj, key), item, f"{where}.{key}")
    elif isinstance(value, list) and isinstance(obj, list):
        assert len(obj) == len(value), where
        for n, (one, item) in enumerate(zip(obj, value, strict=True)):
            same(one, item, f"{where}[{n}]")
    else:
        assert obj == value, f"{where}: {obj!r} != {value!r}"


def receipts(repo: Path) -> dict[str, Receipt]:
    """Receipts with every optional part: files of each action with hunks and tolerances,
    deleted blobs, a commit, -N, rejects, unapplied files, several refusals, --retry."""
    out = {"worktree": applied(repo, DRIFTED + ADD + DELETE + RENAME, intent_to_add=True)}
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first")
    out["commit"] = applied(repo, DRIFTED.replace("LINE 6", "L6").replace("-line 6",
                                                                         "-LINE 6"),
                            commit=True, message="second")
    out["reject"] = apply_patch("--- a/f.txt\n+++ b/f.txt\n@@ -9,1 +9,1 @@\n-line 9\n+L9\n"
                                + STALE_HUNK + MISSING, repo, reject=True)
    out["no-atomic"] = apply_patch(ADD.replace("new.txt", "newer.txt") + MISSING, repo,
                                   atomic=False)
    out["refused"] = apply_patch(MISSING + MISSING.replace("missing", "absent"), repo)
    out["retry"] = applied(repo, ADD.replace("new.txt", "third.txt"), ref="main",
                           message="third", retry=1)
    return out


def test_every_json_field_is_an_attribute_of_the_same_name_and_value(repo: Path):
    made = receipts(repo)
    assert made["worktree"].deleted_blobs and made["worktree"].intent_to_add
    assert made["commit"].commit and made["commit"].parent
    assert made["reject"].rejects and made["reject"].files[0].rejected_hunks == [2]
    assert made["no-atomic"].unapplied_files and len(made["refused"].errors) == 2
    assert made["retry"].attempts == 1
    for name, receipt in made.items():
        same(receipt, receipt.to_dict(), name)


def field_names(owner: type) -> set[str]:
    """A dataclass's fields (those with a default are not class attributes under slots)."""
    return {one.name for one in fields(owner)}


def test_receipt_md_names_only_attributes():
    """The fields receipt.md's tables list (top level, per file) are attributes of the
    receipt and of its files, by those names."""
    text = (ROOT / "docs" / "receipt.md").read_text(encoding="utf-8")
    for heading, owner in (("## Top level", Receipt), ("## Per file", FileChange)):
        table = text[text.index(heading):].split("\n\n")[1]
        names = [name for row in table.splitlines()[2:]
                 for name in re.findall(r"`([a-z_]+)`", row.split(" | ")[0])]
        assert names, heading
        for name in names:
            assert hasattr(owner, name) or name in field_names(owner), f"{heading}: {name}"
    for name in ("index", "hinted_line", "applied_line", "offset", "tolerances",
                 "by_line_number", "by_anchor", "already_applied"):
        assert hasattr(HunkResult, name) or name in field_names(HunkResult), name
