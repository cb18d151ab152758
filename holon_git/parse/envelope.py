"""The Codex-style '*** Begin Patch' envelope (see issue: envelope support)."""

from __future__ import annotations

from ..errors import PatchError
from ..model import Patch
from .text import Lines


def parse_envelope(lines: Lines) -> Patch:
    raise PatchError(
        "patch_parse_error",
        "the '*** Begin Patch' envelope is not supported yet",
        patch_line=lines.numbers[0] if lines.numbers else 1,
        hint="send a unified diff ('--- a/path', '+++ b/path', '@@' hunks)",
    )
