"""The wire encoding: protocol version, WebSocket subprotocols and codecs.

A connection speaks one subprotocol, chosen in the WebSocket handshake:
``atout.v2.msgpack`` or ``atout.v1.msgpack`` (binary frames; v1 when none is
agreed), ``atout.v2.json`` or ``atout.v1.json`` (text frames, for humans and
for clients without msgpack). The subprotocol names the protocol version:
version 2 sends the table stream positionally (``protocol/positional.py``),
everything else as version 1 does. A ``Codec`` holds the
encoder and the decoder for one format and one message union; build it once
(``codec_for`` caches them) and share it, since building a decoder for a
large union costs far more than using it.

Errors
------
``Codec.decode`` raises ``DecodeError`` and nothing else for any bytes or
text a peer may send. Its ``code`` is stable, for machines; its ``message``
is for people::

    DecodeError
      code "malformed"        not msgpack / not JSON at all (or a text frame
                              where msgpack was agreed, or nested deeper
                              than the decoder goes)
      code "unknown_message"  well-formed, but no message type we know: no
                              tag, an unknown tag, or not even an object
      code "invalid_message"  a known message type with wrong or missing
                              fields

All three are the peer's fault: the server answers with an ``Error`` carrying
the code and keeps the connection. Passing something that is neither ``bytes``
nor ``str`` is the caller's bug and raises ``TypeError`` as usual.
"""

from __future__ import annotations

import functools
from typing import Any, Final, Literal, TypeAlias

import msgspec

from protocol.diff import Op
from protocol.messages import TablePatch, TableSnapshot, Welcome
from protocol.positional import TableReader, TableWire

__all__ = [
    "PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "SUBPROTOCOLS",
    "SUBPROTOCOL_JSON",
    "SUBPROTOCOL_MSGPACK",
    "SUBPROTOCOL_V2_JSON",
    "SUBPROTOCOL_V2_MSGPACK",
    "Codec",
    "CodecKind",
    "DecodeError",
    "DecodeErrorCode",
    "codec_for",
    "new_codec",
    "version_of",
]

PROTOCOL_VERSION: Final = 1
"""The version of a connection that agreed no subprotocol (and of ``atout.v1.*``).
Bumped only for changes old peers cannot read; new fields with defaults are not one."""
PROTOCOL_VERSIONS: Final = (1, 2)

SUBPROTOCOL_MSGPACK: Final = "atout.v1.msgpack"
SUBPROTOCOL_JSON: Final = "atout.v1.json"
SUBPROTOCOL_V2_MSGPACK: Final = "atout.v2.msgpack"
SUBPROTOCOL_V2_JSON: Final = "atout.v2.json"
SUBPROTOCOLS: Final = (
    SUBPROTOCOL_V2_MSGPACK,
    SUBPROTOCOL_V2_JSON,
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOL_JSON,
)
"""What a server offers, in order of preference."""

CodecKind: TypeAlias = Literal["msgpack", "json"]
DecodeErrorCode: TypeAlias = Literal["malformed", "unknown_message", "invalid_message"]

_KIND_OF_SUBPROTOCOL: Final[dict[str | None, tuple[CodecKind, int]]] = {
    None: ("msgpack", 1),
    SUBPROTOCOL_MSGPACK: ("msgpack", 1),
    SUBPROTOCOL_JSON: ("json", 1),
    SUBPROTOCOL_V2_MSGPACK: ("msgpack", 2),
    SUBPROTOCOL_V2_JSON: ("json", 2),
}
_SUBPROTOCOL_OF: Final = {v: k for k, v in _KIND_OF_SUBPROTOCOL.items() if k is not None}

_WIRE: TableWire | None = None


def _wire() -> TableWire:
    """The version 2 table encoder, built once (the schema walk is not free)."""
    global _WIRE
    if _WIRE is None:
        _WIRE = TableWire()
    return _WIRE


def version_of(subprotocol: str | None) -> int:
    """The protocol version a subprotocol names (none agreed: version 1)."""
    return _KIND_OF_SUBPROTOCOL.get(subprotocol, ("msgpack", PROTOCOL_VERSION))[1]


# A table patch the client could not even parse: it fits no view (an empty
# path cannot be deleted), so the client asks for a snapshot as for any misfit.
_UNREADABLE: Final = [Op((), "del")]

# A peer's bad tag is echoed back in the error message; cap what we echo.
_MAX_ECHO: Final = 40


class DecodeError(Exception):
    """Data from a peer that is not a valid message; see the module docstring.

    ``code`` is one of ``"malformed"``, ``"unknown_message"``,
    ``"invalid_message"``; ``message`` says what is wrong, for a person.
    """

    def __init__(self, code: DecodeErrorCode, message: str) -> None:
        super().__init__(code, message)
        self.code: DecodeErrorCode = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class Codec:
    """Encoder and decoder for one format and one message type.

    ``decode_type`` is what ``decode`` accepts, usually a union of tagged
    Structs (``Bid | Play | ...``). ``encode`` accepts any encodable value.
    """

    __slots__ = (
        "_decode_type",
        "_decoder",
        "_encoder",
        "_raw",
        "_reader",
        "_tags",
        "_wire",
        "binary",
        "kind",
        "subprotocol",
        "version",
    )

    def __init__(self, kind: CodecKind, decode_type: Any, version: int = PROTOCOL_VERSION) -> None:
        self.kind: CodecKind = kind
        self.version = version
        self._decode_type = decode_type
        self._encoder: msgspec.msgpack.Encoder | msgspec.json.Encoder
        self._decoder: msgspec.msgpack.Decoder[Any] | msgspec.json.Decoder[Any]
        if kind == "msgpack":
            self._encoder = msgspec.msgpack.Encoder()
            self._decoder = msgspec.msgpack.Decoder(decode_type)
        elif kind == "json":
            self._encoder = msgspec.json.Encoder()
            self._decoder = msgspec.json.Decoder(decode_type)
        else:
            raise ValueError(f"unknown codec kind {kind!r}, expected 'msgpack' or 'json'")
        self.binary = kind == "msgpack"
        """True if messages travel in binary frames, False for text frames."""
        try:
            self.subprotocol = _SUBPROTOCOL_OF[kind, version]
        except KeyError:
            raise ValueError(f"no protocol version {version!r}") from None
        self._tags = _Tags.of(decode_type)
        self._wire = _wire() if version >= 2 else None
        # Version 2 table messages are no Structs on the wire: a reader of
        # events takes them untyped, and reads views with the server's schema.
        self._raw = self._wire is not None and "tpatch" in self._tags.by_tag
        self._reader: TableReader | None = None

    def encode(self, msg: object) -> bytes | str:
        """Encode ``msg``: ``bytes`` for msgpack (a binary frame), ``str`` for JSON (text)."""
        wire = self._wire
        if wire is not None:
            # (type() is: an isinstance of a Struct goes through its metaclass)
            if type(msg) is TablePatch:
                data = wire.patch(msg.seq, msg.patch, self.binary)
                return data if self.binary else data.decode()
            kind = type(msg)
            if kind is TableSnapshot:
                assert isinstance(msg, TableSnapshot)
                doc = msgspec.to_builtins(msg)
                doc["view"] = wire.view(doc["view"])
                msg = doc
            elif kind is Welcome:
                msg = {**msgspec.to_builtins(msg), "schema": wire.schema}
        data = self._encoder.encode(msg)
        return data if self.binary else data.decode()

    def decode(self, data: bytes | str) -> object:
        """Decode one message of ``decode_type``; raise ``DecodeError`` if it is not one."""
        if self.binary and isinstance(data, str):
            raise DecodeError("malformed", "got a text frame, but msgpack travels in binary frames")
        if self._raw:
            return self._decode_v2(data)
        try:
            return self._decoder.decode(data)  # type: ignore[arg-type]  # str only reaches JSON
        except msgspec.ValidationError as exc:
            # Rare path: look again, untyped, to tell what kind of wrong it is.
            raise self._classify(data, exc) from None
        except msgspec.DecodeError as exc:
            raise DecodeError("malformed", f"not valid {self.kind}: {exc}") from None
        except RecursionError:
            raise _too_deep(self.kind) from None

    def _decode_v2(self, data: bytes | str) -> object:
        """A server's version 2 message, as the version 1 message it stands for."""
        raw = self._untyped(data)
        reader = self._reader
        if reader is None:
            reader = self._reader = TableReader(_wire().schema)  # ours, until a welcome
        if type(raw) is list:
            try:
                seq, ops = reader.ops(raw)
                return TablePatch(seq=seq, patch=reader.patch(ops))
            except ValueError:  # PatchError: a patch no view fits
                seq = raw[0] if raw and type(raw[0]) is int else -1
                return TablePatch(seq=seq, patch=list(_UNREADABLE))
        if type(raw) is dict:
            kind = raw.get(self._tags.field or "t")
            try:
                if kind == "table" and "view" in raw:
                    raw["view"] = reader.view(raw["view"])
                elif kind == "welcome" and "schema" in raw:
                    self._reader = TableReader(raw["schema"])
            except ValueError as exc:
                raise DecodeError("invalid_message", f"invalid {kind} message: {exc}") from None
        try:
            return msgspec.convert(raw, self._decode_type)
        except msgspec.ValidationError as exc:
            raise self._tags.classify(raw, exc) from None

    def _untyped(self, data: bytes | str) -> Any:
        try:
            if isinstance(data, str):
                return msgspec.json.decode(data)  # decode() let str through only for JSON
            return msgspec.msgpack.decode(data) if self.binary else msgspec.json.decode(data)
        except msgspec.DecodeError as exc:
            raise DecodeError("malformed", f"not valid {self.kind}: {exc}") from None
        except RecursionError:
            raise _too_deep(self.kind) from None

    def _classify(self, data: bytes | str, exc: msgspec.ValidationError) -> DecodeError:
        # The typed decoder stops at the first mismatch, so the rest of the
        # data may still be garbage: parse it all before blaming fields.
        try:
            if isinstance(data, str):
                raw = msgspec.json.decode(data)  # decode() let str through only for JSON
            else:
                raw = msgspec.msgpack.decode(data) if self.binary else msgspec.json.decode(data)
        except msgspec.DecodeError as parse_exc:
            return DecodeError("malformed", f"not valid {self.kind}: {parse_exc}")
        except RecursionError:
            return _too_deep(self.kind)
        return self._tags.classify(raw, exc)

    def __repr__(self) -> str:
        return f"Codec({self.kind!r}, {self._tags.describe()}, version={self.version})"


@functools.cache
def codec_for(subprotocol: str | None, decode_type: Any) -> Codec:
    """The codec for a negotiated subprotocol (``None``: none was, use msgpack).

    Cached: every connection with the same subprotocol and type shares one
    codec. ``ValueError`` for a subprotocol we never offered. A client
    reading version 2 events wants ``new_codec``: it keeps its server's schema.
    """
    return new_codec(subprotocol, decode_type)


def new_codec(subprotocol: str | None, decode_type: Any) -> Codec:
    """A codec of its own for one connection (``codec_for``, uncached)."""
    try:
        kind, version = _KIND_OF_SUBPROTOCOL[subprotocol]
    except KeyError:
        raise ValueError(
            f"unknown subprotocol {subprotocol!r}, expected one of {SUBPROTOCOLS}"
        ) from None
    return Codec(kind, decode_type, version)


class _Tags:
    """The tags of the Structs in a decode type, to tell unknown from invalid."""

    __slots__ = ("by_tag", "field", "name")

    def __init__(self, name: str, field: str | None, by_tag: dict[str | int, str]) -> None:
        self.name = name
        self.field = field  # None: the type has no tagged Struct
        self.by_tag = by_tag  # tag value -> Struct class name

    @classmethod
    def of(cls, decode_type: Any) -> _Tags:
        info = msgspec.inspect.type_info(decode_type)
        while isinstance(info, msgspec.inspect.Metadata):
            info = info.type
        members = info.types if isinstance(info, msgspec.inspect.UnionType) else (info,)
        field: str | None = None
        by_tag: dict[str | int, str] = {}
        for member in members:
            while isinstance(member, msgspec.inspect.Metadata):
                member = member.type
            if isinstance(member, msgspec.inspect.StructType) and member.tag is not None:
                # msgspec requires one tag field for all Structs of a union.
                field = member.tag_field
                by_tag[member.tag] = member.cls.__name__
        # A class by its name; list[int] would be just "list", so anything else by repr.
        name = decode_type.__name__ if isinstance(decode_type, type) else repr(decode_type)
        return cls(name, field, by_tag)

    def describe(self) -> str:
        return ", ".join(self.by_tag.values()) or self.name

    def classify(self, raw: Any, exc: msgspec.ValidationError) -> DecodeError:
        if self.field is None:
            return DecodeError("invalid_message", f"invalid {self.name}: {_readable(exc)}")
        if isinstance(raw, dict):
            if self.field not in raw:
                return DecodeError("unknown_message", f"the message has no {self.field!r} field")
            tag = raw[self.field]
        elif isinstance(raw, list) and raw:  # array_like Structs put the tag first
            tag = raw[0]
        else:
            return DecodeError("unknown_message", f"expected a message object, got {_kind(raw)}")
        # bool is an int; True must not match a tag 1.
        if isinstance(tag, str | int) and not isinstance(tag, bool) and tag in self.by_tag:
            return DecodeError(
                "invalid_message", f"invalid {self.by_tag[tag]} message: {_readable(exc)}"
            )
        known = ", ".join(repr(t) for t in self.by_tag)
        return DecodeError(
            "unknown_message",
            f"unknown message {self.field} {_echo(tag)} (expected one of {known})",
        )


def _too_deep(kind: CodecKind) -> DecodeError:
    # msgspec's decoders recurse once per level of nesting and give up with
    # RecursionError past Python's limit (about 1,000 levels); no message of
    # ours nests more than a few levels, so this is simply bad data.
    return DecodeError("malformed", f"not valid {kind}: nested too deeply")


def _readable(exc: msgspec.ValidationError) -> str:
    """Turn msgspec's "Expected `int`, got `str` - at `$.seat`" into
    "expected `int`, got `str` at `seat`"."""
    text = str(exc)
    what, sep, where = text.partition(" - at `$")
    if sep:
        where = where.rstrip("`").lstrip(".")
        text = f"{what} at `{where}`" if where else what
    return text[:1].lower() + text[1:]


def _echo(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_ECHO else text[: _MAX_ECHO - 3] + "..."


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__
