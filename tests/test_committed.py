"""holon_git/git/committed.py reads HEAD's tree without pygit2: it answers as git does, or
says it cannot tell (None), on real repositories in every storage state."""

from __future__ import annotations

from pathlib import Path

import pytest
from repos.builders import git, make_empty_repo, make_repo

from holon_git.git.committed import head_holds

FILES = {f"d{i}/sub{j}/f{k}.txt": f"{i} {j} {k}\n" * (k + 1)
         for i in range(3) for j in range(3) for k in range(4)}
FILES.update({"top.txt": "top\n", "name with space.txt": "s\n", ".holon/protect": "x\n"})


def git_holds(repo: Path, path: str) -> bool:
    """Does HEAD hold a file (not a directory) at ``path``, by git's own reading?"""
    return git(repo, "cat-file", "-t", f"HEAD:{path}", check=False).strip() == "blob"


def probes() -> list[str]:
    return sorted(FILES) + ["d0", "d1/sub2", "missing.txt", "d0/sub0/nope.txt",
                            "top.txt/x", ".holon/protect/x", "name with space.txt"]


def history(repo: Path) -> None:
    for round_ in range(12):  # many versions of every tree: deltas in a pack
        for path in list(FILES)[round_::5]:
            (repo / path).write_text(f"round {round_}\n" + (repo / path).read_text())
        git(repo, "commit", "-qam", f"round {round_}")


@pytest.mark.slow
@pytest.mark.parametrize("state", ["loose", "packed", "aggressive", "packed_refs", "detached"])
def test_it_answers_as_git(tmp_path: Path, state: str):
    repo = make_repo(tmp_path / "r", FILES)
    history(repo)
    if state in ("packed", "packed_refs", "detached"):
        git(repo, "gc", "-q")
    if state == "aggressive":
        git(repo, "gc", "-q", "--aggressive")
    if state == "packed_refs":
        git(repo, "pack-refs", "--all")
        assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    if state == "detached":
        git(repo, "checkout", "-q", "--detach", "HEAD~3")
    for path in probes():
        assert head_holds(str(repo / ".git"), path) is git_holds(repo, path), path


def test_a_linked_worktree_reads_its_own_head(tmp_path: Path):
    repo = make_repo(tmp_path / "r", FILES)
    git(repo, "checkout", "-q", "-b", "bare-branch")
    git(repo, "rm", "-q", "-r", "d0")
    git(repo, "commit", "-qm", "no d0")
    git(repo, "checkout", "-q", "main")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "bare-branch")
    linked = git(tmp_path / "wt", "rev-parse", "--absolute-git-dir").strip()
    assert head_holds(linked, "d0/sub0/f0.txt") is False
    assert head_holds(str(repo / ".git"), "d0/sub0/f0.txt") is True


def test_an_unborn_head_holds_nothing(tmp_path: Path):
    repo = make_empty_repo(tmp_path / "r")
    assert head_holds(str(repo / ".git"), ".holon/protect") is False


@pytest.mark.parametrize("packed", [False, True])
def test_sha256_repositories_too(tmp_path: Path, packed: bool):
    repo = tmp_path / "s"
    git(tmp_path, "init", "-q", "--object-format=sha256", "-b", "main", str(repo))
    for path, text in FILES.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "initial")
    history(repo)
    if packed:
        git(repo, "gc", "-q", "--aggressive")
    for path in probes():
        assert head_holds(str(repo / ".git"), path) is git_holds(repo, path), path


def test_what_it_cannot_read_it_does_not_guess(tmp_path: Path):
    reftable = tmp_path / "t"
    done = git(tmp_path, "init", "-q", "--ref-format=reftable", str(reftable), check=False)
    if (reftable / ".git").exists():
        assert head_holds(str(reftable / ".git"), "x") is None, done
    repo = make_repo(tmp_path / "r", FILES)
    git(repo, "gc", "-q")
    (pack,) = (repo / ".git" / "objects" / "pack").glob("*.pack")
    data = bytearray(pack.read_bytes())
    data[20:4000] = bytes(len(data[20:4000]))  # the objects' compressed data, zeroed
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    assert head_holds(str(repo / ".git"), ".holon/protect") is None
    assert head_holds(str(tmp_path / "nowhere"), ".holon/protect") is None
