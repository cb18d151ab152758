"""HEAD's recent history as the three-way rescue reads it: walked once per call, each path
asked looked up once, within one budget for the whole call.

Before (issue 42, item 7), each file patch with a stale ``index`` line walked up to
MAX_HISTORY_COMMITS commits of HEAD's history (and RECENT_COMMITS more) on its own, reading
the path in each commit's tree: 200 such file patches, a 33 KB patch, took 171 s where
``git apply -3`` takes 0.02 s. Now one ``RecentHistory`` serves a call (one per
RepositoryVersions, which a target makes once per apply): each order of the walk is read
once and kept as (commit, tree) ids, a directory's tree along the walk is read once, a
path's entries once per distinct tree of its directory, and the work (commits walked,
entries read) counts against HISTORY_BUDGET. Past that budget the history gives nothing
more for the rest of the call: the rescue goes on with the versions it has (the index,
HEAD, the history log), which is what it had for a path with no history at all.
"""

from __future__ import annotations

from typing import Any

from .libgit2 import pygit2

# The work the rescue may spend reading HEAD's history during one call: a commit's entry for
# a path costs 1, a tree entry read from the object database _READ_COST more. A path
# through the 1,050 commits walked costs about 1,050 (its directory's trees are read once
# per distinct tree, and shared by the paths in it): some 2,000 paths' worth, a few tenths
# of a second in all.
HISTORY_BUDGET = 2_000_000
_READ_COST = 16
_TREE = 0o040000
_TREES_KEPT = 4096  # tree objects held at once (each path asked reads the same ones again)

Entry = tuple[str, str, int]  # (commit id, object id, file mode) of a path in one commit


class RecentHistory:
    """The newest commits of HEAD's history, read for the paths asked, once each."""

    def __init__(self, repo: Any, budget: int = HISTORY_BUDGET) -> None:
        self._repo = repo
        self.budget = budget
        self.work = 0  # what the budget counts
        self.commits_walked = 0  # commits read from the walks, every order together
        self.trees_read = 0  # tree entries read from the object database
        self._walks: dict[tuple[int, int], list[tuple[str, str]]] = {}
        self._trees: dict[str, Any] = {}
        self._children: dict[tuple[str, str], tuple[str, int] | None] = {}
        self._directories: dict[tuple[int, int, str], list[str | None]] = {}
        self._entries: dict[tuple[str, int, int], list[Entry]] = {}

    @property
    def spent(self) -> bool:
        """The budget is spent: no more history is read during this call."""
        return self.work >= self.budget

    def entries(self, path: str, order: int, commits: int) -> list[Entry]:
        """(commit, object, mode) of ``path`` in each of the newest ``commits`` commits of
        HEAD's history walked in ``order`` (a pygit2 SortMode) that hold it, newest first;
        none once the call's budget is spent."""
        key = (path, order, commits)
        if key not in self._entries:
            directory, _, name = path.rpartition("/")
            found: list[Entry] = []
            walk = self._walk(order, commits)
            trees = self._directory(order, commits, directory)
            if not self.spent:
                self.work += len(walk)
                last_tree: str | None = None
                entry: tuple[str, int] | None = None
                for (commit, _), tree in zip(walk, trees, strict=True):
                    if tree is None:
                        continue
                    if tree != last_tree:  # most commits leave a directory as it was
                        last_tree, entry = tree, self._child(tree, name)
                    if entry is not None:
                        found.append((commit, *entry))
            self._entries[key] = found
        return self._entries[key]

    def _directory(self, order: int, commits: int, directory: str) -> list[str | None]:
        """The tree id of ``directory`` ("" for the root) in each commit of the walk, None
        where it is no directory: read once per directory, and per distinct parent tree."""
        key = (order, commits, directory)
        if key not in self._directories:
            if not directory:
                trees: list[str | None] = [tree for _, tree in self._walk(order, commits)]
            else:
                parent, _, name = directory.rpartition("/")
                trees, last, child = [], None, None
                for tree in self._directory(order, commits, parent):
                    if tree is not None and tree != last:
                        last, found = tree, self._child(tree, name)
                        child = found[0] if found is not None and found[1] == _TREE else None
                    trees.append(child if tree is not None else None)
                self.work += len(trees)
            self._directories[key] = trees
        return self._directories[key]

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
            self.work += len(walked) * _READ_COST
            self._walks[key] = walked
        return self._walks[key]

    def _child(self, tree_id: str, name: str) -> tuple[str, int] | None:
        """(object id, mode) of the entry ``name`` of the tree ``tree_id``: read once."""
        key = (tree_id, name)
        if key in self._children:
            return self._children[key]
        if self.spent:
            return None
        self.trees_read += 1
        self.work += _READ_COST
        try:
            tree = self._trees.get(tree_id)
            if tree is None:
                if len(self._trees) >= _TREES_KEPT:
                    self._trees.clear()
                tree = self._trees[tree_id] = self._repo[tree_id]
            child = tree[name]
            found: tuple[str, int] | None = (str(child.id), int(child.filemode))
        except (KeyError, ValueError, TypeError, pygit2.GitError):
            found = None
        self._children[key] = found
        return found
