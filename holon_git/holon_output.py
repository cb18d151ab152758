"""Holon run output folders (RFC-0001 section 8.2): manifest.json, diff.patch, summary.md.

    run = load_run_output("results/", commit=True)
    receipt = apply_patch(run.patch, repo, commit=True, message=run.message)
    write_receipt("results/", receipt)

The folder is input from a run, so it is read as hostile: only regular files directly in DIR,
opened relative to DIR without following a symbolic link (a summary.md linked to a secret
would become a commit message) and without blocking (a FIFO), each under a size cap (a link
to /dev/zero, or a huge file, would exhaust memory). The receipt is written to a fresh
temporary file created exclusively in DIR and renamed over apply-receipt.json, so nothing
planted there is written through.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import stat
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from .errors import PatchError

MANIFEST = "manifest.json"
PATCH_NAMES = ("diff.patch", "patch.diff")  # RFC section 8.2 names the first, its example spec
SUMMARY = "summary.md"
RECEIPT = "apply-receipt.json"
SUCCESS = "success"
# the most each file may hold (docs/cli.md); a patch as large as any holon-git applies whole
MAX_BYTES = {MANIFEST: 1 << 20, SUMMARY: 1 << 20, PATCH_NAMES[0]: 256 << 20,
             PATCH_NAMES[1]: 256 << 20}
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_NEW_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
              | getattr(os, "O_CLOEXEC", 0))


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


def _invalid(path: str, why: str) -> PatchError:
    return PatchError("holon_output_invalid", f"{path} {why}", path=path,
                      hint="the run's files must be regular files directly in DIR, within "
                      "the size limits (docs/cli.md); check what wrote them")


def _read(directory: str, name: str) -> bytes | None:
    """DIR/name's bytes (None if absent): a regular file, not followed through a link, at
    most MAX_BYTES[name]."""
    path = os.path.join(directory, name)
    try:
        dir_fd = os.open(directory, _DIR_FLAGS)
    except OSError as exc:
        raise PatchError("holon_output_invalid", f"cannot open {directory}: {exc.strerror}",
                         path=directory) from None
    try:
        try:
            fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _invalid(path, "is a symbolic link; it is not read") from None
            raise PatchError("holon_output_invalid", f"cannot read {path}: {exc.strerror}",
                             path=path) from None
    finally:
        os.close(dir_fd)
    try:
        return _read_regular(fd, path, MAX_BYTES[name])
    finally:
        os.close(fd)


def _read_regular(fd: int, path: str, limit: int) -> bytes:
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode):
        raise PatchError("holon_output_invalid", f"{path} is a directory, not a file",
                         path=path)
    if not stat.S_ISREG(st.st_mode):
        raise _invalid(path, "is not a regular file (a FIFO or a device?); it is not read")
    if st.st_size > limit:
        raise _invalid(path, f"holds {st.st_size} bytes, more than the {limit} allowed")
    chunks, total = [], 0
    try:
        while chunk := os.read(fd, min(1 << 20, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise _invalid(path, f"grew beyond the {limit} bytes allowed while it was read")
    except OSError as exc:
        raise PatchError("holon_output_invalid", f"cannot read {path}: {exc.strerror}",
                         path=path) from None
    return b"".join(chunks)


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
    """Write the receipt to DIR/apply-receipt.json, replacing it atomically; returns the
    path. The new content goes to a temporary file created exclusively (never through
    something planted in DIR), then renamed over the receipt (a link there is replaced,
    not followed)."""
    directory = os.fspath(directory)
    dir_fd = os.open(directory, _DIR_FLAGS)
    try:
        temp = f".{RECEIPT}.{secrets.token_hex(8)}.tmp"
        fd = os.open(temp, _NEW_FLAGS, 0o666, dir_fd=dir_fd)
        try:
            data = memoryview((receipt_json + "\n").encode("utf-8"))
            while data:
                data = data[os.write(fd, data):]
        except BaseException:
            os.close(fd)
            with suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            raise
        os.close(fd)
        try:
            os.rename(temp, RECEIPT, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            raise
    finally:
        os.close(dir_fd)
    return os.path.join(directory, RECEIPT)
