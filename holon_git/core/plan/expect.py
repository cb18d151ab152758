"""--expect-sha256: the digests a patch expects its files to have, validated once and checked
before anything is planned."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ...errors import PatchError, first_of
from .. import paths
from ..change import Reader

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def expected_digests(given: Mapping[str, str]) -> dict[str, str]:
    """The expected sha256 of each path, lower case; each must be 64 hex digits (any case),
    or "" for "must not exist" (``usage_error`` otherwise)."""
    out = {}
    for path, digest in given.items():
        expected = digest.strip().lower()
        if expected and not _SHA256_HEX.fullmatch(expected):
            raise PatchError("usage_error", f"--expect-sha256 {path}={digest}: the sha256 is "
                             "not 64 hex digits", hint="give the sha256 as 64 hex digits, or '' "
                             "for 'must not exist' (PATH=HEX)")
        out[path] = expected
    return out


def check_expected(expected: Mapping[str, str], read: Reader, every: bool = True) -> None:
    """Stale-file check: every listed path's pre-image hashes to its expected digest (as
    ``expected_digests`` gives them; "" asserts the path does not exist), or the whole patch
    is refused with ``stale_file``: the first mismatch, carrying the others (``every``) in
    its ``more``."""
    if not expected:
        return
    import hashlib  # loads OpenSSL: only when asked for

    stale = []
    for raw_path, digest in expected.items():
        path = paths.normalize(raw_path)
        existing = read(path)
        actual = "" if existing is None else hashlib.sha256(existing.data).hexdigest()
        if actual != digest:
            state = "does not exist" if existing is None else f"has sha256 {actual}"
            wanted = "not to exist" if not digest else f"to have sha256 {digest}"
            stale.append(PatchError(
                "stale_file", f"{path!r} {state}; the patch expects it {wanted}", path=path,
                details={"path": path, "expected": digest, "actual": actual}))
            if not every:
                break
    if stale:
        raise first_of(stale)
