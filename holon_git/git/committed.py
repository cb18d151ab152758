"""Whether HEAD's tree holds a path, read without pygit2 (which costs a plain working-tree
apply more than everything else it does).

The working-tree target must know whether a ``.holon/protect`` is committed even when the
working tree lacks it (a sparse checkout, a file deleted locally): the committed policy
holds either way. This reads HEAD, its commit and the trees on the way from loose objects
or version-2 pack indexes (deltas resolved), for SHA-1 and SHA-256 repositories with
files-backend refs. Anything else — reftable, alternates, an object found nowhere, a file
that does not parse — answers None, "cannot tell", and the caller asks pygit2: a repository
can make this slower, never make it skip a policy.
"""

from __future__ import annotations

import os
import re
import zlib
from bisect import bisect_left

from .location import common_dir

_SHA256 = re.compile(rb"^\s*objectformat\s*=\s*sha256\s*$", re.I | re.M)
_UNUSUAL = re.compile(rb"^\s*(objectformat|refstorage)\s*=", re.I | re.M)
_MAX_DEPTH = 64  # delta chains (git's default is 50) and symbolic refs followed, at most
_MAX_OBJECT = 64 << 20  # a commit or tree larger than this is not read here
_TYPES = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}


class _Unknown(Exception):
    """This module cannot tell: the caller asks pygit2."""


def head_holds(git_dir: str, path: str) -> bool | None:
    """Whether HEAD's tree has a blob or link at ``path`` (False also for an unborn HEAD);
    None when this module cannot tell."""
    try:
        return _Reader(git_dir).head_holds(path)
    except (_Unknown, OSError, ValueError, IndexError, zlib.error, RecursionError):
        return None


class _Reader:
    def __init__(self, git_dir: str) -> None:
        if os.environ.get("GIT_OBJECT_DIRECTORY") or \
                os.environ.get("GIT_ALTERNATE_OBJECT_DIRECTORIES"):
            raise _Unknown
        self.git_dir = git_dir
        self.common = common_dir(git_dir)
        with open(os.path.join(self.common, "config"), "rb") as fh:
            config = fh.read(1 << 20)
        self.size = 32 if _SHA256.search(config) else 20  # bytes of an object id
        if _UNUSUAL.search(_SHA256.sub(b"", config)):
            raise _Unknown  # another object format, or refs not in files
        self.hex = re.compile(rb"[0-9a-f]{%d}" % (2 * self.size))
        self.objects = os.path.join(self.common, "objects")
        if os.path.exists(os.path.join(self.objects, "info", "alternates")) or \
                os.path.exists(os.path.join(self.common, "reftable")):
            raise _Unknown
        self._packs: list[tuple[str, bytes]] | None = None

    def head_holds(self, path: str) -> bool:
        commit = self._resolve("HEAD")
        if commit is None:
            return False  # unborn: nothing is committed
        kind, data = self._object(commit)
        if kind != b"commit" or not data.startswith(b"tree "):
            raise _Unknown
        tree = data[5:5 + 2 * self.size]
        *dirs, name = path.split("/")
        for part in dirs:
            found = self._entry(tree, part.encode())
            if found is None:
                return False
            mode, tree = found
            if mode != b"40000":
                return False
        found = self._entry(tree, name.encode())
        return found is not None and found[0] != b"40000"

    # -- refs ----------------------------------------------------------------------------------
    def _resolve(self, name: str) -> bytes | None:
        for _ in range(_MAX_DEPTH):
            value = self._ref(name)
            if value is None:
                return None
            if value.startswith(b"ref: "):
                name = value[5:].strip().decode("utf-8")
                continue
            if not self.hex.fullmatch(value):
                raise _Unknown
            return value
        raise _Unknown

    def _ref(self, name: str) -> bytes | None:
        if ".." in name or name.startswith("/"):
            raise _Unknown
        per_worktree = name == "HEAD" or "/" not in name or name.startswith(
            ("refs/bisect/", "refs/worktree/", "refs/rewritten/"))
        folder = self.git_dir if per_worktree else self.common
        try:
            with open(os.path.join(folder, name), "rb") as fh:
                return fh.read(4096).strip()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            pass
        if per_worktree:
            raise _Unknown
        try:
            with open(os.path.join(self.common, "packed-refs"), "rb") as fh:
                packed = fh.read()
        except FileNotFoundError:
            return None
        width = 2 * self.size
        line_end = packed.find(b" " + name.encode() + b"\n")
        if line_end < width or (line_end > width and packed[line_end - width - 1] != ord("\n")):
            return None
        return packed[line_end - width:line_end]

    # -- objects -------------------------------------------------------------------------------
    def _object(self, oid: bytes, depth: int = 0) -> tuple[bytes, bytes]:
        if depth > _MAX_DEPTH:
            raise _Unknown
        hexid = oid.decode()
        try:
            with open(os.path.join(self.objects, hexid[:2], hexid[2:]), "rb") as fh:
                raw = zlib.decompressobj().decompress(fh.read(), _MAX_OBJECT + 64)
        except FileNotFoundError:
            return self._packed(bytes.fromhex(hexid), depth)
        header, _, body = raw.partition(b"\0")
        kind, _, size = header.partition(b" ")
        if int(size) != len(body):
            raise _Unknown
        return kind, body

    def _packs_found(self) -> list[tuple[str, bytes]]:
        if self._packs is None:
            folder = os.path.join(self.objects, "pack")
            try:
                names = sorted(n for n in os.listdir(folder) if n.endswith(".idx"))
            except FileNotFoundError:
                names = []
            self._packs = []
            for name in names:
                with open(os.path.join(folder, name), "rb") as fh:
                    self._packs.append((os.path.join(folder, name[:-4] + ".pack"), fh.read()))
        return self._packs

    def _packed(self, raw_id: bytes, depth: int) -> tuple[bytes, bytes]:
        for pack, index in self._packs_found():
            offset = _offset_in(index, raw_id, self.size)
            if offset is not None:
                return self._entry_at(pack, offset, depth)
        raise _Unknown  # in no pack either (a partial clone?): pygit2 decides

    def _entry_at(self, pack: str, offset: int, depth: int) -> tuple[bytes, bytes]:
        if depth > _MAX_DEPTH:
            raise _Unknown
        with open(pack, "rb") as fh:
            fh.seek(offset)
            head = fh.read(64)
            byte = head[0]
            kind, at = (byte >> 4) & 7, 1
            while byte & 0x80:
                byte = head[at]
                at += 1
            base: tuple[bytes, bytes] | None = None
            if kind == 6:  # OFS_DELTA: the base is this far before the entry
                byte = head[at]
                at += 1
                back = byte & 0x7F
                while byte & 0x80:
                    byte = head[at]
                    at += 1
                    back = ((back + 1) << 7) | (byte & 0x7F)
                base = self._entry_at(pack, offset - back, depth + 1)
            elif kind == 7:  # REF_DELTA: the base is named
                base = self._object(head[at:at + self.size].hex().encode(), depth + 1)
                at += self.size
            elif kind not in _TYPES:
                raise _Unknown
            fh.seek(offset + at)
            inflater = zlib.decompressobj()
            chunks, size = [], 0
            while not inflater.eof:
                chunk = fh.read(1 << 16)
                if not chunk:
                    raise _Unknown
                data = inflater.decompress(chunk, _MAX_OBJECT + 1 - size)
                chunks.append(data)
                size += len(data)
                if size > _MAX_OBJECT or inflater.unconsumed_tail:
                    raise _Unknown
            data = b"".join(chunks)
        if base is None:
            return _TYPES[kind], data
        return base[0], _patched(base[1], data)

    def _entry(self, tree: bytes, name: bytes) -> tuple[bytes, bytes] | None:
        """(mode, id in hex) of ``name`` in tree ``tree``."""
        kind, data = self._object(tree)
        if kind != b"tree":
            raise _Unknown
        at = 0
        while at < len(data):
            space = data.index(b" ", at)
            nul = data.index(b"\0", space)
            if data[space + 1:nul] == name:
                return data[at:space], data[nul + 1:nul + 1 + self.size].hex().encode()
            at = nul + 1 + self.size
        return None


def _offset_in(index: bytes, raw_id: bytes, size: int) -> int | None:
    """The pack offset of ``raw_id`` (``size`` bytes) in a version-2 pack index, or None."""
    if index[:8] != b"\377tOc\0\0\0\2":
        raise _Unknown
    fanout = 8
    first = raw_id[0]
    lo = int.from_bytes(index[fanout + 4 * (first - 1):fanout + 4 * first], "big") if first \
        else 0
    hi = int.from_bytes(index[fanout + 4 * first:fanout + 4 * first + 4], "big")
    count = int.from_bytes(index[fanout + 4 * 255:fanout + 4 * 256], "big")
    ids = fanout + 4 * 256

    class Ids:
        def __len__(self) -> int:
            return hi

        def __getitem__(self, i: int) -> bytes:
            return index[ids + size * i:ids + size * i + size]

    at = bisect_left(Ids(), raw_id, lo, hi)
    if at >= hi or index[ids + size * at:ids + size * at + size] != raw_id:
        return None
    offsets = ids + (size + 4) * count  # after the ids and their CRCs
    value = int.from_bytes(index[offsets + 4 * at:offsets + 4 * at + 4], "big")
    if value & 0x80000000:  # in the table of 8-byte offsets
        large = offsets + 4 * count + 8 * (value & 0x7FFFFFFF)
        value = int.from_bytes(index[large:large + 8], "big")
    return value


def _patched(base: bytes, delta: bytes) -> bytes:
    """A git delta applied to ``base``."""
    at = 0

    def size() -> int:
        nonlocal at
        value, shift = 0, 0
        while True:
            byte = delta[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    if size() != len(base):
        raise _Unknown
    wanted = size()
    if wanted > _MAX_OBJECT:
        raise _Unknown
    out = bytearray()
    while at < len(delta):
        op = delta[at]
        at += 1
        if op & 0x80:  # copy from the base
            start = length = 0
            for bit in range(4):
                if op & (1 << bit):
                    start |= delta[at] << (8 * bit)
                    at += 1
            for bit in range(3):
                if op & (0x10 << bit):
                    length |= delta[at] << (8 * bit)
                    at += 1
            length = length or 0x10000
            if start + length > len(base):
                raise _Unknown
            out += base[start:start + length]
        elif op:  # insert the next op bytes
            out += delta[at:at + op]
            at += op
        else:
            raise _Unknown
    if len(out) != wanted:
        raise _Unknown
    return bytes(out)
