"""holon-git: apply patches written by language models to git repositories, exactly or not."""

from __future__ import annotations

from .api import apply_patch, apply_request, check_patch, convert_patch
from .core.plan.plan import plan_patch
from .errors import PatchError
from .parse import parse_patch
from .request import ApplyRequest
from .version import __version__

__all__ = ["ApplyRequest", "PatchError", "__version__", "apply_patch", "apply_request",
           "check_patch", "convert_patch", "parse_patch", "plan_patch"]
