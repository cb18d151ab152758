"""The history log looked up by path (issue 29): every apply asks it about the paths it
changes, so only the lines that hold a path, as this tool writes it, are decoded, never the
whole log; and what is read is capped (the newest MAX_ENTRIES lines, within the last
MAX_BYTES), the newest entries kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repos.builders import make_repo

from holon_git import apply_patch
from holon_git.git import history

P = "".join(f"line {i}\n" for i in range(1, 21))
PATCH = "--- a/f.txt\n+++ b/f.txt\n@@ -4,3 +4,3 @@\n line 4\n-line 5\n+line five\n line 6\n"


def entry(path: str, n: int) -> bytes:
    return json.dumps({"time": 1_700_000_000 + n, "path": path,
                       "blob": f"{n:040x}"}).encode() + b"\n"


def counting_decoder(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The lines the log module decodes, in order."""
    decoded: list[bytes] = []
    loads = json.loads

    def counted(line: bytes) -> object:
        decoded.append(line)
        return loads(line)

    monkeypatch.setattr(history.json, "loads", counted)
    return decoded


def test_a_path_is_looked_up_without_decoding_the_other_entries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git_dir = tmp_path / "g"
    git_dir.mkdir()
    (git_dir / history.LOG_NAME).write_bytes(
        b"".join(entry(f"other/{n}.txt", n) for n in range(150))
        + entry("src/mine.py", 150) + entry("other/x.txt", 151) + entry("src/mine.py", 152))
    decoded = counting_decoder(monkeypatch)
    log = history.open_log(str(git_dir))
    assert [e.time for e in log.entries("src/mine.py")] == [1_700_000_150, 1_700_000_152]
    assert len(decoded) == 2
    assert log.entries("src/mine.py") and len(decoded) == 2  # remembered
    assert log.entries("src/none.py") == [] and len(decoded) == 2


def test_paths_that_need_escaping_are_found(tmp_path: Path) -> None:
    git_dir = tmp_path / "g"
    git_dir.mkdir()
    names = ['dir/a "quoted" name.txt', "dir/café.txt", "dir/tab\there.txt"]
    history.record(str(git_dir), [(name, f"{n:040x}") for n, name in enumerate(names)])
    log = history.open_log(str(git_dir))
    for n, name in enumerate(names):
        assert [e.blob for e in log.entries(name)] == [f"{n:040x}"]
    assert log.entries("dir/a") == [] and log.entries("café.txt") == []


def test_a_line_that_only_looks_like_an_entry_is_still_validated(tmp_path: Path) -> None:
    git_dir = tmp_path / "g"
    git_dir.mkdir()
    (git_dir / history.LOG_NAME).write_bytes(
        b'{"time": 1, "path": "f.txt", "blob": "not hex"}\n'
        b'{"nested": {"time": 1, "path": "f.txt", "blob": "' + b"a" * 40 + b'"}}\n'
        b'not json "path": "f.txt"\n' + entry("f.txt", 7))
    assert [e.time for e in history.open_log(str(git_dir)).entries("f.txt")] == [1_700_000_007]


def test_the_cap_keeps_the_newest_entries(tmp_path: Path) -> None:
    """1,000 entries of one path: only those in the newest MAX_ENTRIES lines are read."""
    git_dir = tmp_path / "g"
    git_dir.mkdir()
    (git_dir / history.LOG_NAME).write_bytes(b"".join(entry("f.txt", n) for n in range(1000)))
    found = history.open_log(str(git_dir)).entries("f.txt")
    assert len(found) == history.MAX_ENTRIES
    assert found[0].time == 1_700_000_000 + 1000 - history.MAX_ENTRIES
    assert found[-1].time == 1_700_000_999
    assert history.read(str(git_dir)) == found


def test_an_apply_decodes_only_its_own_paths_entries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent's steady state: a log full of other files' entries. Applying to f.txt decodes
    its lines only (none yet), whatever the log holds; the apply records its own."""
    repo = make_repo(tmp_path / "r", {"f.txt": P})
    log = repo / ".git" / history.LOG_NAME
    log.write_bytes(b"".join(entry(f"src/m{n}.py", n) for n in range(history.MAX_ENTRIES)))
    decoded = counting_decoder(monkeypatch)
    receipt = apply_patch(PATCH, repo)
    assert receipt.ok, receipt.error
    assert decoded == []
    assert history.read(str(repo / ".git"))[-1].path == "f.txt"


def applied_entry(path: str, n: int, patch: str, after: str) -> bytes:
    return json.dumps({"time": 1_700_000_000 + n, "path": path, "blob": f"{n:040x}",
                       "patch": patch, "after": after}).encode() + b"\n"


def test_a_file_applied_to_again_and_again_is_not_decoded_entry_by_entry(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent's file: every entry of the log is for it, most of the same patch. Whether the
    log holds the path, the patch, or the patch with a given result is told by decoding the
    newest line that holds them all, not every entry of the path."""
    git_dir = tmp_path / "g"
    git_dir.mkdir()
    same, other = "a" * 64, "b" * 64
    (git_dir / history.LOG_NAME).write_bytes(
        applied_entry("f.txt", 0, other, "c" * 64)
        + b"".join(applied_entry("f.txt", n, same, f"{n:064x}") for n in range(1, 199))
        + b'{"time": 1, "path": "f.txt", "blob": "not hex", "patch": "' + same.encode()
        + b'", "after": "' + b"e" * 64 + b'"}\n')
    decoded = counting_decoder(monkeypatch)
    log = history.open_log(str(git_dir))
    assert log.holds("f.txt") and log.holds("f.txt", same)
    assert len(decoded) == 4  # the malformed newest line, then a good one; twice
    assert log.holds("f.txt", same, f"{5:064x}") and not log.holds("f.txt", same, "c" * 64)
    assert log.holds("f.txt", other, "c" * 64) and not log.holds("f.txt", same, "e" * 64)
    assert not log.holds("f.txt", "d" * 64) and not log.holds("g.txt")
    assert len(decoded) == 4 + 3  # only lines that hold every value sought
    assert log.entries("f.txt") and log.holds("f.txt", other, "c" * 64)  # from the entries


@pytest.mark.slow
def test_an_agents_file_applied_to_a_thousand_times_is_still_refused_when_resent(
        tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": P})
    original = (repo / "f.txt").read_bytes()
    for _ in range(300):
        (repo / "f.txt").write_bytes(original)
        assert apply_patch(PATCH, repo).ok
    again = apply_patch(PATCH, repo)
    assert again.error is not None and again.error.code == "already_applied"
    assert again.error.details.get("history") == "same patch, same result"
