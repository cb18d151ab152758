"""Property: an envelope and the unified diff of the same edit produce identical trees.

Random files (LF or CRLF, with or without a final newline) get random edits, deletes, moves
(with and without edits) and additions. The same change is written as a unified diff (difflib,
git-style headers, real line numbers) and as an envelope (context-only '@@' hunks, sometimes
'*** End of File'); each is applied to its own copy of the repository, and so is the envelope
converted by `holon-apply convert`. All three trees must equal the intended result.

With repeated lines the envelope may be refused as ambiguous (it has no line numbers to break
the tie) — but it must never apply anywhere else.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from difflib import SequenceMatcher, diff_bytes, unified_diff
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from repos.builders import make_repo

from holon_git import apply_patch
from holon_git.api import convert_patch
from holon_git.errors import PatchError

NO_NEWLINE = b"\\ No newline at end of file\n"


# -- building both forms of one change -----------------------------------------------------------

def split(content: bytes) -> list[bytes]:
    lines = content.split(b"\n")
    last = lines.pop()
    return [line + b"\n" for line in lines] + ([last] if last else [])


def body_line(prefix: bytes, line: bytes) -> bytes:
    return prefix + line if line.endswith(b"\n") else prefix + line + b"\n" + NO_NEWLINE


def unified_hunks(before: bytes, after: bytes, old: str, new: str) -> bytes:
    out = b""
    for line in diff_bytes(unified_diff, split(before), split(after), f"a/{old}".encode(),
                           f"b/{new}".encode()):
        out += line if line.endswith(b"\n") else line + b"\n" + NO_NEWLINE
    return out


def unified_file(action: str, old: str | None, new: str | None, before: bytes,
                 after: bytes) -> bytes:
    name_old, name_new = old or new, new or old
    head = f"diff --git a/{name_old} b/{name_new}\n".encode()
    if action == "add":
        head += b"new file mode 100644\n"
        hunks = unified_hunks(b"", after, "x", name_new).replace(b"--- a/x\n", b"--- /dev/null\n")
    elif action == "delete":
        head += b"deleted file mode 100644\n"
        hunks = unified_hunks(before, b"", name_old, "x").replace(b"+++ b/x\n",
                                                                   b"+++ /dev/null\n")
    else:
        if action == "rename":
            head += f"rename from {old}\nrename to {new}\n".encode()
        hunks = unified_hunks(before, after, name_old, name_new)
    return head + hunks


def envelope_add_body(content: bytes) -> bytes:
    if not content:
        return b""
    if content.endswith(b"\n"):
        lines = content[:-1].split(b"\n")
        if lines[-1] in (b"", b"\r"):  # an empty last line (LF or CRLF) needs one more '+':
            lines.append(b"")  # a final empty '+' line stands for the final newline only
        return b"".join(b"+" + line + b"\n" for line in lines)
    return b"".join(b"+" + line + b"\n" for line in content.split(b"\n")) + NO_NEWLINE


def envelope_hunks(before: bytes, after: bytes, context: int, end_marker: bool) -> bytes:
    old, new = split(before), split(after)
    out = b""
    for group in SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(context):
        if all(op[0] == "equal" for op in group):
            continue
        out += b"@@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += b"".join(body_line(b" ", line) for line in old[i1:i2])
            else:
                out += b"".join(body_line(b"-", line) for line in old[i1:i2])
                out += b"".join(body_line(b"+", line) for line in new[j1:j2])
        if end_marker and group[-1][2] == len(old):
            out += b"*** End of File\n"
    return out


@dataclass
class Change:
    action: str  # modify | add | delete | rename
    old: str | None
    new: str | None
    before: bytes
    after: bytes
    context: int = 3
    end_marker: bool = False
    update_form: bool = False  # a rename written as Update File + Move to

    def unified(self) -> bytes:
        return unified_file(self.action, self.old, self.new, self.before, self.after)

    def envelope(self) -> bytes:
        hunks = envelope_hunks(self.before, self.after, self.context, self.end_marker)
        if self.action == "add":
            return f"*** Add File: {self.new}\n".encode() + envelope_add_body(self.after)
        if self.action == "delete":
            return f"*** Delete File: {self.old}\n".encode()
        if self.action == "modify":
            return f"*** Update File: {self.old}\n".encode() + hunks
        if self.update_form:
            return f"*** Update File: {self.old}\n*** Move to: {self.new}\n".encode() + hunks
        return f"*** Move File: {self.old} -> {self.new}\n".encode() + hunks


# -- strategies ----------------------------------------------------------------------------------

@st.composite
def file_content(draw: st.DrawFn, name: str, repeated: bool) -> tuple[list[bytes], bytes, bool]:
    if repeated:
        words = draw(st.lists(st.sampled_from(["a", "b", "{", "}", "", "  x"]), max_size=25))
    else:
        words = [f"{name} line {i} {draw(st.sampled_from(['x', 'y ', '']))}"
                 for i in range(draw(st.integers(0, 25)))]
    eol = draw(st.sampled_from([b"\n", b"\n", b"\r\n"]))
    final = draw(st.booleans()) or not words
    lines = [w.encode() + eol for w in words]
    if lines and not final:
        lines[-1] = lines[-1][: -len(eol)]
    return lines, eol, final


@st.composite
def edited(draw: st.DrawFn, lines: list[bytes], eol: bytes, tag: str, repeated: bool) -> bytes:
    out: list[bytes] = []
    fresh = iter(range(10**6))
    pool = ["a", "b", "{", "}", ""]

    def new_line() -> bytes:
        word = draw(st.sampled_from(pool)) if repeated else f"new {tag} {next(fresh)}"
        return word.encode() + eol

    for line in lines:
        op = draw(st.sampled_from(["keep", "keep", "keep", "delete", "replace", "insert"]))
        if op == "insert":
            out.append(new_line())
        if op in ("keep", "insert"):
            out.append(line if line.endswith(b"\n") else line + eol)
        elif op == "replace":
            out.append(new_line())
    if draw(st.booleans()):
        out.extend(new_line() for _ in range(draw(st.integers(1, 3))))
    content = b"".join(out)
    if content and draw(st.integers(0, 3)) == 0:
        content = content[: -len(eol)]  # the edit also drops the final newline
    return content


@st.composite
def scenarios(draw: st.DrawFn, repeated: bool = False) -> tuple[dict[str, bytes], list[Change]]:
    files: dict[str, bytes] = {}
    changes: list[Change] = []
    for i in range(draw(st.integers(1, 3))):
        name = f"d{i}/f{i}.txt" if draw(st.booleans()) else f"f{i}.txt"
        lines, eol, _ = draw(file_content(name, repeated))
        before = b"".join(lines)
        files[name] = before
        action = draw(st.sampled_from(["modify", "modify", "delete", "rename", "keep"]))
        context = draw(st.integers(1, 3))
        end_marker = draw(st.booleans())
        if action == "delete":
            changes.append(Change("delete", name, None, before, b""))
        elif action == "rename":
            after = draw(edited(lines, eol, name, repeated)) if draw(st.booleans()) else before
            changes.append(Change("rename", name, f"moved/{i}/g{i}.txt", before, after, context,
                                  end_marker, draw(st.booleans())))
        elif action == "modify":
            after = draw(edited(lines, eol, name, repeated))
            if after != before:
                changes.append(Change("modify", name, name, before, after, context, end_marker))
    for i in range(draw(st.integers(0, 2))):
        lines, _, _ = draw(file_content(f"added {i}", repeated))
        changes.append(Change("add", None, f"added/n{i}.txt", b"", b"".join(lines)))
    if not changes:
        changes.append(Change("add", None, "added/only.txt", b"", b"only\n"))
    return files, changes


# -- the properties ------------------------------------------------------------------------------

def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def expected_tree(files: dict[str, bytes], changes: list[Change]) -> dict[str, bytes]:
    out = dict(files)
    for change in changes:
        if change.old is not None:
            del out[change.old]
        if change.new is not None:
            out[change.new] = change.after
    return out


def patches(changes: list[Change]) -> tuple[bytes, bytes]:
    unified = b"".join(change.unified() for change in changes)
    envelope = (b"*** Begin Patch\n" + b"".join(change.envelope() for change in changes)
                + b"*** End Patch\n")
    return unified, envelope


def three_repos(files: dict[str, bytes], work: Path) -> tuple[Path, Path, Path]:
    first = make_repo(work / "unified", files or {"README": b"r\n"}, commit=False)
    return first, Path(shutil.copytree(first, work / "envelope", symlinks=True)), Path(
        shutil.copytree(first, work / "converted", symlinks=True))


@pytest.mark.slow
@given(scenarios())
def test_envelope_and_unified_diff_of_the_same_edit_agree(
        scenario: tuple[dict[str, bytes], list[Change]]) -> None:
    files, changes = scenario
    unified, envelope = patches(changes)
    with tempfile.TemporaryDirectory() as work:
        repo_u, repo_e, repo_c = three_repos(files, Path(work))
        want = expected_tree(tree(repo_u), changes)
        converted = convert_patch(envelope, repo_c)

        receipt = apply_patch(unified, repo_u)
        assert receipt.ok, (receipt.error, unified)
        receipt = apply_patch(envelope, repo_e)
        assert receipt.ok, (receipt.error, envelope)
        assert receipt.format == "envelope"
        receipt = apply_patch(converted, repo_c)
        assert receipt.ok, (receipt.error, converted)

        assert tree(repo_u) == want
        assert tree(repo_e) == want
        assert tree(repo_c) == want


@pytest.mark.slow
@given(scenarios(repeated=True))
def test_envelope_with_repeated_lines_applies_right_or_not_at_all(
        scenario: tuple[dict[str, bytes], list[Change]]) -> None:
    files, changes = scenario
    unified, envelope = patches(changes)
    with tempfile.TemporaryDirectory() as work:
        repo_u, repo_e, _ = three_repos(files, Path(work))
        original = tree(repo_e)
        want = expected_tree(original, changes)
        receipt = apply_patch(unified, repo_u)
        assert receipt.ok, (receipt.error, unified)
        assert tree(repo_u) == want
        receipt = apply_patch(envelope, repo_e)
        if receipt.ok:
            assert tree(repo_e) == want
        else:
            # Without line numbers, copies are ambiguous; and in a run of identical lines an
            # insertion's new side already sits where its context is (a\na\n + 'a' after 'a'),
            # which cannot be told from a re-sent patch (ambiguous_repeat; no line numbers to
            # fit): refused too, never applied elsewhere.
            refusals = ("ambiguous_context", "already_applied", "ambiguous_repeat")
            assert receipt.error is not None
            assert receipt.error.code in refusals, (receipt.error, envelope)
            assert tree(repo_e) == original
            try:
                convert_patch(envelope, repo_e)
            except PatchError as err:
                assert err.code == receipt.error.code
            else:
                raise AssertionError("convert accepted an envelope that apply refused")
