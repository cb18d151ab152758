"""`holon-apply convert --to unified`: the envelope as a unified diff with real line numbers.

Every converted diff is checked twice: applied by holon-git and by `git apply` (an independent
implementation) to copies of the original tree, both must give what the envelope gives.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from clisupport import holon
from repos.builders import git, make_repo, snapshot

from holon_git import apply_patch
from holon_git.api import convert_patch
from holon_git.errors import PatchError


def env(*body: str) -> bytes:
    return ("\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n").encode()


def copy(repo: Path, name: str) -> Path:
    dest = repo.with_name(name)
    shutil.copytree(repo, dest, symlinks=True)
    return dest


def round_trip(repo: Path, envelope: bytes) -> bytes:
    """Convert, then apply envelope / converted diff / converted diff via git apply to three
    copies; all three trees must be equal. Returns the converted diff."""
    by_holon, by_git = copy(repo, "holon"), copy(repo, "gitapply")
    before = snapshot(repo)
    converted = convert_patch(envelope, repo)
    assert snapshot(repo) == before  # converting writes nothing
    receipt = apply_patch(envelope, repo)
    assert receipt.ok, receipt.error
    receipt = apply_patch(converted, by_holon)
    assert receipt.ok, (receipt.error, converted)
    assert receipt.format == "unified"
    (by_holon.parent / "converted.diff").write_bytes(converted)
    git(by_git, "apply", str(by_holon.parent / "converted.diff"))
    assert snapshot(by_holon) == snapshot(repo)
    assert snapshot(by_git) == snapshot(repo)
    return converted


def test_converted_update_has_real_line_numbers(tmp_path: Path) -> None:
    text = "".join(f"line {i}\n" for i in range(1, 21))
    repo = make_repo(tmp_path / "r", {"f.txt": text})
    converted = round_trip(repo, env("*** Update File: f.txt", "@@", " line 11", "-line 12",
                                     "+LINE 12", " line 13"))
    assert converted == (
        b"diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n"
        b"@@ -9,7 +9,7 @@\n line 9\n line 10\n line 11\n-line 12\n+LINE 12\n line 13\n"
        b" line 14\n line 15\n")


def test_converted_spec_example(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {
        "src/index.ts": 'import { foo } from "./foo";\n\nexport { foo };\n',
        "src/legacy.ts": "old\n",
    })
    converted = round_trip(repo, (Path(__file__).parent / "data" / "spec_example.patch")
                           .read_bytes())
    assert b"new file mode 100644\n--- /dev/null\n+++ b/src/utils/clamp.ts\n@@ -0,0 +1,2 @@" \
        in converted
    assert b"deleted file mode 100644\n--- a/src/legacy.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-old\n" \
        in converted


def test_converted_moves(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "a\nb\n", "c.py": "c\n"})
    converted = round_trip(repo, env("*** Move File: a.py -> pkg/a.py", "@@", " a", "-b", "+B",
                                     "*** Update File: c.py", "*** Move to: c2.py"))
    assert b"rename from a.py\nrename to pkg/a.py\n--- a/a.py\n+++ b/pkg/a.py\n" in converted
    assert b"diff --git a/c.py b/c2.py\nrename from c.py\nrename to c2.py\n" in converted


def test_converted_empty_files_and_no_newline(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"empty.txt": "", "f.txt": b"a\nb", "g.txt": "g\n"})
    converted = round_trip(repo, env(
        "*** Delete File: empty.txt",
        "*** Add File: new_empty.txt",
        "*** Update File: f.txt", "@@", " a", "-b", "\\ No newline at end of file", "+B",
        "*** Add File: h.txt", "+h", "\\ No newline at end of file",
        "*** Update File: g.txt", "@@", "+g2", "*** End of File",
    ))
    assert b"diff --git a/empty.txt b/empty.txt\ndeleted file mode 100644\n" in converted
    assert b"diff --git a/new_empty.txt b/new_empty.txt\nnew file mode 100644\n" in converted
    assert b"-b\n\\ No newline at end of file\n+B\n" in converted


def test_converted_crlf_and_executable(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"w.txt": b"one\r\ntwo\r\n", "run.sh": "echo\n"},
                     executable={"run.sh"})
    converted = round_trip(repo, env("*** Update File: w.txt", "@@", " one", "-two", "+TWO",
                                     "*** Delete File: run.sh"))
    assert b"+TWO\r\n" in converted
    assert b"deleted file mode 100755\n" in converted


def test_converted_paths_with_spaces_and_quotes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"my dir/a b.txt": "x\n", 'q"uote.txt': "q\n"})
    round_trip(repo, env("*** Update File: my dir/a b.txt", "@@", "-x", "+y",
                         '*** Move File: q"uote.txt -> new dir/q.txt'))


def test_convert_refuses_what_would_not_apply(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    with pytest.raises(PatchError) as info:
        convert_patch(env("*** Update File: a.txt", "@@", "-zzz", "+y"), repo)
    assert info.value.code == "context_not_found"
    with pytest.raises(PatchError) as info:
        convert_patch(env("*** Delete File: a.txt"), repo, to="envelope")
    assert info.value.code == "usage_error"


def test_convert_cli(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    patch = tmp_path / "p.patch"
    patch.write_bytes(env("*** Update File: a.txt", "@@", "-a", "+b"))
    before = snapshot(repo)
    done = holon(repo, "convert", "--to", "unified", str(patch))
    assert done.returncode == 0, done.stderr
    assert done.stdout_bytes == (b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n"
                           b"@@ -1 +1 @@\n-a\n+b\n")
    assert snapshot(repo) == before
    patch.write_bytes(env("*** Update File: a.txt", "@@", "-zzz", "+b"))
    done = holon(repo, "convert", str(patch))
    assert done.returncode == 1
    assert "context_not_found" in done.stderr and done.stdout == ""
    done = holon(repo, "convert", "--to", "xml", str(patch))
    assert done.returncode == 2
