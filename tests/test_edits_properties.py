"""Properties of edits by their text (core/plan/edits.py), planned in memory: an old_str found
exactly once gives what str.replace gives, byte for byte, or a refusal; never another text."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from holon_git.core.change import SourceFile
from holon_git.core.plan.plan import plan_patch
from holon_git.errors import PatchError
from holon_git.parse import parse_patch

# a few short lines, so that copies, near copies and shared line ends are common
LINES = st.lists(st.sampled_from(["a", "b", "ab", "a b", "  a", "", "ba"]), max_size=8)
ENDS = st.sampled_from(["\n", "\r\n"])


@st.composite
def file_and_edit(draw: st.DrawFn) -> tuple[str, str, str]:
    eol = draw(ENDS)
    content = eol.join(draw(LINES)) + draw(st.sampled_from(["", eol]))
    start = draw(st.integers(0, max(len(content) - 1, 0)))
    end = draw(st.integers(min(start + 1, len(content)), len(content)))
    old = content[start:end]
    if draw(st.booleans()) and draw(st.booleans()):  # text the model misremembered
        old = draw(st.text(alphabet="ab \n", min_size=1, max_size=6))
    new = draw(st.text(alphabet="ab \n", max_size=6))
    return content, old, new


def planned(content: str, old: str, new: str) -> bytes:
    patch = parse_patch(json.dumps([{"path": "f", "old_str": old, "new_str": new}]))
    files = {"f": SourceFile(content.encode())}
    plan = plan_patch(patch, files.get)
    (change,) = plan.changes
    assert change.after is not None
    return change.after


@pytest.mark.slow
@given(file_and_edit())
def test_an_edit_found_once_gives_str_replace_or_a_refusal(case: tuple[str, str, str]) -> None:
    content, old, new = case
    try:
        after = planned(content, old, new)
    except PatchError as err:
        if not old:
            assert err.code == "invalid_edit"
        elif content.count(old) > 1:
            assert err.code == "ambiguous_context"
        else:  # not found (exactly or loosely), found loosely twice, or the change is in
            assert err.code in ("already_applied", "ambiguous_context", "ambiguous_repeat",
                                "context_not_found", "indentation_mismatch",
                                "partly_applied"), err
        return
    if content.count(old) == 1:
        assert after == content.replace(old, new).encode()
    else:  # not found exactly: placed by its whole lines, never where old_str is not
        assert old not in content
