"""Which repositories the server works in: those given at start, narrowed by the client's roots.

A repository is named by the top of its working tree (a path inside it names it too, but a
nested repository is a repository of its own). Paths are compared after resolving symbolic
links, so a link cannot make an unserved repository look like a served one. Each served
repository's identity (device and inode) is taken at start and checked on every call: a
repository directory swapped since (for a symbolic link to elsewhere, or another directory)
is refused, not followed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from urllib.parse import unquote, urlsplit

from ..errors import PatchError
from ..git.location import locate

REPO_HINT = "pass one of the served repositories as `repo`, or start the server with --repo for "\
    "this one"


def _top_level(path: str) -> str | None:
    """The real path of the working tree ``path`` is in, or None if it is in none."""
    location = locate(path)
    if location.git_dir is None or location.work_tree is None:
        return None
    return os.path.realpath(location.work_tree)


def served_repositories(paths: Sequence[str]) -> tuple[str, ...]:
    """The repositories ``paths`` name (default: the current directory's), each once; raises
    PatchError('not_a_repository') for a path that is not in a non-bare repository."""
    repos: dict[str, None] = {}
    for path in paths or ["."]:
        if not os.path.isdir(path):
            raise PatchError("not_a_repository", f"{path!r} is not a directory")
        top = _top_level(path)
        if top is None:
            bare = locate(path).git_dir is not None
            raise PatchError("not_a_repository", f"{os.path.abspath(path)} is "
                             + ("a bare repository, with no working tree to patch" if bare
                                else "not inside a git repository"))
        repos[top] = None
    return tuple(repos)


def roots_from_uris(uris: Iterable[str]) -> tuple[str, ...] | None:
    """The local directories among a client's roots (file:// URIs), resolved; None when it
    lists none, which narrows nothing. A file root that names no path (a NUL in it) still
    narrows: it allows nothing, so a client listing only such roots is allowed none."""
    found, unusable = [], False
    for uri in uris:
        parts = urlsplit(uri)
        if parts.scheme == "file" and parts.netloc in ("", "localhost") and parts.path:
            path = unquote(parts.path, errors="surrogateescape")
            if "\0" in path:
                unusable = True
                continue
            found.append(os.path.realpath(path))
    if not found and unusable:
        return ()
    return tuple(found) or None


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Confinement:
    """The served repositories; ``resolve`` picks the one a tool call may use."""

    def __init__(self, repos: Sequence[str]) -> None:
        self.repos = served_repositories(repos)
        self.identities = {repo: _identity(repo) for repo in self.repos}

    def allowed(self, roots: Sequence[str] | None) -> list[str]:
        """The served repositories whose whole working tree lies inside one of ``roots``."""
        if roots is None:
            return list(self.repos)
        return [repo for repo in self.repos if any(_within(repo, root) for root in roots)]

    def resolve(self, requested: str | None, roots: Sequence[str] | None,
                tool: str) -> str:
        """The repository a call names with ``requested`` (a path in it; None: the only one
        allowed), or PatchError('repo_not_served')."""
        allowed = self.allowed(roots)
        served = ", ".join(self.repos)
        if requested is None:
            if len(allowed) == 1:
                return self._unchanged(allowed[0])
            if not allowed:
                raise PatchError("repo_not_served", "none of the served repositories "
                                 f"({served}) lies inside the client's roots "
                                 f"({', '.join(roots or ())})",
                                 hint="add the repository to the client's roots, or start the "
                                 "server with --repo for a repository inside them")
            raise PatchError("invalid_tool_input", "this server serves several repositories: "
                             f"name one as `repo` ({', '.join(allowed)})",
                             hint=f"call {tool} again with `repo` set to one of the repositories "
                             "named")
        if "\0" in requested:
            raise PatchError("invalid_tool_input", "`repo` holds a NUL character: it names no "
                             "directory", hint=REPO_HINT)
        path = os.path.realpath(requested)
        top = _top_level(path) if os.path.isdir(path) else None
        if top is None or top not in self.repos:
            what = "is not a directory" if not os.path.isdir(path) else (
                "is not in a git repository" if top is None else
                f"is in {top}, which this server does not serve")
            raise PatchError("repo_not_served", f"{requested!r} {what}; this server serves "
                             f"{served}", hint=REPO_HINT)
        if top not in allowed:
            raise PatchError("repo_not_served", f"{top} is outside the client's roots "
                             f"({', '.join(roots or ())})", hint="work in a repository inside "
                             "the client's roots, or add this one to them")
        return self._unchanged(top)

    def _unchanged(self, repo: str) -> str:
        """``repo``, if it is still the very directory served at start (not a symbolic link,
        no link on its way, same device and inode); else PatchError('repo_not_served')."""
        if os.path.realpath(repo) != repo or _identity(repo) != self.identities[repo]:
            raise PatchError("repo_not_served", f"{repo} is no longer the repository this "
                             "server started with (replaced or moved since); it is not served",
                             hint="restart the server with --repo naming the repository")
        return repo


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the directory at ``path`` itself (a link is not followed)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None
