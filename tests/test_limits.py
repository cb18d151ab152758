"""What one patch may hold (parse/limits.py): file patches, hunks and lines past a cap are
refused with patch_too_large while parsing, and nothing changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clisupport import holon
from repos.builders import make_repo, snapshot

from holon_git import apply_patch
from holon_git.errors import PatchError
from holon_git.parse import limits, merge_patches, parse_patch


def adds(count: int) -> bytes:
    return (b"*** Begin Patch\n" + b"".join(b"*** Add File: f%d.txt\n" % i for i in range(count))
            + b"*** End Patch\n")


def hunks(count: int) -> bytes:
    body = b"".join(b"@@ -%d +%d @@\n-l%d\n+L%d\n" % (i + 1, i + 1, i, i) for i in range(count))
    return b"--- a/f.txt\n+++ b/f.txt\n" + body


def refusal(patch: bytes) -> PatchError:
    with pytest.raises(PatchError) as caught:
        parse_patch(patch)
    assert caught.value.code == "patch_too_large"
    return caught.value


def test_the_file_patch_past_the_cap_is_refused_where_it_starts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_FILES", 3)
    assert len(parse_patch(adds(3)).files) == 3
    err = refusal(adds(4))
    assert err.patch_line == 5 and err.details == {"limit": "file patches", "at_most": 3}
    unified = b"".join(b"--- a/f%d\n+++ b/f%d\n@@ -1 +1 @@\n-a\n+b\n" % (i, i) for i in range(4))
    assert refusal(unified).patch_line == 16


def test_the_hunk_past_the_cap_is_refused_in_any_file_patch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_HUNKS", 4)
    assert len(parse_patch(hunks(4)).files[0].hunks) == 4
    err = refusal(hunks(5))
    assert err.patch_line == 15 and err.details == {"limit": "hunks", "at_most": 4}
    two_files = hunks(3) + hunks(2).replace(b"f.txt", b"g.txt")
    assert refusal(two_files).details["limit"] == "hunks"
    envelope = (b"*** Begin Patch\n*** Update File: f.txt\n"
                + b"".join(b"@@\n-l%d\n+L%d\n" % (i, i) for i in range(5)) + b"*** End Patch\n")
    assert refusal(envelope).patch_line == 15


def test_lines_past_the_cap_are_refused_before_the_text_is_split(
        monkeypatch: pytest.MonkeyPatch) -> None:
    patch = hunks(2)  # 8 lines
    monkeypatch.setattr(limits, "MAX_LINES", 8)
    assert parse_patch(patch).files
    monkeypatch.setattr(limits, "MAX_LINES", 7)
    err = refusal(patch)
    assert err.details == {"limit": "lines", "at_most": 7} and err.patch_line is None
    assert refusal(patch.rstrip(b"\n")).code == "patch_too_large"  # a last line without one


def test_patches_given_together_count_together(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_FILES", 3)
    two = parse_patch(adds(2))
    with pytest.raises(PatchError) as caught:
        merge_patches([two, parse_patch(adds(2).replace(b"f", b"g"))])
    assert caught.value.code == "patch_too_large"


@pytest.mark.slow
def test_the_cli_refuses_past_the_real_cap_and_changes_nothing(tmp_path: Path) -> None:
    """A hundred thousand and one empty file additions: refused by the real cap, from the
    command line, with nothing written."""
    repo = make_repo(tmp_path / "r", {"README": "x\n"})
    before = snapshot(repo)
    (tmp_path / "p.diff").write_bytes(adds(limits.MAX_FILES + 1))
    done = holon(repo, "--json", str(tmp_path / "p.diff"))
    assert done.returncode != 0
    receipt = json.loads(done.stdout)
    assert receipt["error"]["code"] == "patch_too_large"
    assert receipt["error"]["patch_line"] == limits.MAX_FILES + 2
    assert snapshot(repo) == before


def test_a_patch_at_the_caps_is_not_refused(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_FILES", 5)
    monkeypatch.setattr(limits, "MAX_HUNKS", 5)
    repo = make_repo(tmp_path / "r", {"f.txt": b"".join(b"l%d\n" % i for i in range(5))})
    assert apply_patch(hunks(5), repo).ok
    assert (repo / "f.txt").read_bytes() == b"".join(b"L%d\n" % i for i in range(5))
    assert apply_patch(adds(5), repo).ok
