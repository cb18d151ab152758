"""What holon-git prints where git prints less or says otherwise (issue 45, item 7): an
envelope's --summary with its modes, one line for many saved deletions, the history log's
refusal worded for what it knows, an added file's own hint, install-hooks and protect-check
saying what to do, and the library's unknown keyword named as Python names it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from clisupport import holon, report_lines
from repos.builders import git, git_env, git_state, make_repo, snapshot

from holon_git import apply_patch, check_patch

ENVELOPE = (b"*** Begin Patch\n*** Delete File: gone.txt\n*** Add File: new.txt\n+hello\n"
            b"*** Delete File: run.sh\n*** End Patch\n")  # in git diff's order


def test_an_envelopes_summary_names_the_modes_as_git_does(tmp_path: Path):
    """The same change as git's own diff, listed by git apply --summary: byte for byte."""
    repo = make_repo(tmp_path / "r", {"gone.txt": "bye\n", "run.sh": "echo\n"},
                     executable=["run.sh"])
    ours = holon(repo, "--summary", "-", stdin=ENVELOPE)
    assert ours.returncode == 0, ours.stderr
    (repo / "new.txt").write_text("hello\n")
    git(repo, "add", "-A")
    git(repo, "rm", "-q", "--cached", "gone.txt", "run.sh")
    diff = git(repo, "diff", "--cached").encode()
    theirs = subprocess.run(["git", "apply", "--summary", "-"], cwd=repo, input=diff,
                            capture_output=True, env=git_env(), check=True).stdout
    assert ours.stdout_bytes == theirs == (b" delete mode 100644 gone.txt\n"
                                           b" create mode 100644 new.txt\n"
                                           b" delete mode 100755 run.sh\n")


def _deleting(tmp_path: Path, count: int) -> tuple[Path, str]:
    names = [f"f{n}.txt" for n in range(count)]
    repo = make_repo(tmp_path / "r", {name: f"{name}\n" for name in names})
    git(repo, "rm", "-q", *names)
    patch = git(repo, "diff", "--cached")
    git(repo, "reset", "-q", "--hard")
    return repo, patch


def test_many_saved_deletions_are_one_line_and_listed_under_v(tmp_path: Path):
    repo, patch = _deleting(tmp_path, 19)
    done = holon(repo, "-", stdin=patch)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Applied 19 files (19 deleted).",
        "  content of the 19 deleted files saved as git blobs (-v: how to restore each)"]
    git(repo, "reset", "-q", "--hard")
    verbose = holon(repo, "-v", "-", stdin=patch).stdout.splitlines()
    saved = [line for line in verbose if "content saved as blob" in line]
    assert len(saved) == 19 and all("git cat-file -p " in line for line in saved)


def test_one_saved_deletion_keeps_its_line(tmp_path: Path):
    repo, patch = _deleting(tmp_path, 1)
    lines = holon(repo, "-", stdin=patch).stdout.splitlines()
    assert len(lines) == 2 and lines[1].startswith("  deleted f0.txt: content saved as blob ")


def test_the_history_logs_refusal_says_what_the_log_knows(tmp_path: Path):
    """Applied by holon-git, reset, applied again by git apply: the log cannot tell who
    wrote the file last, and the refusal does not claim it was this tool."""
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\nthree\n"})
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    assert apply_patch(patch, repo).ok
    git(repo, "reset", "-q", "--hard")
    subprocess.run(["git", "apply", "-"], cwd=repo, input=patch.encode(), env=git_env(),
                   check=True)
    before, state = snapshot(repo), git_state(repo)
    receipt = apply_patch(patch, repo)
    assert receipt.error is not None and receipt.error.code == "already_applied"
    assert receipt.error.message == (
        "the history log (.git/holon-apply-history) records this very patch applied to "
        "'f.txt' by holon-git, and the file holds what it wrote then: a re-send")
    assert "whatever applied it" in receipt.error.hint
    assert "this tool" not in receipt.error.message + receipt.error.hint
    assert snapshot(repo) == before and git_state(repo) == state


def test_an_added_file_already_there_gets_a_files_hint_not_a_hunks(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": "x\n"})
    patch = ("diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n"
             "+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n")
    assert apply_patch(patch, repo).ok
    done = holon(repo, "-", stdin=patch)
    assert done.returncode == 1
    assert report_lines(done.stderr) == [
        "error: already_applied: new.txt (patch line 1): 'new.txt' already exists with this "
        "content",
        "hint: the file this patch adds is already there, byte for byte: there is nothing to "
        "do for it; drop this file patch (or leave it out: --exclude=new.txt)"]
    assert holon(repo, "--exclude=new.txt", "--allow-empty", "-", stdin=patch).returncode == 0


FRAMEWORK_HOOK = "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n"


def test_install_hooks_beside_the_frameworks_says_nothing_was_installed(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": "x\n"})
    hooks = repo / ".git" / "hooks"
    (hooks / "pre-commit").write_text(FRAMEWORK_HOOK)
    done = holon(repo, "install-hooks")
    assert done.returncode == 1 and not (hooks / "pre-merge-commit").exists()
    error, hint = report_lines(done.stderr)
    assert error.endswith("(it is the pre-commit framework's); nothing was installed: not "
                          "pre-merge-commit either (all hooks or none)")
    assert ".pre-commit-config.yaml" in hint
    assert hint.endswith("to install only the free one: git holon-apply install-hooks "
                         "pre-merge-commit")
    assert holon(repo, "install-hooks", "pre-merge-commit").returncode == 0


def test_the_policy_files_first_commit_is_refused_with_how_to_make_it(tmp_path: Path):
    repo = make_repo(tmp_path / "r", {"f.txt": "x\n"})
    (repo / ".holon").mkdir()
    (repo / ".holon" / "protect").write_text("secret/*\n")
    git(repo, "add", ".holon/protect")
    done = holon(repo, "protect-check")
    assert done.returncode == 1
    assert done.stderr == (
        ".holon/protect: protected_path: '.holon/protect' is protected by the policy file "
        "(.holon/protect protects itself, from its first commit on: commit it on its own, "
        "deliberately, past the hook (git commit --no-verify))\n")
    (repo / "f.txt").write_text("y\n")
    git(repo, "commit", "-q", "--no-verify", "-m", "policy")  # the way it says
    assert holon(repo, "protect-check").returncode == 0


@pytest.mark.parametrize("function", [apply_patch, check_patch])
def test_an_unknown_keyword_names_the_function_and_the_option_meant(tmp_path: Path,
                                                                    function: object):
    repo = make_repo(tmp_path / "r", {"f.txt": "x\n"})
    with pytest.raises(TypeError) as raised:
        function("--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-x\n+y\n", repo,  # type: ignore[operator]
                 revers=True)
    said = str(raised.value)
    assert said.startswith(f"{function.__name__}() got an unexpected keyword argument "  # type: ignore[attr-defined]
                           "'revers' (did you mean 'reverse'?); its options are ")
    assert "__init__" not in said and (repo / "f.txt").read_text() == "x\n"
