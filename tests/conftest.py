from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings
from repos.builders import GIT_ENV

# the CLI tests' fixtures `repo` and `patch_file` (a module's own fixture of a name wins)
pytest_plugins = ["clisupport"]

settings.register_profile("ci", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=5000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
# the dedicated fuzzing run (docs/security.md): HYPOTHESIS_PROFILE=fuzz
settings.register_profile("fuzz", max_examples=100_000, deadline=None, database=None,
                          suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


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
