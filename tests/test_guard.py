"""Hostile clients: handshake and hello timeouts, per-address limits, trusted
proxies, idle lobby connections, resume-token guessing, name and chat abuse.

Unit tests drive ``server.link.guard`` with an injected clock; the others start a
real server with short limits and talk raw TCP or real WebSockets to it, its
timers (hello, idle sweep, rate limits, goodbye) on a clock moved by hand.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from protocol.codec import SUBPROTOCOL_JSON
from server.base.config import Settings
from server.base.players import key_digest, new_key
from server.base.text import BOT_NAME_REFUSED
from server.link.guard import GUESS_BURST, Bucket, Guard, clean_text, parse_networks
from server.process.app import Server
from tests.support.clock import ManualClock
from tests.support.servers import FAST, running
from tests.support.waits import eventually

# -- units, with a clock we move by hand ------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_bucket_refills_at_its_rate_up_to_its_burst() -> None:
    b = Bucket(rate=2.0, burst=3, now=0.0)
    assert [b.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert b.take(0.5) and not b.take(0.5)
    assert b.full(10.0)
    assert Bucket(rate=0.0, burst=1, now=0.0).take(0.0)  # 0: no limit


def test_connections_per_address_and_per_second() -> None:
    clock = Clock()
    guard = Guard(Settings(max_per_ip=2, connect_rate=1.0), clock)
    for _ in range(2):
        assert guard.admit("1.2.3.4") is None
        guard.opened("1.2.3.4")
    assert "too many connections" in (guard.admit("1.2.3.4") or "")
    assert guard.admit("5.6.7.8") is None  # another address has its own count
    guard.closed("1.2.3.4")
    assert guard.admit("1.2.3.4") is None
    # The burst of new connections, then one a second.
    fresh = Guard(Settings(max_per_ip=0, connect_rate=1.0), clock)
    assert all(fresh.admit("9.9.9.9") is None for _ in range(20))
    assert "new connections" in (fresh.admit("9.9.9.9") or "")
    clock.now += 1.0
    assert fresh.admit("9.9.9.9") is None


def test_forwarded_for_is_honoured_only_from_trusted_proxies() -> None:
    guard = Guard(Settings(trusted_proxies="127.0.0.1, 10.0.0.0/8"))
    # The proxy appends the peer it saw; a client may forge what comes before.
    assert guard.client_address("127.0.0.1", ["6.6.6.6, 1.2.3.4"]) == "1.2.3.4"
    assert guard.client_address("127.0.0.1", ["1.2.3.4, 10.1.1.1"]) == "1.2.3.4"
    assert guard.client_address("127.0.0.1", []) == "127.0.0.1"
    assert guard.client_address("8.8.8.8", ["1.2.3.4"]) == "8.8.8.8"  # not a proxy
    assert Guard(Settings()).client_address("127.0.0.1", ["1.2.3.4"]) == "127.0.0.1"
    with pytest.raises(ValueError, match="nonsense"):
        parse_networks("127.0.0.1, nonsense")


def test_refused_resumes_joins_and_watches_are_limited_per_address() -> None:
    clock = Clock()
    guard = Guard(Settings(guess_rate=1.0), clock)
    for _ in range(GUESS_BURST):
        assert guard.may_guess("1.2.3.4")
        guard.guess_failed("1.2.3.4")
    assert not guard.may_guess("1.2.3.4")
    assert guard.may_guess("5.6.7.8")
    clock.now += 1.0
    assert guard.may_guess("1.2.3.4")


def test_forgotten_addresses_are_pruned() -> None:
    clock = Clock()
    guard = Guard(Settings(), clock)
    guard.admit("1.1.1.1")
    guard.opened("2.2.2.2")
    clock.now += 3600
    guard.prune()
    assert set(guard.addresses) == {"2.2.2.2"}  # still connected


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("  Alice   B ", "Alice B"),
        ("\x1b[2J\x1b[31mEve", "[2J[31mEve"),  # the escape itself is what matters
        ("Ma\u202ertin", "Martin"),  # right-to-left override
        ("ze\u200bro\u200d", "zero"),  # zero-width space and joiner
        ("Zoé ♠ 🂡", "Zoé ♠ 🂡"),
        ("tab\there\nline", "tab here line"),
        ("\x00\x07", ""),
    ],
)
def test_clean_text_drops_control_and_invisible_characters(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


# -- a real server ---------------------------------------------------------------


async def _open(port: int, headers: dict[str, str] | None = None) -> ClientConnection:
    return await connect(
        f"ws://127.0.0.1:{port}",
        subprotocols=[SUBPROTOCOL_JSON],  # type: ignore[list-item]
        additional_headers=headers,
    )


async def _hello(ws: ClientConnection, name: str = "Guest") -> list[Any]:
    await ws.send(json.dumps({"t": "hello", "version": 1, "name": name}))
    first = json.loads(await ws.recv())
    if first["t"] != "welcome":
        return [first]
    return [first, json.loads(await ws.recv())]


async def _until(ws: ClientConnection, t: str, timeout: float = 5.0) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        while True:
            msg = json.loads(await ws.recv())
            if msg["t"] == t:
                return msg  # type: ignore[no-any-return]

    return await asyncio.wait_for(read(), timeout)


@pytest.mark.asyncio
@pytest.mark.parametrize("sent", [b"", b"GET / HTTP/1.1\r\nHost: x\r\n"])
async def test_a_connection_that_never_finishes_the_upgrade_is_dropped(sent: bytes) -> None:
    async with running(handshake_timeout=0.5) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(sent)
        started = time.monotonic()
        data = await asyncio.wait_for(reader.read(), 5)  # b"" or an error page, then EOF
        assert reader.at_eof()
        assert time.monotonic() - started < 2.0
        assert b"101" not in data
        writer.close()


@pytest.mark.asyncio
async def test_a_connection_that_never_says_hello_is_closed_within_the_timeout() -> None:
    clock = ManualClock()
    async with running(hello_timeout=10.0, clock=clock) as server:
        ws = await _open(server.port)
        await eventually(lambda: len(server.front.conns) == 1, what="the server has the connection")
        clock.advance(9.9)
        with pytest.raises(TimeoutError):  # not yet: nothing arrives
            await asyncio.wait_for(ws.recv(), 0.05)
        clock.advance(0.2)
        bye = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert bye["t"] == "bye" and bye["code"] == "no_hello"
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 5)
        assert ws.close_code == 4004


@pytest.mark.asyncio
async def test_connections_per_address_are_capped_with_http_429() -> None:
    async with running(max_per_ip=3) as server:
        conns = [await _open(server.port) for _ in range(3)]
        with pytest.raises(InvalidStatus) as refused:
            await _open(server.port)
        assert refused.value.response.status_code == 429
        await conns.pop().close()
        live = server.front.guard.addresses["127.0.0.1"]
        await eventually(lambda: live.live < 3, what="the server noticing the close")
        conns.append(await _open(server.port))
        for ws in conns:
            await ws.close()


@pytest.mark.asyncio
async def test_new_connections_per_second_are_limited() -> None:
    async with running(connect_rate=0.5) as server:
        conns = [await _open(server.port) for _ in range(20)]  # the burst
        with pytest.raises(InvalidStatus) as refused:
            await _open(server.port)
        assert refused.value.response.status_code == 429
        for ws in conns:
            await ws.close()


@pytest.mark.asyncio
async def test_forwarded_for_counts_clients_apart_only_behind_a_trusted_proxy() -> None:
    async with running(max_per_ip=1, trusted_proxies="127.0.0.1") as server:
        a = await _open(server.port, {"X-Forwarded-For": "192.0.2.1"})
        b = await _open(server.port, {"X-Forwarded-For": "192.0.2.2"})
        with pytest.raises(InvalidStatus):
            await _open(server.port, {"X-Forwarded-For": "192.0.2.1"})
        await a.close()
        await b.close()
    async with running(max_per_ip=1) as server:  # no proxy trusted: the header is ignored
        a = await _open(server.port, {"X-Forwarded-For": "192.0.2.1"})
        with pytest.raises(InvalidStatus):
            await _open(server.port, {"X-Forwarded-For": "192.0.2.2"})
        await a.close()


@pytest.mark.asyncio
async def test_idle_connections_in_the_lobby_are_closed_not_seated_ones() -> None:
    clock = ManualClock()
    async with running(lobby_idle=40.0, clock=clock) as server:
        idle = await _open(server.port)
        await _hello(idle, "Idle")
        talker = await _open(server.port)
        await _hello(talker, "Talker")
        seated = await _open(server.port)
        await _hello(seated, "Seated")
        await seated.send(json.dumps({"t": "create", "rid": 1}))
        await _until(seated, "seated")
        for rid in (2, 3, 4):  # the sweep looks every 10 s (lobby_idle / 4)
            clock.advance(10.0)
            await talker.send(json.dumps({"t": "ping", "rid": rid}))
            await _until(talker, "pong")
        with pytest.raises(TimeoutError):  # 30 s of silence: not yet idle
            await _until(idle, "bye", timeout=0.05)
        clock.advance(20.0)  # 50 s of silence: the next sweep closes it
        bye = await _until(idle, "bye", timeout=5)
        assert bye["code"] == "idle"
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(idle.recv(), 5)
        assert idle.close_code == 4006
        # The one who spoke 20 s ago and the one at a table stay.
        for ws, rid in ((talker, 5), (seated, 6)):
            await ws.send(json.dumps({"t": "ping", "rid": rid}))
            assert (await _until(ws, "pong"))["rid"] == rid
        await talker.close()
        await seated.close()


@pytest.mark.asyncio
async def test_the_message_rate_limit_refills_on_the_servers_clock() -> None:
    clock = ManualClock()
    async with running(rate=1.0, burst=3, clock=clock) as server:
        ws = await _open(server.port)
        await _hello(ws, "Chatty")
        for rid in (1, 2, 3):  # the burst
            await ws.send(json.dumps({"t": "ping", "rid": rid}))
            assert (await _until(ws, "pong"))["rid"] == rid
        await ws.send(json.dumps({"t": "ping", "rid": 4}))
        assert (await _until(ws, "error"))["code"] == "rate_limited"
        clock.advance(1.0)  # one message a second
        await ws.send(json.dumps({"t": "ping", "rid": 5}))
        assert (await _until(ws, "pong"))["rid"] == 5
        await ws.close()


@pytest.mark.asyncio
async def test_shutdown_waits_for_the_clients_goodbyes_not_a_fixed_pause() -> None:
    # The goodbye's wait is on the server's clock, which this test never
    # moves: stop() returns because both clients answered the 1012 close.
    clock = ManualClock()
    server = Server(FAST, clock=clock)
    await server.start()
    clients = [await _open(server.port) for _ in range(2)]
    for i, ws in enumerate(clients):
        await _hello(ws, f"Leaving{i}")
    await asyncio.wait_for(server.stop(), 5)
    for ws in clients:
        bye = await _until(ws, "bye")
        assert bye["code"] == "restarting"
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 5)
        assert ws.close_code == 1012


@pytest.mark.asyncio
async def test_clients_that_never_answer_the_goodbye_are_cut_off_after_the_grace() -> None:
    # A client that completed the upgrade and then reads nothing more (gone,
    # frozen): without the cut-off, its close handshake ran on to websockets'
    # close_timeout (10 s of real time) after stop() returned, and a server
    # process outlived its shutdown_grace by that much.
    clock = ManualClock()
    server = Server(replace(FAST, shutdown_grace=5.0, hello_timeout=600.0), clock=clock)
    await server.start()
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    assert b" 101 " in await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    await eventually(lambda: len(server.front.conns) == 1, what="the connection accepted")
    began = clock.now
    stopping = asyncio.create_task(server.stop())

    # Nobody answers: the goodbye's wait, then the grace, run out on the clock.
    def stopped() -> bool:
        clock.advance(0.25)
        return stopping.done()

    await eventually(stopped, what="stop()")
    assert clock.now - began >= 5.0  # not before the grace
    assert not server.front.conns
    rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    await asyncio.wait_for(asyncio.gather(*rest, return_exceptions=True), 2)  # nothing lingers
    assert await asyncio.wait_for(reader.read(), 5) is not None  # the socket is closed
    writer.close()


def test_a_wall_clock_stepping_back_takes_no_token() -> None:
    b = Bucket(rate=1.0, burst=2, now=100.0)
    assert b.take(100.0)
    assert b.refill(40.0) == 1.0  # NTP stepped the clock back a minute
    assert b.refill(101.0) == 2.0


@pytest.mark.asyncio
async def test_token_and_code_guessing_is_limited_per_address() -> None:
    async with running(guess_rate=1.0) as server:
        ws = await _open(server.port)
        await _hello(ws, "Guesser")
        codes = []
        for rid in range(1, GUESS_BURST + 3):
            token = f"{'0' * 8}.{'A' * 24}{rid}"
            await ws.send(json.dumps({"t": "resume", "rid": rid, "token": token}))
            codes.append((await _until(ws, "error"))["code"])
        assert codes[:GUESS_BURST] == ["bad_token"] * GUESS_BURST
        assert codes[GUESS_BURST:] == ["rate_limited", "rate_limited"]
        # Another connection from the same address shares the limit.
        other = await _open(server.port)
        await _hello(other, "Guesser2")
        await other.send(json.dumps({"t": "resume", "rid": 1, "token": "x.y"}))
        assert (await _until(other, "error"))["code"] == "rate_limited"
        # Guessing invite codes spends the same tokens.
        await other.send(json.dumps({"t": "join", "rid": 2, "code": "ZZZZZZ"}))
        assert (await _until(other, "error"))["code"] == "rate_limited"
        await ws.close()
        await other.close()


@pytest.mark.asyncio
async def test_tables_created_per_address_are_limited() -> None:
    async with running(create_rate=0.01) as server:
        ws = await _open(server.port)
        await _hello(ws, "Maker")
        for rid in range(1, 6):
            await ws.send(json.dumps({"t": "create", "rid": rid}))
            await _until(ws, "seated")
            await ws.send(json.dumps({"t": "leave", "rid": 100 + rid}))
            await _until(ws, "left")
        await ws.send(json.dumps({"t": "create", "rid": 6}))
        error = await _until(ws, "error")
        assert (error["code"], error["rid"]) == ("rate_limited", 6)
        await ws.close()


@pytest.mark.asyncio
async def test_names_and_chat_lose_escapes_and_bots_names_are_refused() -> None:
    async with running(FAST) as server:
        bot = await _open(server.port)
        answer = await _hello(bot, "  bot Ada")
        assert answer[0]["t"] == "error" and answer[0]["code"] == "bad_name"
        ws = await _open(server.port)
        welcome = await _hello(ws, "\x1b[31mEve\u202e")
        assert welcome[0]["t"] == "welcome"
        await ws.send(json.dumps({"t": "create", "rid": 1}))
        table = await _until(ws, "table")
        assert table["view"]["seats"][0]["name"] == "[31mEve"
        await ws.send(json.dumps({"t": "chat", "rid": 2, "text": "hi\x1b]0;pwned\x07\u200b!"}))
        patch = await _until(ws, "tpatch")
        texts = [op[2] for op in patch["patch"] if op[0][:1] == ["chat"]]
        assert texts and texts[0][0]["text"] == "hi]0;pwned!", texts
        await ws.close()


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["Bot Ada", "bot Zed", "ＢＯＴ Ada"])
async def test_players_with_a_key_may_not_take_a_bots_name_either(name: str) -> None:
    # One rule (server.base.text.bot_like) for guests and players, at the hello
    # that registers a key and at a rename.
    async with running(FAST) as server:
        ws = await _open(server.port)
        hello = {"t": "hello", "version": 1, "name": name, "key": new_key(), "register": True}
        await ws.send(json.dumps(hello))
        refused = json.loads(await ws.recv())
        assert (refused["t"], refused["code"]) == ("error", "bad_name")
        assert refused["message"] == BOT_NAME_REFUSED
        assert await server.daily.players.find(key_digest(hello["key"])) is None
        guest = await _open(server.port)
        answer = await _hello(guest, name)
        assert (answer[0]["code"], answer[0]["message"]) == ("bad_name", BOT_NAME_REFUSED)
        ok = await _open(server.port)
        await ok.send(json.dumps({**hello, "name": "Ada", "key": new_key()}))
        assert json.loads(await ok.recv())["t"] == "welcome"
        await ok.send(json.dumps({"t": "rename", "rid": 4, "name": name}))
        refused = await _until(ok, "error")
        assert (refused["code"], refused["rid"]) == ("bad_name", 4)
        for w in (ws, guest, ok):
            await w.close()


@pytest.mark.asyncio
async def test_the_first_lobby_counts_who_arrives_and_no_count_outlives_the_truth() -> None:
    """A first look said "0 online" (issue 33): the snapshot carried the last
    published count, from before this connection. It counts them now; and if
    the count comes back to the published one before the next patch (someone
    left meanwhile), that patch says it still, so the snapshot's number never
    stays on a screen past the truth."""
    clock = ManualClock()  # nothing is published unless the test moves it
    async with running(FAST, clock=clock) as server:
        ann = await _open(server.port)
        assert (await _hello(ann, "Ann"))[1]["view"]["players_online"] == 1
        clock.advance(1.0)  # the count published: 1
        assert _online(await _until(ann, "lpatch")) == 1
        bea = await _open(server.port)
        assert (await _hello(bea, "Bea"))[1]["view"]["players_online"] == 2
        await ann.close()
        await eventually(lambda: server.lobby.players_online == 1, what="Ann gone")
        clock.advance(1.0)  # the count, 1 again, is what was last published
        assert _online(await _until(bea, "lpatch")) == 1
        await bea.close()


def _online(patch: dict[str, Any]) -> int:
    return int(next(op[2] for op in patch["patch"] if op[0] == ["players_online"]))


@pytest.mark.asyncio
async def test_lobby_patches_go_out_a_slice_at_a_time_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 10,000 lobby watchers sent one patch in one go held the event loop ~1 s
    # (docs/SECURITY.md, memory under abuse): now PUBLISH_SLICE per turn.
    from server.lobby import lobby

    monkeypatch.setattr(lobby, "PUBLISH_SLICE", 2)
    clock = ManualClock()  # a patch goes out when the test moves time on
    async with running(FAST, clock=clock) as server:
        watchers = []
        for i in range(5):
            ws = await _open(server.port)
            await _hello(ws, f"W{i}")  # welcome, then the lobby's snapshot
            watchers.append(ws)
        for i in range(3):
            await _hello(await _open(server.port), f"Late{i}")
            # One patch per arrival: past LOBBY_DEBOUNCE, then each slice after
            # the one before (a timer sees the time ``advance`` went to).
            for _ in range(100):
                clock.advance(lobby.PUBLISH_GAP)
        for ws in watchers[:2]:  # the first two heard of everyone since they came
            online = None
            seqs = []
            while online != 8:
                msg = await _until(ws, "lpatch")
                seqs.append(msg["seq"])
                online = next(op[2] for op in msg["patch"] if op[0] == ["players_online"])
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        assert server.lobby.behind == 0
