from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from repos.builders import GIT_ENV, make_repo

# the CLI tests' fixture `patch_file` (a module's own fixture of a name wins)
pytest_plugins = ["clisupport"]

settings.register_profile("ci", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=5000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
# the dedicated fuzzing run (docs/security.md): HYPOTHESIS_PROFILE=fuzz
settings.register_profile("fuzz", max_examples=100_000, deadline=None, database=None,
                          suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """The run's temporary files go into one directory of its own, removed when the run
    passes (kept, and named at the end, when it fails). xdist's workers get theirs inside it;
    ``--basetemp`` given on the command line is left alone."""
    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        config.option.basetemp = tempfile.mkdtemp(prefix="holon-git-tests-")
        config.stash[_OWN_BASETEMP] = config.option.basetemp


_OWN_BASETEMP = pytest.StashKey[str]()


def pytest_unconfigure(config: pytest.Config) -> None:
    basetemp = config.stash.get(_OWN_BASETEMP, None)
    if basetemp is None:
        return
    if config.stash.get(_FAILED, False) and os.path.isdir(basetemp) and os.listdir(basetemp):
        print(f"\nthe failed run's temporary files are kept in {basetemp}")
    else:
        shutil.rmtree(basetemp, ignore_errors=True)


_FAILED = pytest.StashKey[bool]()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[_FAILED] = exitstatus not in (0, pytest.ExitCode.NO_TESTS_COLLECTED)


@pytest.fixture(autouse=True)
def _ctrl_c_raises() -> Iterator[None]:
    """Every test starts as an interactive process would: Ctrl-C raises KeyboardInterrupt,
    even when the run itself was started with SIGINT ignored (nohup, a background job), and
    the processes a test starts inherit a default SIGINT."""
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the user's git configuration or inherits GIT_DIR and friends."""
    for key in list(os.environ):
        if key.startswith("GIT_"):
            monkeypatch.delenv(key)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


@pytest.fixture(autouse=True)
def _fresh_process_replacing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts as a fresh process would: modified files replaced by rename until
    16 were replaced (holon_git.targets.fstree), whatever the tests before it replaced."""
    from holon_git.fs import tree as fstree

    monkeypatch.setattr(fstree, "_replaced", 0)
    monkeypatch.setattr(fstree, "_renameat2", None)
    monkeypatch.setattr(fstree, "_unavailable", False)


# -- the one repository fixture ----------------------------------------------------------------

@pytest.fixture
def repo_files() -> Mapping[str, str | bytes]:
    """The files `repo` commits: f.txt of five lines (clisupport.PATCH changes line 3). A
    module overrides this fixture (and `repo_executable`) to commit its own."""
    return {"f.txt": "one\ntwo\nthree\nfour\nfive\n"}


@pytest.fixture
def repo_executable() -> Collection[str]:
    """The paths among `repo_files` committed executable."""
    return ()


@pytest.fixture
def repo(tmp_path: Path, repo_files: Mapping[str, str | bytes],
         repo_executable: Collection[str]) -> Path:
    """A repository (branch main) with `repo_files` committed, at tmp_path/repo."""
    return make_repo(tmp_path / "repo", repo_files, executable=repo_executable)
