"""Every registered error code is documented in docs/errors.md with its exact hint."""

from __future__ import annotations

import re
from pathlib import Path

from holon_git.errors import HINTS

DOC = (Path(__file__).resolve().parent.parent / "docs" / "errors.md").read_text()


def sections() -> dict[str, str]:
    parts = re.split(r"^## `([a-z_]+)`\n", DOC, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_code_has_a_section_with_meaning_example_and_hint() -> None:
    documented = sections()
    assert set(documented) == set(HINTS)
    for code, text in documented.items():
        assert "Example:" in text, code
        hint = re.search(r"^Hint: (.*)$", text, flags=re.M)
        assert hint is not None and hint.group(1) == HINTS[code], code
