"""Edits by their text as JSON (``str_replace`` edits), read into the Patch model.

    [{"path": "a.py", "old_str": "x = 1", "new_str": "x = 2"}, ...]
    {"edits": [...]}                     the same list under "edits"
    {"command": "str_replace", ...}      one edit alone (a text editor tool call's input)

Each edit becomes one file patch (edits of one path apply one after the other, as file
patches of one path do: core/plan/sequence.py) whose hunk carries the edit's text
(core/model.TextEdit); the plan finds that text in the file (core/plan/edits.py). The fields
read, and every refusal, are in docs/edits.md. Nothing here reads a file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core import paths
from ..core.model import (
    ADD,
    FileKind,
    FilePatch,
    Hunk,
    HunkLine,
    Patch,
    TextEdit,
    line_hunk,
    text_lines,
)
from ..errors import PatchError
from .checks import check_duplicates
from .limits import Tally

COMMANDS = ("str_replace", "create", "insert")
# The text editor tool's commands that are no edit (docs/edits.md, "view and undo_edit"):
# 'view' changes nothing; 'undo_edit' (gone from the tool since text_editor_20250728) means
# "the last edit this session made to the file", which holon-git cannot tell from its history
# log (one entry per file per apply, whatever wrote the file since): the edits themselves,
# reversed, are the undo it can judge.
_NOT_EDITS = {
    "view": "'view' reads a file and changes nothing: the runtime answers it, not holon-git",
    "undo_edit": "'undo_edit' names no change, only \"the last edit\" of a file, which "
                 "holon-git cannot tell: an apply records one entry per file, whatever "
                 "wrote the file since",
}
_NOT_EDITS_HINT = {
    "view": "read the file, then send str_replace, create or insert edits",
    "undo_edit": "to undo edits, send the same edits reversed (git holon-apply -R, "
                 "apply_patch(..., reverse=True)): they are undone where they are in, and "
                 "refused where they are not",
}
# each field an edit may have, and the other names agents give it
_NAMES = {
    "path": "path", "file_path": "path",
    "old_str": "old_str", "old_string": "old_str",
    "new_str": "new_str", "new_string": "new_str",
    "file_text": "file_text", "content": "file_text",
    "command": "command", "insert_line": "insert_line",
    "replace_all": "replace_all", "expected_replacements": "expected_replacements",
}
_HINT = ("send a JSON list of edits, each {\"path\": ..., \"old_str\": ..., \"new_str\": ...} "
         "(docs/edits.md)")


@dataclass(frozen=True)
class Edit:
    """One edit by its text, as the library takes it (``apply_patch([Edit(...), ...])``).

    ``command`` "str_replace" (the default): ``old_str`` replaced by ``new_str`` where it
    occurs exactly once, or ``expected_replacements`` times, or every time (``replace_all``);
    an empty ``old_str`` creates the file (refused when it exists). "create": a new file
    holding ``file_text``. "insert": ``new_str`` as lines after line ``insert_line`` (0:
    before the first)."""

    path: str
    old_str: str | None = None
    new_str: str = ""
    command: str = "str_replace"
    file_text: str | None = None
    insert_line: int | None = None
    replace_all: bool = False
    expected_replacements: int | None = None


def parse_edits(data: bytes) -> Patch:
    """The JSON edit list in ``data`` as a Patch, or a coded refusal."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PatchError("patch_parse_error", f"the JSON edits are not UTF-8 (byte "
                         f"{exc.start})", hint="send the edits as UTF-8 JSON") from None
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f" at line {exc.lineno}, column {exc.colno}" \
            if isinstance(exc, json.JSONDecodeError) else ""
        raise PatchError("patch_parse_error", f"the edits are not valid JSON{where}",
                         hint=_HINT, patch_line=getattr(exc, "lineno", None)) from None
    return edits_patch(read_edits(value), "edits")


def read_edits(value: object) -> list[Edit]:
    """A decoded JSON value as edits: a list, ``{"edits": [...]}``, or one edit object."""
    if isinstance(value, dict) and set(value) == {"edits"}:
        value = value["edits"]
    elif isinstance(value, dict):
        value = [value]
    if value == []:
        raise PatchError("empty_patch", "the JSON edit list is empty", hint=_HINT)
    if not isinstance(value, list):
        raise PatchError("patch_parse_error", "the JSON holds no edit: a list of edit objects "
                         "is expected", hint=_HINT)
    return [_edit(item, number) for number, item in enumerate(value, 1)]


def _invalid(number: int, message: str) -> PatchError:
    return PatchError("invalid_edit", f"edit {number}: {message}", details={"edit": number})


def _edit(item: object, number: int) -> Edit:
    if not isinstance(item, dict):
        raise _invalid(number, f"an edit is a JSON object, not {type(item).__name__}")
    fields: dict[str, Any] = {}
    for key, value in item.items():
        name = _NAMES.get(key)
        if name is None:
            raise _invalid(number, f"unknown field {key!r}; an edit has "
                           + ", ".join(dict.fromkeys(_NAMES)))
        if name in fields:
            raise _invalid(number, f"{name!r} is given twice (under two names)")
        fields[name] = value
    for name in ("path", "old_str", "new_str", "file_text", "command"):
        if name in fields and not isinstance(fields[name], str):
            raise _invalid(number, f"{name!r} must be a string")
    for name in ("insert_line", "expected_replacements"):
        value = fields.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                  or value < 0):
            raise _invalid(number, f"{name!r} must be a whole number, 0 or more")
    if not isinstance(fields.get("replace_all", False), bool):
        raise _invalid(number, "'replace_all' must be true or false")
    if "path" not in fields:
        raise _invalid(number, "the edit names no 'path'")
    return Edit(**fields)


def edits_patch(edits: Sequence[Edit], format: str = "edits",
                lines: Sequence[int] | None = None) -> Patch:
    """Edits as a Patch: one file patch each, in order (``lines``: where each began in the
    input, for blocks)."""
    if not edits:
        raise PatchError("empty_patch", "no edit was given", hint=_HINT)
    tally = Tally()
    files = []
    for number, edit in enumerate(edits, 1):
        line = lines[number - 1] if lines is not None else 0
        tally.file(line)
        files.append(_file_patch(edit, number, line))
        tally.hunk(line)
    check_duplicates(files)
    return Patch(files, format)


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _whole_lines(text: bytes) -> list[bytes]:
    """``text`` as whole lines: its last line given a newline when it has none."""
    lines = text_lines(text)
    if lines and not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n"
    return lines


def _added(text: bytes, line: int) -> Hunk:
    """A hunk adding ``text`` (a new file's content, or an insertion), ending as it ends."""
    added = text_lines(text)
    no_newline = bool(added) and not added[-1].endswith(b"\n")
    return Hunk(0, 0, 1, len(added), [HunkLine(ADD, row) for row in added], line,
                new_no_newline=no_newline)


def _file_patch(edit: Edit, number: int, line: int) -> FilePatch:
    try:
        path = paths.normalize(edit.path)
    except PatchError as err:
        err.details.setdefault("edit", number)
        raise err.located(patch_line=line or None) from None
    command = edit.command
    if command in _NOT_EDITS:
        raise PatchError("invalid_edit", f"edit {number}: {_NOT_EDITS[command]}",
                         hint=_NOT_EDITS_HINT[command], details={"edit": number})
    if command not in COMMANDS:
        raise _invalid(number, f"unknown command {command!r}: an edit is one of "
                       + ", ".join(COMMANDS) + " ('view' and 'undo_edit' change nothing)")
    if command == "create":
        if edit.file_text is None:
            raise _invalid(number, "'create' needs 'file_text', the new file's content")
        text = _bytes(edit.file_text)
        return FilePatch(FileKind.ADD, None, path, [_added(text, line)] if text else [],
                         patch_line=line, edit=number)
    new = _bytes(edit.new_str)
    if command == "insert":
        if edit.insert_line is None:
            raise _invalid(number, "'insert' needs 'insert_line', the line to insert after "
                           "(0: before the first)")
        hunk = _added(new if new.endswith(b"\n") else new + b"\n", line)
        hunk.edit = TextEdit(b"", new, insert_after=edit.insert_line, index=number)
        return FilePatch(FileKind.MODIFY, path, path, [hunk], patch_line=line, edit=number)
    if edit.old_str is None:
        raise _invalid(number, "the edit has no 'old_str' (the text to replace); to create "
                       "a file, use the 'create' command or an empty 'old_str'")
    if edit.replace_all and edit.expected_replacements not in (None, 0):
        raise _invalid(number, "give 'replace_all' or 'expected_replacements', not both")
    if edit.expected_replacements == 0:
        raise _invalid(number, "'expected_replacements' must be 1 or more")
    old = _bytes(edit.old_str)
    count = None if edit.replace_all else (edit.expected_replacements or 1)
    text_edit = TextEdit(old, new, count, index=number)
    if not old:  # creates the file; refused by the plan when it exists (core/plan/edits.py)
        hunk = _added(new, line)
        hunk.edit = text_edit
        return FilePatch(FileKind.MODIFY, path, path, [hunk], patch_line=line,
                         create_if_missing=True, edit=number)
    hunk = line_hunk(_whole_lines(old), _whole_lines(new), old_start=None, edit=text_edit,
                     patch_line=line, slides=True)
    return FilePatch(FileKind.MODIFY, path, path, [hunk], patch_line=line, edit=number)


def edits_json(edits: Sequence[Edit]) -> str:
    """Edits written as the JSON this module reads (the inverse of ``parse_edits``): a list
    of ``str_replace`` edits with only the fields that differ from their defaults."""
    defaults = Edit("")
    return json.dumps([{name: value for name, value in vars(edit).items()
                        if name == "path" or value != getattr(defaults, name)}
                       for edit in edits], ensure_ascii=False, indent=1)
