"""File patches holon-git reads but does not apply (a binary file, a mode change alone, a path
with a tab): parsed into the model with their refusal held (``FilePatch.unsupported``), so
that --include/--exclude can leave them out and --reject apply the rest, as git apply
--exclude does, and --stat/--numstat/--summary list them as git lists them. The plan raises
the refusal of any such file patch still selected (core/plan/plan.py)."""

from __future__ import annotations

import re

from ..core import paths
from ..core.model import FilePatch
from ..errors import PatchError

# one line of a 'GIT binary patch' body: 'literal N' / 'delta N', a base85 line (its length
# as a letter, then the data), or the blank line that ends each of its two halves
_BINARY_BODY = re.compile(rb"^(?:(?:literal|delta) \d+|[A-Za-z][0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]*"
                          rb"|)\r?\n?$")
_GLOB_SPECIALS = "*?[]"
BINARY_REFUSAL = "binary patches are not supported"
BINARY_INSTEAD = "send the change as a text diff"
MODE_ONLY_REFUSAL = "a mode change without content changes is not supported"
MODE_ONLY_INSTEAD = "change the mode with git itself (git update-index --chmod=+x)"


def is_binary_body_line(line: bytes) -> bool:
    """Whether ``line`` belongs to a 'GIT binary patch' body."""
    return bool(_BINARY_BODY.match(line))


def exclude_pattern(path: str) -> str:
    """An --exclude pattern (gitignore rules) that matches ``path``: its glob characters
    escaped, and a control character or backslash (which a pattern cannot spell plainly)
    matched by '?'; quoted for a shell when it needs to be."""
    pattern = "".join("?" if ord(ch) < 32 or ord(ch) == 127 or ch == "\\"
                      else "\\" + ch if ch in _GLOB_SPECIALS else ch for ch in path)
    if pattern.startswith(("!", "#")):
        pattern = "\\" + pattern
    import shlex  # a refusal's hint only: start-up counts

    return shlex.quote(pattern)


def leave_out_hint(path: str, instead: str) -> str:
    """The hint of a file patch holon-git does not apply: the options that leave it out (git
    apply's), then what to send ``instead``."""
    return (f"leave this file out with --exclude={exclude_pattern(path)} (or apply the rest "
            f"with --reject), or {instead}")


def hold_refusal(fp: FilePatch, message: str | None, instead: str) -> FilePatch:
    """``fp`` with its refusal (``unsupported_git_patch_feature``: ``message``) held, or, when
    ``message`` is None, with that of a path holon-git applies none of (a control character,
    a backslash: git takes them), if it has one."""
    if message is not None:
        fp.unsupported = PatchError("unsupported_git_patch_feature", message,
                                    patch_line=fp.patch_line, path=fp.path,
                                    hint=leave_out_hint(fp.path, instead))
        return fp
    for path in fp.paths:
        refusal = paths.listed_only_refusal(path)
        if refusal is not None:
            refusal.located(patch_line=fp.patch_line, path=path)
            refusal.hint = leave_out_hint(path, "rename the file without it")
            fp.unsupported = refusal
            break
    return fp
