"""protocol.codec: round trips, subprotocols, and DecodeError codes by blame."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import msgspec
import pytest

from protocol.codec import (
    PROTOCOL_VERSION,
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOL_V2_JSON,
    SUBPROTOCOL_V2_MSGPACK,
    SUBPROTOCOLS,
    Codec,
    DecodeError,
    codec_for,
)


class Bid(msgspec.Struct, tag=True, frozen=True):
    contract: Literal["pass", "petite", "garde", "garde_sans", "garde_contre"]


class Play(msgspec.Struct, tag=True, frozen=True):
    card: str
    request: int = 0  # a field added later gets a default: old clients still decode


Command = Bid | Play

msgpack = Codec("msgpack", Command)
json = Codec("json", Command)


def _mp(value: object) -> bytes:
    return msgspec.msgpack.encode(value)


def test_constants() -> None:
    assert PROTOCOL_VERSION == 1
    assert SUBPROTOCOL_MSGPACK == "atout.v1.msgpack"
    assert SUBPROTOCOL_JSON == "atout.v1.json"
    assert SUBPROTOCOL_V2_MSGPACK == "atout.v2.msgpack"
    assert SUBPROTOCOL_V2_JSON == "atout.v2.json"
    # The server prefers version 2, then msgpack.
    assert SUBPROTOCOLS == (
        SUBPROTOCOL_V2_MSGPACK,
        SUBPROTOCOL_V2_JSON,
        SUBPROTOCOL_MSGPACK,
        SUBPROTOCOL_JSON,
    )


@pytest.mark.parametrize("msg", [Bid("garde"), Play("T21", request=7)])
def test_round_trip(msg: Bid | Play) -> None:
    data = msgpack.encode(msg)
    assert isinstance(data, bytes)
    assert msgpack.decode(data) == msg

    text = json.encode(msg)
    assert isinstance(text, str)
    assert json.decode(text) == msg
    assert json.decode(text.encode()) == msg  # a JSON peer may send bytes too


def test_json_is_what_a_person_would_write() -> None:
    assert json.encode(Play("KS")) == '{"type":"Play","card":"KS","request":0}'
    assert json.decode('{"type": "Play", "card": "KS"}') == Play("KS")


def test_frame_kinds() -> None:
    assert msgpack.binary and msgpack.kind == "msgpack"
    assert msgpack.subprotocol == SUBPROTOCOL_MSGPACK
    assert not json.binary and json.kind == "json"
    assert json.subprotocol == SUBPROTOCOL_JSON


def _error(codec: Codec, data: bytes | str) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        codec.decode(data)
    return info.value


@pytest.mark.parametrize(
    ("codec", "data"),
    [
        (msgpack, b"\xc1"),  # a byte msgpack never uses
        (msgpack, b""),
        (msgpack, _mp({"type": "Play", "card": "KS"})[:-1]),  # truncated
        (msgpack, "a text frame"),
        (json, "{"),
        (json, ""),
        (json, b"\xff\xfe"),
        (json, '{"type": "Play", "card": "KS"} trailing'),
    ],
)
def test_malformed(codec: Codec, data: bytes | str) -> None:
    err = _error(codec, data)
    assert err.code == "malformed"
    assert err.message


def test_malformed_even_when_the_start_already_mismatches() -> None:
    # The typed decoder stops at 42 (not a message); the rest is still garbage.
    assert _error(json, "[42, }").code == "malformed"
    assert _error(msgpack, b"\x92\x2a\xc1").code == "malformed"


@pytest.mark.parametrize("codec", [msgpack, json], ids=["msgpack", "json"])
@pytest.mark.parametrize(
    ("value", "says"),
    [
        ({"type": "Dance", "card": "KS"}, "'Dance'"),
        ({"card": "KS"}, "no 'type' field"),
        ({"type": 3}, "3"),
        ({"type": True}, "True"),
        (42, "a number"),
        ("Play", "a string"),
        (None, "null"),
        ([], "an array"),
    ],
)
def test_unknown_message(codec: Codec, value: object, says: str) -> None:
    data = _mp(value) if codec.binary else msgspec.json.encode(value).decode()
    err = _error(codec, data)
    assert err.code == "unknown_message"
    assert says in err.message


def test_unknown_message_names_the_known_types() -> None:
    err = _error(json, '{"type": "Dance"}')
    assert err.message == "unknown message type 'Dance' (expected one of 'Bid', 'Play')"


def test_a_long_unknown_tag_is_not_echoed_whole() -> None:
    err = _error(json, msgspec.json.encode({"type": "x" * 10_000}).decode())
    assert err.code == "unknown_message"
    assert len(err.message) < 120


@pytest.mark.parametrize("codec", [msgpack, json], ids=["msgpack", "json"])
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"type": "Play", "card": 5}, "invalid Play message: expected `str`, got `int` at `card`"),
        ({"type": "Play"}, "invalid Play message: object missing required field `card`"),
        ({"type": "Bid", "contract": "slam"}, "invalid Bid message: invalid enum value 'slam'"),
        ({"type": "Play", "card": "KS", "request": "x"}, "at `request`"),
    ],
)
def test_invalid_message(codec: Codec, value: object, message: str) -> None:
    data = _mp(value) if codec.binary else msgspec.json.encode(value).decode()
    err = _error(codec, data)
    assert err.code == "invalid_message"
    assert message in err.message
    assert str(err) == f"invalid_message: {err.message}"


def test_untagged_decode_type_blames_fields() -> None:
    codec = Codec("json", Play)
    assert codec.decode('{"type": "Play", "card": "KS"}') == Play("KS")
    err = _error(Codec("json", list[int]), '["a"]')
    assert err.code == "invalid_message"
    assert err.message == "invalid list[int]: expected `int`, got `str` at `[0]`"


def test_array_like_tags_are_read_from_the_first_element() -> None:
    class Pass(msgspec.Struct, tag=True, array_like=True):
        pass

    class Call(msgspec.Struct, tag=True, array_like=True):
        king: str

    codec = Codec("msgpack", Pass | Call)
    assert codec.decode(_mp(["Call", "KH"])) == Call("KH")
    assert _error(codec, _mp(["Call", 5])).code == "invalid_message"
    assert _error(codec, _mp(["Fold"])).code == "unknown_message"


def test_codec_for_picks_the_format_and_shares_codecs() -> None:
    assert codec_for(None, Command).kind == "msgpack"
    assert codec_for(SUBPROTOCOL_MSGPACK, Command).kind == "msgpack"
    assert codec_for(SUBPROTOCOL_JSON, Command).kind == "json"
    # Built once: every connection on a subprotocol gets the same codec.
    assert codec_for(SUBPROTOCOL_JSON, Command) is codec_for(SUBPROTOCOL_JSON, Command)
    assert (
        codec_for(SUBPROTOCOL_V2_JSON, Command).kind,
        codec_for(SUBPROTOCOL_V2_JSON, Command).version,
    ) == ("json", 2)
    with pytest.raises(ValueError, match="subprotocol"):
        codec_for("atout.v3.msgpack", Command)


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="kind"):
        Codec("xml", Command)  # type: ignore[arg-type]  # on purpose


def test_decode_error_is_one_type_with_code_and_message() -> None:
    err = DecodeError("malformed", "not valid json")
    assert (err.code, err.message) == ("malformed", "not valid json")
    assert str(err) == "malformed: not valid json"


def _nested_json(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


def _nested_msgpack(depth: int) -> bytes:
    return b"\x91" * depth + b"\x01"  # fixarray of one element, ``depth`` times


@pytest.mark.parametrize("depth", [1_000, 100_000])
@pytest.mark.parametrize(
    "codec, frame",
    [
        (json, lambda d: _nested_json(d)),
        (json, lambda d: '{"type": "play", "card": ' + _nested_json(d) + "}"),
        (msgpack, lambda d: _nested_msgpack(d)),
        (msgpack, lambda d: b"\x82\xa4type\xa4play\xa4card" + _nested_msgpack(d)),
    ],
    ids=["json", "json-in-a-field", "msgpack", "msgpack-in-a-field"],
)
def test_any_depth_of_nesting_is_malformed_not_a_crash(
    codec: Codec, frame: Callable[[int], bytes | str], depth: int
) -> None:
    # The decoder gives up past the interpreter's recursion limit (about 1,000
    # levels on 3.11; 3.12 goes deeper): that is the peer's bad data, reported
    # like any other, never our RecursionError.
    err = _error(codec, frame(depth))
    if depth > 10_000:
        assert err.code == "malformed" and "nested too deeply" in err.message
    else:
        assert err.code in ("malformed", "unknown_message", "invalid_message")
