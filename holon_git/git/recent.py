"""HEAD's recent history as the three-way rescue reads it: walked once per call, each path
asked looked up once, within one budget for the whole call.

Before (issue 42, item 7), each file patch with a stale ``index`` line walked up to
MAX_HISTORY_COMMITS commits of HEAD's history (and RECENT_COMMITS more) on its own, reading
the path in each commit's tree: 200 such file patches, a 33 KB patch, took 171 s where
``git apply -3`` takes 0.02 s. Now one ``RecentHistory`` serves a call (one per
RepositoryVersions, which a target makes once per apply): each order of the walk is read
once and kept as (commit, tree) ids, trees are read once and kept, a path's entries along
the walk are looked up once and kept, and every tree entry looked up counts against
HISTORY_LOOKUPS. Past that budget the history gives nothing more for the rest of the call:
the rescue goes on with the versions it has (the index, HEAD, the history log), which is
what it had for a path with no history at all.
"""

from __future__ import annotations

from typing import Any

from .libgit2 import pygit2

# tree entries the rescue may look up in HEAD's history, in all, during one call: a path
# through 1,000 commits costs 1,000 of them per component, a few milliseconds in all
HISTORY_LOOKUPS = 100_000
_TREES_KEPT = 4096  # tree objects held at once (each path asked reads the same ones again)

Entry = tuple[str, str, int]  # (commit id, object id, file mode) of a path in one commit


class RecentHistory:
    """The newest commits of HEAD's history, read for the paths asked, once each."""

    def __init__(self, repo: Any, budget: int = HISTORY_LOOKUPS) -> None:
        self._repo = repo
        self.budget = budget
        self.lookups = 0  # tree entries looked up so far (the budget counts these)
        self.commits_walked = 0  # commits read from the walks, every order together
        self._walks: dict[tuple[int, int], list[tuple[str, str]]] = {}
        self._trees: dict[str, Any] = {}
        self._children: dict[tuple[str, str], tuple[str, int] | None] = {}
        self._entries: dict[tuple[str, int, int], list[Entry]] = {}

    @property
    def spent(self) -> bool:
        """The budget is spent: no more history is read during this call."""
        return self.lookups >= self.budget

    def entries(self, path: str, order: int, commits: int) -> list[Entry]:
        """(commit, object, mode) of ``path`` in each of the newest ``commits`` commits of
        HEAD's history walked in ``order`` (a pygit2 SortMode) that hold it, newest first;
        cut short where the call's budget ran out."""
        key = (path, order, commits)
        if key not in self._entries:
            found: list[Entry] = []
            for commit, tree in self._walk(order, commits):
                if self.spent:
                    break
                entry = self._entry(tree, path)
                if entry is not None:
                    found.append((commit, *entry))
            self._entries[key] = found
        return self._entries[key]

    def _walk(self, order: int, commits: int) -> list[tuple[str, str]]:
        """(commit, tree) ids of the newest ``commits`` commits of HEAD's history, in
        ``order``: walked once per call."""
        key = (order, commits)
        if key not in self._walks:
            from .branches import head_commit

            walked: list[tuple[str, str]] = []
            try:
                head = head_commit(self._repo)
                if head is not None:
                    for commit in self._repo.walk(head, order):
                        if len(walked) >= commits:
                            break
                        self.commits_walked += 1
                        walked.append((str(commit.id), str(commit.tree_id)))
            except (KeyError, ValueError, pygit2.GitError):
                pass  # a broken history gives what was read before the break
            self._walks[key] = walked
        return self._walks[key]

    def _entry(self, tree: str, path: str) -> tuple[str, int] | None:
        """(object id, mode) of ``path`` in the tree ``tree``, one component at a time; a
        component looked up in a tree once is never looked up again (commits share most of
        their subtrees)."""
        found: tuple[str, int] | None = (tree, 0o040000)
        for name in path.split("/"):
            if found is None or found[1] != 0o040000:
                return None
            key = (found[0], name)
            if key not in self._children:
                if self.spent:
                    return None
                self.lookups += 1
                self._children[key] = self._child(found[0], name)
            found = self._children[key]
        return found

    def _child(self, tree_id: str, name: str) -> tuple[str, int] | None:
        try:
            tree = self._trees.get(tree_id)
            if tree is None:
                if len(self._trees) >= _TREES_KEPT:
                    self._trees.clear()
                tree = self._trees[tree_id] = self._repo[tree_id]
            child = tree[name]
        except (KeyError, ValueError, TypeError, pygit2.GitError):
            return None
        return str(child.id), int(child.filemode)
