"""What the command line prints for a person: the summary of an apply, the diffstat, what a
non-atomic refusal left, and every error in one style, ``error: CODE: message`` then
``hint: ...``. Text only; the command line (cli.py) decides where it goes."""

from __future__ import annotations

from collections.abc import Sequence

from .core.change import RejectedHunk
from .core.model import FileKind, FilePatch, display_name
from .errors import PatchError
from .quoting import quote_path
from .receipt import Receipt

# Diagnostics the summary says without -v: a hunk or header read otherwise than written
# (core/place/salvage/, the '+++' typo), naming what was left out
READ_OTHERWISE = ("context_invented", "context_gap", "context_indent", "unidiff_zero",
                  "plus_path_typo")


def error_lines(err: PatchError) -> list[str]:
    location = err.where()
    patch_file = err.details.get("patch_file")
    if patch_file is not None:  # several patch files: patch lines count in this one
        location = f"{patch_file}: {location}" if location else str(patch_file)
    return [f"error: {err.code}: {location + ': ' if location else ''}{err.message}",
            f"hint: {err.hint}"]


def _counts(fp: FilePatch) -> tuple[int, int]:
    return sum(h.added for h in fp.hunks), sum(h.removed for h in fp.hunks)


def stat_lines(files: Sequence[FilePatch]) -> list[str]:
    rows = []
    for fp in files:
        added, removed = _counts(fp)
        # git's diffstat names a rename 'old => new'
        name = quote_path(fp.path, terminal=True) if fp.kind is not FileKind.RENAME else \
            f"{quote_path(fp.old_path or '', True)} => {quote_path(fp.new_path or '', True)}"
        rows.append((name, added, removed))
    width = max((len(name) for name, _, _ in rows), default=0)
    out = [f" {name.ljust(width)} | {a + r:>4} {'+' * min(a, 40)}{'-' * min(r, 40)}"
           for name, a, r in rows]
    total_a = sum(a for _, a, _ in rows)
    total_r = sum(r for _, _, r in rows)
    out.append(f" {len(rows)} file{'s' if len(rows) != 1 else ''} changed, "
               f"{total_a} insertion{'s' if total_a != 1 else ''}(+), "
               f"{total_r} deletion{'s' if total_r != 1 else ''}(-)")
    return out


def numstat_lines(files: Sequence[FilePatch]) -> list[str]:
    """--numstat, as git apply prints it: 'added<TAB>deleted<TAB>path' (the new path)."""
    return [f"{added}\t{removed}\t{quote_path(fp.path, True)}"
            for fp in files for added, removed in [_counts(fp)]]


def _mode_of(fp: FilePatch) -> str:
    return "100755" if fp.executable else "100644"


def summary_listing(files: Sequence[FilePatch]) -> list[str]:
    """--summary, as git apply prints it: created, deleted and renamed files, mode changes."""
    out = []
    for fp in files:
        modes = {line.split(" ", 2)[0]: line.rsplit(" ", 1)[-1] for line in fp.ignored_metadata
                 if line.startswith(("old mode ", "new mode "))}
        if fp.kind is FileKind.ADD:
            out.append(f" create mode {_mode_of(fp)} {quote_path(fp.path, True)}")
        elif fp.kind is FileKind.DELETE:
            out.append(f" delete mode {_mode_of(fp)} {quote_path(fp.path, True)}")
        elif fp.kind is FileKind.RENAME:
            similarity = next((line.rsplit(" ", 1)[-1] for line in fp.ignored_metadata
                               if line.startswith("similarity index ")), None)
            out.append(f" rename {quote_path(fp.old_path or '', True)} => "
                       f"{quote_path(fp.new_path or '', True)}"
                       + (f" ({similarity})" if similarity else ""))
        if "old" in modes and "new" in modes and modes["old"] != modes["new"]:
            where = "" if fp.kind is FileKind.RENAME else f" {quote_path(fp.path, True)}"
            out.append(f" mode change {modes['old']} => {modes['new']}{where}")
    return out


def whitespace_lines(receipt: Receipt) -> list[str]:
    """git's whitespace warnings for the added lines (--whitespace=warn or fix): the first
    few lines, then how many lines there were."""
    shown = 5
    for code, verb in (("whitespace", "add"), ("whitespace_fixed", "had")):
        notes = [d for d in receipt.diagnostics if d.code == code]
        if not notes:
            continue
        lines = len({d.patch_line for d in notes})
        out = [f"warning: patch line {d.patch_line}: {d.message}" if d.patch_line
               else f"warning: {d.message}" for d in notes[:shown]]
        if len(notes) > shown:
            out.append(f"warning: squelched {len(notes) - shown} whitespace error"
                       f"{'s' if len(notes) - shown != 1 else ''}")
        plural = "s" if lines != 1 else ""
        if verb == "add":
            out.append(f"warning: {lines} line{plural} add{'s' if lines == 1 else ''} "
                       "whitespace errors.")
        else:
            out.append(f"warning: {lines} line{plural} applied after fixing whitespace errors.")
        return out
    return []


WARNED = ("whitespace", "whitespace_fixed")  # said as warnings, not as -v notes

_KIND_LETTER = {FileKind.MODIFY: "M", FileKind.ADD: "A", FileKind.DELETE: "D",
                FileKind.RENAME: "R"}
_KIND_WORDS = ((FileKind.ADD, "added"), (FileKind.DELETE, "deleted"),
               (FileKind.RENAME, "renamed"))


def summary_lines(receipt: Receipt, verbose: bool) -> list[str]:
    files = receipt.files
    hunks = sum(len(f.hunks) for f in files)
    verb = "Would apply" if receipt.status == "checked" else "Applied"
    paths = len({f.path for f in files})
    what = f"{paths} file{'s' if paths != 1 else ''}"
    if paths != len(files):  # file patches in sequence: several for one path
        what = f"{len(files)} file patches to {what}"
    kinds = [f"{count} {word}" for kind, word in _KIND_WORDS
             if (count := sum(f.kind is kind for f in files))]
    if kinds:  # an added or deleted file may have no hunk: say what happened to it
        what += f" ({', '.join(kinds)})"
    if hunks or not files:
        what += f", {hunks} hunk{'s' if hunks != 1 else ''}"
    out = [f"{verb} {what}."]
    for change in files:
        name = display_name(change.kind, *(quote_path(p, terminal=True) if p else p
                                           for p in (change.old_path, change.new_path)))
        if verbose:
            out.append(f"  {_KIND_LETTER[change.kind]} {name} (+{change.added_lines} "
                       f"-{change.removed_lines})")
        for hunk in change.hunks:
            notes = list(hunk.tolerances)
            if hunk.by_line_number:
                notes.append("placed by line number")
            if verbose or notes:
                offset = f", offset {hunk.offset:+d}" if hunk.offset else ""
                extra = f" [{', '.join(notes)}]" if notes else ""
                out.append(f"    hunk {hunk.index} of {name} at line {hunk.applied_line}"
                           f"{offset}{extra}")
        if verbose and change.ignored_metadata:
            out.append(f"    ignored metadata: {'; '.join(change.ignored_metadata)}")
        if not verbose:
            out.extend(f"    note: {d.message}" for d in change.diagnostics
                       if d.code in READ_OTHERWISE)
    if receipt.extra.get("commit"):
        out.append(f"Committed {receipt.extra['commit'][:12]} on {receipt.extra['ref']}.")
    for saved in receipt.extra.get("deleted_blobs", []):
        if saved["blob"]:
            out.append(f"  deleted {saved['path']}: content saved as blob {saved['blob']} "
                       f"(git cat-file -p {saved['blob'][:12]})")
        else:
            out.append(f"  deleted {saved['path']}: {saved['note']}")
    if verbose:
        out.extend(f"  note: {d.message}" for d in receipt.diagnostics if d.code not in WARNED)
        out.extend(f"  note: {f.display_name}: {d.message}" for f in files
                   for d in f.diagnostics)
    return out


def partial_lines(receipt: Receipt) -> list[str]:
    """For --no-atomic: exactly which files changed before the refusal and which did not."""
    done = [change.display_name for change in receipt.files]
    left = [display_name(u["action"], u["old_path"], u["new_path"])
            for u in receipt.unapplied_files]
    if not done:
        out = ["nothing changed"]
    elif receipt.status == "partial":
        out = [f"changed before the refusal: {', '.join(done)}"]
    else:
        out = [f"would change before the refusal (nothing was written): {', '.join(done)}"]
    if left:
        out.append(f"not applied: {', '.join(left)}")
    return out


def reject_lines(receipt: Receipt) -> list[str]:
    """For --reject: the files changed (without which hunks), the .rej file each refused hunk
    went to, and the file patches not applied at all."""
    wrote = receipt.status == "partial"
    changed = [change.display_name + (f" (without {_hunks(change.rejected)})"
                                      if change.rejected else "")
               for change in receipt.files if change.hunks or not change.rejected]
    if not changed:
        out = ["nothing changed" if wrote or not receipt.files else "nothing would change"]
    elif wrote:
        out = [f"changed: {', '.join(changed)}"]
    else:
        out = [f"would change (nothing was written): {', '.join(changed)}"]
    for rejects in receipt.rejects:
        verb = "wrote" if wrote else "would write"
        replaced = ", replacing the file there" if rejects.replaced else ""
        out.append(f"{verb} {rejects.path}: {_hunks(rejects.hunks, 'rejected ')} of "
                   f"{rejects.file}{replaced}")
    left = [display_name(u["action"], u["old_path"], u["new_path"])
            for u in receipt.unapplied_files]
    if left:
        out.append(f"not applied: {', '.join(left)}")
    return out


def _hunks(rejected: Sequence[RejectedHunk], adjective: str = "") -> str:
    numbers = [str(left_out.index) for left_out in rejected]
    return f"{adjective}hunk{'s' if len(numbers) > 1 else ''} {', '.join(numbers)}"


def recovery_lines(done: dict) -> list[str]:
    """What --recover did, in words."""
    journals, busy, completed = done["journals"], done["busy"], done["completed"]
    out = []
    if completed:
        out.append(f"{len(completed)} interrupted apply(s) had passed their commit point; "
                   "their new files were kept.")
    if done["temporaries"]:
        out.append(f"Removed {len(done['temporaries'])} temporary file(s) that killed "
                   "applies left in the working tree.")
    if not journals and not completed and not done["temporaries"]:
        out.append("Nothing to recover.")
    elif journals:
        out.append(f"Recovered {len(journals)} interrupted apply(s): restored "
                   f"{len(done['restored'])} file(s), removed {len(done['removed'])}.")
    if busy:
        out.append(f"{len(busy)} apply(s) still running were left alone.")
    return out
