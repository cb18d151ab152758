"""Benchmark inputs, built at bench time and cached outside the repository.

Nothing here is committed data: the Django sdists come from PyPI (checked against the sha256
PyPI publishes), the big files are generated from a seed-free formula, so every machine builds
byte-identical inputs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tarfile
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2001-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2001-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}

DJANGO_OLD, DJANGO_NEW = "4.2.16", "5.0.9"
# Left out of the large patch besides anything git sees as binary (NUL bytes).
SKIPPED_SUFFIXES = (".mo", ".png", ".gif", ".jpg", ".jpeg", ".ico", ".svg", ".woff", ".woff2",
                    ".ttf", ".eot", ".gz", ".zip")


def default_cache() -> Path:
    base = os.environ.get("HOLON_BENCH_CACHE")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "holon-git-bench"


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_ENV)
    env.update(extra or {})
    return env


def git(repo: Path, *args: str, env: Mapping[str, str] | None = None,
        input: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=repo, env=git_env(env), input=input,
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repo}: "
                           f"{done.stderr.decode(errors='replace')}")
    return done.stdout.decode("utf-8", "surrogateescape")


# -- the large real patch ----------------------------------------------------------------------
def is_text_member(name: str, data: bytes) -> bool:
    """Whether an sdist member goes into the benchmark trees (text files only)."""
    return not name.lower().endswith(SKIPPED_SUFFIXES) and b"\0" not in data[:8000]


def _download_sdist(version: str, cache: Path) -> Path:
    target = cache / f"Django-{version}.tar.gz"
    if target.exists():
        return target
    # PyPI's simple index (PEP 691 JSON), the one pip reads.
    request = urllib.request.Request("https://pypi.org/simple/django/",
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as r:
        index = json.load(r)
    wanted = {f"Django-{version}.tar.gz", f"django-{version}.tar.gz"}
    sdist = next(f for f in index["files"] if f["filename"] in wanted)
    with urllib.request.urlopen(sdist["url"], timeout=300) as r:
        data = r.read()
    if hashlib.sha256(data).hexdigest() != sdist["hashes"]["sha256"]:
        raise RuntimeError(f"Django {version} sdist does not match PyPI's sha256")
    partial = target.with_suffix(".partial")
    partial.write_bytes(data)
    partial.rename(target)
    return target


def _extract_text_tree(sdist: Path, dest: Path) -> None:
    """The sdist's text files under dest, without the top-level 'Django-X.Y.Z/' folder."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            _, _, rel = member.name.partition("/")
            fh = tar.extractfile(member)
            assert fh is not None
            data = fh.read()
            if not rel or not is_text_member(rel, data):
                continue
            path = dest / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            if member.mode & 0o100:
                path.chmod(0o755)


@dataclass
class LargePatch:
    repo: Path  # working repository; HEAD (branch main) is the old release
    bare: Path  # bare clone of it, for --ref / commit-tree
    patch: Path  # the diff old -> new, text files only
    old_commit: str
    files: int
    hunks: int
    touched_bytes: int  # bytes of the touched files: new size, or old size for deletions


def large_patch(cache: Path) -> LargePatch:
    root = cache / f"django-{DJANGO_OLD}-{DJANGO_NEW}"
    done = root / "ready.json"
    if not done.exists():
        root.mkdir(parents=True, exist_ok=True)
        old_tree, new_tree = root / "old-tree", root / "new-tree"
        _extract_text_tree(_download_sdist(DJANGO_OLD, cache), old_tree)
        _extract_text_tree(_download_sdist(DJANGO_NEW, cache), new_tree)
        repo = root / "repo"
        if repo.exists():
            shutil.rmtree(repo)
        shutil.copytree(old_tree, repo, symlinks=True)
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"Django {DJANGO_OLD}")
        old_commit = git(repo, "rev-parse", "HEAD").strip()
        # The new release staged in a side index, diffed against the old commit.
        side = {"GIT_INDEX_FILE": str(root / "new.index")}
        git(repo, "read-tree", old_commit, env=side)
        git(repo, f"--work-tree={new_tree}", "add", "-A", env=side)
        patch_text = subprocess.run(
            ["git", "diff", "--cached", "--no-renames", "--no-color", old_commit],
            cwd=repo, env=git_env(side), capture_output=True, check=True).stdout
        (root / "new.index").unlink()
        (root / "django.patch").write_bytes(patch_text)
        bare = root / "bare.git"
        if bare.exists():
            shutil.rmtree(bare)
        git(root, "clone", "-q", "--bare", str(repo), str(bare))
        touched, files = _touched(patch_text, old_tree, new_tree)
        done.write_text(json.dumps({
            "old_commit": old_commit, "files": files,
            "hunks": patch_text.count(b"\n@@ ") + patch_text.startswith(b"@@ "),
            "touched_bytes": touched,
        }))
        shutil.rmtree(old_tree)
        shutil.rmtree(new_tree)
    meta = json.loads(done.read_text())
    return LargePatch(root / "repo", root / "bare.git", root / "django.patch",
                      meta["old_commit"], meta["files"], meta["hunks"], meta["touched_bytes"])


def _touched(patch_text: bytes, old_tree: Path, new_tree: Path) -> tuple[int, int]:
    total = files = 0
    for line in patch_text.split(b"\n"):
        if line.startswith(b"diff --git a/"):
            rel = line[len(b"diff --git a/"):].split(b" b/", 1)[0].decode("utf-8",
                                                                           "surrogateescape")
            files += 1
            new, old = new_tree / rel, old_tree / rel
            total += new.stat().st_size if new.exists() else old.stat().st_size
    return total, files


# -- one big file --------------------------------------------------------------------------------
HUNKS = 1000  # in the big file, whatever its size: the cost of size alone shows
CONTEXT = 3


def big_file_lines(n: int) -> list[bytes]:
    """A Python-like file whose lines repeat in places (blank lines, 'return', 'pass')."""
    out = []
    for i in range(n):
        kind = i % 10
        if kind == 0:
            out.append(f"def step_{i // 10}(data, scale):\n".encode())
        elif kind == 9:
            out.append(b"\n")
        elif kind == 8:
            out.append(b"    return data\n")
        else:
            out.append(f"    data[{i % 97}] = data[{i % 89}] * scale + {i}\n".encode())
    return out


def drift(j: int) -> int:
    """A header offset for hunk j, never 0, varying between -30 and +30."""
    d = (j * 7919) % 61 - 30
    return d if d else 17


def big_file_patch(lines: list[bytes], name: str, drifted: bool, hunks: int = HUNKS) -> bytes:
    """``hunks`` hunks spread evenly, each replacing one line amid CONTEXT lines each side."""
    out = [f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n".encode()]
    every = len(lines) // hunks
    for j, centre in enumerate(range(every // 2, len(lines) - CONTEXT, every)):
        start = centre - CONTEXT  # 0-based first old line
        offset = drift(j) if drifted else 0
        stated = start + 1 + (offset if start + 1 + offset >= 1 else -offset)
        size = 2 * CONTEXT + 1
        out.append(f"@@ -{stated},{size} +{stated},{size} @@\n".encode())
        out.extend(b" " + line for line in lines[start:centre])
        out.append(b"-" + lines[centre])
        out.append(b"+" + lines[centre].rstrip(b"\n") + b"  # changed\n")
        out.extend(b" " + line for line in lines[centre + 1:centre + 1 + CONTEXT])
    return b"".join(out)


@dataclass
class BigFile:
    repo: Path
    name: str
    lines: int
    exact: Path
    drifted: Path
    hunks: int


def big_file(cache: Path, n: int) -> BigFile:
    root = cache / f"bigfile-{n}-{HUNKS}-v2"
    name = "big.py"
    exact, drifted = root / "exact.patch", root / "drifted.patch"
    if not (root / "ready").exists():
        if root.exists():
            shutil.rmtree(root)
        repo = root / "repo"
        repo.mkdir(parents=True)
        lines = big_file_lines(n)
        (repo / name).write_bytes(b"".join(lines))
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "big file")
        exact.write_bytes(big_file_patch(lines, name, drifted=False))
        drifted.write_bytes(big_file_patch(lines, name, drifted=True))
        (root / "ready").write_text("")
    hunks = exact.read_bytes().count(b"\n@@ ")
    return BigFile(root / "repo", name, n, exact, drifted, hunks)


# -- small inputs ----------------------------------------------------------------------------------
def small_repo(root: Path, lines: int, name: str = "module.py") -> Path:
    """A fresh repository with one committed file of ``lines`` lines."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root / name).write_bytes(b"".join(big_file_lines(lines)))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "small")
    return root


def hunks_patch(lines: list[bytes], name: str, centres: list[int]) -> bytes:
    """Exact-position hunks, each replacing the line at a 0-based centre."""
    out = [f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n".encode()]
    for centre in centres:
        start = max(0, centre - CONTEXT)
        end = min(len(lines), centre + 1 + CONTEXT)
        size = end - start
        out.append(f"@@ -{start + 1},{size} +{start + 1},{size} @@\n".encode())
        out.extend(b" " + line for line in lines[start:centre])
        out.append(b"-" + lines[centre])
        out.append(b"+" + lines[centre].rstrip(b"\n") + b"  # changed\n")
        out.extend(b" " + line for line in lines[centre + 1:end])
    return b"".join(out)


# -- repeated lines: matching that repetition must not slow ---------------------------------------
REPEATED_LINE = b"    pass\n"


@dataclass
class RepeatCase:
    repo: Path
    name: str
    patch: Path
    lines: int
    hunks: int
    zero_context: bool  # git apply needs --unidiff-zero for it


def identical_lines_patch(n: int, hunks: int, context: int, name: str,
                          added_copy: bool = False) -> bytes:
    """``hunks`` hunks spread evenly over a file of ``n`` identical lines, each replacing one
    line amid ``context`` identical lines each side; every header states the exact place.
    ``added_copy``: each hunk adds a copy of the repeated line between two new lines, so the
    lines earlier hunks added hold the line every later hunk's old side is made of."""
    out = [f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n".encode()]
    every = n // hunks
    grown = 0
    for j in range(hunks):
        centre = j * every + every // 2
        start = centre - context
        size = 2 * context + 1
        added = [f"+    changed({j})\n".encode()]
        if added_copy:
            added += [b"+" + REPEATED_LINE, f"+    again({j})\n".encode()]
        new_size = size - 1 + len(added)
        out.append(f"@@ -{start + 1},{size} +{start + 1 + grown},{new_size} @@\n".encode())
        out.extend([b" " + REPEATED_LINE] * context)
        out.append(b"-" + REPEATED_LINE)
        out.extend(added)
        out.extend([b" " + REPEATED_LINE] * context)
        grown += new_size - size
    return b"".join(out)


def blank_lines_patch(lines: list[bytes], hunks: int, name: str) -> bytes:
    """Zero-context hunks (diff -U0), each replacing one of the file's blank lines with a
    comment: every blank line is a copy of the old side, only the line number says which."""
    blanks = [i for i, line in enumerate(lines) if line == b"\n"]
    every = len(blanks) // hunks
    out = [f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n".encode()]
    for j in range(hunks):
        at = blanks[j * every + every // 2]
        out.append(f"@@ -{at + 1} +{at + 1} @@\n-\n+# section {j}\n".encode())
    return b"".join(out)


def repeat_case(cache: Path, kind: str, n: int, hunks: int) -> RepeatCase:
    """kind 'identical' (one line repeated ``n`` times, one-line context), 'identical3'
    (three lines of context), 'identical_added' (one-line context, each hunk adding a copy of
    the repeated line among its new lines) or 'blank' (a Python-like file, zero-context hunks
    on its blank lines)."""
    root = cache / f"repeat-{kind}-{n}-{hunks}-v1"
    name = "big.py"
    patch = root / "change.patch"
    if not (root / "ready").exists():
        if kind == "blank":
            lines = big_file_lines(n)
            text = blank_lines_patch(lines, hunks, name)
        else:
            lines = [REPEATED_LINE] * n
            text = identical_lines_patch(n, hunks, 3 if kind == "identical3" else 1, name,
                                         added_copy=kind == "identical_added")
        _one_file_repo(root, name, b"".join(lines))
        patch.write_bytes(text)
        (root / "ready").write_text("")
    return RepeatCase(root / "repo", name, patch, n, hunks, kind == "blank")


def _one_file_repo(root: Path, name: str, data: bytes) -> None:
    """A new repository at ``root``/repo (what was at ``root`` removed) with one commit of
    one file of lines that repeat."""
    if root.exists():
        shutil.rmtree(root)
    repo = root / "repo"
    repo.mkdir(parents=True)
    (repo / name).write_bytes(data)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "repeated lines")


# Issue 35, item 5: hunks of hundreds of context lines that repeat throughout the file.
SEARCH_LINE = b"x = 1\n"


def search_bound_case(cache: Path, n: int, context: int, kind: str) -> tuple[Path, Path]:
    """(repository, patch) of one file and one hunk of ``context`` + ``context`` lines of
    SEARCH_LINE around a removed line. kind 'absent': the file is ``n`` copies of the line
    and the removed line is one it lacks; 'blocks': the file is blocks of 2 * context - 2
    copies each closed by another line, and the removed line is SEARCH_LINE too, so that no
    block is long enough and every place is a near miss."""
    root = cache / f"searchbound-{kind}-{n}-{context}-v1"
    patch = root / "change.patch"
    if not (root / "ready").exists():
        if kind == "absent":
            text, removed = SEARCH_LINE * n, b"gone\n"
        else:
            block = SEARCH_LINE * (2 * context - 2) + b"y = 2\n"
            text, removed = block * (n // (2 * context - 1)), SEARCH_LINE
        _one_file_repo(root, "f.txt", text)
        side = b" " + SEARCH_LINE
        patch.write_bytes(b"diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n"
                          + b"@@ -1000,%d +1000,%d @@\n" % (2 * context + 1, 2 * context)
                          + side * context + b"-" + removed + side * context)
        (root / "ready").write_text("")
    return root / "repo", patch


def envelope_adds(cache: Path, count: int) -> tuple[Path, Path]:
    """(repository, patch): an envelope of ``count`` empty '*** Add File' sections, against a
    repository with one committed file."""
    root = cache / f"envelope-adds-{count}-v1"
    patch = root / "adds.patch"
    if not (root / "ready").exists():
        if root.exists():
            shutil.rmtree(root)
        small_repo(root / "repo", 10)
        with patch.open("wb") as out:
            out.write(b"*** Begin Patch\n")
            out.writelines(b"*** Add File: f%d\n" % i for i in range(count))
            out.write(b"*** End Patch\n")
        (root / "ready").write_text("")
    return root / "repo", patch
