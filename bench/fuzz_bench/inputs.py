"""The frames campaign's inputs: choices read from an input's bytes
(``Draw``), values from meaningful pools, command maps of real tags and
fields, mutations, and the frame an input makes (``make_frame``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from bench.fuzz_bench.wire import is_json
from protocol.cards import CODES
from protocol.messages import Command

BIDS = ["pass", "prise", "garde", "garde_sans", "garde_contre"]
BOT_LEVELS = ["random", "easy", "normal", "strong"]


class Draw:
    """Choices read from an input's bytes; zeros once they run out."""

    __slots__ = ("data", "i")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.i = 0

    def byte(self) -> int:
        if self.i >= len(self.data):
            return 0
        b = self.data[self.i]
        self.i += 1
        return b

    def below(self, n: int) -> int:
        if n <= 1:
            return 0
        v = self.byte()
        if n > 256:
            v = v << 8 | self.byte()
        return v % n

    def chance(self, one_in: int) -> bool:
        return self.below(one_in) == 0

    def choice(self, seq: Any) -> Any:
        return seq[self.below(len(seq))]

    def rest(self) -> bytes:
        out = self.data[self.i :]
        self.i = len(self.data)
        return out

    def blob(self, most: int) -> bytes:
        n = self.below(most + 1)
        out = self.data[self.i : self.i + n]
        self.i += len(out)
        return out


TEXTS = [
    "",
    " ",
    "a",
    "Alice",
    "  x  y  ",
    "é♠🂡",
    "\x00",
    "\ud7ff",
    "\t\n\r",
    "x" * 24,
    "x" * 25,
    "y" * 200,
    "y" * 201,
    "z" * 1000,
    "null",
    "KS",
    "T21",
    "EX",
    "ks",
    "T22",
    "0",
    "-1",
    ".",
    "..",
    "00000000.",
]
INTS = [0, 1, -1, 2, 3, 4, 5, 6, 10, 13, 15, 18, 40, 41, 127, 128, 255, 256, 600, 601]
BIG_INTS = [2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**63 - 1, -(2**63), 2**64 - 1]
FLOATS = [0.0, -0.0, 0.5, 1.0, 599.9, 600.0, 600.1, -1.0, 1e308, -1e-308, 1e-320]


class Pools:
    """Values seen in the server's answers, so fuzzed commands can hit real targets."""

    def __init__(self) -> None:
        self.table_ids: list[str] = ["00000000"]
        self.codes: list[str] = ["AAAAAA"]
        self.tokens: list[str] = ["00000000.x"]

    def note(self, msg: Any) -> None:
        if not isinstance(msg, dict):
            return
        t = msg.get("t")
        if t == "seated":
            _keep(self.table_ids, msg.get("table_id"))
            _keep(self.tokens, msg.get("token"))
        elif t == "table":
            view = msg.get("view") or {}
            _keep(self.codes, view.get("invite_code"))


def _keep(pool: list[str], value: Any) -> None:
    if isinstance(value, str) and value not in pool:
        pool.append(value)
        del pool[:-16]


def any_value(d: Draw, pools: Pools, depth: int = 0) -> Any:
    k = d.below(15 if depth < 3 else 10)
    if k == 0:
        return None
    if k == 1:
        return d.chance(2)
    if k == 2:
        return d.choice(INTS)
    if k == 3:
        return d.choice(BIG_INTS)
    if k == 4:
        return d.choice(FLOATS)
    if k == 5:
        return d.choice(CODES)
    if k == 6:
        return d.choice(BIDS)
    if k == 7:
        return d.choice(TEXTS)
    if k == 8:
        return d.blob(40).decode("utf-8", "replace")
    if k == 9:
        return d.choice(pools.tokens + pools.table_ids + pools.codes)
    if k in (10, 11):
        return [any_value(d, pools, depth + 1) for _ in range(d.below(5))]
    if k == 12:
        return {
            d.choice(["t", "rid", "x", "name", "card", ""]): any_value(d, pools, depth + 1)
            for _ in range(d.below(4))
        }
    if k == 13:
        # Deep nesting: past the decoder's recursion limit, once a crash (module doc).
        depth_n = d.choice([10, 100, 500, 999, 1000, 1500, 5000])
        inner: Any = []
        for _ in range(depth_n):
            inner = [inner]
        return inner
    return d.choice(CODES[:10]) * d.below(3)


def typed_value(name: str, kind: Any, d: Draw, pools: Pools) -> Any:
    """A value of the field's own type, mostly from meaningful pools."""
    if isinstance(kind, msgspec.inspect.UnionType):
        members = [m for m in kind.types if not isinstance(m, msgspec.inspect.NoneType)]
        if d.chance(4) or not members:
            return None
        kind = members[0]
    if name in ("card",):
        return d.choice(CODES) if not d.chance(8) else d.choice(TEXTS)
    if name == "bid":
        return d.choice(BIDS) if not d.chance(8) else d.choice(TEXTS)
    if name == "bot_level":
        return d.choice(BOT_LEVELS)
    if name == "token":
        return d.choice(pools.tokens)
    if name == "table_id":
        return d.choice(pools.table_ids)
    if name == "code":
        return d.choice(pools.codes)
    if name == "version":
        return 1 if not d.chance(4) else d.choice(INTS)
    if isinstance(kind, msgspec.inspect.BoolType):
        return d.chance(2)
    if isinstance(kind, msgspec.inspect.IntType):
        return d.choice(INTS) if not d.chance(8) else d.choice(BIG_INTS)
    if isinstance(kind, msgspec.inspect.FloatType):
        return d.choice(FLOATS)
    if isinstance(kind, msgspec.inspect.StrType):
        return d.choice(TEXTS) if d.chance(2) else d.blob(30).decode("utf-8", "replace")
    if isinstance(kind, msgspec.inspect.ListType):
        n = d.choice([0, 1, 5, 6, 7, 10, 13, 15, 16, 78])
        return [d.choice(CODES) for _ in range(n)]
    return any_value(d, pools)


def _command_fields() -> dict[str, list[tuple[str, Any]]]:
    info = msgspec.inspect.type_info(Command)
    assert isinstance(info, msgspec.inspect.UnionType)
    out: dict[str, list[tuple[str, Any]]] = {}
    for member in info.types:
        assert isinstance(member, msgspec.inspect.StructType)
        out[str(member.tag)] = [(f.name, f.type) for f in member.fields]
    return out


COMMAND_FIELDS = _command_fields()
TAGS = sorted(COMMAND_FIELDS)


def structured_doc(d: Draw, pools: Pools) -> Any:
    """A command map: a real tag and fields, most of the right type, some not."""
    if d.chance(16):
        return any_value(d, pools)
    tag = d.choice(TAGS) if not d.chance(16) else d.choice(TEXTS)
    doc: dict[Any, Any] = {"t": tag}
    for name, kind in COMMAND_FIELDS.get(tag, []):
        if d.chance(10):
            continue  # missing (required fields then fail)
        doc[name] = any_value(d, pools) if d.chance(8) else typed_value(name, kind, d, pools)
    if d.chance(8):
        doc[d.choice(["extra", "T", "rid2", "", "t "])] = any_value(d, pools)
    if d.chance(24):
        del doc["t"]
    return doc


def mutate(data: bytes, d: Draw) -> bytes:
    buf = bytearray(data)
    for _ in range(1 + d.below(4)):
        if not buf:
            buf.append(d.byte())
            continue
        at = d.below(len(buf))
        op = d.below(5)
        if op == 0:
            buf[at] ^= 1 << d.below(8)
        elif op == 1:
            buf[at] = d.byte()
        elif op == 2:
            buf.insert(at, d.byte())
        elif op == 3:
            del buf[at]
        else:
            del buf[at:]
    return bytes(buf)


@dataclass
class Frame:
    kind: str  # "msgpack" | "json" | "v2.msgpack" | "v2.json": the connection's subprotocol
    data: bytes | str  # str: a text frame
    first: bool  # sent as the first frame of a new connection
    mode: str


def make_frame(data: bytes, pools: Pools) -> Frame:
    d = Draw(data)
    head = d.byte()
    kind = ("v2." if head >> 5 & 1 else "") + ("json" if head & 1 else "msgpack")
    first = head >> 1 & 15 == 15  # one in 16
    mode_n = d.below(8)
    if mode_n < 3:
        mode = "raw"
        raw = d.rest()
    else:
        mode = "structured" if mode_n < 7 else "mutated"
        doc = structured_doc(d, pools)
        try:
            raw = msgspec.json.encode(doc) if is_json(kind) else msgspec.msgpack.encode(doc)
        except RecursionError:
            # Too deep for the encoder too: nest by hand (a chat whose text is
            # a list inside a list ...).
            n = d.choice([1000, 1500, 5000])
            if is_json(kind):
                raw = b'{"t":"chat","text":' + b"[" * n + b"]" * n + b"}"
            else:
                raw = b"\x82\xa1t\xa4chat\xa4text" + b"\x91" * n + b"\x90"
        except (TypeError, OverflowError, ValueError):
            mode, raw = "raw", d.rest()
        if mode == "mutated":
            raw = mutate(raw, d)
    text = d.chance(2) if is_json(kind) else d.chance(24)
    frame: bytes | str = raw
    if text:
        try:
            frame = raw.decode("utf-8")
        except UnicodeDecodeError:
            frame = raw
    return Frame(kind, frame, first, mode)
