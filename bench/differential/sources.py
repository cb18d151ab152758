"""Pinned sdists of real Python code for the differential suite, and the file pairs they give.

Each package is pinned at two consecutive releases: the older one is the base a model's patch
is written against (fresh-file slips and near-duplicate traps use it alone); the newer one is
the same file as a user's repository holds it later (stale-file cases). None of these is one of
the packages the applybench corpora were built from. Downloads go through pip
(`pip download --no-deps --no-binary :all:`) into a cache folder outside the repository
(`$HOLON_DIFF_CACHE` or `~/.cache/holon-git-differential`) and are checked against the sha256
recorded here.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

# (name, old version, sha256, new version, sha256)
PINS: tuple[tuple[str, str, str, str, str], ...] = (
    (
        "six",
        "1.16.0",
        "1e61c37477a1626458e36f7b1d82aa5c9b094fa4802892072e49de9c60c4c926",
        "1.17.0",
        "ff70335d468e7eb6ec65b95b99d3a2836546063f63acc5171de367e834932a81",
    ),
    (
        "idna",
        "3.6",
        "9ecdbbd083b06798ae1e86adcbfe8ab1479cf864e4ee30fe4e46a003d12491ca",
        "3.7",
        "028ff3aadf0609c1fd278d8ea3089299412a7a8b9bd005dd08b9f8285bcb5cfc",
    ),
    (
        "tomli",
        "2.0.1",
        "de526c12914f0c550d15924c62d72abc48d6fe7364aa87328337a31007fe8a4f",
        "2.1.0",
        "3f646cae2aec94e17d04973e4249548320197cfabdf130015d023de4b74d8ab8",
    ),
    (
        "wcwidth",
        "0.2.12",
        "f01c104efdf57971bcb756f054dd58ddec5204dd15fa31d6503ea57947d97c02",
        "0.2.13",
        "72ea0c06399eb286d978fdedb6923a9eb47e1c486ce63e9b4e64fc18303972b5",
    ),
    (
        "sqlparse",
        "0.4.4",
        "d446183e84b8349fa3061f0fe7f06ca94ba65b426946ffebe6e3e8295332420c",
        "0.5.0",
        "714d0a4932c059d16189f58ef5411ec2287a4360f17cdd0edd2d09d4c5087c93",
    ),
    (
        "itsdangerous",
        "2.1.2",
        "5dbbc68b317e5e42f327f9021763545dc3fc3bfe22e6deb96aaf1fc38874156a",
        "2.2.0",
        "e0050c0b7da1eea53ffaf149c0cfbb5c6e2e2b69c4bef22c81fa6eb73e5f6173",
    ),
    (
        "tabulate",
        "0.8.10",
        "6c57f3f3dd7ac2782770155f3adb2db0b1a269637e42f27599925e64b114f519",
        "0.9.0",
        "0095b12bf5966de529c0feb1fa08671671b3368eec77d7ef7ab114be2c068b3c",
    ),
    (
        "decorator",
        "5.1.0",
        "e59913af105b9860aa2c8d3272d9de5a56a4e608db9a2f167a8480b323d529a7",
        "5.1.1",
        "637996211036b6385ef91435e4fae22989472f9d571faba8927ba8253acbc330",
    ),
    (
        "humanize",
        "4.8.0",
        "9783373bf1eec713a770ecaa7c2d7a7902c98398009dfa3d8a2df91eec9311e8",
        "4.9.0",
        "582a265c931c683a7e9b8ed9559089dea7edcf6cc95be39a3cbc2c5d5ac2bcfa",
    ),
    (
        "cachetools",
        "5.3.2",
        "086ee420196f7b2ab9ca2db2520aca326318b68fe5ba8bc4d49cca91add450f2",
        "5.3.3",
        "ba29e2dfa0b8b556606f097407ed1aa62080ee108ab0dc5ec9d6a723a007d105",
    ),
    (
        "colorama",
        "0.4.5",
        "e6c6b4334fc50988a639d9b98aa429a0b57da6e17b9a44f0451f930b6967b7a4",
        "0.4.6",
        "08695f5cb7ed6e0531a20572697297273c47b8cae5a63ffc6d6ed5c201be6e44",
    ),
    (
        "toolz",
        "0.12.0",
        "88c570861c440ee3f2f6037c4654613228ff40c93a6c25e0eba70d17282c6194",
        "0.12.1",
        "ecca342664893f177a13dac0e6b41cbd8ac25a358e5f215316d43e2100224f4d",
    ),
)

# Files outside this size are left out: tiny ones give no context, huge generated tables
# (idna's uts46data.py) would make every case slow without adding a shape.
MIN_LINES = 40
MAX_BYTES = 60_000


@dataclass(frozen=True)
class SourceFile:
    """One .py file of a package: its text in the old release and, if present, the new one."""

    package: str
    path: str
    old: str
    new: str | None


def cache_dir() -> Path:
    return Path(
        os.environ.get("HOLON_DIFF_CACHE", Path.home() / ".cache" / "holon-git-differential")
    )


def _sdist(name: str, version: str, sha256: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    found = [p for p in folder.glob(f"{name}-{version}.*") if p.name.endswith((".tar.gz", ".zip"))]
    if not found:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                str(folder),
                f"{name}=={version}",
            ],
            check=True,
        )
        found = [p for p in folder.glob(f"{name}-{version}.*") if p.name.endswith(".tar.gz")]
    path = found[0]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{path}: sha256 {digest}, expected {sha256}")
    return path


def _python_files(archive: Path) -> dict[str, str]:
    """Every .py file of an sdist, keyed by its path below the top folder."""
    files: dict[str, str] = {}
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if not member.isfile() or not member.name.endswith(".py") or member.size > MAX_BYTES:
                continue
            handle = tar.extractfile(member)
            if handle is None:
                continue
            try:
                text = handle.read().decode("utf-8")
            except UnicodeDecodeError:
                continue
            if "\r" in text or text.count("\n") < MIN_LINES or not text.endswith("\n"):
                continue
            files[member.name.split("/", 1)[1]] = text
    return files


def load_sources() -> list[SourceFile]:
    """The old release's files of every pinned package, each with its newer text if it has one."""
    folder = cache_dir()
    sources: list[SourceFile] = []
    for name, old_version, old_sha, new_version, new_sha in PINS:
        old = _python_files(_sdist(name, old_version, old_sha, folder))
        new = _python_files(_sdist(name, new_version, new_sha, folder))
        for path in sorted(old):
            sources.append(SourceFile(name, path, old[path], new.get(path)))
    return sources
