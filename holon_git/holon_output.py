"""Holon run output folders (RFC-0001 section 8.2): manifest.json, diff.patch, summary.md.

    run = load_run_output("results/", commit=True)
    receipt = apply_patch(run.patch, repo, commit=True, message=run.message)
    write_receipt("results/", receipt)
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any

from .errors import PatchError

MANIFEST = "manifest.json"
PATCH_NAMES = ("diff.patch", "patch.diff")  # RFC section 8.2 names the first, its example spec
SUMMARY = "summary.md"
RECEIPT = "apply-receipt.json"
SUCCESS = "success"


@dataclass(frozen=True)
class RunOutput:
    directory: str
    status: str  # as written in the manifest
    patch: bytes
    patch_name: str  # which of PATCH_NAMES held it
    message: str | None  # commit message from summary.md, when asked for

    def receipt_fields(self) -> dict[str, Any]:
        return {"holon_output": {"directory": self.directory, "manifest_status": self.status,
                                 "patch_file": self.patch_name}}


def _read(directory: str, name: str) -> bytes | None:
    path = os.path.join(directory, name)
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise PatchError("holon_output_invalid", f"{path} is a directory, not a file",
                         path=path) from None
    except OSError as exc:
        raise PatchError("holon_output_invalid", f"cannot read {path}: {exc.strerror}",
                         path=path) from None


def _missing(directory: str, what: str, why: str = "") -> PatchError:
    return PatchError("holon_output_missing", f"{directory} has no {what}{why}", path=directory)


def is_success(status: str) -> bool:
    """RFC-0001 outcomes are Success, Failure and NeedsHumanReview; case and '_'/'-' aside."""
    return re.sub(r"[\s_-]", "", status).lower() == SUCCESS


def manifest_status(directory: str) -> str:
    data = _read(directory, MANIFEST)
    path = os.path.join(directory, MANIFEST)
    if data is None:
        raise _missing(directory, MANIFEST)
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise PatchError("holon_output_invalid", f"{path} is not valid JSON: {exc}",
                         path=path) from None
    if not isinstance(manifest, dict):
        raise PatchError("holon_output_invalid", f"{path} holds a JSON "
                         f"{type(manifest).__name__}, not an object", path=path)
    status = manifest.get("status")
    if not isinstance(status, str) or not status.strip():
        raise PatchError("holon_output_invalid", f"{path} has no \"status\" string",
                         path=path, details={"status": status})
    return status


def _patch(directory: str) -> tuple[str, bytes]:
    found = [(name, data) for name in PATCH_NAMES
             if (data := _read(directory, name)) is not None]
    if not found:
        raise _missing(directory, " or ".join(PATCH_NAMES), ": the run recorded no change")
    if len(found) == 2 and found[0][1] != found[1][1]:
        raise PatchError("holon_output_invalid", f"{directory} holds both {PATCH_NAMES[0]} "
                         f"and {PATCH_NAMES[1]} and they differ; which one to apply is unclear",
                         path=directory)
    return found[0]


def commit_message(summary: bytes, path: str = SUMMARY) -> str:
    """summary.md as a commit message: its first non-blank line (without a Markdown '#'
    heading marker) is the subject, everything after it the body."""
    try:
        text = summary.decode("utf-8")
    except UnicodeDecodeError:
        raise PatchError("holon_output_invalid", f"{path} is not UTF-8 text",
                         path=path) from None
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise PatchError("holon_output_invalid", f"{path} is empty: no subject line",
                         path=path)
    subject = re.sub(r"^#{1,6}(\s+|$)", "", lines[0].strip()).strip()
    if not subject:
        raise PatchError("holon_output_invalid", f"{path} has an empty heading as its first "
                         "line: no subject", path=path)
    body = "\n".join(line.rstrip() for line in lines[1:]).strip("\n")
    return f"{subject}\n\n{body}\n" if body else f"{subject}\n"


def load_run_output(directory: str | os.PathLike[str], *, force: bool = False,
                    commit: bool = False) -> RunOutput:
    """Read a run output folder; refuse an unsuccessful run unless ``force``. ``commit``
    also reads summary.md into a commit message."""
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise PatchError("holon_output_missing", f"{directory} is not a directory",
                         path=directory)
    status = manifest_status(directory)
    if not force and not is_success(status):
        raise PatchError("holon_run_unsuccessful", f"the run's manifest status is {status!r}",
                         path=os.path.join(directory, MANIFEST), details={"status": status})
    name, patch = _patch(directory)
    message = None
    if commit:
        summary = _read(directory, SUMMARY)
        if summary is None:
            raise _missing(directory, SUMMARY, " for the commit message")
        message = commit_message(summary, os.path.join(directory, SUMMARY))
    return RunOutput(directory, status, patch, name, message)


def write_receipt(directory: str | os.PathLike[str], receipt_json: str) -> str:
    """Write the receipt to DIR/apply-receipt.json (replacing it atomically); returns the path."""
    path = os.path.join(os.fspath(directory), RECEIPT)
    temp = path + ".tmp"
    with open(temp, "w", encoding="utf-8") as fh:
        fh.write(receipt_json + "\n")
    os.replace(temp, path)
    return path
