"""MessagePack arrays put together from parts already encoded: an array's
header for a count of items, and two encoded arrays joined as one. The hot
path encodes a move's parts once and joins them per recipient or per save
rather than encoding whole documents again (docs/LOAD.md, sixth pass)."""

from __future__ import annotations

from typing import Final

SMALL_HEADERS: Final = tuple(bytes((0x90 | n,)) for n in range(16))
"""The one-byte headers of the arrays of 0 to 15 items (fixarray)."""


def array_header(count: int) -> bytes:
    """The header of a msgpack array of ``count`` items."""
    if count < 16:
        return SMALL_HEADERS[count]
    if count < 0x10000:
        return b"\xdc" + count.to_bytes(2, "big")
    return b"\xdd" + count.to_bytes(4, "big")


def header_size(count: int) -> int:
    """The bytes of a msgpack array's header of ``count`` items."""
    return 1 if count < 16 else 3 if count < 0x10000 else 5


def joined_arrays(first: bytes, firsts: int, second: bytes, seconds: int) -> bytes:
    """Two msgpack arrays (of ``firsts`` and ``seconds`` items) as one."""
    if not firsts:
        return second
    return (
        array_header(firsts + seconds)
        + first[header_size(firsts) :]
        + second[header_size(seconds) :]
    )
