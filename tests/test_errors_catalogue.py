"""Every error code is registered with a hint and documented in docs/errors.md, and back."""

from __future__ import annotations

import re
from pathlib import Path

from holon_git.errors import HINTS

DOC = (Path(__file__).resolve().parent.parent / "docs" / "errors.md").read_text()


def sections() -> dict[str, str]:
    parts = re.split(r"^## `([a-z_]+)`\n", DOC, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_code_is_documented_with_its_hint():
    documented = sections()
    assert set(documented) == set(HINTS)
    for code, hint in HINTS.items():
        assert f"Hint: {hint}\n" in documented[code], code
