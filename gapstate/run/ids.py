"""The interval ids a replay has seen, in bounded memory however long and however many they are.

A session remembers every interval id it has seen, to tell a repeated
(`dup`) notice from a fresh one. Kept as Python strings in a set, a million
ids cost over 100 MB, and a million long ones without bound. So an id
longer than `SHORT` characters is kept as a keyed 16-byte digest (BLAKE2b
with a key drawn per process, so no input can be made to collide on
purpose; by chance, two of a billion ids collide with odds below 10^-20),
and past `COMPACT` ids they all move into one flat table of 16-byte slots,
about 32 bytes an id. Below that, short ids stay as they are: the common
case costs one set lookup.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator

SHORT = 32  # characters: an id up to this long is kept as it is, while there are few
COMPACT = 1 << 17  # ids: past this many, every id is kept as a 16-byte slot of one table
_SLOT = 16
_KEY = os.urandom(16)


_LENGTH = [bytes((n + 1,)) for n in range(_SLOT)]


def _slot(id: str) -> bytes:
    """The id as 16 bytes: its UTF-8 itself when that fits in 15 (first byte 1..16), else a digest (17..255)."""
    data = id.encode("utf-8", "surrogatepass")
    if len(data) < _SLOT:
        return (_LENGTH[len(data)] + data).ljust(_SLOT, b"\0")
    digest = hashlib.blake2b(data, digest_size=_SLOT, key=_KEY).digest()
    return bytes((17 + digest[0] % 239,)) + digest[1:]


class Ids:
    """A set of ids (`in`, `add`, `len`), as compact as the list of them is long.

    Past `compact` ids, each is a 16-byte slot in one of `_BUCKETS` byte
    strings, picked by the slot's hash and searched by `bytearray.find`
    (C code: a few hundred bytes a bucket at a million ids).
    """

    __slots__ = ("_few", "_buckets", "_count", "_compact", "_missed", "_digested")

    def __init__(self, compact: int = COMPACT):
        self._few: set[str | bytes] | None = set()  # short ids as themselves, long ones as slots
        self._digested = False  # some id of `_few` is a slot
        self._buckets: list[bytearray] = []  # then: the slots, concatenated, by hash
        self._count = 0
        self._compact = compact
        self._missed: tuple[str, bytes] | None = None  # the last id found absent, and its slot: replay adds it next

    def __contains__(self, id: str) -> bool:
        few = self._few
        if few is not None:
            return (id if len(id) <= SHORT else _slot(id)) in few
        key = _slot(id)
        if _position(self._buckets[hash(key) & _MASK], key) >= 0:
            return True
        self._missed = (id, key)
        return False

    @property
    def limit(self) -> int:
        """How many ids `plain()` may hold: adding one more to it goes through `add`."""
        return self._compact

    def plain(self) -> set[str] | None:
        """The ids as a plain set while each is kept as itself (few, each short), else None.

        For replay's hot loop, which then tests and adds in C: `id in plain`
        is exactly `id in self`, and `plain.add(id)` is `self.add(id)` for an
        id of at most SHORT characters while `len(plain) < self.limit`.
        Anything else goes through `add`, after which `plain()` is asked again.
        """
        return self._few if not self._digested else None  # type: ignore[return-value]

    def add(self, id: str) -> None:
        few = self._few
        if few is not None:
            if len(id) <= SHORT:
                few.add(id)
            else:
                few.add(_slot(id))
                self._digested = True
            if len(few) > self._compact:
                self._buckets = [bytearray() for _ in range(_BUCKETS)]
                for item in few:
                    self._put(item if isinstance(item, bytes) else _slot(item))
                self._few = None
                self._digested = True
            return
        missed, self._missed = self._missed, None
        if missed is not None and missed[0] is id:
            self._buckets[hash(missed[1]) & _MASK] += missed[1]
            self._count += 1
        else:
            self._put(_slot(id))

    def _put(self, key: bytes) -> None:
        bucket = self._buckets[hash(key) & _MASK]
        if _position(bucket, key) < 0:
            bucket += key
            self._count += 1

    def __len__(self) -> int:
        return len(self._few) if self._few is not None else self._count

    def __iter__(self) -> Iterator[str]:
        """The ids, while they are few and short (a generator of traces lists them); digests cannot be listed."""
        if self._few is None or any(isinstance(k, bytes) for k in self._few):
            raise TypeError("only a few short ids can be listed; the others are kept as digests")
        return iter(self._few)  # type: ignore[arg-type]


_BUCKETS = 1 << 16
_MASK = _BUCKETS - 1


def _position(bucket: bytearray, key: bytes) -> int:
    """Where the key's slot starts in the bucket, or -1 (a match must start on a slot boundary)."""
    at = bucket.find(key)
    while at > 0 and at % _SLOT:
        at = bucket.find(key, at + 1)
    return at
