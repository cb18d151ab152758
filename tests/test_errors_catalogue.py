"""docs/errors.md and errors.HINTS stay in step: every code documented, with its hint."""

from __future__ import annotations

import re
from pathlib import Path

from holon_git.errors import HINTS

DOC = (Path(__file__).resolve().parent.parent / "docs" / "errors.md").read_text()


def entries() -> dict[str, str]:
    parts = re.split(r"(?m)^## `([a-z_]+)`\n", DOC)[1:]
    return dict(zip(parts[::2], parts[1::2], strict=True))


def test_every_code_is_documented_with_its_hint_and_an_example():
    documented = entries()
    assert set(documented) == set(HINTS)
    for code, entry in documented.items():
        assert f"Hint: {HINTS[code]}\n" in entry, code
        assert "Example:" in entry, code


def test_every_code_raised_is_registered():
    root = Path(__file__).resolve().parent.parent / "holon_git"
    raised = set()
    for source in root.rglob("*.py"):
        raised |= set(re.findall(r'PatchError\(\s*"([a-z_]+)"', source.read_text()))
    assert raised - set(HINTS) == set()
