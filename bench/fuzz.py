"""Fuzz campaigns: hostile frames against the front door, random command
sequences against a table.

Two campaigns, each against a real server started in this process (the
memory store) and spoken to over real WebSockets on loopback, so every input
takes the server's own path: ``Front._serve`` (rate limit, decoder, error
answer) then its route (lobby, table inbox, table actor):

``frames``
    Each input is a byte string. A ``Draw`` reads choices from it (which
    codec, raw bytes or a structured command, which fields, which mutation,
    first frame of a connection or not), so an input replays exactly from its
    bytes. The frame is checked twice: by the real decoder alone (it raises
    ``DecodeError`` and nothing else) and through the server (every ``error``
    carries a code documented in docs/PROTOCOL.md §6.1 other than ``internal``,
    the connection stays open or closes with a documented code for a
    documented reason, the server logs no bug). A ``ping`` sent after each
    frame marks the end of its answers.

``tables``
    Episodes of one private table, four seated clients and two spectators
    (msgpack and JSON mixed) playing a seeded game with random commands:
    legal ones, illegal ones, out of turn, stale (commands accepted earlier,
    sent again), chat, snapshots, history, start/again, resumes from a new
    connection with the view held (current, older, or none) and forged
    tokens, the deal timer firing. After every step: the 78 cards are all
    there once, every client's document (patches applied to its last
    snapshot) equals a fresh view built by the table, no document holds a
    card its recipient may not see, and a refused command changed nothing
    (state and every stream's sequence number as before, nothing sent but the
    error). Each step is one input.

``core``
    The ``tables`` episodes, command mix and checks (``CoreEpisode`` is an
    ``Episode``) against ``TableCore.handle`` alone, with no server or
    socket: a driver stands in for the front (codec, ``already_seated``) and
    the actor (sends through the codec, keyed records, history).

Engines: ``--engine atheris`` (coverage-guided libFuzzer through atheris, when
installed: ``pip install atheris``) or ``--engine random`` (seeded random
inputs, no dependency: what CI runs). ``tables`` is driven by a seeded random
generator only: its inputs are sequences, not bytes.

    python bench/fuzz.py frames --runs 1000000 --engine atheris
    python bench/fuzz.py frames --runs 10000 --engine random --seed 1
    python bench/fuzz.py tables --runs 1000000 --seed 1 --json /tmp/tables.json
    python bench/fuzz.py core --runs 500000 --seed 1 --max-time 4800

A failure prints the input (hex for frames, seed and step for tables) and is
counted; ``--stop-on-failure`` stops at the first. A frame nested ~1,000
levels deep once crashed the decoder (RecursionError, closed 1011); the codec
now answers it ``malformed`` at any depth, so a RecursionError, a 1011 close or
a ``connection_error`` log is a failure like any other
(tests/test_fuzz.py holds the regression test).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import itertools
import json
import random
import re
import sys
import time
from collections import Counter
from collections.abc import MutableMapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast, get_args

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # runs from a checkout, installed or not

import msgspec  # noqa: E402
import structlog  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from protocol.cards import CODES, cards_of  # noqa: E402
from protocol.codec import (  # noqa: E402
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOL_V2_JSON,
    SUBPROTOCOL_V2_MSGPACK,
    Codec,
    DecodeError,
    codec_for,
    new_codec,
)
from protocol.errors import ErrorCode  # noqa: E402
from protocol.messages import (  # noqa: E402
    Command,
    Error,
    Event,
    History,
    JoinTable,
    Ping,
    Pong,
    Resume,
    Watch,
)
from server.base.config import Settings  # noqa: E402
from server.game.contracts import takes_chien  # noqa: E402
from server.process.app import Server  # noqa: E402
from server.table import (  # noqa: E402
    Act,
    Gone,
    Join,
    Message,
    Reclaim,
    TableCore,
    Wake,
    new_state,
)
from server.table.actor import Table  # noqa: E402
from server.table.effects import (  # noqa: E402
    Close,
    Effect,
    Log,
    Record,
    Save,
    Send,
    SendHistory,
    Think,
)

BIDS = ["pass", "prise", "garde", "garde_sans", "garde_contre"]
BOT_LEVELS = ["random", "easy", "normal", "strong"]


def documented_error_codes() -> set[str]:
    """The ``error.code`` values: ``protocol.errors.ErrorCode``, which
    tests/test_error_codes.py holds equal to docs/PROTOCOL.md §6.1 and §11.5."""
    return set(get_args(ErrorCode))


ERROR_CODES = documented_error_codes()
BUG_CODES = {"internal"}
"""Documented, but each one is a bug of ours: the campaign counts it as a failure."""
BUG_LOGS = {"connection_error", "table_error", "bot_error", "lobby_error"}
"""Log events the server writes with a traceback for its own bugs."""
FIRST_FRAME_ERRORS = {
    "hello_first",
    "incompatible_version",
    "bad_name",
    # a hello whose player key is not one, or not known here (then closed, 4004)
    "bad_key",
    "unknown_key",
    "name_taken",
    "malformed",
    "unknown_message",
    "invalid_message",
}


class BugLog:
    """A structlog processor that keeps the server's bug reports and drops all logs."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def __call__(self, logger: Any, method: str, event: MutableMapping[str, Any]) -> Any:
        name = str(event.get("event"))
        if name in BUG_LOGS:
            exc = event.get("exc_info")
            detail = ""
            if exc:
                info = sys.exc_info() if exc is True else exc
                if isinstance(info, tuple) and info[1] is not None:
                    detail = f": {type(info[1]).__name__}: {info[1]}"[:300]
            self.events.append(name + detail)
        raise structlog.DropEvent

    def take(self) -> list[str]:
        out, self.events = self.events, []
        return out


def quiet_logs() -> BugLog:
    bugs = BugLog()
    structlog.configure(processors=[bugs], cache_logger_on_first_use=False)
    return bugs


# =============================================================================
# Reading choices from bytes
# =============================================================================


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
            raw = msgspec.json.encode(doc) if _is_json(kind) else msgspec.msgpack.encode(doc)
        except RecursionError:
            # Too deep for the encoder too: nest by hand (a chat whose text is
            # a list inside a list ...).
            n = d.choice([1000, 1500, 5000])
            if _is_json(kind):
                raw = b'{"t":"chat","text":' + b"[" * n + b"]" * n + b"}"
            else:
                raw = b"\x82\xa1t\xa4chat\xa4text" + b"\x91" * n + b"\x90"
        except (TypeError, OverflowError, ValueError):
            mode, raw = "raw", d.rest()
        if mode == "mutated":
            raw = mutate(raw, d)
    text = d.chance(2) if _is_json(kind) else d.chance(24)
    frame: bytes | str = raw
    if text:
        try:
            frame = raw.decode("utf-8")
        except UnicodeDecodeError:
            frame = raw
    return Frame(kind, frame, first, mode)


# =============================================================================
# The frames campaign
# =============================================================================


def _subprotocol(kind: str) -> str:
    return {
        "json": SUBPROTOCOL_JSON,
        "v2.json": SUBPROTOCOL_V2_JSON,
        "v2.msgpack": SUBPROTOCOL_V2_MSGPACK,
    }.get(kind, SUBPROTOCOL_MSGPACK)


def _is_json(kind: str) -> bool:
    return kind.endswith("json")


def _version(kind: str) -> int:
    """Protocol version 2 on the ``v2.`` kinds (docs/PROTOCOL.md §13)."""
    return 2 if kind.startswith("v2.") else 1


def _events(kind: str) -> Codec | None:
    """A version 2 client's codec of its own: what the server sends, read back
    as the version 1 messages it stands for (then plain data, as version 1
    clients see it), so that every check below holds for both versions."""
    return new_codec(_subprotocol(kind), Event) if _version(kind) == 2 else None


def _plain(data: bytes | str, events: Codec | None) -> Any:
    if events is not None:
        return msgspec.to_builtins(events.decode(data))
    if isinstance(data, str):
        return msgspec.json.decode(data)
    return msgspec.msgpack.decode(data)


def fuzz_settings(**overrides: Any) -> Settings:
    base = Settings(
        port=0,
        rate=1e9,
        burst=10**9,
        hello_timeout=30.0,
        # Bots and timers stay still: inputs, not background games, use the core.
        bot_think=3600.0,
        deal_pause=3600.0,
        grace=3600.0,
        idle_close=1e9,
        max_tables=64,
        # One address opens every connection: no per-address limits here.
        max_per_ip=0,
        connect_rate=0.0,
        guess_rate=0.0,
        create_rate=0.0,
        log_level="error",
    )
    return replace(base, **overrides)


class Wire:
    """One client connection with its undecoded-to-dicts inbox."""

    def __init__(self, ws: ClientConnection, kind: str) -> None:
        self.ws = ws
        self.kind = kind
        self.events = _events(kind)
        self.rid = 1_000_000

    @classmethod
    async def open(cls, port: int, kind: str) -> Wire:
        ws = await connect(
            f"ws://127.0.0.1:{port}",
            subprotocols=[_subprotocol(kind)],  # type: ignore[list-item]
            compression=None,
            max_size=None,
            open_timeout=10,
        )
        return cls(ws, kind)

    def encode(self, doc: Any) -> bytes | str:
        if _is_json(self.kind):
            return msgspec.json.encode(doc).decode()
        return msgspec.msgpack.encode(doc)

    async def send(self, doc: Any) -> None:
        await self.ws.send(self.encode(doc))

    async def recv(self, timeout: float) -> Any:
        data = await asyncio.wait_for(self.ws.recv(), timeout)
        return _plain(data, self.events)

    def close_code(self) -> int | None:
        return self.ws.close_code


@dataclass
class Tally:
    inputs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    failures: list[dict[str, Any]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def fail(self, what: str, **detail: Any) -> None:
        self.outcomes["FAILURE"] += 1
        if len(self.failures) < 50:
            self.failures.append({"what": what, **detail})
        print(f"FAILURE {what} {detail}", file=sys.stderr, flush=True)

    def report(self) -> dict[str, Any]:
        elapsed = time.monotonic() - self.started
        return {
            "inputs": self.inputs,
            "seconds": round(elapsed, 1),
            "inputs_per_s": round(self.inputs / elapsed, 1) if elapsed else 0,
            "failures": self.outcomes["FAILURE"],
            "outcomes": dict(self.outcomes.most_common()),
            "error_codes": dict(self.errors.most_common()),
            "failure_examples": self.failures[:10],
        }


class FrameCampaign:
    """One in-process server; one long-lived connection per codec."""

    RESTART_EVERY = 5000  # inputs: bounds the tables fuzzed creates leave behind

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        self.pools = Pools()
        self.bugs = quiet_logs()
        self.server: Server | None = None
        self.wires: dict[str, Wire] = {}
        self.since_restart = 0
        self.rid = 1

    async def start(self) -> None:
        self.server = Server(fuzz_settings())
        await self.server.start()
        self.since_restart = 0
        self.wires = {}
        self.pools = Pools()

    async def stop(self) -> None:
        for w in self.wires.values():
            with contextlib.suppress(Exception):
                await w.ws.close()
        if self.server is not None:
            await self.server.stop()
            self.server = None

    async def wire(self, kind: str) -> Wire:
        w = self.wires.get(kind)
        if w is not None and w.close_code() is None:
            return w
        assert self.server is not None
        w = await Wire.open(self.server.port, kind)
        await w.send({"t": "hello", "version": _version(kind), "name": f"fuzz-{kind}"})
        while (await w.recv(5))["t"] != "lobby":
            pass
        self.wires[kind] = w
        return w

    async def one(self, data: bytes) -> None:
        """Check one input; count its outcome (a failure is counted, not raised)."""
        if self.server is None or self.since_restart >= self.RESTART_EVERY:
            await self.stop()
            await self.start()
        self.since_restart += 1
        self.tally.inputs += 1
        frame = make_frame(data, self.pools)
        self.check_decoder(frame, data)
        if frame.first:
            await self.first_frame(frame, data)
        else:
            await self.later_frame(frame, data)
        for bug in self.bugs.take():
            self.tally.fail("server logged a bug", log=bug, input=data.hex(), mode=frame.mode)

    def check_decoder(self, frame: Frame, data: bytes) -> None:
        from protocol.codec import DecodeError, codec_for

        codec = codec_for(_subprotocol(frame.kind), Command)
        try:
            codec.decode(frame.data)
        except DecodeError as e:
            if e.code not in ERROR_CODES:
                self.tally.fail("undocumented decode code", code=e.code, input=data.hex())
        except Exception as e:  # RecursionError included: the codec must answer it
            self.tally.fail("decoder raised", exc=repr(e)[:200], input=data.hex())

    def check_error(self, msg: Any, data: bytes, frame: Frame) -> None:
        code = msg.get("code")
        self.tally.errors[str(code)] += 1
        if code not in ERROR_CODES or code in BUG_CODES:
            self.tally.fail("bad error code", code=code, input=data.hex(), mode=frame.mode)

    async def later_frame(self, frame: Frame, data: bytes) -> None:
        w = await self.wire(frame.kind)
        self.rid += 1
        rid = self.rid
        try:
            await w.ws.send(frame.data)
            await w.send({"t": "ping", "rid": rid})
            errors = 0
            while True:
                msg = await w.recv(10)
                self.pools.note(msg)
                t = msg.get("t") if isinstance(msg, dict) else None
                if t == "pong" and msg.get("rid") == rid:
                    break
                if t == "error":
                    errors += 1
                    self.check_error(msg, data, frame)
            self.tally.outcomes["refused" if errors else "accepted"] += 1
        except ConnectionClosed:
            self.closed(w, frame, data, allowed={1009, 4001})
        except TimeoutError:
            self.tally.fail("no answer within 10 s", input=data.hex(), mode=frame.mode)
            with contextlib.suppress(Exception):
                await w.ws.close()

    def closed(self, w: Wire, frame: Frame, data: bytes, allowed: set[int]) -> None:
        code = w.close_code()
        if code in allowed:
            self.tally.outcomes[f"closed_{code}"] += 1
        else:
            self.tally.fail("closed", code=code, input=data.hex(), mode=frame.mode)

    async def first_frame(self, frame: Frame, data: bytes) -> None:
        assert self.server is not None
        w = await Wire.open(self.server.port, frame.kind)
        try:
            await w.ws.send(frame.data)
            msg = await w.recv(10)
            if msg.get("t") == "welcome":
                self.tally.outcomes["hello_accepted"] += 1
                return
            if msg.get("t") == "error":
                self.check_error(msg, data, frame)
                if msg.get("code") not in FIRST_FRAME_ERRORS:
                    self.tally.fail("first frame error", code=msg.get("code"), input=data.hex())
            with contextlib.suppress(TimeoutError):
                await w.recv(10)
            self.tally.fail("first frame refused but not closed", input=data.hex())
        except ConnectionClosed:
            self.closed(w, frame, data, allowed={4003, 4004, 1009})
        except TimeoutError:
            self.tally.fail("no answer to a first frame within 10 s", input=data.hex())
        finally:
            with contextlib.suppress(Exception):
                await w.ws.close()


def random_inputs(rng: random.Random) -> bytes:
    n = rng.choice([1, 2, 4, 8, 16, 32, 64, 128, 256])
    return rng.randbytes(rng.randint(1, n))


async def run_frames_random(runs: int, seed: int, max_time: float, stop_on_failure: bool) -> Tally:
    tally = Tally()
    campaign = FrameCampaign(tally)
    rng = random.Random(seed)
    deadline = time.monotonic() + max_time
    try:
        for i in range(runs):
            await campaign.one(random_inputs(rng))
            if stop_on_failure and tally.outcomes["FAILURE"]:
                break
            if i % 1000 == 999 and time.monotonic() > deadline:
                break
            if i % 50_000 == 49_999:
                print(json.dumps(tally.report()), file=sys.stderr, flush=True)
    finally:
        await campaign.stop()
    return tally


def instrument_our_code(atheris: Any) -> int:
    """Coverage for the server's and the protocol's Python code only.

    ``atheris.instrument_all()`` also instruments websockets and asyncio: it
    took 100 s to start and slowed every input; the decoder itself is C
    (msgspec), which atheris cannot see anyway. ``instrument_func`` patches a
    function's code in place, so every reference to it is covered.
    """
    import inspect
    import types

    done = 0
    seen: set[int] = set()

    def patch(fn: Any) -> None:
        nonlocal done
        if isinstance(fn, types.FunctionType) and id(fn) not in seen:
            seen.add(id(fn))
            atheris.instrument_func(fn)
            done += 1

    for name, module in list(sys.modules.items()):
        if not name.startswith(("protocol", "server")) or module is None:
            continue
        for obj in vars(module).values():
            if getattr(obj, "__module__", None) != name:
                continue
            if inspect.isclass(obj):
                for member in vars(obj).values():
                    patch(getattr(member, "__func__", member))
            else:
                patch(obj)
    return done


def seed_corpus(count: int = 512) -> str:
    """A starting corpus for libFuzzer: inputs of the random engine, which
    cover every command tag; coverage guidance takes it from there."""
    import tempfile

    folder = tempfile.mkdtemp(prefix="atout-fuzz-corpus-")
    rng = random.Random(0)
    for i in range(count):
        data = bytes([rng.randrange(256) & ~0x1E | 0x02]) + rng.randbytes(rng.randint(8, 200))
        Path(folder, f"seed{i}").write_bytes(data)
    return folder


def run_frames_atheris(runs: int, json_out: str | None, extra: list[str]) -> None:
    import atheris  # type: ignore[import-untyped]

    tally = Tally()
    campaign = FrameCampaign(tally)
    loop = asyncio.new_event_loop()
    instrumented = instrument_our_code(atheris)
    print(f"atheris: {instrumented} functions of protocol/ and server/ instrumented", flush=True)
    corpus = seed_corpus()

    def write() -> None:
        report = tally.report() | {"engine": "atheris"}
        if json_out:
            Path(json_out).write_text(json.dumps(report, indent=1))
        print(json.dumps(report), file=sys.stderr, flush=True)

    def test_one_input(data: bytes) -> None:
        before = tally.outcomes["FAILURE"]
        loop.run_until_complete(campaign.one(data))
        if tally.inputs % 20_000 == 0:
            write()
        if tally.inputs >= runs:
            write()
        if tally.outcomes["FAILURE"] > before:
            write()
            raise AssertionError(tally.failures[-1] if tally.failures else "failure")

    argv = [sys.argv[0], f"-runs={runs}", "-max_len=512", *extra, corpus]
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()


# =============================================================================
# The tables campaign
# =============================================================================


def apply_patch(doc: Any, patch: list[Any]) -> Any:
    """Apply ``[path, op, value]`` ops to a view document, as docs/PROTOCOL.md §5.3.

    Stricter than bench/load.py's applier on purpose (that one is for speed):
    an index past the end or an op on the root is an error a client would
    hit, so the campaign must see it.
    """
    for path, op, value in patch:
        if not path:
            if op != "set":
                raise ValueError(f"{op} on the root")
            doc = value
            continue
        node = doc
        for step in path[:-1]:
            node = node[step]
        last = path[-1]
        if op == "set":
            if isinstance(node, list) and not 0 <= last < len(node):
                raise IndexError(last)
            node[last] = value
        elif op == "append":
            node[last].extend(value)
        elif op == "del":
            del node[last]
        elif op == "remove":  # version 2 only
            target = node[last]
            if not isinstance(target, list) or not 0 <= value < len(target):
                raise IndexError(value)
            del target[value]
        else:
            raise ValueError(f"unknown op {op!r}")
    return doc


class Player:
    """A scripted client: one seat (or a spectator), its document, its stream."""

    def __init__(self, name: str, kind: str, seat: int | None) -> None:
        self.name = name
        self.kind = kind
        self.seat = seat
        self.wire: Wire | None = None
        self.doc: Any = None
        self.seq = -1
        self.token: str | None = None
        self.got: list[Any] = []  # messages since the step began
        self.reader: asyncio.Task[None] | None = None
        self.problems: list[str] = []
        self.pongs: dict[int, asyncio.Future[Any]] = {}
        self.rid = 0
        self.saved: tuple[int, Any] | None = None  # an older view it still holds
        self.events = _events(kind)

    async def connect(self, port: int) -> None:
        self.wire = await Wire.open(port, self.kind)
        await self.wire.send({"t": "hello", "version": _version(self.kind), "name": self.name})
        self.reader = asyncio.get_running_loop().create_task(self._read(self.wire))

    async def _read(self, wire: Wire) -> None:
        with contextlib.suppress(ConnectionClosed, asyncio.CancelledError):
            while True:
                self.take(await wire.recv(3600))

    def take(self, msg: Any) -> None:
        """A message arrived (decoded to plain data, as a client sees it)."""
        self.got.append(msg)
        self.apply(msg)
        rid = msg.get("rid")
        if msg["t"] in ("pong", "history", "error", "seated") and rid in self.pongs:
            fut = self.pongs.pop(rid)
            if not fut.done():
                fut.set_result(msg)

    def apply(self, msg: Any) -> None:
        t = msg["t"]
        if t == "table":
            self.doc, self.seq = msg["view"], msg["seq"]
        elif t == "tpatch":
            if self.doc is None or msg["seq"] != self.seq + 1:
                self.problems.append(f"patch seq {msg['seq']} after {self.seq}")
                return
            try:
                self.doc = apply_patch(self.doc, msg["patch"])
            except (KeyError, IndexError, TypeError, ValueError) as e:
                self.problems.append(f"patch does not apply: {e!r}")
                return
            self.seq = msg["seq"]
        elif t == "left":
            self.doc, self.seq = None, -1

    async def ask(self, doc: dict[str, Any], timeout: float = 10.0) -> Any:
        """Send a command and wait for the answer carrying its rid."""
        self.rid += 1
        doc = {**doc, "rid": self.rid}
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pongs[self.rid] = fut
        await self.transmit(doc, at_once=True)
        return await asyncio.wait_for(fut, timeout)

    async def send(self, doc: dict[str, Any]) -> int:
        self.rid += 1
        await self.transmit({**doc, "rid": self.rid})
        return self.rid

    async def transmit(self, doc: dict[str, Any], at_once: bool = False) -> None:
        """Put ``doc`` on the wire (``at_once``: its answer is awaited now)."""
        assert self.wire is not None
        await self.wire.send(doc)

    async def drop(self) -> None:
        if self.wire is not None:
            with contextlib.suppress(Exception):
                await self.wire.ws.close()
        if self.reader is not None:
            with contextlib.suppress(BaseException):
                await self.reader
        self.wire = None


def table_settings() -> Settings:
    # No timer acts by itself: a bot never plays (every seat is human, away
    # seats wait an hour), the deal timer fires only when the campaign says so.
    return fuzz_settings()


def _mask(cards: Any) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def core_of(table: Table | TableCore) -> TableCore:
    """The table's pure core: its state, game, streams and views (server/table/core.py)."""
    return table.core if isinstance(table, Table) else table


def hidden_from(table: Table | TableCore, seat: int | None) -> set[str]:
    """The cards ``seat`` may not see now (``None``: a spectator)."""
    game = core_of(table).game
    if game is None:
        return set()
    deal = game.deal
    shown = _mask(c for _, cards in deal.poignees for c in cards)
    hidden = 0
    for s in range(4):
        if s != seat:
            hidden |= deal.hands[s]
    if deal.taker < 0 or not takes_chien(deal.contract):
        hidden |= _mask(deal.chien)
    else:
        shown |= _mask(deal.chien)  # turned face up for all after a prise or garde
    if seat != deal.taker:
        hidden |= _mask(deal.ecart_cards) & ~_mask(deal.ecart_trumps)
    # Cards already on the table are public whoever held them.
    shown |= _mask(c for t in deal.tricks for c in t) | _mask(deal.trick)
    return {CODES[c] for c in cards_of(hidden & ~shown)}


def cards_conserved(table: Table | TableCore) -> str | None:
    game = core_of(table).game
    if game is None:
        return None
    deal = game.deal
    cards = [c for m in deal.hands for c in range(78) if m >> c & 1]
    cards += [c for t in deal.tricks for c in t] + list(deal.trick) + list(deal.ecart_cards)
    if deal.taker < 0 or not takes_chien(deal.contract):
        cards += list(deal.chien)
    if len(cards) != 78 or len(set(cards)) != 78:
        return f"{len(cards)} cards, {len(set(cards))} different"
    return None


_CARD_STRING = re.compile(rb'"([0-9]{1,2}[SHDC]|[JCQK][SHDC]|T[0-9]{1,2}|EX)"')
_CARD_CODES = {c.encode() for c in CODES}


def cards_in(doc: Any) -> set[str]:
    """Every string anywhere in ``doc`` that is a card code (one regex over its
    JSON: a tree walk in Python was the campaign's slowest part)."""
    found = set(_CARD_STRING.findall(msgspec.json.encode(doc)))
    return {m.decode() for m in found & _CARD_CODES}


def state_of(table: Table | TableCore) -> dict[str, Any]:
    """The table's state and its game's, as documents (what a save would write)."""
    core = core_of(table)
    game = core.game.state() if core.game else None
    doc = msgspec.to_builtins(core.state)
    # The lobby's sweeper stamps this every 5 s while a human is connected:
    # a clock, not a change a command made.
    doc.pop("last_human_at")
    return {"table": doc, "game": msgspec.to_builtins(game)}


def changed_keys(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    out = []
    for part in before:
        b, a = before[part], after[part]
        if isinstance(b, dict) and isinstance(a, dict):
            out += [f"{part}.{k}" for k in sorted(set(b) | set(a)) if b.get(k) != a.get(k)]
        elif b != a:
            out.append(part)
    return out


def seqs_of(table: Table | TableCore) -> list[int]:
    fan = core_of(table).fan
    return [s.seq if s else -1 for s in fan.streams] + [fan.spectator_stream.seq]


def fresh_doc(table: Table | TableCore, seat: int | None, kind: str) -> Any:
    view = core_of(table).view_for(seat)
    if _is_json(kind):
        return msgspec.json.decode(msgspec.json.encode(view))
    return msgspec.msgpack.decode(msgspec.msgpack.encode(view))


class Episode:
    """One table, four players, two spectators, ``steps`` random steps."""

    def __init__(self, server: Server | None, rng: random.Random, tally: Tally, label: str) -> None:
        self.server = server
        self.rng = rng
        self.tally = tally
        self.label = label
        kinds = ["msgpack", "json", "v2.msgpack", "v2.json"]
        rng.shuffle(kinds)
        self.players = [Player(f"P{i}", kinds[i], i) for i in range(4)]
        self.spectators = [Player("S0", "v2.msgpack", None), Player("S1", "json", None)]
        self.table: Table | TableCore | None = None
        self.accepted: list[tuple[Player, dict[str, Any]]] = []
        self.step_no = 0
        self.bugs: BugLog | None = None

    @property
    def everyone(self) -> list[Player]:
        return self.players + self.spectators

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.port

    async def deal_timer(self) -> None:
        """The deal pause is over: the table's timer fires."""
        assert isinstance(self.table, Table)
        self.table.inbox.put_nowait(Wake("deal", self.table.core.state.version))

    async def setup(self) -> None:
        assert self.server is not None
        port = self.port
        for p in self.everyone:
            await p.connect(port)
        creator = self.players[0]
        seated = await creator.ask(
            {
                "t": "create",
                "private": True,
                "deals": self.rng.choice([1, 2, 3]),
                "seed": f"fuzz-{self.label}",
                "bot_level": "random",
            }
        )
        assert seated["t"] == "seated", seated
        creator.token = seated["token"]
        table_id = seated["table_id"]
        self.table = self.server.lobby.tables[table_id]
        for p in self.players[1:]:
            seated = await p.ask({"t": "join", "table_id": table_id, "seat": p.seat})
            assert seated["t"] == "seated", seated
            p.token = seated["token"]
        for s in self.spectators:
            seated = await s.ask({"t": "watch", "table_id": table_id})
            assert seated["t"] == "seated", seated
        await creator.send({"t": "start"})
        await self.sync(creator)

    async def close(self) -> None:
        for p in self.everyone:
            await p.drop()

    async def sync(self, via: Player) -> None:
        """Wait until every message the step caused has reached every client.

        ``history`` is handled by the table after everything queued before
        it, and the table writes a broadcast to every socket before it reads
        its next message; a ``ping`` on each other connection, sent after
        that, comes back behind the broadcast's frames.
        """
        await via.ask({"t": "history"})
        await asyncio.gather(*(p.ask({"t": "ping"}) for p in self.everyone if p is not via))

    # -- the steps ---------------------------------------------------------------

    def on_turn(self) -> Player | None:
        doc = self.players[0].doc
        deal = doc and doc.get("deal")
        turn = deal.get("turn") if deal else None
        return self.players[turn] if isinstance(turn, int) else None

    def legal_move(self, p: Player) -> dict[str, Any] | None:
        legal = p.doc and p.doc.get("legal")
        if not legal or p.doc.get("status") != "playing":
            return None
        rng = self.rng
        if legal["bids"]:
            return {"t": "bid", "bid": rng.choice(legal["bids"])}
        if legal["ecart"]:
            trumps = [c for c in legal["ecart"] if c[0] == "T"]
            suits = [c for c in legal["ecart"] if c[0] != "T"]
            need = legal["ecart_trumps"]
            cards = suits + rng.sample(trumps, need) if need else rng.sample(suits, 6)
            return {"t": "ecart", "cards": cards}
        if legal["chelem"]:
            return {"t": "chelem", "declare": rng.random() < 0.1}
        if legal["poignee_sizes"] and rng.random() < 0.3:
            size = legal["poignee_sizes"][0]
            cards = [c for c in legal["poignee_cards"] if c != "EX"]
            cards = cards[:size] if len(cards) >= size else [*cards, "EX"][:size]
            return {"t": "poignee", "cards": cards}
        if legal["cards"]:
            return {"t": "play", "card": rng.choice(legal["cards"])}
        return None

    def random_command(self, p: Player) -> dict[str, Any]:
        rng = self.rng
        hand = (p.doc or {}).get("hand") or list(CODES)
        k = rng.randrange(7)
        if k == 0:
            return {"t": "bid", "bid": rng.choice([*BIDS, "GARDE", ""])}
        if k == 1:
            return {"t": "play", "card": rng.choice([*hand, *CODES, "ZZ", "ks"])}
        if k == 2:
            n = rng.choice([5, 6, 6, 7])
            return {"t": "ecart", "cards": rng.sample(hand, min(n, len(hand)))}
        if k == 3:
            return {"t": "chelem", "declare": rng.random() < 0.5}
        if k == 4:
            n = rng.choice([9, 10, 13, 15])
            pool = [c for c in hand if c[0] == "T" or c == "EX"] or hand
            return {"t": "poignee", "cards": rng.sample(pool, min(n, len(pool)))}
        if k == 5:
            return {"t": rng.choice(["start", "again"])}
        return {"t": "chat", "text": rng.choice(["gg", "", " ", "x" * 201, "bien joué", "y" * 200])}

    async def step(self) -> None:
        assert self.table is not None
        self.step_no += 1
        rng = self.rng
        for p in self.everyone:
            p.got.clear()
            if rng.random() < 0.02 and p.doc is not None:
                p.saved = (p.seq, copy.deepcopy(p.doc))
        table = self.table
        before, seqs = state_of(table), seqs_of(table)
        r = rng.random()
        turn = self.on_turn()
        what = ""
        via = self.players[0]
        answer: Any = None
        if core_of(table).state.status == "between_deals" and r < 0.5:
            what = "deal_timer"
            await self.deal_timer()
        elif r < 0.45 and turn is not None and (move := self.legal_move(turn)):
            what, via = "legal", turn
            answer = await self.command(turn, move)
        elif r < 0.55:
            others = [p for p in self.players if p is not turn and p.doc and p.doc.get("hand")]
            if others:
                via = rng.choice(others)
                what = "out_of_turn"
                answer = await self.command(via, {"t": "play", "card": rng.choice(via.doc["hand"])})
        elif r < 0.70:
            via = rng.choice(self.everyone)
            what = "random"
            answer = await self.command(via, self.random_command(via))
        elif r < 0.76 and self.accepted:
            via, cmd = rng.choice(self.accepted[-40:])
            what = "stale"
            answer = await self.command(via, cmd)
        elif r < 0.82:
            via = rng.choice(self.players)
            what = "resume"
            await self.resume(via)
        elif r < 0.85:
            via = rng.choice(self.everyone)
            what = "bad_resume"
            token = rng.choice(
                [
                    f"{table.id}.{rng.randbytes(18).hex()}",
                    "nothing",
                    f"{table.id}.",
                    (self.players[0].token or "") + "x",
                ]
            )
            answer = await self.command(via, {"t": "resume", "token": token, "last_seq": 0})
        elif r < 0.89:
            via = rng.choice(self.everyone)
            what = "snapshot"
            await via.send({"t": "snapshot"})
        elif r < 0.92:
            via = rng.choice(self.spectators)
            what = "rewatch"
            await via.drop()
            await via.connect(self.port)
            await via.ask({"t": "watch", "table_id": table.id})
        else:
            via = rng.choice(self.everyone)
            what = "history"
        if not what:
            what = "history"
        if answer is None and what not in ("legal", "out_of_turn", "random", "stale"):
            await self.sync(via)  # (a command step synced already)
        self.check(what, via, answer, before, seqs)

    async def command(self, p: Player, cmd: dict[str, Any]) -> Any:
        rid = await p.send(cmd)
        # The answer to a refused command is an error with its rid; an
        # accepted one has none: the sync that follows tells them apart.
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        p.pongs[rid] = fut
        await self.sync(p)
        p.pongs.pop(rid, None)
        answer = fut.result() if fut.done() else None
        if answer is None:
            self.accepted.append((p, cmd))
            del self.accepted[:-200]
        return answer

    async def resume(self, p: Player) -> None:
        """Drop the connection, reconnect, resume with a view it holds (or none)."""
        assert self.table is not None
        await p.drop()
        stream = core_of(self.table).fan.streams[p.seat] if p.seat is not None else None
        for _ in range(500):
            if stream is None or stream.peer is None:
                break
            await asyncio.sleep(0.001)
        choice = self.rng.random()
        if choice < 0.4 and p.doc is not None:
            last_seq = p.seq
        elif choice < 0.7 and p.saved is not None:
            p.seq, p.doc = p.saved[0], copy.deepcopy(p.saved[1])
            last_seq = p.seq
        else:
            p.doc, p.seq, last_seq = None, -1, -1
        await p.connect(self.port)
        seated = await p.ask({"t": "resume", "token": p.token, "last_seq": last_seq})
        if seated["t"] != "seated":
            self.fail("resume refused", answer=seated)

    def fail(self, what: str, **detail: Any) -> None:
        self.tally.fail(what, episode=self.label, step=self.step_no, **detail)

    def check(
        self, what: str, via: Player, answer: Any, before: dict[str, Any], seqs: list[int]
    ) -> None:
        assert self.table is not None
        table = self.table
        self.tally.inputs += 1
        self.tally.outcomes[what] += 1
        if answer is not None:
            code = answer.get("code")
            self.tally.errors[str(code)] += 1
            if answer["t"] != "error" or code not in ERROR_CODES or code in BUG_CODES:
                self.fail("bad answer", step_kind=what, answer=answer)
            elif (after := state_of(table)) != before or seqs_of(table) != seqs:
                self.fail(
                    "a refused command changed the table",
                    step_kind=what,
                    code=code,
                    changed=changed_keys(before, after),
                    seqs=(seqs, seqs_of(table)),
                )
            else:
                sent = [m for p in self.everyone for m in p.got if m["t"] in ("table", "tpatch")]
                if sent:
                    self.fail("a refused command sent views", step_kind=what, code=code)
        for p in self.everyone:
            for m in p.got:
                if m["t"] == "error" and m.get("code") in BUG_CODES:
                    self.fail("internal error", player=p.name, message=m)
            if p.problems:
                self.fail("stream broken", player=p.name, problems=p.problems[:3])
                p.problems.clear()
        if problem := cards_conserved(table):
            self.fail("cards not conserved", problem=problem)
        for p in self.everyone:
            if p.doc is None:
                self.fail("no view", player=p.name)
                continue
            leaked = cards_in(p.doc) & hidden_from(table, p.seat)
            if leaked:
                self.fail("view holds hidden cards", player=p.name, cards=sorted(leaked))
            fresh = fresh_doc(table, p.seat, p.kind)
            if p.doc != fresh:
                self.fail("patched view differs from a fresh one", player=p.name, step_kind=what)
                p.doc = fresh
        if self.bugs is not None:
            for bug in self.bugs.take():
                self.fail("server logged a bug", log=bug)


async def run_tables(
    runs: int, seed: int, steps: int, max_time: float, stop_on_failure: bool
) -> Tally:
    tally = Tally()
    bugs = quiet_logs()
    server = Server(table_settings())
    await server.start()
    rng = random.Random(seed)
    deadline = time.monotonic() + max_time
    episode_no = 0
    try:
        while tally.inputs < runs and time.monotonic() < deadline:
            episode_no += 1
            label = f"{seed}-{episode_no}"
            ep = Episode(server, random.Random(f"{seed}/{episode_no}"), tally, label)
            ep.bugs = bugs
            try:
                await ep.setup()
                for _ in range(min(steps, runs - tally.inputs)):
                    await ep.step()
                    if stop_on_failure and tally.outcomes["FAILURE"]:
                        return tally
            finally:
                await ep.close()
            if episode_no % 20 == 0:
                # Old tables wait for the idle sweep; start afresh now and then.
                await server.stop()
                server = Server(table_settings())
                await server.start()
            if tally.inputs // 50_000 != (tally.inputs - steps) // 50_000:
                print(json.dumps(tally.report()), file=sys.stderr, flush=True)
        _ = rng
    finally:
        await server.stop()
    return tally


# =============================================================================
# The core campaign: the same episodes against TableCore alone
# =============================================================================


class CorePeer:
    """A connection as the core sees it (``server.table.inbox.Peer``)."""

    __slots__ = ("codec", "id", "name")

    def __init__(self, id: str, name: str, kind: str) -> None:
        self.id = id
        self.name = name
        # The core makes a seat's patches for its peer's protocol version.
        self.codec = codec_for(_subprotocol(kind), Command)


class CorePlayer(Player):
    """A ``Player`` whose wire is a ``CoreEpisode``: what it sends is encoded
    and decoded by the server's codec and handed to the core; what the core
    sends it is encoded and decoded back to plain data, as a client gets it."""

    def __init__(self, name: str, kind: str, seat: int | None, ep: CoreEpisode) -> None:
        super().__init__(name, kind, seat)
        self.ep = ep
        self.peer: CorePeer | None = None

    async def connect(self, port: int) -> None:
        self.peer = CorePeer(f"k{next(self.ep.ids)}", self.name, self.kind)
        self.ep.by_peer[self.peer] = self

    async def transmit(self, doc: dict[str, Any], at_once: bool = False) -> None:
        self.ep.queue.append((self, doc))
        if at_once:
            self.ep.flush()

    async def drop(self) -> None:
        if self.peer is not None:
            self.ep.flush()
            self.ep.gone(self.peer)
        self.peer = None


class CoreEpisode(Episode):
    """An ``Episode`` (same steps, same checks) against ``TableCore.handle``
    with no server, socket or event loop work in between: the driver plays
    the front (decoding, ``already_seated`` for a resume or watch from a
    connection at the table) and the actor (carrying out the effects: sends,
    records, history), with a clock that moves a random fraction of a second
    a step. What it does not cover is what the ``tables`` campaign adds: the
    front's own code, the actor, the inbox and real sockets."""

    def __init__(self, rng: random.Random, tally: Tally, label: str) -> None:
        super().__init__(None, rng, tally, label)
        self.ids = itertools.count(1)
        self.by_peer: dict[CorePeer, CorePlayer] = {}
        self.queue: list[tuple[CorePlayer, dict[str, Any]]] = []
        self.records: list[bytes] = []
        self.record_keys: set[str] = set()
        self.saved_version = -1
        self.now = 1_000_000.0
        self.settings = table_settings()
        kinds = [p.kind for p in self.players]
        self.players = [CorePlayer(f"P{i}", kinds[i], i, self) for i in range(4)]
        self.spectators = [
            CorePlayer("S0", "v2.msgpack", None, self),
            CorePlayer("S1", "json", None, self),
        ]

    @property
    def core(self) -> TableCore:
        assert isinstance(self.table, TableCore)
        return self.table

    @property
    def port(self) -> int:
        return 0

    async def setup(self) -> None:
        rng = self.rng
        state = new_state(
            rng.randbytes(4).hex(),
            "FUZZED",
            "fuzz",
            now=self.now,
            private=True,
            deals=rng.choice([1, 2, 3]),
            bot_level="random",
            turn_timer=0.0,
            seed=f"fuzz-{self.label}",
            result_wait=self.settings.result_wait,
        )
        self.table = TableCore(state, self.settings)
        self.run(self.table.start(self.now))
        for p in self.everyone:
            await p.connect(0)
        for p in self.players:
            seated = await p.ask({"t": "join", "table_id": self.table.id, "seat": p.seat})
            assert seated["t"] == "seated", seated
            p.token = seated["token"]
        for s in self.spectators:
            seated = await s.ask({"t": "watch", "table_id": self.table.id})
            assert seated["t"] == "seated", seated
        await self.players[0].send({"t": "start"})
        await self.sync(self.players[0])

    async def close(self) -> None:
        self.queue.clear()

    async def sync(self, via: Player) -> None:
        # Nothing is in flight: each input is carried out when it is handed
        # over. The history request stays: it is a table command of the mix.
        self.flush()
        await via.ask({"t": "history"})

    async def deal_timer(self) -> None:
        self.handle(Wake("deal", self.core.state.version))

    async def step(self) -> None:
        self.now += self.rng.random() * 0.5
        await super().step()

    # -- the front and the actor, as far as the core needs them -------------------

    def flush(self) -> None:
        while self.queue:
            p, doc = self.queue.pop(0)
            if p.peer is not None:
                self.command_in(p, p.peer, doc)

    def command_in(self, p: CorePlayer, peer: CorePeer, doc: dict[str, Any]) -> None:
        codec = codec_for(_subprotocol(p.kind), Command)
        try:
            cmd = codec.decode(Wire.encode(cast(Wire, p), doc))
        except DecodeError as e:
            self.deliver(peer, Error(code=e.code, message=e.message))
            return
        rid = getattr(cmd, "rid", 0)
        at_table = peer in self.core.seat_of
        match cmd:
            case Ping():
                self.deliver(peer, Pong(rid=rid))
            case Resume() | Watch() | JoinTable() if at_table:
                self.deliver(peer, Error(code="already_seated", message="leave first", rid=rid))
            case Resume():
                self.handle(Reclaim(peer, cmd.token, cmd.last_seq, rid))
            case Watch():
                self.handle(Join(peer, None, rid, spectator=True))
            case JoinTable():
                self.handle(Join(peer, cmd.seat, rid, creator=p is self.players[0]))
            case _:
                self.handle(Act(peer, cast(Any, cmd)))

    def handle(self, msg: Message) -> None:
        self.run(self.core.handle(msg, self.now))

    def gone(self, peer: CorePeer) -> None:
        self.by_peer.pop(peer, None)
        self.handle(Gone(peer))

    def deliver(self, peer: Any, message: Any) -> None:
        p = self.by_peer.get(peer)
        if p is None:
            return  # a connection that is gone
        data = codec_for(_subprotocol(p.kind), Command).encode(message)
        p.take(_plain(data, p.events))

    def run(self, effects: list[Effect]) -> None:
        closing = []
        for e in effects:
            match e:
                case Send(to=to, message=message):
                    for peer in to:
                        self.deliver(peer, message)
                case Save(version=version):
                    if version <= self.saved_version:
                        self.fail("a save did not move the version on", version=version)
                    self.saved_version = version
                case Record(blob=blob, key=key):
                    if key not in self.record_keys:  # as TableStore.append_record
                        self.record_keys.add(key)
                        self.records.append(blob)
                case SendHistory(peer=peer, rid=rid):
                    records = [msgspec.json.decode(r) for r in self.records]
                    self.deliver(peer, History(records=records, rid=rid))
                case Close(peer=peer):
                    closing.append(peer)
                case Log(level="error") | Think():
                    self.fail("the core asked for what it must not here", effect=repr(e)[:300])
                case _:
                    pass  # Arm, Listing, Route, Answer, Refused, Log: the actor's business
        for peer in closing:
            if peer in self.by_peer:
                self.gone(peer)


async def run_core(
    runs: int, seed: int, steps: int, max_time: float, stop_on_failure: bool
) -> Tally:
    """The tables campaign's episodes against ``TableCore`` alone (no server)."""
    tally = Tally()
    deadline = time.monotonic() + max_time
    episode_no = 0
    while tally.inputs < runs and time.monotonic() < deadline:
        episode_no += 1
        ep = CoreEpisode(random.Random(f"core/{seed}/{episode_no}"), tally, f"{seed}-{episode_no}")
        await ep.setup()
        for _ in range(min(steps, runs - tally.inputs)):
            await ep.step()
            if stop_on_failure and tally.outcomes["FAILURE"]:
                return tally
        await ep.close()
        if tally.inputs // 50_000 != (tally.inputs - steps) // 50_000:
            print(json.dumps(tally.report()), file=sys.stderr, flush=True)
    return tally


# =============================================================================
# Command line
# =============================================================================


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("campaign", choices=["frames", "tables", "core"])
    parser.add_argument(
        "--runs", type=int, default=10_000, help="inputs (frames) or steps (tables)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", choices=["atheris", "random"], default="random")
    parser.add_argument("--steps", type=int, default=300, help="tables: steps per episode")
    parser.add_argument("--max-time", type=float, default=24 * 3600.0, help="seconds")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--stop-on-failure", action="store_true")
    parser.add_argument("--replay", help="frames: check one input given in hex, then exit")
    args, extra = parser.parse_known_args()

    if args.campaign == "frames" and args.engine == "atheris" and not args.replay:
        run_frames_atheris(args.runs, args.json, extra)
        return
    try:
        import uvloop

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    if args.replay:

        async def replay() -> Tally:
            tally = Tally()
            campaign = FrameCampaign(tally)
            try:
                await campaign.one(bytes.fromhex(args.replay))
            finally:
                await campaign.stop()
            return tally

        tally = runner(replay())
    elif args.campaign == "frames":
        tally = runner(run_frames_random(args.runs, args.seed, args.max_time, args.stop_on_failure))
    else:
        run = run_core if args.campaign == "core" else run_tables
        tally = runner(run(args.runs, args.seed, args.steps, args.max_time, args.stop_on_failure))
    report = tally.report() | {
        "campaign": args.campaign,
        "engine": "random" if args.campaign != "frames" else args.engine,
        "seed": args.seed,
    }
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text)
    sys.exit(1 if report["failures"] else 0)


if __name__ == "__main__":
    main()
