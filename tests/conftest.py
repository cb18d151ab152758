from __future__ import annotations

import fcntl
import gc
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from repos.builders import GIT_ENV, make_repo

# clisupport: the CLI tests' fixture `patch_file` (a module's own fixture of a name wins);
# slow_marker: the default run leaves out the tests marked slow (CI runs them too)
pytest_plugins = ["clisupport", "slow_marker"]

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
    passes (kept, and named at the end, when it fails): pytest's under ``run/`` (xdist's
    workers get theirs inside it), everything else made through TMPDIR under ``tmp/``
    (scratch directories of the processes the tests start, killed ones included).
    ``--basetemp`` given on the command line is left alone. The bytecode cache of the run's
    processes is kept from run to run, under .pytest_cache/pycache."""
    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        root = tempfile.mkdtemp(prefix="holon-git-tests-", dir=_fast_temp_root())
        scratch = os.path.join(root, "tmp")
        os.mkdir(scratch)
        os.environ["TMPDIR"] = tempfile.tempdir = scratch  # xdist's workers inherit it
        config.option.basetemp = os.path.join(root, "run")
        config.stash[_OWN_BASETEMP] = root
        _bytecode_cached_in(str(config.rootpath / ".pytest_cache" / "pycache"))


def _bytecode_cached_in(prefix: str) -> None:
    """The Python processes the run starts (xdist's workers, the command line, MCP servers,
    mypy) share one bytecode cache, kept from run to run (.pytest_cache, which git ignores):
    each module is compiled once, not once per process, and nothing is written beside the
    sources. A run in an environment that forbids bytecode files (PYTHONDONTWRITEBYTECODE)
    otherwise compiles every module of holon-git in every one of its hundreds of processes;
    and a cache made new for each run compiled again every module the run imports, the
    standard library's and the installed packages' included (with a prefix set, Python
    reads no __pycache__ directory): seconds of CPU. A .pyc is checked against its source's
    time and size, so a changed module is compiled again. PYTHONPYCACHEPREFIX set by the
    user is left alone."""
    if os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = prefix


_OWN_BASETEMP = pytest.StashKey[str]()
_SHM = "/dev/shm"
_SHM_NEEDED = 2 << 30  # bytes free on /dev/shm; a run's peak is far less (about 120 MB)


def _fast_temp_root() -> str | None:
    """Where the run's directory goes: TMPDIR when the user set one; else /dev/shm when it is
    a tmpfs that allows executables and has room; else the system's temporary directory.
    Why: the tests make and remove tens of thousands of files, and on a disk filesystem that
    can cost more kernel time than the tests themselves (ext4 without a journal scans past
    every recently deleted inode to make a new one: over a third of the CPU time of a run on
    the 2-core machines this suite is measured on). tmpfs is a real filesystem with the same
    calls (rename, exchange, links, modes, fsync); only power loss, which no test can show,
    is out of its reach. (A run killed outright leaves its directory there, in memory, as it
    would leave it in /tmp.)"""
    if os.environ.get("TMPDIR") or not os.path.isdir(_SHM) or not os.access(_SHM, os.W_OK):
        return None
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as mounts:
            entries = [line.split() for line in mounts]
        room = os.statvfs(_SHM)
    except OSError:
        return None
    mount = [e for e in entries if len(e) > 3 and e[1] == _SHM]
    if not mount or mount[-1][2] != "tmpfs" or "noexec" in mount[-1][3].split(","):
        return None
    return _SHM if room.f_bavail * room.f_frsize >= _SHM_NEEDED else None


def pytest_sessionstart(session: pytest.Session) -> None:
    """pytest-xdist, quiet (-q) and not on a terminal, writes its status line when the
    workers start and again when they have collected, and under -q both say 'bringing up
    nodes...': a line is written only when it says something new."""
    reporter = session.config.pluginmanager.getplugin("terminaldistreporter")
    if reporter is None or not hasattr(reporter, "ensure_show_status"):
        return
    show, said = reporter.ensure_show_status, []

    def show_once() -> None:
        line = reporter.getstatus()
        if not said or said[-1] != line:
            said.append(line)
            show()

    reporter.ensure_show_status = show_once


def pytest_unconfigure(config: pytest.Config) -> None:
    root = config.stash.get(_OWN_BASETEMP, None)
    if root is None:
        return
    # the bytecode of modules the tests copied into the run's directory (a package copy that
    # mypy or lint-imports checks): not wanted again, as the directory is not
    prefix = os.environ.get("PYTHONPYCACHEPREFIX")
    if prefix:
        shutil.rmtree(os.path.join(prefix, root.lstrip(os.sep)), ignore_errors=True)
    run = os.path.join(root, "run")
    if config.stash.get(_FAILED, False) and os.path.isdir(run) and os.listdir(run):
        print(f"\nthe failed run's temporary files are kept in {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)


_FAILED = pytest.StashKey[bool]()


def pytest_collection_finish(session: pytest.Session) -> None:
    """What exists once the tests are collected (every test module and all it imports) lives
    as long as the process: frozen, the cyclic garbage collector stops walking it again at
    each full collection (7% of a sample's CPU time). What the tests make is collected as
    usual."""
    gc.collect()
    gc.freeze()


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


# -- what the run builds once ------------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


Make = Callable[[Path], None]


@pytest.fixture(scope="session")
def made_once(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Make], Path]:
    """``made_once(name, make)``: a directory of the run's, made by ``make(directory)`` once
    for the whole run, by the first process that asks, xdist's workers included (the others
    wait on a lock file), so that what costs seconds of CPU (a wheel built, a repository a
    virtualenv is installed from) is paid once, not once per worker."""
    base = tmp_path_factory.getbasetemp()
    # each worker's own base directory is inside the run's
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared"
    shared.mkdir(exist_ok=True)

    def made(name: str, make: Make) -> Path:
        target = shared / name
        with open(shared / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            done = shared / f"{name}.done"
            if not done.exists():
                shutil.rmtree(target, ignore_errors=True)
                make(target)
                done.touch()
        return target

    return made


@pytest.fixture(scope="session")
def built_wheel(made_once: Callable[[str, Make], Path]) -> Path:
    """The wheel of this working copy (pip wheel, hatchling), built once for the run."""
    def build(directory: Path) -> None:
        subprocess.run([sys.executable, "-m", "pip", "-q", "--disable-pip-version-check",
                        "wheel", "--no-deps", "-w", str(directory), str(ROOT)], check=True,
                       capture_output=True)

    wheel, = made_once("wheel", build).glob("*.whl")
    return wheel
