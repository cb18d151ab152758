"""Properties of re-sending (hypothesis): whatever applied once is refused already_applied the
second time with nothing changed (without the history log, ambiguous_repeat where its lines
repeat their neighbours, which is checked true); -R then restores the original; -R again is
refused not_applied. Files have duplicated blocks and hunks at both ends; patches come with
real line numbers (hint-placed among copies), one-sided context, or as envelopes (no line
numbers)."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from repos.builders import make_repo, snapshot
from strategies import COMMON, apply_edits, difflib_patch, edits, file_lines, join
from test_properties import repeat_is_true

from holon_git import apply_patch
from holon_git.core.change import SourceFile
from holon_git.core.model import CONTEXT
from holon_git.core.plan.plan import plan_patch
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

PATH = "src/file.txt"
HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@.*$", re.M)


def plan(patch: bytes, content: bytes, *, reverse: bool = False) -> bytes:
    parsed = parse_patch(patch)
    if reverse:
        parsed = parsed.reversed()
    (change,) = plan_patch(parsed, {PATH: SourceFile(content)}.get, reverse=reverse).changes
    assert change.after is not None
    return change.after


def blind_hunk(patch: bytes, reverse: bool = False) -> bool:
    """A hunk with no line on the side that would be left: a pure deletion without context
    leaves nothing to recognise (nor does a pure insertion without context, reversed)."""
    return any(not (hunk.new_lines if not reverse else hunk.old_lines)
               for fp in parse_patch(patch).files for hunk in fp.hunks)


def repeated_without_context(patch: bytes, content: bytes) -> bool:
    """A hunk with no context line whose added lines occur more than once in ``content``:
    reversed, its only lines are a block the file repeats, and nothing but a line number no
    version vouches for says which copy (a -U0 hunk at the file's end, say), so a refusal
    as ambiguous is right."""
    for fp in parse_patch(patch).files:
        for hunk in fp.hunks:
            if hunk.new_lines and not any(line.kind == CONTEXT for line in hunk.lines):
                block = b"".join(hunk.new_lines)
                if content.count(block) > 1:
                    return True
    return False


def found_once_elsewhere(patch: bytes, content: bytes) -> bool:
    """Every hunk's new side (its old side, reversed) occurs exactly once in ``content``."""
    lines = content.splitlines(keepends=True)

    def places(block: list[bytes]) -> int:
        return sum(lines[i:i + len(block)] == block for i in range(len(lines) - len(block) + 1))

    return all(places(list(hunk.new_lines)) == 1
               for fp in parse_patch(patch).files for hunk in fp.hunks)


def periodic(lines: list[bytes]) -> bool:
    """A stretch that repeats right after itself (a run of blank lines; '}', '', '}', ''):
    an edit that lengthens or shortens it by one period leaves a file that differs from the
    one before only by where the stretch ends, and no rule can tell which of the two it
    holds from the hunk (git cannot either). Such files are left out of the properties."""
    return any(lines[i:i + p] == lines[i + p:i + 2 * p]
               for p in range(1, 5) for i in range(len(lines) - 2 * p + 1))


def refusal(patch: bytes, content: bytes, *, reverse: bool = False) -> str:
    """The code the patch is refused with; an ``ambiguous_repeat`` only when it is true
    (test_properties.repeat_is_true), else "false repeat"."""
    try:
        plan(patch, content, reverse=reverse)
    except PatchError as err:
        if err.code == "ambiguous_repeat" and not repeat_is_true(err, patch, content,
                                                                  reverse=reverse):
            return "false repeat"
        return err.code
    return "applied"


@st.composite
def block_file(draw: st.DrawFn) -> list[bytes]:
    """Lines with a block repeated two or three times (the hint decides among copies)."""
    lines = draw(file_lines(max_lines=30))
    block = draw(st.lists(st.sampled_from(COMMON), min_size=1, max_size=4))
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(lines)))
        lines[at:at] = block
    return lines


def one_sided(patch: bytes, side: str) -> bytes:
    """Drop each hunk's leading or trailing context lines (an envelope-like hunk anchored on
    one side only), fixing the header counts."""
    out: list[bytes] = []
    for chunk in re.split(rb"(?m)^(?=@@ )", patch):
        if not chunk.startswith(b"@@ "):
            out.append(chunk)
            continue
        head, *body = chunk.splitlines(keepends=True)
        dropped = 0
        if side == "leading":
            while body and body[0].startswith(b" ") and len(body) > 1:
                body.pop(0)
                dropped += 1
        else:
            while body and body[-1].startswith(b" ") and len(body) > 1:
                body.pop()
        old = sum(1 for line in body if not line.startswith(b"+"))
        new = sum(1 for line in body if not line.startswith(b"-"))
        m = HEADER.match(head)
        assert m is not None
        starts = int(m.group(1)) + dropped, int(m.group(3)) + dropped
        out.append(b"@@ -%d,%d +%d,%d @@\n" % (starts[0], old, starts[1], new)
                   + b"".join(body))
    return b"".join(out)


def envelope(patch: bytes) -> bytes:
    """The same hunks as a '*** Begin Patch' envelope: no line numbers."""
    hunks = re.split(rb"(?m)^@@ .*\n", patch)[1:]
    body = b"".join(b"@@\n" + hunk for hunk in hunks)
    return b"*** Begin Patch\n*** Update File: " + PATH.encode() + b"\n" + body + \
        b"*** End Patch\n"


@st.composite
def sent_patch(draw: st.DrawFn) -> tuple[bytes, bytes]:
    lines = draw(block_file())
    changes = draw(edits(lines))
    new_lines = apply_edits(lines, changes)
    assume(new_lines != lines and lines and not periodic(lines) and not periodic(new_lines))
    old, new = join(lines), join(new_lines)
    patch = difflib_patch(PATH, old, new, draw(st.integers(1, 3)))
    form = draw(st.sampled_from(["unified", "leading", "trailing", "envelope"]))
    if form in ("leading", "trailing"):
        patch = one_sided(patch, form)
    elif form == "envelope":
        patch = envelope(patch)
    return old, patch


def unanchored_reverse(patch: bytes) -> bool:
    """Reversed, some hunk cannot be placed for sure: an envelope's (no line numbers to break
    a tie), or a pure deletion without context (reversed, an insertion with no anchor)."""
    return patch.startswith(b"*** Begin Patch") or blind_hunk(patch)


@pytest.mark.slow
@settings(max_examples=300)
@given(sent_patch())
@example((b"\nline-00\n\n}\n\npass\n\nline-01\n\n}\npass\n\n}\nline-02\n\nline-03\n\n"
          b"line-04\n\nline-05\n\n}\n\nline-0000\n\nline-000000\n\nline-00000000\n\n"
          b"line-0000000000\n\n",
          b"--- a/src/file.txt\n+++ b/src/file.txt\n@@ -30,2 +30,1 @@\n-line-0000000000\n-\n+}\n"))
@example((b"\nline-00\n}\nline-01\n\n}\n",
          b"*** Begin Patch\n*** Update File: src/file.txt\n@@\n \n-line-00\n }\n*** End Patch\n"))
def test_what_applied_once_is_refused_the_second_time(sent):
    old, patch = sent
    try:
        after = plan(patch, old)
    except PatchError:
        assume(False)  # ambiguous without line numbers, and so on: nothing to re-send
    if blind_hunk(patch):  # a deletion without context leaves nothing to recognise...
        assert refusal(patch, after) != "applied"  # ...but it is still refused
    elif patch.startswith(b"*** Begin Patch"):
        # no line numbers: an edit that made a second copy of a hunk's old side ('}' and a
        # blank line added before a blank line) leaves a re-send and a fresh patch meant for
        # either copy reading the same, so it may be refused as ambiguous
        assert refusal(patch, after) in ("already_applied", "ambiguous_context",
                                         "ambiguous_repeat")
    else:  # without the history log, a re-send whose lines repeat cannot be told
        assert refusal(patch, after) in ("already_applied", "ambiguous_repeat")
    loose = unanchored_reverse(patch) or repeated_without_context(patch, after)
    try:
        assert plan(patch, after, reverse=True) == old
    except PatchError as err:  # never applied elsewhere; refused only when it cannot tell
        assert loose and err.code == "ambiguous_context", err
    if loose or blind_hunk(patch, reverse=True):
        # with no line numbers, a reversed hunk whose lines the original also holds at
        # another place, once, is placed there, as any hunk found once is
        elsewhere = ("applied",) if loose and found_once_elsewhere(patch, old) else ()
        assert refusal(patch, old, reverse=True) in ("not_applied", "ambiguous_context",
                                                     "context_not_found", "ambiguous_repeat",
                                                     *elsewhere)
    else:
        assert refusal(patch, old, reverse=True) in ("not_applied", "ambiguous_repeat")


@pytest.mark.slow
@settings(max_examples=25)
@given(sent_patch())
def test_a_resent_patch_changes_nothing_in_a_real_repository(tmp_path_factory, sent):
    old, patch = sent
    assume(not unanchored_reverse(patch) and not blind_hunk(patch, reverse=True))
    repo = make_repo(tmp_path_factory.mktemp("r"), {PATH: old})
    first = apply_patch(patch, repo)
    assume(first.ok)
    state = snapshot(repo)
    again = apply_patch(patch, repo)
    assert again.error is not None
    assert again.error.code == "already_applied" or blind_hunk(patch)
    assert snapshot(repo) == state
    assert apply_patch(patch, repo, reverse=True).ok
    assert (repo / PATH).read_bytes() == old
    twice = apply_patch(patch, repo, reverse=True)
    assert twice.error is not None and twice.error.code == "not_applied"
    assert (repo / PATH).read_bytes() == old
