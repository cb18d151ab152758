"""--stat, --numstat and --summary (report.py) byte for byte as `git apply` writes them: the
same patch given to both, with -R, with -z, and with core.quotePath off."""

from __future__ import annotations

from pathlib import Path

import pytest
from clisupport import PATCH, holon
from repos.builders import git


def _modify(path: str, removed: int, added: int, start: int = 1) -> str:
    """A hunk of ``path`` with one context line before its change."""
    body = " ctx\n" + "".join(f"-old {n}\n" for n in range(removed)) + \
        "".join(f"+new {n}\n" for n in range(added))
    return (f"--- a/{path}\n+++ b/{path}\n"
            f"@@ -{start},{removed + 1} +{start},{added + 1} @@\n{body}")


def _git_quoted(path: str) -> str:
    """``path`` as a 'diff --git' header writes it: quoted when it holds a tab, a quote or a
    backslash (a UTF-8 name may go unquoted)."""
    if not any(ch in path for ch in '\t"\\'):
        return path
    escaped = path.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    return f'"{escaped}"'


def _add(path: str, lines: int, mode: str = "100644") -> str:
    quoted_b = _git_quoted("b/" + path)
    return (f"diff --git {_git_quoted('a/' + path)} {quoted_b}\nnew file mode {mode}\n"
            f"--- /dev/null\n+++ {quoted_b}\n@@ -0,0 +1,{lines} @@\n"
            + "".join(f"+line {n}\n" for n in range(lines)))


def _rename(old: str, new: str, similarity: str | None = "90%", hunk: bool = True,
            modes: tuple[str, str] | None = None) -> str:
    out = f"diff --git a/{old} b/{new}\n"
    if modes:
        out += f"old mode {modes[0]}\nnew mode {modes[1]}\n"
    if similarity:
        out += f"similarity index {similarity}\n"
    out += f"rename from {old}\nrename to {new}\n"
    if hunk:
        out += f"--- a/{old}\n+++ b/{new}\n@@ -1,2 +1,2 @@\n ctx\n-x\n+y\n"
    return out


LONG = "deeply/nested/directory/with/a/rather/long/name/indeed/module.py"
PATCHES = {
    "renames with a shared directory": _rename("src/pkg/old_name.py", "src/pkg/new_name.py")
    + _rename("docs/a.md", "docs/guide/a.md", "100%", hunk=False),
    "renames sharing only a suffix, none scored": _rename("lib/util.py", "src/util.py")
    + _rename("x.txt", "y.txt", similarity=None, hunk=False),
    "a rename with a mode change": _rename("bin/run", "bin/run.sh", "95%",
                                          modes=("100644", "100755")),
    "a mode change with content": "diff --git a/tool.sh b/tool.sh\nold mode 100644\n"
    "new mode 100755\n" + _modify("tool.sh", 1, 1),
    "a rewrite": "diff --git a/r.txt b/r.txt\ndissimilarity index 85%\n" + _modify("r.txt", 3, 2),
    "adds and deletes": _add("new.txt", 2) + _add("bin/exe", 1, "100755")
    + "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n"
    "+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
    "only deletions": _modify("f.txt", 2, 0),
    "only insertions": _modify("f.txt", 0, 3),
    "traditional diffs: an add, one-hunk insertions and removals":
    "--- /dev/null\n+++ b/plain.txt\n@@ -0,0 +1 @@\n+a\n"
    "--- a/grow.txt\n+++ b/grow.txt\n@@ -3,0 +4,2 @@\n+x\n+y\n"
    "--- a/shrink.txt\n+++ b/shrink.txt\n@@ -1,2 +0,0 @@\n-x\n-y\n",
    "non-ASCII names, a quote and a space": _modify("café.txt", 1, 1) + _add("日本/名前.txt", 1)
    + _add('say "hi".txt', 1) + _add("with space.txt", 1)
    + _rename("données/a.txt", "données/b.txt"),
    "a tab and a backslash in a name": _add("t\tab.txt", 1) + _add("back\\slash.txt", 2),
    "long names and a bar scaled to 70 columns": _modify(LONG, 0, 150)
    + _modify("a" * 60 + ".txt", 3, 1) + _modify("short.py", 10, 10),
}


def _both(repo: Path, patch: str, *flags: str) -> tuple[bytes, bytes]:
    """What `git apply FLAGS` and `git holon-apply FLAGS` write for ``patch``."""
    expected = git(repo, "apply", *flags, "-", input=patch.encode())
    done = holon(repo, *flags, "-", stdin=patch)
    assert done.returncode == 0, done.stderr
    return expected.encode("utf-8", "surrogateescape"), done.stdout_bytes


@pytest.mark.parametrize("name", PATCHES)
def test_listings_are_gits_byte_for_byte(repo: Path, name: str):
    patch = PATCHES[name]
    for flags in (["--stat", "--numstat", "--summary"], ["-R", "--stat", "--summary"],
                  ["--numstat", "-z"], ["-R", "--numstat", "-z"]):
        expected, printed = _both(repo, patch, *flags)
        assert printed == expected, flags
    git(repo, "config", "core.quotePath", "false")
    expected, printed = _both(repo, patch, "--stat", "--numstat")
    assert printed == expected


def test_stat_totals_leave_out_a_zero_count(repo: Path):
    """git writes '1 file changed, 2 deletions(-)', and both counts only when both are 0."""
    done = holon(repo, "--stat", "-", stdin=_modify("f.txt", 2, 0))
    assert done.stdout.endswith(" 1 file changed, 2 deletions(-)\n")
    done = holon(repo, "--stat", "-", stdin=_rename("x.txt", "y.txt", hunk=False))
    assert done.stdout.endswith(" 1 file changed, 0 insertions(+), 0 deletions(-)\n")


def test_a_listing_takes_a_path_an_apply_refuses(repo: Path):
    """A tab in a path: git lists it, quoted; holon-git lists it too, writing nothing, and
    still refuses to apply it (invalid_path)."""
    patch = _add("t\tab.txt", 1)
    done = holon(repo, "--numstat", "-", stdin=patch)
    assert done.returncode == 0 and done.stdout == '1\t0\t"t\\tab.txt"\n'
    for flags in ([], ["--stat", "--apply"], ["--stat", "--check"]):
        done = holon(repo, *flags, "-", stdin=patch)
        assert done.returncode == 1 and "invalid_path" in done.stderr, flags
    assert not (repo / "t\tab.txt").exists()


@pytest.mark.parametrize("order", ["narrower first", "wider first"])
def test_several_patch_files_are_listed_each_on_its_own(repo: Path, tmp_path: Path, order: str):
    """git lists each patch file it is given on its own, with its own --stat total, but keeps
    --stat's name width and bar scale from one file to the next: a later file is padded and
    scaled to at least the earlier ones (only the narrower file first shows it)."""
    narrow, wide = tmp_path / "narrow.diff", tmp_path / "wide.diff"
    narrow.write_text(_modify("s.txt", 1, 4) + _add("x", 2))
    wide.write_text(_modify(LONG, 0, 120) + _add("bin/exe", 1, "100755")
                    + _rename("données/a.txt", "données/b.txt"))
    first, second = (narrow, wide) if order == "narrower first" else (wide, narrow)
    for flags in (["--stat"], ["--stat", "--numstat", "--summary"], ["-R", "--stat"],
                  ["--numstat", "-z"]):
        expected = git(repo, "apply", *flags, str(first), str(second))
        done = holon(repo, *flags, str(first), str(second))
        assert done.returncode == 0, done.stderr
        assert done.stdout_bytes == expected.encode("utf-8", "surrogateescape"), flags
    assert holon(repo, "--stat", str(first), str(second)).stdout.count("changed") == 2


@pytest.mark.parametrize("flags", [
    ["--stat", "--apply"], ["--numstat", "--apply"], ["--stat", "--apply", "--cached"],
    ["--summary", "--check"], ["--stat", "--check"],
    ["--stat", "--include=nomatch"], ["--numstat", "--include=nomatch"],
    ["--stat", "--allow-empty", "--include=nomatch"]])
def test_a_listing_prints_what_git_prints_and_nothing_more(repo: Path, flags: list[str]):
    """With --apply or --check the listing is all stdout gets (no 'Applied ...' line); a
    patch whose every file --include/--exclude leaves out lists as git lists no file."""
    patch = PATCH
    expected = git(repo, "apply", *flags, "-", input=patch.encode())
    git(repo, "reset", "-q", "--hard")
    done = holon(repo, *flags, "-", stdin=patch)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected


def test_an_empty_patch_with_allow_empty_lists_nothing(repo: Path):
    for flags in (["--stat"], ["--numstat"], ["--summary"]):
        assert git(repo, "apply", *flags, "--allow-empty", "-", input=b"") == ""
        done = holon(repo, *flags, "--allow-empty", "-", stdin="")
        assert (done.returncode, done.stdout) == (0, ""), flags
