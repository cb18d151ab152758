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


# lines that repeat (blank lines, short statements) beside lines that say where they are
VOCABULARY = ["", "", "    return value", "def load(path):", "    pass", "import os",
              "settings = read_settings(path, defaults)", "}", "x = 1",
              "handler = make_handler(config, logger)"]
INVENTED = "registry = build_registry(options, plugins)"  # nowhere in any file drawn
NEW_LINE = "result = transform(payload, schema)"


@st.composite
def misremembered_edit(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """A file, the edit meant (a region of it changed), and that edit misremembered one way:
    a line the file does not have at one edge of its old text, a line of the file skipped
    (in both texts), or a blank line dropped. Returns (file, old_str, new_str, meant)."""
    lines = draw(st.lists(st.sampled_from(VOCABULARY), min_size=4, max_size=14))
    start = draw(st.integers(0, len(lines) - 3))
    end = draw(st.integers(start + 2, min(start + 6, len(lines))))
    region = lines[start:end]
    at = draw(st.integers(0, len(region)))
    if draw(st.booleans()) and at < len(region):
        changed = [*region[:at], NEW_LINE, *region[at + 1:]]  # a line replaced
    else:
        changed = [*region[:at], NEW_LINE, *region[at:]]  # a line inserted
    meant = "\n".join([*lines[:start], *changed, *lines[end:]]) + "\n"
    old, new = list(region), list(changed)
    slip = draw(st.sampled_from(["invented_lead", "invented_trail", "skipped", "blank"]))
    if slip == "invented_lead":
        old, new = [INVENTED, *old], [INVENTED, *new]
    elif slip == "invented_trail":
        old, new = [*old, INVENTED], [*new, INVENTED]
    else:
        # a line both texts share (context), not the first or last, nor right next to the
        # change (a line skipped there is read as the file changed beside the edit, and
        # among equal lines the judge then takes the other copy: the diff judge's rule):
        # skipped, or, for "blank", only a blank one
        shared = [k for k in range(1, min(at - 1, len(old) - 1))
                  if slip == "skipped" or not old[k].strip()]
        if shared:
            k = draw(st.sampled_from(shared))
            old, new = old[:k] + old[k + 1:], new[:k] + new[k + 1:]
    # whole lines, each with its newline: a last blank line is a line of the text
    return "".join(f"{line}\n" for line in lines), "".join(f"{line}\n" for line in old), \
        "".join(f"{line}\n" for line in new), meant


@pytest.mark.slow
@given(misremembered_edit())
def test_a_misremembered_edit_gives_the_edit_meant_or_a_refusal(
        case: tuple[str, str, str, str]) -> None:
    # the last rungs place an edit by the lines it got right (docs/edits.md): whatever the
    # file's copies and blank lines, the text they write is the one the model meant
    content, old, new, meant = case
    if old in content:
        return  # the slip left text the file has: replaced there, as str_replace does
    try:
        after = planned(content, old, new)
    except PatchError:
        return
    assert after == meant.encode()
