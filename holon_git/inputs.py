"""Patch text as the command line gets it: files and stdin, several applied as one patch, and
which of them a refusal came from (``details.patch_file``, docs/receipt.md)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .core.model import Patch
from .errors import PatchError
from .parse import merge_patches, parse_patch

STDIN = "-"


def read_patch_files(names: Sequence[str]) -> list[tuple[str, bytes]]:
    """(name, bytes) of each named file, '-' (or no name at all) being stdin; a file that
    cannot be read is a usage error naming it."""
    inputs = []
    for name in names or (STDIN,):
        if name == STDIN:
            inputs.append(("<stdin>", sys.stdin.buffer.read()))
            continue
        try:
            with open(name, "rb") as fh:
                inputs.append((name, fh.read()))
        except OSError as exc:
            raise PatchError("usage_error", f"cannot read patch {name!r}: "
                             f"{exc.strerror or exc}", hint="name a readable patch file, or "
                             "'-' for stdin") from None
    return inputs


class ParsedInputs:
    """Several inputs parsed as one patch, remembering which file patch came from where."""

    __slots__ = ("patch", "parts", "spans")

    def __init__(self, patch: Patch,
                 spans: list[tuple[str, list[tuple[list[str], int, int | None]]]],
                 parts: Sequence[Patch] = ()) -> None:
        self.patch = patch
        # each input's own patch (git's --stat lists each patch file on its own)
        self.parts = list(parts) or [patch]
        # per input: its name and the (path names, first patch line, next file patch's
        # line) of each of its file patches
        self.spans = spans

    def name_the_file(self, err: PatchError | None) -> None:
        """With several inputs, set ``details.patch_file`` of a refusal that one input's file
        patch caused (nothing when it cannot be told)."""
        if err is None or len(self.spans) < 2 or "patch_file" in err.details:
            return
        if err.path is None:
            return
        line = err.patch_line
        names = {name for name, files in self.spans for paths, start, end in files
                 if err.path in paths
                 and (line is None or (start <= line and (end is None or line < end)))}
        if len(names) == 1:
            err.details["patch_file"] = names.pop()


def parse_inputs(inputs: Sequence[tuple[str, bytes]], format: str = "auto",
                 strip: int | None = None, allow_empty: bool = False) -> ParsedInputs:
    """Parse each input and join them into one patch (file patches of one path in
    sequence); a parse error names its input when there are several. With ``allow_empty``
    (--allow-empty) an input that holds no file patch adds none."""
    patches = []
    for name, data in inputs:
        try:
            patches.append(parse_patch(data, format=format, strip=strip))
        except PatchError as err:
            if allow_empty and err.code == "empty_patch":
                patches.append(Patch([]))
                continue
            if len(inputs) > 1:
                err.details.setdefault("patch_file", name)
            raise
    spans = []
    if len(inputs) > 1:
        for (name, _), patch in zip(inputs, patches, strict=True):
            starts = [fp.patch_line for fp in patch.files]
            spans.append((name, [(fp.paths, start, end) for fp, start, end
                                 in zip(patch.files, starts, [*starts[1:], None], strict=True)]))
    return ParsedInputs(merge_patches(patches), spans, patches)
