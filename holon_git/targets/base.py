"""The contract every target keeps: the steps of an apply, in the order api.py runs them.

    target = open_target(name, repo, ...)          # targets/registry.py
    check_protected(patch, target.protection())     # refuses protected paths (also --check)
    on_planned = target.prepare(patch, stage=...)   # before planning
    plan = plan_patch(patch, target.read, keep_preimages=target.needs_planned_preimages,
                      on_planned=on_planned, three_way=target.known_versions())
    target.validate(plan)                           # refusals the plan cannot see
    sides = target.diff_sides(plan)                 # --emit-diff
    extra = target.write(plan)                      # all or nothing; receipt fields
    target.close()                                  # always, written or not

Each target states every step: the required ones are abstract, and the optional ones have a
default here that says what not taking the step means. The API calls the steps directly; it
never asks a target what it can do.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import ClassVar, NamedTuple

from ..core.change import REGULAR, FileChange, Plan, SourceFile
from ..core.model import Mail, Patch
from ..core.policy import Protection
from ..core.threeway import KnownVersions

OnPlanned = Callable[[FileChange], None]


class CommitSpec(NamedTuple):  # a named tuple: cheaper to build at start-up than a dataclass
    """What to commit with, and where: the current branch, or ``ref`` (a branch name)."""

    message: str  # "" for a --check: nothing is committed
    author: str | None = None  # "Name <email>"; default: git's author rules
    ref: str | None = None
    base: str | None = None  # --base REV: the branch ``ref`` is created there
    # Called after the commit object exists and before the branch is compare-and-swapped;
    # lets tests (and cautious automation) observe or provoke a concurrent update.
    on_ref_update: Callable[[], None] | None = None
    author_date: str | None = None  # a mail's Date: (git am's author date); default: now


class Side(NamedTuple):  # a named tuple: cheaper to build at start-up than a dataclass
    """One changed file as --emit-diff compares it (git/diff.py renders the diff)."""

    old_path: str | None
    new_path: str | None
    old: bytes | None  # None: the file did not exist
    new: bytes | None
    old_mode: int = REGULAR
    new_mode: int = REGULAR


def plan_sides(plan: Plan) -> list[Side]:
    """The sides of a plan as its target read and wrote them."""
    sides = []
    for change in plan.changes:
        before = change.before
        old_mode = before.mode if before is not None else REGULAR
        sides.append(Side(
            change.old_path if before is not None else None,
            change.new_path if change.after is not None else None,
            before.data if before is not None else None,
            change.after,
            old_mode,
            change.mode if change.mode is not None else old_mode,
        ))
    return sides


class Target(ABC):
    name: ClassVar[str]  # the receipt's "target": worktree, index, both, ref
    # Whether the write needs each pre-image's content as the plan read it. False lets the plan
    # drop it once its file is planned (a large patch then never holds every old file at once):
    # the target reads it again, or needs blob ids only.
    needs_planned_preimages: ClassVar[bool] = True

    @abstractmethod
    def read(self, path: str) -> SourceFile | None:
        """A path's pre-image as this target holds it (None: no file there); refuses a path
        the target may not touch."""

    @abstractmethod
    def protection(self) -> Protection:
        """The protected-path patterns in force for this target."""

    def prepare(self, patch: Patch, stage: bool) -> OnPlanned | None:
        """Before planning: the target may learn the paths the patch deletes or renames away
        (so ``read`` sees past them) and, when ``stage`` (a write will follow), return a
        callback the plan calls with each change as soon as it is planned, to write its new
        content out then. Default: nothing to learn, nothing staged early."""
        return None

    def known_versions(self) -> KnownVersions | None:
        """The files' other versions for the three-way rescue (core/threeway.py). Default:
        none, so a file patch whose old lines are not in the current text is refused."""
        return None

    def validate(self, plan: Plan) -> None:
        """Refuse a plan before anything is written (also with --check), for reasons the
        planner cannot see. Default: every plan the planner made is writable."""
        return None

    def diff_sides(self, plan: Plan) -> list[Side]:
        """The old and new contents --emit-diff compares. Default: as the plan read and wrote
        them."""
        return plan_sides(plan)

    def commit_first(self, earlier: list[tuple[Mail, list[FileChange]]]) -> None:
        """A series of mails (git am's): before the plan's own commit, one commit for each
        of ``earlier``, with its mail's message and author, of the tree its changes (from
        the pre-images, as a plan's) make; the plan's commit comes after them, and the branch
        moves once, to it. Only a target that commits is asked."""
        raise NotImplementedError(f"the {self.name} target makes no commit")

    @abstractmethod
    def write(self, plan: Plan) -> dict[str, object]:
        """Write the whole plan or nothing; the fields this target adds to the receipt."""

    @abstractmethod
    def close(self) -> None:
        """Release whatever the target holds (locks, descriptors, early staging)."""
