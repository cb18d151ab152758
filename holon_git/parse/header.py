"""One file patch's header lines ('diff --git', git's extended lines, '---'/'+++') turned into
its kind and paths, with every line checked against the others: headers that disagree are
refused (inconsistent_header), never applied."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core import paths
from ..core.model import Diagnostic, FileKind, FilePatch
from ..errors import PatchError
from .left_out import BINARY_REFUSAL, MODE_ONLY_INSTEAD, MODE_ONLY_REFUSAL
from .names import quoted_token, traditional_choice, without_first_component

DEV_NULL = "/dev/null"
# Old/new prefix pairs git writes: a/ b/ by default, the others with diff.mnemonicPrefix.
_PREFIX_PAIRS = {("a", "b"), ("c", "w"), ("i", "w"), ("c", "i"), ("o", "w"), ("w", "i")}


@dataclass
class FileHeader:
    """What the lines before the first hunk of one file patch said, and where."""

    start: int  # patch line of the first header line
    git: tuple[str, str] | None = None  # the two names of 'diff --git', when they split
    git_rest: str | None = None  # the text after 'diff --git '
    old: str | None = None  # from '---'
    new: str | None = None  # from '+++'
    rename_from: str | None = None
    rename_to: str | None = None
    new_file: bool = False
    deleted_file: bool = False
    mode_change: bool = False
    executable: bool = False  # 'new file mode 100755' / 'deleted file mode 100755'
    binary: bool = False  # 'GIT binary patch', 'Binary files ... differ'
    old_mode: str | None = None  # 'old mode M'
    new_mode: str | None = None  # 'new mode M'
    # what holon-git does not apply of this file patch, held for the plan to refuse (its
    # message, and what to send instead: parse/left_out.py)
    unsupported: tuple[str, str] | None = None
    metadata: list[str] = field(default_factory=list)
    blob_ids: tuple[str, str] | None = None  # 'index OLD..NEW': abbreviated blob ids
    plus_only: bool = False  # a '+++' line and no '---' line after 'diff --git'
    old_epoch: bool = False  # '---' dated at the epoch: GNU diff -N's missing old file
    new_epoch: bool = False
    # role ('diff --git', '---', '+++', 'rename from', 'rename to', 'new file mode',
    # 'deleted file mode') -> (patch line, the line's text), to name them in a refusal
    lines: dict[str, tuple[int, str]] = field(default_factory=dict)

    @property
    def is_git(self) -> bool:
        return self.git_rest is not None


def split_git_header(rest: str) -> tuple[str, str] | None:
    """Split 'a/x b/x' from a 'diff --git' line; None when spaces make it ambiguous."""
    first = quoted_token(rest)
    if first is not None:
        name, tail = first[0], first[1].lstrip(" ")
        second = quoted_token(tail)
        return name, second[0] if second is not None else tail
    if ' "' in rest:
        left, right = rest.split(' "', 1)
        second = quoted_token('"' + right)
        return (left, second[0]) if second is not None else None
    spaces = [i for i, ch in enumerate(rest) if ch == " "]
    if len(spaces) == 1:
        return rest[: spaces[0]], rest[spaces[0] + 1 :]
    for i in spaces:  # a/name b/name: the split where both halves name the same file
        left, right = rest[:i], rest[i + 1 :]
        if left[2:] == right[2:] and left[1:2] == right[1:2] == "/":
            return left, right
        if left == right:
            return left, right
    return None


def _other_prefixes(old: str | None, new: str | None) -> bool:
    """Do the two paths of a 'diff --git' line differ in their first component only
    (``old/src/f.py`` and ``new/src/f.py``: git diff --src-prefix/--dst-prefix)? Then that
    component is a prefix, as git apply's default -p1 reads it."""
    if old is None or new is None or DEV_NULL in (old, new):
        return False
    first, _, rest = old.partition("/")
    other, _, other_rest = new.partition("/")
    return bool(rest) and first != other and rest == other_rest


def _has_prefix_pair(old: str | None, new: str | None) -> bool:
    """Do these paths use git's a/ b/ style prefixes? /dev/null stands in for either side."""
    def prefix(path: str | None) -> str | None:
        if path is None or path == DEV_NULL:
            return None
        return path[0] if len(path) > 2 and path[1] == "/" else ""

    old_p, new_p = prefix(old), prefix(new)
    if old_p is None and new_p is None:
        return False
    if old_p is None:
        return new_p in {b for _, b in _PREFIX_PAIRS}
    if new_p is None:
        return old_p in {a for a, _ in _PREFIX_PAIRS}
    return (old_p, new_p) in _PREFIX_PAIRS


def _same_file_one_prefixed(old: str, new: str, notes: list[Diagnostic],
                            line_no: int) -> tuple[str, str]:
    """'--- x' with '+++ b/x' (or '--- a/x' with '+++ x'): one side kept git's prefix.

    Only a pair that names the same path once the prefix is dropped is joined; anything else
    stays a mismatch.
    """
    for prefixed, plain, mark in ((new, old, "b/"), (old, new, "a/")):
        if prefixed.startswith(mark) and prefixed[len(mark):] == plain:
            notes.append(Diagnostic("mixed_path_prefix", f"only one of '---'/'+++' had the "
                                    f"{mark!r} prefix; both name {plain!r}", line_no))
            return plain, plain
    return old, new


def _regular_mode(mode: str | None) -> int | None:
    """A regular file's mode as git stores it (0o100755 when any execute bit is set, else
    0o100644), from a header's octal text; None for anything else."""
    try:
        value = int(mode or "", 8)
    except ValueError:
        return None
    if value & 0o170000 != 0o100000:
        return None
    return 0o100755 if value & 0o111 else 0o100644


def _strip(path: str, count: int) -> str:
    if path == DEV_NULL or count == 0:
        return path
    parts = path.split("/")
    if len(parts) <= count:
        # git's words and git's verdict: the patch is fine, the strip count given is not,
        # so it is a usage error (exit 2), as git's is fatal (exit 128)
        components = "component" if count == 1 else "components"
        fewer = (f"strip at most {len(parts) - 1} (-p{len(parts) - 1}), or "
                 if len(parts) > 1 else "")
        raise PatchError("usage_error", f"{path!r} lacks filename information when removing "
                         f"{count} leading pathname {components}",
                         hint=f"{path!r} has {len(parts)} pathname "
                         f"component{'s' if len(parts) != 1 else ''}: {fewer}give no -p "
                         "('a/' and 'b/' prefixes are found without it)")
    return "/".join(parts[count:])


def _clean(raw: str | None, count: int) -> str | None:
    if raw is None:
        return None
    stripped = _strip(raw, count)
    return None if stripped == DEV_NULL else paths.normalize(stripped)


def inconsistent(header: FileHeader, roles: list[str], what: str,
                 path: str | None = None) -> PatchError:
    """Refuse a header whose lines disagree, quoting the lines."""
    named = [header.lines[role] for role in roles if role in header.lines]
    quoted = "; ".join(f"line {number}: '{text}'" for number, text in named)
    return PatchError("inconsistent_header", f"{what} ({quoted})" if quoted else what,
                      patch_line=header.start, path=path,
                      details={"lines": [{"line": number, "text": text}
                                         for number, text in named]})


def git_header_path(header: FileHeader, strip: int | None) -> str | None:
    """The path a 'diff --git' line names, its prefixes stripped as the file patch would
    strip them: to locate a refusal that comes before the file patch is read (a binary
    patch, a copy). None when the line gives none that is valid."""
    if header.git is None:
        return None
    old, new = header.git
    try:
        count = strip if strip is not None else int(_has_prefix_pair(old, new))
        return _clean(new, count) or _clean(old, count)
    except PatchError:
        return None


class HeaderResolver:
    """Turns a FileHeader into a FilePatch (kind, normalized paths, notes)."""

    def __init__(self, header: FileHeader, strip: int | None, hunks_follow: bool) -> None:
        self.h = header
        self.strip = strip
        self.hunks_follow = hunks_follow
        self.notes: list[Diagnostic] = []
        self.header_paths: tuple[str, str] | None = None
        self.plus_path_typo: str | None = None
        self.count = 0  # components stripped from '---'/'+++' and 'diff --git' paths

    def _prefixed(self) -> bool:
        h = self.h
        if h.git is not None:
            return _has_prefix_pair(*h.git) or _other_prefixes(*h.git)
        if h.is_git and h.old is None:
            return True  # git's own header that spaces made unsplittable: git always prefixes
        return _has_prefix_pair(h.old, h.new)  # diff -ru's names: traditional_file_names

    def resolve(self) -> FilePatch:
        h = self.h
        count = self.count = self.strip if self.strip is not None else int(self._prefixed())
        rename_count = max(count - 1, 0) if self.strip is not None else 0
        try:
            git_old = _clean(h.git[0], count) if h.git else None
            git_new = _clean(h.git[1], count) if h.git else None
            old, new = _clean(h.old, count), _clean(h.new, count)
            ren_from = _clean(h.rename_from, rename_count)
            ren_to = _clean(h.rename_to, rename_count)
        except PatchError as err:
            raise err.located(patch_line=h.start) from None
        self._check_extensions()
        if ren_from is not None and ren_to is not None:
            kind, old, new = self._rename(old, new, ren_from, ren_to)
        elif h.plus_only:
            kind, old, new = self._plus_line_only(new)
        elif h.old is None:
            kind, old, new = self._without_file_lines(git_old, git_new)
        else:
            kind, old, new = self._with_file_lines(old, new)
        if h.is_git and kind is not FileKind.RENAME:
            self._check_git_line(old if old is not None else new,
                                 new if new is not None else old, count)
        if self.strip is None and count == 0 and not any(
                note.code in ("mixed_path_prefix", "traditional_file_names")
                for note in self.notes):
            self.notes.append(Diagnostic(
                "missing_path_prefix", f"the header names {new or old!r} without git's a/ "
                "and b/ prefixes; read as written (as -p0)",
                h.start))
        modes = self._mode_change(kind)
        return FilePatch(kind, old, new, [], h.metadata, h.start, self.notes,
                         executable=h.executable and kind in (FileKind.ADD, FileKind.DELETE),
                         header_paths=self.header_paths, blob_ids=h.blob_ids,
                         top_relative=h.is_git, plus_path_typo=self.plus_path_typo,
                         binary=h.binary, old_mode=modes[0], new_mode=modes[1])

    def _mode_change(self, kind: FileKind) -> tuple[int | None, int | None]:
        """'old mode 100644' / 'new mode 100755' of a changed or renamed file, as the file
        patch's old_mode and new_mode: regular file modes that differ (git's 100664 is a
        plain file), applied as git applies them; (None, None) otherwise."""
        old, new = (_regular_mode(mode) for mode in (self.h.old_mode, self.h.new_mode))
        if kind not in (FileKind.MODIFY, FileKind.RENAME) or old is None or new is None or \
                old == new:
            return None, None
        return old, new

    def _check_extensions(self) -> None:
        """At most one of 'new file', 'deleted file' and a rename, as in git."""
        h = self.h
        if (h.rename_from is None) != (h.rename_to is None):
            raise PatchError("missing_file_header", "'rename from' and 'rename to' must come "
                             "together", patch_line=h.start)
        present = [role for role, on in (("new file mode", h.new_file),
                                         ("deleted file mode", h.deleted_file),
                                         ("rename from", h.rename_from is not None)) if on]
        if len(present) > 1:
            kinds = {"new file mode": "an add", "deleted file mode": "a delete",
                     "rename from": "a rename"}
            raise inconsistent(h, [*present, "rename to"], "one file patch cannot be both "
                               + " and ".join(kinds[role] for role in present))

    def _rename(self, old: str | None, new: str | None, ren_from: str,
                ren_to: str) -> tuple[FileKind, str, str]:
        h = self.h
        if h.old is not None and (old, new) != (ren_from, ren_to):
            raise inconsistent(h, ["rename from", "rename to", "---", "+++"],
                               f"the rename is {ren_from!r} -> {ren_to!r} but '---'/'+++' "
                               f"name {old!r} -> {new!r}", path=ren_to)
        if ren_from == ren_to:
            raise PatchError("rename_path_mismatch", f"rename of {ren_from!r} onto itself",
                             patch_line=h.start, path=ren_to)
        if h.is_git and not self._git_line_fits(ren_from, ren_to, self.count):
            raise inconsistent(h, ["diff --git", "rename from", "rename to"],
                               f"'diff --git' does not name the rename {ren_from!r} -> "
                               f"{ren_to!r}", path=ren_to)
        return FileKind.RENAME, ren_from, ren_to

    def _without_file_lines(self, git_old: str | None,
                            git_new: str | None) -> tuple[FileKind, str | None, str | None]:
        """A 'diff --git' block with no '---'/'+++' lines: git's empty add and delete, or
        hunks straight after the 'diff --git' line (a model's shortcut)."""
        h = self.h
        if not h.is_git:
            raise PatchError("missing_file_header", "expected '---' and '+++' lines",
                             patch_line=h.start)
        old, new = git_old, git_new
        if h.new_file:
            kind, old = FileKind.ADD, None
        elif h.deleted_file:
            kind, new = FileKind.DELETE, None
        elif (self.hunks_follow or h.binary) and git_old is not None and git_old == git_new:
            kind = FileKind.MODIFY
            if h.binary:
                return kind, old, new
            self.notes.append(Diagnostic(
                "missing_file_lines", "'diff --git' was followed by hunks without '---'/"
                "'+++' lines; the 'diff --git' path was used", h.start))
        elif h.mode_change and git_old is not None and git_old == git_new:
            kind = FileKind.MODIFY  # held refused (left_out.py): --exclude may leave it out
            h.unsupported = (MODE_ONLY_REFUSAL, MODE_ONLY_INSTEAD)
        elif h.mode_change or h.binary:  # and its paths cannot be told: refused as it is
            raise PatchError("unsupported_git_patch_feature",
                             BINARY_REFUSAL if h.binary else MODE_ONLY_REFUSAL,
                             patch_line=h.start, path=new or old)
        else:
            raise PatchError("missing_file_header",
                             "'diff --git' is not followed by '---'/'+++' lines or a rename",
                             patch_line=h.start, path=new or old)
        if (old or new) is None:
            raise PatchError("missing_file_header", "cannot read the paths of the "
                             "'diff --git' line", patch_line=h.start)
        return kind, old, new

    def _plus_line_only(self, new: str | None) -> tuple[FileKind, str | None, str | None]:
        """'diff --git' then '+++' with no '---' line (a model's header): a change to the
        '+++' path (an add with 'new file mode'); the 'diff --git' line must name it."""
        h = self.h
        if new is None or h.deleted_file:
            raise PatchError("missing_file_header", "a '+++' line with no '---' line before "
                             "it does not name the file to change", patch_line=h.start,
                             path=new)
        if h.new_file:
            return FileKind.ADD, None, new
        named = "which both name" if h.is_git else "the only path it names"
        self.notes.append(Diagnostic(
            "missing_old_file_line", f"{'diff --git' if h.is_git else 'the file patch'} "
            f"had '+++' without a '---' line; read as a change to {new!r}, {named}", h.start))
        return FileKind.MODIFY, new, new

    def _with_file_lines(self, old: str | None,
                         new: str | None) -> tuple[FileKind, str | None, str | None]:
        h = self.h
        if h.new_file and old is not None:
            raise inconsistent(h, ["new file mode", "---"], "an added file's '---' line "
                               "must be /dev/null", path=old)
        if h.deleted_file and new is not None:
            raise inconsistent(h, ["deleted file mode", "+++"], "a deleted file's '+++' line "
                               "must be /dev/null", path=new)
        if old is None and new is None:
            raise PatchError("missing_file_header", "both '---' and '+++' are /dev/null",
                             patch_line=h.start)
        if old is None:
            return FileKind.ADD, None, new
        if new is None:
            return FileKind.DELETE, old, None
        if old != new and self.strip is None and not self._prefixed():
            old, new = _same_file_one_prefixed(old, new, self.notes, h.start)
        if old != new:
            if h.is_git and self._git_line_names_only(old):
                # a typo in '+++' when that path does not exist (the plan checks): never a
                # rename, which git would make of it
                self.plus_path_typo = new
                self.notes.append(Diagnostic(
                    "plus_path_typo", f"'diff --git' and '---' name {old!r}, '+++' names "
                    f"{new!r}, which does not exist: {old!r} was changed (a typo in '+++' "
                    "read as such, not a rename)", h.start))
                return FileKind.MODIFY, old, old
            if h.is_git:
                raise inconsistent(h, ["diff --git", "---", "+++"], f"'---' names {old!r} "
                                   f"and '+++' names {new!r} without 'rename from'/"
                                   "'rename to'", path=new)
            old = new = self._traditional(old, new)
        return FileKind.MODIFY, old, new

    def _git_line_names_only(self, path: str) -> bool:
        """Does the 'diff --git' line name ``path`` and nothing else (twice, or once)?"""
        h = self.h
        try:
            if h.git is not None:
                return _clean(h.git[0], self.count) == _clean(h.git[1], self.count) == path
            return " " not in (h.git_rest or " ") and _clean(h.git_rest, self.count) == path
        except PatchError:
            return False

    def _traditional(self, old: str, new: str) -> str:
        """A traditional diff ('diff -u file.orig file') names two files: take the one git's
        rules take, and remember both, so that the plan refuses naming them both when that
        file does not exist (never a guess between two existing files)."""
        chosen = without_first_component(old, new) if self.strip is None else None
        rule = "both name it once their first component is dropped, as git's -p1 reads them"
        if chosen is None:
            chosen = traditional_choice(old, new)
            rule = ("git applies a traditional diff to the '+++' file, or to the '---' file "
                    "when the '+++' name only adds to its end")
        self.header_paths = (old, new)
        self.notes.append(Diagnostic("traditional_file_names", f"'---' names {old!r} and "
                                     f"'+++' names {new!r}: read as {chosen!r} ({rule})",
                                     self.h.start))
        return paths.normalize(chosen)

    def _check_git_line(self, old: str | None, new: str | None, count: int) -> None:
        if old is None or new is None or self._git_line_fits(old, new, count):
            return
        named = (f"{old!r}" if old == new else f"{old!r} -> {new!r}")
        raise inconsistent(self.h, ["diff --git", "---", "+++", "new file mode",
                                    "deleted file mode"],
                           f"'diff --git' does not name {named}, the file the other header "
                           "lines name", path=new)

    def _git_line_fits(self, old: str, new: str, count: int) -> bool:
        """Does the 'diff --git' line name ``old`` and ``new``? Names with spaces split in
        several places: any split that names them will do."""
        h = self.h
        splits = [h.git] if h.git is not None else []
        rest = h.git_rest or ""
        splits += [(rest[:i], rest[i + 1:]) for i, ch in enumerate(rest) if ch == " "]
        if not splits:
            return True  # one name only ('diff --git a/x', as Subversion writes): nothing to hold
        for left, right in splits:
            try:
                if (_clean(left, count), _clean(right, count)) == (old, new):
                    return True
            except PatchError:
                continue
        return False
