"""The patch model every parser produces and every later step consumes.

Lines are bytes and keep their line ending as written in the patch ("\\n", "\\r\\n"), or none
when a "\\ No newline at end of file" marker followed them, so nothing is lost in transit.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from itertools import compress
from operator import itemgetter
from typing import NamedTuple, overload

from ..errors import PatchError

CONTEXT = " "
REMOVE = "-"
ADD = "+"


class FileKind(str, Enum):
    MODIFY = "modify"
    ADD = "add"
    DELETE = "delete"
    RENAME = "rename"


def known_path(old_path: str | None, new_path: str | None) -> str:
    """The path a file change is known by: the new path, else the old one (a deletion's)."""
    path = new_path if new_path is not None else old_path
    assert path is not None
    return path


def display_name(kind: FileKind | str, old_path: str | None, new_path: str | None) -> str:
    """How a file change is named to a person or a model: ``old -> new`` for a rename, else
    its path (the new one, or the old one of a deletion)."""
    if kind == FileKind.RENAME:
        return f"{old_path} -> {new_path}"
    return str(new_path if new_path is not None else old_path)


@dataclass(frozen=True, slots=True)
class TextEdit:
    """An edit by its text (a ``str_replace`` edit, a SEARCH/REPLACE block): ``old`` replaced
    by ``new`` where ``old`` occurs, exactly ``count`` times (None: every occurrence, at least
    one). ``old`` may start and end inside a line; the plan finds it in the file and turns
    the hunk into one over the whole lines it covers (core/plan/edits.py). ``insert_after``:
    an insertion after that line (0: before the first) instead of a replacement; ``line_hint``:
    the 1-based line the old text is said to start at (Roo Code's ``:start_line:``)."""

    old: bytes
    new: bytes
    count: int | None = 1
    insert_after: int | None = None
    line_hint: int | None = None
    index: int = 0  # the edit's 1-based number in its input, as receipts name it

    def reversed(self) -> TextEdit:
        return replace(self, old=self.new, new=self.old)


class HunkLine(NamedTuple):
    """One body line of a hunk. A named tuple: immutable, and about a third cheaper to create
    than a frozen dataclass, which counts at a hundred thousand lines per large patch."""

    kind: str  # CONTEXT, REMOVE or ADD
    text: bytes  # content plus its line ending as written; no ending before a no-newline marker


KIND_OF_PREFIX = {b" ": CONTEXT, b"-": REMOVE, b"+": ADD}
_PREFIX_OF_KIND = {kind: prefix for prefix, kind in KIND_OF_PREFIX.items()}
_PLUS, _MINUS = ord("+"), ord("-")


class PackedLines(Sequence[HunkLine]):
    """A hunk body kept as written: its prefixed lines (' ', '-', '+') joined into one bytes
    object, decoded into HunkLines each time it is read.

    A large patch's bodies take about a third of the memory this way, and its parse builds
    no per-line objects to keep; the plan decodes one hunk at a time. Only the parser's common
    case (every line prefixed, nothing to repair) is packed; it compares equal to the list of
    the same lines.
    """

    __slots__ = ("packed",)

    def __init__(self, packed: bytes) -> None:
        self.packed = packed

    def unpack(self) -> list[HunkLine]:
        make, kinds = tuple.__new__, KIND_OF_PREFIX
        return [make(HunkLine, (kinds[line[:1]], line[1:]))
                for line in io.BytesIO(self.packed).readlines()]  # splits at b"\n" only

    def sides(self) -> tuple[list[bytes], list[bytes]]:
        """The old side (context and removed texts) and the new side (context and added
        texts), read straight from the bytes: the plan's common case needs no HunkLines."""
        lines = io.BytesIO(self.packed).readlines()
        return ([line[1:] for line in lines if line[0] != _PLUS],
                [line[1:] for line in lines if line[0] != _MINUS])

    def flipped(self) -> PackedLines:
        """The same body with removed and added lines swapped (a reversed hunk), packed."""
        swap = {b" ": b" ", b"-": b"+", b"+": b"-"}
        return PackedLines(b"".join(swap[line[:1]] + line[1:]
                                    for line in io.BytesIO(self.packed).readlines()))

    def count_kind(self, kind: str) -> int:
        """How many lines are of ``kind``, counted in the bytes: a line starts the body or
        follows a newline."""
        prefix = _PREFIX_OF_KIND[kind]
        return self.packed.count(b"\n" + prefix) + self.packed.startswith(prefix)

    def __iter__(self) -> Iterator[HunkLine]:
        return iter(self.unpack())

    def __len__(self) -> int:
        if not self.packed:
            return 0
        return self.packed.count(b"\n") + (not self.packed.endswith(b"\n"))

    @overload
    def __getitem__(self, index: int) -> HunkLine: ...

    @overload
    def __getitem__(self, index: slice) -> list[HunkLine]: ...

    def __getitem__(self, index: int | slice) -> HunkLine | list[HunkLine]:
        return self.unpack()[index]  # an int or a slice, as a list takes them

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PackedLines):
            return self.packed == other.packed
        if isinstance(other, Sequence):
            return self.unpack() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a list, so unhashable like one

    def __repr__(self) -> str:
        return f"PackedLines({self.unpack()!r})"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Advisory note: the patch applied (or parsed), but something was tolerated or odd."""

    code: str
    message: str
    patch_line: int | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"code": self.code, "message": self.message}
        if self.patch_line is not None:
            out["patch_line"] = self.patch_line
        return out


_kind, _text = itemgetter(0), itemgetter(1)


def whole_lines(lines: Sequence[bytes]) -> bool:
    """Every line ends with a newline (counted in C: a hot path); only a last line can lack
    one, so the count says whether any does."""
    return b"".join(lines).count(b"\n") == len(lines)


def old_side(lines: Sequence[HunkLine]) -> list[bytes]:
    """The texts of the context and removed lines (iterators in C: a hot path)."""
    return list(compress(map(_text, lines), map(ADD.__ne__, map(_kind, lines))))


def new_side(lines: Sequence[HunkLine]) -> list[bytes]:
    """The texts of the context and added lines."""
    return list(compress(map(_text, lines), map(REMOVE.__ne__, map(_kind, lines))))


def sides(lines: Sequence[HunkLine]) -> tuple[list[bytes], list[bytes]]:
    """(old side, new side) of a hunk body, packed or not."""
    if isinstance(lines, PackedLines):
        return lines.sides()
    return old_side(lines), new_side(lines)


@dataclass(slots=True)
class Hunk:
    old_start: int | None  # as written; None for a bare "@@" header
    old_count: int | None
    new_start: int | None
    new_count: int | None
    lines: list[HunkLine] | PackedLines
    patch_line: int = 0  # 1-based line of the "@@" header in the patch text
    section: str = ""  # text after the closing "@@", informational
    old_no_newline: bool = False  # "\ No newline at end of file" after the old side
    new_no_newline: bool = False
    blank_context_lines: int = 0  # blank context lines whose leading space was stripped
    optional_tail: int = 0  # trailing stripped-blank context lines that may be separators
    anchor_end: bool = False  # envelope '*** End of File': the old side ends at the file's end
    unprefixed_context_lines: int = 0  # non-blank context lines whose leading space was lost
    # envelope '@@ <text>': a line of the file the hunk comes after (Codex's change context);
    # breaks a tie between copies of the old lines (holon_git.core.anchor)
    anchor_text: str = ""
    # the input ended inside this hunk, on a change line, before its header's old count was
    # met: the rest may have been cut off, so it applies only where its old side reaches the
    # end of the file (nothing can be missing after that)
    unfinished: bool = False
    # an edit by its text (TextEdit): the body above is its whole-line reading until the plan
    # finds the text in the file (core/plan/edits.py)
    edit: TextEdit | None = None

    @property
    def old_lines(self) -> list[bytes]:
        return old_side(self.lines)

    def line_list(self) -> list[HunkLine]:
        """The body as the list a parser builds it in (a body is packed only once whole)."""
        assert isinstance(self.lines, list)
        return self.lines

    @property
    def new_lines(self) -> list[bytes]:
        return new_side(self.lines)

    @property
    def added(self) -> int:
        return self.count_kind(ADD)

    @property
    def removed(self) -> int:
        return self.count_kind(REMOVE)

    def count_kind(self, kind: str) -> int:
        if isinstance(self.lines, PackedLines):
            return self.lines.count_kind(kind)
        return list(map(_kind, self.lines)).count(kind)

    def kinds(self) -> set[str]:
        """The kinds of line the body has."""
        if isinstance(self.lines, PackedLines):
            return {kind for kind in (CONTEXT, REMOVE, ADD) if self.count_kind(kind)}
        return set(map(_kind, self.lines))

    def reversed(self) -> Hunk:
        flip = {ADD: REMOVE, REMOVE: ADD, CONTEXT: CONTEXT}
        return replace(
            self,
            old_start=self.new_start,
            old_count=self.new_count,
            new_start=self.old_start,
            new_count=self.old_count,
            lines=(self.lines.flipped() if isinstance(self.lines, PackedLines)
                   else [HunkLine(flip[line.kind], line.text) for line in self.lines]),
            old_no_newline=self.new_no_newline,
            new_no_newline=self.old_no_newline,
            edit=None if self.edit is None or self.edit.insert_after is not None
            else self.edit.reversed(),
        )


@dataclass(slots=True)
class FilePatch:
    kind: FileKind
    old_path: str | None  # None for an added file
    new_path: str | None  # None for a deleted file
    hunks: list[Hunk] = field(default_factory=list)
    ignored_metadata: list[str] = field(default_factory=list)
    patch_line: int = 0  # 1-based line where this file patch began
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # False for an envelope '*** Delete File' (no body): delete whatever the file holds.
    check_deleted_content: bool = True
    # True when git's 'new file mode 100755' (or, for a delete, 'deleted file mode 100755')
    # says the added (or deleted) file is executable: an add, or a reversed delete, creates it so.
    executable: bool = False
    # A traditional diff whose '---' and '+++' name different files: both names as written
    # (normalized); the path above is the one git's rules chose, which must then exist.
    header_paths: tuple[str, str] | None = None
    # A traditional diff's one hunk has no old lines: git apply creates the file when it is
    # missing (and patches it when it exists).
    create_if_missing: bool = False
    # git's 'index OLD..NEW' line: the (abbreviated) blob ids of the old and new content
    blob_ids: tuple[str, str] | None = None
    # A 'diff --git' header: its paths are from the top of the repository wherever it is
    # applied from, as git reads them; other file patches are relative to the directory the
    # patch is applied from (api.py)
    top_relative: bool = False
    # No hunk of the whole patch has a context line (diff -U0): a pure insertion then goes
    # where its header says, as git apply --unidiff-zero puts it (core/place/salvage/zero.py).
    unidiff_zero: bool = False
    # --unidiff-zero given: the line numbers of its hunks with no context are trusted, as git
    # trusts them (core/place/salvage/judge.py weighs nothing against them)
    numbers_given: bool = False
    # 'diff --git' and '---' name the path, '+++' names this other one: a typo when this one
    # does not exist and the path does (the plan checks), never a rename.
    plus_path_typo: str | None = None
    # --reject: the numbers (1-based) of the hunks the plan leaves out, refused; the others
    # keep their numbers and apply without them (core/plan/files.py)
    left_out: frozenset[int] = frozenset()
    # an edit by its text (JSON edits, SEARCH/REPLACE blocks): its 1-based number in its
    # input, as receipts and refusals name it; None for a diff's file patch
    edit: int | None = None
    # git's 'old mode'/'new mode' of a changed (or renamed) file: the regular file modes
    # (0o100644, 0o100755) they name, when they differ; the new one is applied as git
    # applies it (core/plan/files.py), and -R swaps them
    old_mode: int | None = None
    new_mode: int | None = None
    # a binary patch ('GIT binary patch', 'Binary files ... differ'): listed as git lists it
    binary: bool = False
    # a file patch holon-git does not apply (binary, a mode change alone, a path with a
    # tab): its refusal, raised by the plan unless --include/--exclude left it out
    # (parse/left_out.py)
    unsupported: PatchError | None = None
    # the number (0-based) of the git format-patch mail it came from (Patch.mails)
    mail: int | None = None

    @property
    def path(self) -> str:
        """The path this file patch is known by: the new path, else the old one."""
        return known_path(self.old_path, self.new_path)

    @property
    def paths(self) -> list[str]:
        return [p for p in dict.fromkeys((self.old_path, self.new_path)) if p is not None]

    @property
    def display_name(self) -> str:
        return display_name(self.kind, self.old_path, self.new_path)

    def reversed(self) -> FilePatch:
        if not self.check_deleted_content:
            raise PatchError(
                "usage_error",
                f"cannot reverse the deletion of {self.path!r}: the patch does not hold the "
                "deleted content",
                hint="restore the file from the blob id in the receipt of the apply "
                "('git cat-file -p <id>')",
                patch_line=self.patch_line, path=self.path,
            )
        kind = {FileKind.ADD: FileKind.DELETE, FileKind.DELETE: FileKind.ADD}.get(
            self.kind, self.kind
        )
        return replace(
            self,
            kind=kind,
            old_path=self.new_path,
            new_path=self.old_path,
            hunks=[hunk.reversed() for hunk in self.hunks],
            header_paths=self.header_paths[::-1] if self.header_paths else None,
            create_if_missing=False,
            blob_ids=None if self.blob_ids is None else self.blob_ids[::-1],
            old_mode=self.new_mode,
            new_mode=self.old_mode,
        )


@dataclass(frozen=True)
class Mail:
    """A git format-patch mail's commit, as git am reads it (parse/mail.py): its header
    lines and its body up to the '---' line as written; read (``read_commit``) only when a
    commit needs them, into the message (the subject without '[PATCH n/m]', then the body),
    the author ('Name <email>', from From:) and the author date (the Date: header)."""

    headers: bytes
    body: bytes
    message: str = ""
    author: str | None = None
    date: str | None = None


@dataclass
class Patch:
    files: list[FilePatch]
    format: str = "unified"  # "unified", "envelope", "edits" (JSON) or "blocks" (SEARCH/REPLACE)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # git format-patch mails, one a commit (git am's), when every file patch came from one
    # (FilePatch.mail numbers them); empty for any other patch
    mails: list[Mail] = field(default_factory=list)

    def reversed(self) -> Patch:
        """The patch that undoes this one: each file patch reversed. File patches that share
        a path apply in sequence, so their undo runs backwards: then the order is reversed
        too (otherwise the order of independent files is kept, as the receipt lists them)."""
        named = [path for fp in self.files for path in fp.paths]
        order = reversed(self.files) if len(named) != len(set(named)) else iter(self.files)
        return replace(self, files=[f.reversed() for f in order])

    def removed_paths(self) -> set[str]:
        """The paths this patch deletes or renames away."""
        return {fp.old_path for fp in self.files
                if fp.kind in (FileKind.DELETE, FileKind.RENAME) and fp.old_path is not None}


def text_lines(text: bytes) -> list[bytes]:
    """``text`` split after each "\\n", keeping it (the last line may lack one)."""
    return io.BytesIO(text).readlines()


def line_hunk(old: Sequence[bytes], new: Sequence[bytes], *, old_start: int | None,
              edit: TextEdit | None = None, old_no_newline: bool = False,
              new_no_newline: bool = False, patch_line: int = 0,
              slides: bool = False, upward: bool = False) -> Hunk:
    """A hunk that turns the lines ``old`` into ``new``, written as a diff would write it:
    the lines the two share, in order, are its context, the rest removed and added (an
    edit's lines, which say nothing of which lines stay). ``slides``: a change that could
    sit one line up or down takes the lines it could slide over (see _changed_lines); for a
    reading that is still to be placed, not for lines found in the file. ``upward``: such a
    change read as far up as it goes instead (the other reading of the same edit)."""
    changed_old, changed_new = _changed_lines(old, new, slides, upward)
    body: list[HunkLine] = []
    i = j = 0
    while i < len(old) or j < len(new):
        if i < len(old) and j < len(new) and not changed_old[i] and not changed_new[j]:
            body.append(HunkLine(CONTEXT, old[i]))
            i, j = i + 1, j + 1
            continue
        while i < len(old) and changed_old[i]:
            body.append(HunkLine(REMOVE, old[i]))
            i += 1
        while j < len(new) and changed_new[j]:
            body.append(HunkLine(ADD, new[j]))
            j += 1
    return Hunk(old_start, len(old), old_start, len(new), body, patch_line,
                old_no_newline=old_no_newline, new_no_newline=new_no_newline, edit=edit)


def _changed_lines(old: Sequence[bytes], new: Sequence[bytes], slides: bool,
                   upward: bool = False) -> tuple[list[bool], list[bool]]:
    """Which lines of each side a line diff changes.

    With ``slides``, a run of removed (or added) lines that could as well sit a line up or
    down (its last line equals the line before it, or its first the line after) is read as
    git's diff reads it, as far down as it goes, so that the lines the edit keeps above it
    are the ones a diff would call its context. When the run is blank lines alone, among
    blank lines, which of them the edit took is not said at all, and the judge reads the
    lines beside a change as evidence that the file changed there: the blank lines it could
    slide over are read as changed too (removed and added again, the same text), so that
    the lines beyond them count as the change's neighbours, as they are for every reading.
    ``upward``: a run that is not blank lines alone read as far up as it goes instead (an
    edit by its text does not say which of the equal lines around its change it keeps).
    """
    import difflib  # only for an edit by its text: start-up counts

    changed_old, changed_new = [False] * len(old), [False] * len(new)
    opcodes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    for k, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            continue
        changed_old[i1:i2] = [True] * (i2 - i1)
        changed_new[j1:j2] = [True] * (j2 - j1)
        if not slides or tag not in ("delete", "insert"):
            continue
        side, changed, lo, hi = ((old, changed_old, i1, i2) if tag == "delete"
                                 else (new, changed_new, j1, j2))
        room_up = opcodes[k - 1][2] - opcodes[k - 1][1] if k and opcodes[k - 1][0] == "equal" else 0
        room_down = (opcodes[k + 1][2] - opcodes[k + 1][1]
                     if k + 1 < len(opcodes) and opcodes[k + 1][0] == "equal" else 0)
        up = 0
        while up < room_up and side[lo - 1 - up] == side[hi - 1 - up]:
            up += 1
        down = 0
        while down < room_down and side[hi + down] == side[lo + down]:
            down += 1
        if (up or down) and all(not line.strip() for line in side[lo:hi]):
            changed_old[i1 - up:i1] = [True] * up
            changed_new[j1 - up:j1] = [True] * up
            changed_old[i2:i2 + down] = [True] * down
            changed_new[j2:j2 + down] = [True] * down
        elif upward and up:
            changed[hi - up:hi] = [False] * up
            changed[lo - up:lo] = [True] * up
        elif down and not upward:
            changed[lo:lo + down] = [False] * down
            changed[hi:hi + down] = [True] * down
    kept_old = [line for line, flag in zip(old, changed_old, strict=True) if not flag]
    kept_new = [line for line, flag in zip(new, changed_new, strict=True) if not flag]
    if slides and kept_old != kept_new:
        # two runs slid over the same lines (blank lines among blank lines, both ways): the
        # sides would no longer keep the same lines, and line_hunk would never end; the
        # plain line diff then
        return _changed_lines(old, new, False)
    return changed_old, changed_new
