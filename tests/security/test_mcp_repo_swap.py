"""The MCP server's repository, swapped for a symbolic link after start, is not followed
(issue 28, item 11).

The attack: the server is started with `--repo work`; while it runs, `work` is renamed away
and a symbolic link `work -> /elsewhere/repo` put in its place (or another directory moved
there). Calls that name no `repo` (one served repository) used the path and followed the
link: read_region read, and apply_patch wrote, a repository the server was never given. Now
the served directory's device and inode are taken at start and checked on every call.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from repos.builders import make_repo, snapshot
from test_mcp_server import Client, server, session, text

from holon_git.errors import PatchError
from holon_git.mcp_server.confine import Confinement

PATCH = "--- a/README\n+++ b/README\n@@ -1 +1 @@\n-hi\n+owned\n"


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    work = make_repo(tmp_path / "work", {"README": "hi\n"})
    elsewhere = make_repo(tmp_path / "elsewhere", {"README": "hi\n", "secret.txt": "s3cret\n"})
    return work, elsewhere


def swap_for_link(work: Path, target: Path) -> None:
    work.rename(work.with_name("work-moved"))
    os.symlink(target, work)


@pytest.mark.parametrize("swap", ["link", "directory"])
def test_a_swapped_repository_is_refused_in_process(layout: tuple[Path, Path], swap: str):
    work, elsewhere = layout
    confinement = Confinement([str(work)])
    assert confinement.resolve(None, None, "read_region") == str(work.resolve())
    if swap == "link":
        swap_for_link(work, elsewhere)
    else:
        work.rename(work.with_name("work-moved"))
        elsewhere.rename(work)
    for requested in (None, str(work)):
        with pytest.raises(PatchError) as caught:
            confinement.resolve(requested, None, "read_region")
        assert caught.value.code == "repo_not_served"


@pytest.mark.slow
def test_a_swapped_repository_is_refused_over_mcp(layout: tuple[Path, Path]):
    work, elsewhere = layout
    before = snapshot(elsewhere)

    async def body(client: Client) -> None:
        first = await client.call_tool("read_region", {"path": "README"})
        assert not first.is_error, text(first)
        swap_for_link(work, elsewhere)
        read = await client.call_tool("read_region", {"path": "secret.txt"})
        assert read.is_error and read.structured_content["error"]["code"] == "repo_not_served"
        assert "s3cret" not in text(read)
        applied = await client.call_tool("apply_patch", {"patch": PATCH})
        assert applied.is_error
        assert applied.structured_content["error"]["code"] == "repo_not_served"

    session(server(work), body)
    assert snapshot(elsewhere) == before
    assert (work.with_name("work-moved") / "README").read_text() == "hi\n"
