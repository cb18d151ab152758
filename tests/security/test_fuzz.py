"""Fuzzing: near-valid patches and arbitrary bytes never crash, hang, or change anything when
they are refused.

CI runs the "ci" profile. The dedicated run (docs/security.md):

    HYPOTHESIS_PROFILE=fuzz python -m pytest tests/security/test_fuzz.py -p no:cacheprovider -s
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from repos.builders import make_repo, snapshot
from strategies import difflib_patch

from holon_git import apply_patch
from holon_git.core.change import SourceFile
from holon_git.core.plan.plan import plan_patch
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

# CPU seconds per input (CPU time, so a loaded machine's stalls do not count); typical inputs
# take well under 10 ms
MAX_SECONDS = 5.0

FILES = {
    "src/app.py": b"".join(b"line %d of the app\n" % i for i in range(30)),
    "README": b"hello\r\nworld\r\n",
    "dup.txt": b"x\n}\nx\n}\nx\n",
    "empty": b"",
    "nonl": b"no final newline",
}


@st.composite
def valid_patch(draw: st.DrawFn) -> bytes:
    path = draw(st.sampled_from(["src/app.py", "dup.txt"]))
    lines = FILES[path].splitlines(keepends=True)
    new = list(lines)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(new)))
        if draw(st.booleans()) and at < len(new):
            del new[at]
        else:
            new.insert(at, draw(st.sampled_from([b"added\n", b"x\n", b"}\n", b"\n"])))
    return difflib_patch(path, b"".join(lines), b"".join(new)) or (
        b"--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-a\n+b\n" % (path.encode(), path.encode()))


HEADER_NOISE = [
    b"diff --git a/src/app.py b/src/app.py", b"index 0000000..1111111 100644",
    b"similarity index 90%", b"rename from src/app.py", b"rename to src/b.py",
    b"old mode 100644", b"new mode 100755", b"new file mode 100644", b"deleted file mode 100644",
    b"Binary files a/x and b/x differ", b"GIT binary patch", b"copy from a", b"copy to b",
    b"--- a/src/app.py", b"+++ b/src/app.py", b"--- /dev/null", b"+++ /dev/null",
    b"@@ -1,999999999999 +1,1000000000000 @@", b"@@ -0,0 +0,0 @@", b"@@ @@", b"@@ -1 +1",
    b"\\ No newline at end of file", b"```diff", b"```", b"*** Begin Patch",
    b"--- a/../../etc/passwd", b"+++ b/.git/config", b"--- \"a/\\001\\377\"", b"",
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A valid patch with a few structural mutations."""
    lines = draw(valid_patch()).split(b"\n")
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.integers(0, 9))
        at = draw(st.integers(0, max(len(lines) - 1, 0)))
        if op == 0:  # insert a header-ish or metadata line
            lines.insert(at, draw(st.sampled_from(HEADER_NOISE)))
        elif op == 1 and lines:  # drop a line
            del lines[at]
        elif op == 2 and lines:  # flip bytes in a line
            raw = bytearray(lines[at])
            if raw:
                raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
            lines[at] = bytes(raw)
        elif op == 3:  # truncate the patch
            lines = lines[:at]
        elif op == 4:  # deep nesting of metadata
            lines[at:at] = [draw(st.sampled_from(HEADER_NOISE[:12]))
                            for _ in range(draw(st.integers(10, 300)))]
        elif op == 5 and lines:  # mixed line endings
            lines[at] = lines[at] + draw(st.sampled_from([b"\r", b"\r\r", b"\x00", b" \t"]))
        elif op == 6:  # duplicate a run of lines
            lines[at:at] = lines[at:at + draw(st.integers(1, 8))]
        elif op == 7 and lines:  # a hunk header with extreme numbers
            big = draw(st.sampled_from([b"0", b"1", b"4294967296", b"999999999999999999999",
                                        b"-1", b"00000000000001"]))
            lines[at] = b"@@ -" + big + b"," + big + b" +" + big + b"," + big + b" @@"
        elif op == 8 and lines:  # lose a leading prefix character
            lines[at] = lines[at][1:]
        else:  # arbitrary bytes in the middle
            lines.insert(at, draw(st.binary(max_size=40)))
    return b"\n".join(lines)


def plan_in_memory(data: bytes) -> None:
    files = {path: SourceFile(content) for path, content in FILES.items()}
    start = time.process_time()
    try:
        patch = parse_patch(data)
        plan_patch(patch, files.get)
        patch_r = patch.reversed()
        plan_patch(patch_r, files.get, reverse=True)
    except PatchError as err:
        assert err.code and err.hint and err.message
    elapsed = time.process_time() - start
    assert elapsed < MAX_SECONDS, f"{elapsed:.2f}s for a {len(data)}-byte input"


@pytest.mark.parametrize("data", [
    # found by the 100,000-example run: near_miss indexed before the file's first line
    b"--- a/dup.txt\n+++ b/dup.txt\n@@ -1,5 +1,4 @@\n x\x00\n }\n x\n-}\n-x\n\n+x\n x\n }\n"
    b" x\n-}\n-x\n",
    # a hunk whose only old line is an optional blank separator
    b"--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,1 @@\n line 0 of the app\n-line 1 of the app\n"
    b"@@ -1,999999999999 +1,1000000000000 @@\n\n",
])
def test_memory_regressions(data: bytes):
    plan_in_memory(data)


@given(mutated())
def test_memory_near_valid_patches_never_crash(data: bytes):
    plan_in_memory(data)


@given(st.binary(max_size=3000))
def test_memory_arbitrary_bytes_never_crash(data: bytes):
    plan_in_memory(data)


@given(st.lists(st.sampled_from(HEADER_NOISE + [b"+x", b"-x", b" x", b"x", b"+", b"-", b" "]),
                max_size=80).map(lambda lines: b"\n".join(lines)))
def test_memory_header_soup_never_crashes(data: bytes):
    plan_in_memory(data)


@pytest.fixture(scope="module")
def disk_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_repo(tmp_path_factory.mktemp("fuzz") / "repo", FILES)


def reset(repo: Path) -> None:
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=repo, check=True)
    subprocess.run(["git", "clean", "-qfdx"], cwd=repo, check=True)


@given(st.one_of(mutated(), valid_patch(), st.binary(max_size=600)))
def test_disk_refusals_change_nothing(disk_repo: Path, data: bytes):
    before = snapshot(disk_repo)
    start = time.process_time()
    receipt = apply_patch(data, disk_repo)
    assert time.process_time() - start < MAX_SECONDS
    if receipt.ok:
        reset(disk_repo)
    else:
        assert receipt.error is not None and receipt.error.code
        assert snapshot(disk_repo) == before, receipt.error
    assert not (disk_repo / ".git" / "holon-apply").exists()
    assert snapshot(disk_repo) == before


@pytest.mark.slow
def test_cli_survives_hostile_bytes(disk_repo: Path):
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(disk_repo, Path(tmp) / "r", symlinks=True)
        for data in [b"\x00" * 1000, b"\xff\xfe" + "diff".encode("utf-16-le"),
                     b"--- a/x\n+++ b/x\n@@ -1,999999999999 +1,1000000000000 @@\n-a\n+b\n",
                     b"@@" * 5000, b"--- a/src/app.py\n" * 3000]:
            import sys

            done = subprocess.run([sys.executable, "-m", "holon_git", "-"], input=data,
                                  cwd=Path(tmp) / "r", capture_output=True, timeout=60)
            assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr
            assert b"error: " in done.stderr
