"""holon-git: apply patches written by language models to git repositories, exactly or not."""

from __future__ import annotations

# The command (a console script, python -m holon_git) ends cleanly on a Ctrl-C from here on:
# the rest of the package and the command line load before the command handles one itself.
from .fast_exit import exit_cleanly_on_ctrl_c_while_loading  # noqa: E402

exit_cleanly_on_ctrl_c_while_loading()

from .api import apply_patch, apply_request, check_patch, convert_patch  # noqa: E402
from .core.plan.plan import plan_patch  # noqa: E402
from .errors import PatchError  # noqa: E402
from .parse import parse_patch  # noqa: E402
from .parse.edits import Edit  # noqa: E402
from .request import ApplyRequest  # noqa: E402
from .version import __version__  # noqa: E402

__all__ = ["ApplyRequest", "Edit", "PatchError", "__version__", "apply_patch", "apply_request",
           "check_patch", "convert_patch", "parse_patch", "plan_patch"]
