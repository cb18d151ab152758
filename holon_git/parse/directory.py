"""Where a patch's paths are read from: git's rules for a patch applied in a subdirectory,
and --directory=ROOT.

As ``git apply`` reads them, a file patch with a ``diff --git`` header names paths from the top
of the repository wherever it is applied from; any other (a plain ``diff -u``, a ``--- a/x``
without git's header, the ``*** Begin Patch`` envelope) names them relative to the directory it
is applied from (``prefix``, the path of that directory below the top). ``--directory=ROOT``
puts ROOT before every path, as git's option does (after -p has stripped its components).
"""

from __future__ import annotations

from dataclasses import replace

from ..core.model import Diagnostic, FilePatch, Patch
from ..core.paths import normalize
from ..errors import PatchError


def check_root(root: str) -> str:
    """--directory's ROOT as a normalized relative path ('' for the top itself)."""
    stripped = root.strip("/")
    if root.startswith("/"):
        raise PatchError("usage_error", f"--directory {root!r} must be relative to the top of "
                         "the repository", details={"fields": ["directory"]})
    if not stripped or stripped == ".":
        return ""
    try:
        return normalize(stripped)
    except PatchError as err:
        raise PatchError("usage_error", f"--directory {root!r}: {err.message}",
                         hint="give a directory inside the repository, relative to its top, "
                         "e.g. --directory=src", details={"fields": ["directory"]}) from None


def relocated(patch: Patch, root: str = "", prefix: str = "") -> Patch:
    """The patch with ROOT before every path and ``prefix`` before the paths of the file
    patches that are not ``top_relative``; each moved file patch notes it."""
    if not root and not prefix:
        return patch
    files = [_moved(fp, root if fp.top_relative else _join(prefix, root), fp.top_relative,
                    prefix) for fp in patch.files]
    return replace(patch, files=files)


def _join(*parts: str) -> str:
    return "/".join(part for part in parts if part)


def _moved(fp: FilePatch, under: str, top_relative: bool, prefix: str) -> FilePatch:
    if not under:
        return fp

    def move(path: str | None) -> str | None:
        return None if path is None else normalize(f"{under}/{path}")

    notes = list(fp.diagnostics)
    if prefix and not top_relative:
        notes.append(Diagnostic(
            "relative_to_directory", f"{fp.path!r} read as {move(fp.path)!r}: a file patch "
            f"without a 'diff --git' header names paths relative to the directory it is applied "
            f"from ({prefix}), as git apply reads it", fp.patch_line))
    header = fp.header_paths
    return replace(fp, old_path=move(fp.old_path), new_path=move(fp.new_path),
                   header_paths=None if header is None else (move(header[0]) or "",
                                                            move(header[1]) or ""),
                   diagnostics=notes)
