"""git's ownership rule (CVE-2022-24765): a discovered repository must belong to the user.

As git 2.39's ``ensure_valid_ownership``: the working tree, the git directory and the
``.git`` file that points to it (when there is one) must each be owned by the current user
(for root: by root, or by the user ``SUDO_UID`` names), unless ``safe.directory`` lists the
repository (the working tree's path, or the git directory's for a bare repository) or
``*``. ``safe.directory`` counts only from the protected configuration (system, global,
``git -c``), never from the repository's own config; an empty value resets the list.
A repository named explicitly (GIT_DIR) is trusted, as git trusts it.
"""

from __future__ import annotations

import os

from ..errors import PatchError


def _owned_by_current_user(path: str) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    euid = os.geteuid()
    if euid == 0:
        if st.st_uid == 0:
            return True
        sudo_uid = os.environ.get("SUDO_UID", "")
        if sudo_uid.isdigit():
            euid = int(sudo_uid)
    return st.st_uid == euid


def _listed_safe(path: str) -> bool:
    from .gitconfig import protected_values

    candidates = {path, os.path.realpath(path)}
    safe = False
    for value in protected_values("safe.directory"):
        if not value:
            safe = False
        elif value == "*":
            safe = True
        else:
            listed = os.path.expanduser(value)
            if listed in candidates or os.path.realpath(listed) in candidates:
                safe = True
    return safe


def ensure_valid_ownership(gitfile: str | None, work_tree: str | None, git_dir: str) -> None:
    """Refuse (unsafe_repository) a repository git would call of dubious ownership. As in
    git, the directories are the real ones (git's working directory is resolved), and the
    gitfile is the entry in the real working tree."""
    real = [os.path.realpath(path) for path in (work_tree, git_dir) if path is not None]
    if gitfile is not None:
        real.append(os.path.join(os.path.realpath(os.path.dirname(gitfile)),
                                 os.path.basename(gitfile)))
    if all(_owned_by_current_user(path) for path in real):
        return
    identity = os.path.realpath(work_tree if work_tree is not None else git_dir)
    if _listed_safe(identity):
        return
    raise PatchError(
        "unsafe_repository", f"detected dubious ownership in repository at '{identity}': it "
        "is owned by another user", details={"repository": identity},
        hint="if you trust this repository, add an exception as git advises: "
        f"git config --global --add safe.directory {identity}")
