"""Short runs of the fuzz campaigns of bench/fuzz.py (bench/fuzz_bench/; the long
runs are benches).

Each runs a real server in this process and talks to it over real
WebSockets: ~10^4 frames (raw bytes and mutated commands, both codecs) and
~2,000 steps of random commands at a table, every step checked. Also: the
table checks themselves catch what they look for, and a regression test
for each crash a campaign found.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
import structlog
from websockets.asyncio.client import connect

from bench.fuzz_bench.core import CoreEpisode, run_core
from bench.fuzz_bench.frames import run_frames_random
from bench.fuzz_bench.inputs import Pools, make_frame
from bench.fuzz_bench.settings import table_settings
from bench.fuzz_bench.table_checks import fresh_doc, seqs_of, state_of
from bench.fuzz_bench.tables import Episode, run_tables
from bench.fuzz_bench.tally import Tally, quiet_logs
from protocol.cards import CODES, cards_of
from protocol.codec import SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK
from server.process.app import Server
from tests.support.servers import running, url
from tests.support.waits import patient

pytestmark = pytest.mark.asyncio

ATHERIS_CRASH = "ffffffff504ef894d84ab6fe0000000000000046464646464646d646773639366262e7e3f8"


@pytest.fixture(autouse=True)
def _keep_logging() -> Iterator[None]:
    """The campaigns swallow the server's logs; give other tests theirs back."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


async def test_ten_thousand_frames_are_all_answered_or_accepted() -> None:
    tally = await run_frames_random(10_000, seed=17, max_time=patient(120), stop_on_failure=False)
    report = tally.report()
    assert report["failures"] == 0, report["failure_examples"]
    assert tally.inputs == 10_000
    # The inputs reached past the decoder: the lobby and the tables answered too.
    assert {"malformed", "unknown_message", "invalid_message"} <= set(tally.errors)
    assert {"not_at_table", "already_seated", "spectator"} & set(tally.errors)
    assert tally.outcomes["accepted"] > 50
    assert tally.outcomes["closed_4004"] > 100  # first frames that were no hello


async def test_two_thousand_table_steps_keep_every_invariant() -> None:
    tally = await run_tables(2_000, seed=5, steps=250, max_time=patient(120), stop_on_failure=False)
    report = tally.report()
    assert report["failures"] == 0, report["failure_examples"]
    assert tally.inputs == 2_000
    for kind in ("legal", "out_of_turn", "random", "stale", "resume", "bad_resume"):
        assert tally.outcomes[kind] > 10, (kind, report)
    assert tally.errors["not_your_turn"] > 10
    assert tally.errors["already_seated"] > 0  # resume from a seated connection


async def test_a_thousand_core_steps_keep_every_invariant() -> None:
    # The same episodes and checks against TableCore alone (no server, no socket).
    tally = await run_core(1_000, seed=7, steps=250, max_time=patient(60), stop_on_failure=False)
    report = tally.report()
    assert report["failures"] == 0, report["failure_examples"]
    assert tally.inputs == 1_000
    for kind in ("legal", "out_of_turn", "random", "stale", "resume", "bad_resume", "rewatch"):
        assert tally.outcomes[kind] > 5, (kind, report)
    assert tally.errors["not_your_turn"] > 10
    assert tally.errors["already_seated"] > 0  # resume from a connection at the table


async def test_the_core_campaign_sees_what_the_core_sends_and_its_checks_bite() -> None:
    import random

    tally = Tally()
    ep = CoreEpisode(random.Random(11), tally, "core-self-test")
    await ep.setup()
    core = ep.core
    assert core.game is not None and core.state.status == "playing"
    # Every client's document came from the core's own Sends, through the codec.
    for p in ep.everyone:
        assert p.doc == fresh_doc(core, p.seat, p.kind)
    ep.check("history", ep.players[0], None, state_of(core), seqs_of(core))
    assert tally.outcomes["FAILURE"] == 0
    p2 = ep.players[2]
    p2.doc["hand"] = [CODES[cards_of(core.game.deal.hands[3])[0]]]
    ep.check("history", p2, None, state_of(core), seqs_of(core))
    assert {"view holds hidden cards", "patched view differs from a fresh one"} <= {
        f["what"] for f in tally.failures
    }


async def test_the_table_checks_catch_a_leak_a_stale_view_and_a_change() -> None:
    quiet_logs()
    server = Server(table_settings())
    await server.start()
    tally = Tally()
    import random

    ep = Episode(server, random.Random(3), tally, "self-test")
    try:
        await ep.setup()
        assert ep.table is not None
        table = ep.table.core  # the pure core: state, game, streams (server/table/core.py)
        assert table.game is not None
        ep.check("history", ep.players[0], None, state_of(table), seqs_of(table))
        assert tally.outcomes["FAILURE"] == 0
        # Seat 1 "sees" a card of seat 2: a leak.
        other = cards_of(table.game.deal.hands[2])[0]
        p1 = ep.players[1]
        p1.doc = fresh_doc(table, 1, p1.kind)
        p1.doc["chat"] = [{"seat": 2, "name": "x", "text": CODES[other], "at": 0.0}]
        ep.check("history", p1, None, state_of(table), seqs_of(table))
        whats = [f["what"] for f in tally.failures]
        assert "view holds hidden cards" in whats
        assert "patched view differs from a fresh one" in whats
        # A "refused" command after which the state differs.
        before = state_of(table)
        table.state.chat.append(table.state.chat[0] if table.state.chat else _line())
        answer = {"t": "error", "code": "not_your_turn", "message": "", "rid": 1}
        ep.check("random", p1, answer, before, seqs_of(table))
        assert "a refused command changed the table" in [f["what"] for f in tally.failures]
    finally:
        await ep.close()
        await server.stop()


def _line() -> object:
    from protocol.views import ChatLine

    return ChatLine(seat=0, name="x", text="hi", at=0.0)


@pytest.mark.parametrize(
    ("subprotocol", "frame"),
    [
        (SUBPROTOCOL_JSON, "[" * 1000 + "]" * 1000),
        (SUBPROTOCOL_MSGPACK, b"\x91" * 1000 + b"\x90"),
        (SUBPROTOCOL_JSON, '{"t":"chat","text":' + "[" * 1500 + "]" * 1500 + "}"),
        # Found by atheris at input 826,767: only ~770 levels, past the limit
        # from where the server decodes (a mutated chat frame, binary JSON).
        (SUBPROTOCOL_JSON, make_frame(bytes.fromhex(ATHERIS_CRASH), Pools()).data),
    ],
    ids=["json-array", "msgpack-array", "json-chat-text", "atheris-826767"],
)
async def test_a_deeply_nested_frame_is_refused_and_the_connection_stays(
    subprotocol: str, frame: bytes | str
) -> None:
    """Found by the frames campaign (RecursionError, closed 1011); the codec now
    answers ``malformed`` at any depth, and the campaign counts a relapse as a failure."""
    async with (
        running() as server,
        connect(url(server), subprotocols=[subprotocol]) as ws,  # type: ignore[list-item]
    ):
        hello = {"t": "hello", "version": 1, "name": "Deep"}
        await ws.send(
            msgspec.json.encode(hello).decode()
            if subprotocol == SUBPROTOCOL_JSON
            else msgspec.msgpack.encode(hello)
        )
        await ws.recv()  # welcome
        await ws.recv()  # lobby
        await ws.send(frame)

        async def answer() -> Any:
            # The lobby's count of players online (ours) may come first: it
            # goes out after its debounce, which a busy machine can outlast.
            while True:
                reply = await ws.recv()
                decoded = (
                    msgspec.json.decode(reply)
                    if isinstance(reply, str)
                    else msgspec.msgpack.decode(reply)
                )
                if decoded["t"] != "lpatch":
                    return decoded

        decoded = await asyncio.wait_for(answer(), 5)
        assert decoded["t"] == "error"
        assert decoded["code"] in {"malformed", "unknown_message", "invalid_message"}
        assert ws.close_code is None
