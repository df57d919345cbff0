"""The frames ``Conn.send_raw`` writes itself (server/link/conn.py): byte for
byte what websockets would have written, at every length boundary, for text
and binary payloads (tests/test_server.py plays over them end to end)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.frames import Frame, Opcode

from server.link.conn import frame


def _websockets(data: bytes | str) -> bytes:
    if isinstance(data, str):
        return Frame(Opcode.TEXT, data.encode()).serialize(mask=False, extensions=[])
    return Frame(Opcode.BINARY, data).serialize(mask=False, extensions=[])


def test_frames_at_the_length_boundaries_match_websockets() -> None:
    for size in (0, 1, 125, 126, 127, 0xFFFF, 0x10000, 0x10001):
        data = bytes(i % 251 for i in range(size))
        assert frame(data) == _websockets(data), size
        text = "é" * (size // 2) + "a" * (size % 2)  # two bytes a letter in UTF-8
        assert frame(text) == _websockets(text), size


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=70_000), st.text(max_size=40_000)))
def test_any_payload_frames_as_websockets_does(data: bytes | str) -> None:
    assert frame(data) == _websockets(data)
