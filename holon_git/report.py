"""What the command line prints for a person: the summary of an apply, the diffstat, what a
non-atomic refusal left, and every error in one style, ``error: CODE: message`` then
``hint: ...``. Text only; the command line (cli.py) decides where it goes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .core.change import FileChange, RejectedHunk
from .core.model import FileKind, FilePatch, display_name
from .errors import PatchError
from .quoting import c_quoted, quote_path
from .receipt import Receipt
from .whitespace import AT_EOF, git_count

# Diagnostics the summary says without -v: a hunk or header read otherwise than written
# (core/place/salvage/, the '+++' typo), naming what was left out
READ_OTHERWISE = ("context_invented", "context_gap", "context_indent", "unidiff_zero",
                  "plus_path_typo")


# A refusal's line longer than this is broken after each '; ' between its clauses, the
# clauses after the first indented under it (the receipt's message stays one line): a
# refusal that lists what was found where runs to 300-500 characters otherwise
WIDTH = 100


def error_lines(err: PatchError) -> list[str]:
    return [*_error_line(err), *_hint_lines(err.hint)]


def refusal_lines(errors: Sequence[PatchError]) -> list[str]:
    """Each refusal and its hint, a hint said once: after the last of the refusals in a row
    that share it, and not again for a later refusal."""
    out: list[str] = []
    said: set[str] = set()
    for number, err in enumerate(errors):
        out.extend(_error_line(err))
        following = errors[number + 1].hint if number + 1 < len(errors) else None
        if err.hint not in said and err.hint != following:
            out.extend(_hint_lines(err.hint))
            said.add(err.hint)
    return out


def _error_line(err: PatchError) -> list[str]:
    # a location is a file's (and its line in the patch); an empty patch has none, and a
    # line alone is said without the brackets that follow a path: 'patch line 3: ...'
    location = err.where()
    if err.code == "empty_patch":
        location = ""
    elif err.path is None and err.hunk is None:
        location = location.removeprefix("(").removesuffix(")")
    patch_file = err.details.get("patch_file")
    if patch_file is not None:  # several patch files: patch lines count in this one
        location = f"{patch_file}: {location}" if location else str(patch_file)
    return _broken(f"error: {err.code}: {location + ': ' if location else ''}{err.message}")


def _hint_lines(hint: str) -> list[str]:
    """A hint broken after its clauses, and a clause still too long wrapped at its words: a
    hint is prose to read (an error's clauses hold what was found, kept whole)."""
    return [part for line in _broken(f"hint: {hint}") for part in _wrapped(line)]


def _broken(line: str) -> list[str]:
    """``line`` as it is when it fits WIDTH; otherwise one line per clause (split after each
    '; ' outside quotes and brackets), the later ones indented two spaces. A clause is never
    cut: a path or a quoted line stays whole, to be copied."""
    if len(line) <= WIDTH:
        return [line]
    clauses, start = [], 0
    for at, ch, depth in _unquoted(line):
        if ch == ";" and not depth and line.startswith(" ", at + 1):
            clauses.append(line[start:at + 1])
            start = at + 2
    clauses.append(line[start:])
    return [clauses[0], *("  " + clause for clause in clauses[1:])]


def _wrapped(line: str) -> list[str]:
    """A clause still longer than WIDTH, broken after a ': ' or before a ' (' outside quotes
    and brackets, at the last such place that fits, each later part indented two spaces as
    a clause. Never at any space: a hint's command (git config --global --add
    safe.directory PATH) or quoted line stays whole, to be copied."""
    out = []
    while len(line) > WIDTH:
        breaks = [at + 1 if ch == ":" else at for at, ch, depth in _unquoted(line)
                  if not depth and at > 2 and line.startswith(": " if ch == ":" else " (", at)]
        fits = [at for at in breaks if at <= WIDTH]
        if not fits:
            break
        out.append(line[:fits[-1]])
        line = "  " + line[fits[-1] + 1:]
    return [*out, line]


def _unquoted(line: str) -> Iterator[tuple[int, str, int]]:
    """Each character of ``line`` outside quotes ('...' or "...", an apostrophe inside a
    word not opening one), with its depth in brackets."""
    depth, quote = 0, ""
    for at, ch in enumerate(line):
        if quote:
            if ch == quote and line[at - 1] != "\\":
                quote = ""
            continue
        if ch in "'\"" and (at == 0 or not line[at - 1].isalnum()):
            quote = ch
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        yield at, ch, depth


def _counts(fp: FilePatch) -> tuple[int, int]:
    return sum(h.added for h in fp.hunks), sum(h.removed for h in fp.hunks)


@dataclass(frozen=True)
class GitListing:
    """How git apply's --stat, --numstat and --summary are to be written: ``quote_fully`` is
    git's core.quotePath, ``nul`` its -z (--numstat lines end in NUL, paths unquoted),
    ``reverse`` its -R (the modes of a mode change swap sides); ``unified``: the patch is a
    unified diff (an envelope is not git's: its hunks never mean a file created or deleted);
    ``scale``: --stat's widest name and largest count so far (``stat_scale``), which git keeps
    across the patch files it is given: a later file's names are padded and its bars scaled
    to at least those of the files before it."""

    quote_fully: bool = True
    nul: bool = False
    reverse: bool = False
    unified: bool = True
    scale: tuple[int, int] = (0, 0)


def git_listing(files: Sequence[FilePatch], stat: bool, numstat: bool, summary: bool,
                how: GitListing) -> bytes:
    """--stat, then --numstat, then --summary, byte for byte as git apply writes them."""
    return b"".join([*(stat_lines(files, how) if stat else []),
                     *(numstat_lines(files, how) if numstat else []),
                     *(summary_listing(files, how) if summary else [])])


def stat_lines(files: Sequence[FilePatch], how: GitListing = GitListing()) -> list[bytes]:
    """--stat, as git apply's show_stats writes it: the path (the new one) quoted, padded to
    the longest path, old or new, of the patch (at most 50 bytes; a longer one keeps its end
    after '...'), the count and a bar scaled to fit 70 columns; then git's total line, which
    leaves out a zero count of insertions or deletions unless both are zero. A binary file
    patch is listed as ' Bin', as git lists it."""
    counts = [_counts(fp) for fp in files]
    widest, most = stat_scale(files, how)
    width = min(widest, 50)
    bar = 70 - width if width + most > 70 else most
    out = []
    for fp, (added, removed) in zip(files, counts, strict=True):
        name = c_quoted(fp.path, how.quote_fully)
        if len(name) > width:  # git keeps the end, from a '/' when there is one
            start = len(name) + 3 - width
            slash = name.find(b"/", start)
            name = b"..." + name[slash if slash >= 0 else start:]
        pluses, minuses = added, removed
        if most > 0:
            total = ((added + removed) * bar + most // 2) // most
            pluses = (added * bar + most // 2) // most
            minuses = total - pluses
        if fp.binary:  # git counts no lines of a binary file patch
            out.append(b" %s |  Bin\n" % name.ljust(width))
            continue
        out.append(b" %s |%5d %s%s\n" % (name.ljust(width), added + removed, b"+" * pluses,
                                          b"-" * minuses))
    added = sum(a for a, _ in counts)
    removed = sum(r for _, r in counts)
    total_line = f" {len(files)} file{'s' if len(files) != 1 else ''} changed"
    if not files:
        total_line = " 0 files changed"
    else:
        if added or not removed:
            total_line += f", {added} insertion{'s' if added != 1 else ''}(+)"
        if removed or not added:
            total_line += f", {removed} deletion{'s' if removed != 1 else ''}(-)"
    out.append(total_line.encode() + b"\n")
    return out


def stat_scale(files: Sequence[FilePatch], how: GitListing = GitListing()) -> tuple[int, int]:
    """--stat's widest name (quoted, old or new path) and largest count of added and removed
    lines, of ``files`` and of the patch files listed before them (``how.scale``), as git
    apply's state keeps them from one patch file to the next."""
    widest = max((len(c_quoted(path, how.quote_fully)) for fp in files for path in fp.paths),
                 default=0)
    most = max((added + removed for added, removed in map(_counts, files)), default=0)
    return max(widest, how.scale[0]), max(most, how.scale[1])


def numstat_lines(files: Sequence[FilePatch], how: GitListing = GitListing()) -> list[bytes]:
    """--numstat, as git apply writes it: 'added<TAB>deleted<TAB>path' (the new path), the
    path quoted as --stat quotes it; with -z unquoted and ended by NUL instead; a binary
    file patch's counts are '-'."""
    out = []
    for fp in files:
        added, removed = _counts(fp)
        name = fp.path.encode("utf-8", "surrogateescape") if how.nul else \
            c_quoted(fp.path, how.quote_fully)
        counts = b"-\t-" if fp.binary else b"%d\t%d" % (added, removed)
        out.append(b"%s\t%s%s" % (counts, name, b"\0" if how.nul else b"\n"))
    return out


def _metadata_value(fp: FilePatch, *starts: str) -> str | None:
    """The last word of the last of ``fp``'s header lines that starts with one of ``starts``
    ('new file mode 100644': '100644')."""
    found = [line.rsplit(" ", 1)[-1] for line in fp.ignored_metadata if line.startswith(starts)]
    return found[-1] if found else None


def _file_mode(fp: FilePatch, unified: bool) -> str | None:
    """An added or deleted file's mode as its header gives it; None when it gives none (a
    traditional diff's '/dev/null'), where git names no mode. An envelope's added file is a
    regular one; its deleted file has the mode the repository gave it, when it was read."""
    if fp.executable:  # 'new file mode 100755' (or deleted): held as a flag, not metadata
        return "100755"
    if not unified and (fp.kind is FileKind.ADD or fp.check_deleted_content):
        return "100644"
    return _metadata_value(fp, "new file mode ", "deleted file mode ")


def _creates_or_deletes(fp: FilePatch, unified: bool) -> str | None:
    """'create' or 'delete' for what git's --summary calls so: an add or a delete, and a
    traditional diff (no 'diff --git') of one hunk with no old lines (git: a file it may
    create) or no new lines (one it may delete)."""
    if fp.kind is FileKind.ADD:
        return "create"
    if fp.kind is FileKind.DELETE:
        return "delete"
    if unified and fp.kind is FileKind.MODIFY and not fp.top_relative and len(fp.hunks) == 1:
        if not fp.hunks[0].old_lines:
            return "create"
        if not fp.hunks[0].new_lines:
            return "delete"
    return None


def _score(fp: FilePatch) -> int | None:
    """git's similarity (or dissimilarity) score of a rename or rewrite, in percent."""
    value = _metadata_value(fp, "similarity index ", "dissimilarity index ")
    if value is None:
        return None
    digits = value[:len(value) - len(value.lstrip("0123456789"))]
    return int(digits) if digits else 0


def _renamed(old: str, new: str) -> str:
    """A rename as git's --summary writes it: the directories the two paths share outside
    braces, 'a/{b.py => c.py}'."""
    shared = 0
    while True:
        slash_old, slash_new = old.find("/", shared), new.find("/", shared)
        if slash_old < 0 or slash_old != slash_new or \
                old[shared:slash_old] != new[shared:slash_new]:
            break
        shared = slash_old + 1
    if not shared:
        return f"{old} => {new}"
    return f"{old[:shared]}{{{old[shared:]} => {new[shared:]}}}"


def summary_listing(files: Sequence[FilePatch], how: GitListing = GitListing()) -> list[bytes]:
    """--summary, as git apply writes it: created, deleted, renamed and rewritten files and
    mode changes, the paths as they are (git does not quote them here)."""
    out = []
    for fp in files:
        old_mode = _metadata_value(fp, "old mode ")
        new_mode = _metadata_value(fp, "new mode ")
        if how.reverse:
            old_mode, new_mode = new_mode, old_mode
        changed = old_mode is not None and new_mode is not None and old_mode != new_mode
        mode_change = f" mode change {old_mode} => {new_mode}"
        verb = _creates_or_deletes(fp, how.unified)
        score = _score(fp)
        if verb is not None:
            mode = _file_mode(fp, how.unified)
            out.append(f" {verb} {'mode ' + mode + ' ' if mode else ''}{fp.path}")
        elif fp.kind is FileKind.RENAME:
            out.append(f" rename {_renamed(fp.old_path or '', fp.new_path or '')} ({score or 0}%)")
            if changed:
                out.append(mode_change)
        elif score:
            out.append(f" rewrite {fp.path} ({score}%)")
            if changed:
                out.append(mode_change)
        elif changed:
            out.append(f"{mode_change} {fp.path}")
    return [line.encode("utf-8", "surrogateescape") + b"\n" for line in out]


def whitespace_lines(receipt: Receipt) -> list[str]:
    """git's whitespace warnings for the added lines (--whitespace=warn or fix): the first
    few lines, then how many lines there were."""
    shown = 5
    for code, verb in (("whitespace", "add"), ("whitespace_fixed", "had")):
        notes = [d for d in receipt.diagnostics if d.code == code]
        if not notes:
            continue
        lines = git_count((d.patch_line, AT_EOF if AT_EOF in d.message else "")
                          for d in notes)
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
    if any(f.edit is not None for f in files):  # edits by their text: one change each
        what = f"{len(files)} edit{'s' if len(files) != 1 else ''} to {what}"
    elif paths != len(files):  # file patches in sequence: several for one path
        what = f"{len(files)} file patches to {what}"
    kinds = [f"{count} {word}" for kind, word in _KIND_WORDS
             if (count := sum(f.kind is kind for f in files))]
    if kinds:  # an added or deleted file may have no hunk: say what happened to it
        what += f" ({', '.join(kinds)})"
    if hunks or not files:
        what += f", {hunks} hunk{'s' if hunks != 1 else ''}"
    out = [f"{verb} {what}."]
    # -v lists each file and, under it, its hunks; without -v, a hunk or note worth saying
    # stands alone under the summary line, naming its file, so it is indented as one
    under = "    " if verbose else "  "
    for change in files:
        name = display_name(change.kind, *(quote_path(p, terminal=True) if p else p
                                           for p in (change.old_path, change.new_path)))
        if verbose:
            out.append(f"  {_KIND_LETTER[change.kind]} {name} (+{change.added_lines} "
                       f"-{change.removed_lines})")
        out.extend(_placed_lines(change, name, verbose, under))
        if verbose and change.ignored_metadata:
            out.append(f"    ignored metadata: {'; '.join(change.ignored_metadata)}")
        if not verbose:
            out.extend(f"{under}note: {d.message}" for d in change.diagnostics
                       if d.code in READ_OTHERWISE)
    series = receipt.extra.get("commits")
    if isinstance(series, list) and len(series) > 1:  # git format-patch mails, as git am
        out.append(f"Committed {len(series)} commits, {series[0][:12]}..{series[-1][:12]}, "
                   f"on {receipt.extra['ref']}.")
    elif receipt.extra.get("commit"):
        out.append(f"Committed {receipt.extra['commit'][:12]} on {receipt.extra['ref']}.")
    out.extend(_saved_deletions(receipt.extra.get("deleted_blobs", []), verbose))
    if receipt.extra.get("history_not_written"):
        out.append(f"  note: the history log was not written: "
                   f"{receipt.extra['history_not_written']}; a re-send of this patch is "
                   "judged by the file alone")
    if verbose:
        out.extend(f"  note: {d.message}" for d in receipt.diagnostics if d.code not in WARNED)
        out.extend(f"  note: {f.display_name}: {d.message}" for f in files
                   for d in f.diagnostics)
    return out


def _saved_deletions(saved: Sequence[dict], verbose: bool) -> list[str]:
    """Where each deleted file's content went: a line each with -v, or when there is one;
    else one line for them all (git prints nothing; a diff that deletes 19 files should not
    print 19 lines after the summary)."""
    if verbose or len(saved) == 1:
        return [f"  deleted {item['path']}: content saved as blob {item['blob']} "
                f"(git cat-file -p {item['blob'][:12]})" if item["blob"]
                else f"  deleted {item['path']}: {item['note']}" for item in saved]
    kept = sum(1 for item in saved if item["blob"])
    what = f"the {kept} deleted files" if kept > 1 else "1 deleted file"
    out = [f"  content of {what} saved as git blobs (-v: how to restore each)"] if kept else []
    lost = [item for item in saved if not item["blob"]]
    if lost:
        out.append(f"  {len(lost)} deleted file{'s' if len(lost) != 1 else ''} not saved: "
                   f"{lost[0]['note']}")
    return out


def _placed_lines(change: FileChange, name: str, verbose: bool, under: str) -> list[str]:
    """A line per hunk worth saying (each with -v): where it went and what it tolerated."""
    out = []
    for hunk in change.hunks:
        notes = list(hunk.tolerances)
        if hunk.by_line_number:
            notes.append("placed by line number")
        if verbose or notes:
            offset = f", offset {hunk.offset:+d}" if hunk.offset else ""
            extra = f" [{', '.join(notes)}]" if notes else ""
            out.append(f"{under}hunk {hunk.index} of {name} at line {hunk.applied_line}"
                       f"{offset}{extra}")
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
    # the hunks that went in are said as a plain apply says them (issue 43): where a hunk
    # went with a tolerance, and the notes of a hunk read otherwise than written
    for change in receipt.files:
        name = display_name(change.kind, *(quote_path(p, terminal=True) if p else p
                                           for p in (change.old_path, change.new_path)))
        out.extend(_placed_lines(change, name, False, "  "))
        out.extend(f"  note: {d.message}" for d in change.diagnostics
                   if d.code in READ_OTHERWISE)
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
    if done.get("locks"):
        out.append(f"Removed {len(done['locks'])} lock(s) that killed applies left: "
                   f"{', '.join(done['locks'])}.")
    if not journals and not completed and not done["temporaries"] and not done.get("locks"):
        out.append("Nothing to recover.")
    elif journals:
        out.append(f"Recovered {len(journals)} interrupted apply(s): restored "
                   f"{len(done['restored'])} file(s), removed {len(done['removed'])}.")
    if busy:
        out.append(f"{len(busy)} apply(s) still running were left alone.")
    return out
