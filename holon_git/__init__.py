"""holon-git: apply patches written by language models to git repositories, exactly or not."""

from __future__ import annotations

__version__ = "0.1.0"

from .api import apply_patch, apply_request, check_patch, convert_patch  # noqa: E402
from .core.plan.plan import plan_patch  # noqa: E402
from .errors import PatchError  # noqa: E402
from .parse import parse_patch  # noqa: E402
from .request import ApplyRequest  # noqa: E402

__all__ = ["ApplyRequest", "PatchError", "__version__", "apply_patch", "apply_request",
           "check_patch", "convert_patch", "parse_patch", "plan_patch"]
