"""The cycle collector is paused during an apply and restored to the caller's setting."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from repos.builders import make_repo

from holon_git import apply_patch, check_patch

PATCH = b"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"


@pytest.mark.parametrize("enabled", [True, False])
def test_collector_setting_is_restored(tmp_path: Path, enabled: bool) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\n"})
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        assert check_patch(PATCH, repo).ok
        assert gc.isenabled() is enabled
        assert not apply_patch(b"not a patch", repo).ok
        assert gc.isenabled() is enabled
        assert apply_patch(PATCH, repo).ok
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_collector_is_paused_while_planning(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from holon_git import api

    seen: list[bool] = []
    real = api.plan_patch

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "plan_patch", spy)
    repo = make_repo(tmp_path / "r", {"f.txt": "one\ntwo\n"})
    assert apply_patch(PATCH, repo).ok
    assert seen == [False]
