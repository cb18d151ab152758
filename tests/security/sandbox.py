"""A repository inside a sentinel directory, to prove a hostile patch wrote nowhere.

    box = Sandbox.make(tmp_path, {"f.txt": "x\\n"})
    box.refused(patch, "path_escape")   # refused with that code, and nothing anywhere changed

The sentinel directory holds the repository and an ``outside/`` directory with a secret file;
symbolic links in tests point there. ``snapshot_all`` covers everything under the sentinel,
the repository's .git included, so a write outside the repository, into .git, or a stray
temporary or journal file all show.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from gitsupport import refused
from repos.builders import make_repo, snapshot_all

SECRET = b"secret outside the repository\n"


@dataclass
class Sandbox:
    sentinel: Path
    repo: Path

    @property
    def outside(self) -> Path:
        return self.sentinel / "outside"

    @classmethod
    def make(cls, tmp_path: Path, files: dict[str, str | bytes] | None = None,
             symlinks: dict[str, str] | None = None) -> Sandbox:
        sentinel = tmp_path / "sentinel"
        (sentinel / "outside").mkdir(parents=True)
        (sentinel / "outside" / "secret.txt").write_bytes(SECRET)
        repo = make_repo(sentinel / "repo", files or {"f.txt": "one\ntwo\nthree\n"},
                         symlinks=symlinks)
        return cls(sentinel, repo)

    def state(self) -> dict[str, tuple]:
        return snapshot_all(self.sentinel)

    def refused(self, patch: str | bytes, *codes: str, **options: object):
        """The shared helper (gitsupport.refused): refused with one of ``codes``, and nothing
        anywhere under the sentinel directory changed."""
        return refused(self.repo, patch, codes, state=self.state, **options)

    def refused_by_cli(self, patch: bytes, *codes: str) -> str:
        before = self.state()
        done = subprocess.run([sys.executable, "-m", "holon_git", "--json", "-"],
                              input=patch, cwd=self.repo, capture_output=True, timeout=60)
        assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
        assert b"Traceback" not in done.stderr, done.stderr
        assert any(f"error: {code}:".encode() in done.stderr for code in codes), done.stderr
        assert self.state() == before
        return done.stderr.decode(errors="replace")
