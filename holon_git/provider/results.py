"""The tool result a model reads: a receipt in a few short lines.

On success, one line per file: action, path, hunks and where they landed, what was tolerated,
which metadata was ignored; and for a file merged by the three-way rescue, a note that it had
changed and was merged. On refusal: the code, what failed, the hint naming the rule (or, for
already_applied and not_applied, what to do next), and for a hunk whose context was not found
or a merge conflict the current text of the region with line numbers (and the patch's lines
for a conflict), so the model can fix the hunk without reading the file again. Every refusal
of the patch is there, each so (the receipt's ``errors``): one round fixes them all.
"""

from __future__ import annotations

from ..core.change import FileChange, HunkResult
from ..core.model import FileKind
from ..errors import PatchError
from ..quoting import safe_text
from ..receipt import CHECKED, Receipt
from .definitions import TOOL_NAME

MAX_REGION_LINES = 40  # of the near-miss region shown after a refusal (of all, when several)
MIN_REGION_LINES = 10  # of each refusal's region, when several share them
MAX_REFUSALS_SHOWN = 20  # refusals shown in full in one result; the rest are counted
MAX_LINE_CHARS = 240

# With the current text shown, the model need not re-read the file first.
_REGION_HINTS = {
    "context_not_found": "re-emit the hunk with context and removed lines copied exactly from "
    "the current text below (or re-read the file if the hunk belongs elsewhere)",
    "merge_conflict": "the file changed since the version your patch was written against, "
    "and both changed these lines: re-emit the hunk against the current text below, keeping "
    "the change already there if it is wanted",
}

# What happened, in words a model acts on, for refusals that are not mistakes in the patch.
_NEXT_STEP = {
    "already_applied": "nothing to do: the file already has this change (a re-sent patch?). "
    "Do not send it again; re-read the file if you are unsure what it holds.",
    "not_applied": "nothing to undo: this patch's change is not in the file, so it cannot be "
    "reversed. Re-read the file to see what it holds.",
}

# Diagnostics that repeat a hunk tolerance already listed.
_SAME_AS_TOLERANCE = {"blank_context_line", "placed_by_line_number"}


def format_result(receipt: Receipt, tool: str = TOOL_NAME) -> str:
    """The tool result text; ``tool`` is the name the model called the tool by."""
    if receipt.error is not None:
        return format_refusals(receipt.errors,
                               f"{tool} refused the patch; nothing was changed.")
    return safe_text(_success(receipt, tool))


def format_refusals(errors: list[PatchError], headline: str) -> str:
    """Every refusal of one call, each as format_refusal shows one, after ``headline``; the
    regions shown share MAX_REGION_LINES between them, at least MIN_REGION_LINES each. Past
    MAX_REFUSALS_SHOWN, the rest are counted by code (the receipt has them all)."""
    if len(errors) == 1:
        return format_refusal(errors[0], headline)
    shown = errors[:MAX_REFUSALS_SHOWN]
    region = max(MAX_REGION_LINES // len(shown), MIN_REGION_LINES)
    blocks = [format_refusal(err, f"refusal {number} of {len(errors)}:", region)
              for number, err in enumerate(shown, 1)]
    rest = errors[len(shown):]
    if rest:
        counted: dict[str, int] = {}
        for err in rest:
            counted[err.code] = counted.get(err.code, 0) + 1
        blocks.append(f"... and {len(rest)} more refusals not shown ("
                      + ", ".join(f"{code}: {n}" for code, n in counted.items())
                      + "); fix those shown, then check the patch again.")
    return safe_text("\n\n".join([f"{headline} {len(errors)} refusals, each below; fix "
                                   "them all before sending the patch again.", *blocks]))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _where(hunks: list[HunkResult]) -> str:
    spots = []
    for hunk in hunks:
        spot = str(hunk.applied_line)
        if hunk.offset:
            spot += f" (header said {hunk.hinted_line})"
        spots.append(spot)
    return f" at line{'s' if len(spots) > 1 else ''} {', '.join(spots)}" if spots else ""


def _tolerated(change: FileChange) -> list[str]:
    seen: dict[str, None] = {}
    for hunk in change.hunks:
        seen.update(dict.fromkeys(hunk.tolerances))
        if hunk.by_line_number:
            seen["placed_by_line_number"] = None
    for diagnostic in change.diagnostics:
        if diagnostic.code not in _SAME_AS_TOLERANCE:
            seen[diagnostic.code] = None
    return list(seen)


def _file_line(change: FileChange) -> str:
    counts = [f"+{change.added_lines}" if change.added_lines else "",
              f"-{change.removed_lines}" if change.removed_lines else ""]
    what = " ".join(c for c in counts if c) or (
        "content unchanged" if change.kind is FileKind.RENAME else "empty file")
    if change.hunks:
        what += f", {_plural(len(change.hunks), 'hunk')}{_where(change.hunks)}"
    parts = [f"{change.kind.value} {change.display_name}: {what}"]
    tolerated = _tolerated(change)
    if tolerated:
        parts.append(f"tolerated: {', '.join(tolerated)}")
    if change.ignored_metadata:
        parts.append(f"ignored metadata: {'; '.join(change.ignored_metadata)}")
    return "; ".join(parts)


def _merged_line(change: FileChange) -> str:
    assert change.three_way is not None
    there = [h.index for h in change.hunks if h.already_applied]
    already = (f" Hunk{'s' if len(there) > 1 else ''} {', '.join(map(str, there))} "
               f"{'were' if len(there) > 1 else 'was'} in the file already." if there else "")
    return (f"note: {change.path} had changed since the version your patch was written "
            f"against ({change.three_way['base']}); the patch was merged with those changes, "
            f"which are kept.{already} Re-read the file before patching it again.")


def _success(receipt: Receipt, tool: str) -> str:
    files = receipt.files
    verb = "would apply (checked, nothing written)" if receipt.status == CHECKED else "applied"
    lines = [f"{tool} {verb}: {_plural(len(files), 'file')}."]
    lines.extend(_file_line(change) for change in files)
    lines.extend(_merged_line(change) for change in files if change.three_way is not None)
    if receipt.diagnostics:
        codes = dict.fromkeys(d.code for d in receipt.diagnostics)
        lines.append(f"patch text tolerated: {', '.join(codes)}")
    return "\n".join(lines)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_LINE_CHARS else text[: MAX_LINE_CHARS - 3] + "..."


def format_refusal(err: PatchError, headline: str, max_region: int = MAX_REGION_LINES) -> str:
    """A refusal for the model: ``headline``, the code and where, what failed, the fix, and
    the current text of the region the error names (if any; at most ``max_region`` lines)."""
    where = []
    if err.path is not None:
        where.append(err.path)
    if err.hunk is not None:
        where.append(f"hunk {err.hunk}")
    if err.patch_line is not None:
        where.append(f"patch line {err.patch_line}")
    region = err.details.get("region") or []
    hint = _REGION_HINTS.get(err.code, err.hint) if region else err.hint
    lines = [
        headline,
        f"error: {err.code}" + (f" ({', '.join(where)})" if where else ""),
        f"what: {err.message}",
        f"fix: {hint}" if err.code not in _NEXT_STEP else f"next: {_NEXT_STEP[err.code]}",
    ]
    if region:
        shown = region[:max_region]
        first, last = shown[0]["line"], shown[-1]["line"]
        span = f"{first}-{last}" if last != first else f"{first}"
        subject = err.path or "the file"
        lines.append(f"current text of {subject}, lines {span} (number|text):")
        lines.extend(f"{row['line']}|{_clip(row['text'])}" for row in shown)
        if len(region) > len(shown):
            lines.append(f"... {len(region) - len(shown)} more lines not shown")
    wanted = err.details.get("patch_lines")
    if err.code == "merge_conflict" and wanted is not None:
        lines.append("your patch's lines for that region:" if wanted
                     else "your patch removes that region")
        lines.extend(f"|{_clip(text)}" for text in wanted[:max_region])
        hidden = err.details.get("base_lines_not_shown")
        if hidden:
            lines.append(f"({hidden} lines there come from the version the patch was written "
                         "against and are not shown)")
    return safe_text("\n".join(lines))  # a path that is not UTF-8, escaped
