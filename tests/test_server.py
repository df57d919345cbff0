"""The online server end to end: a real server, real WebSockets, real clients."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import socket
import urllib.request
from typing import Any

import msgspec
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from clients.session import ServerError, Session
from protocol.codec import (
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    SUBPROTOCOL_V2_JSON,
    SUBPROTOCOL_V2_MSGPACK,
)
from protocol.messages import (
    Bid,
    Bye,
    Chat,
    CreateTable,
    Error,
    GetHistory,
    History,
    JoinTable,
    Leave,
    Left,
    LobbySnapshot,
    Ping,
    Play,
    PlayAgain,
    Pong,
    QuickPlay,
    Seated,
    SnapshotRequest,
    StartGame,
    TablePatch,
    TableSnapshot,
    Watch,
)
from protocol.views import TableView
from server.game import replay_record
from server.lobby import tables as tables_module
from server.lobby.lobby import SWEEP_EVERY
from tests.support.clients import autoplay, check_no_leaks, wants_decision
from tests.support.clock import ManualClock
from tests.support.servers import lean_frames, running, url
from tests.support.waits import eventually

pytestmark = pytest.mark.asyncio


async def _table(s: Session, **kw: Any) -> Seated:
    # Seeded: an unseeded first deal is annulled at once 1 time in ~540 (a
    # petit sec), and a test that waits for play would wait for a minute.
    kw.setdefault("seed", "table")
    await s.send(CreateTable(**kw))
    seated = await s.wait_for(Seated, Error)
    assert isinstance(seated, Seated), seated
    await s.wait_view(lambda v: v.table_id == seated.table_id)
    return seated


def _finished(v: TableView) -> bool:
    return v.status == "finished"


# -- whole games ------------------------------------------------------------------


async def test_one_human_three_bots_play_a_whole_game_to_the_ranking() -> None:
    async with running() as server:
        s = await Session.open(url(server), "Alice", keep=True)
        seated = await _table(s, name="evening", seed="whole-game")
        await s.send(StartGame())
        view = await autoplay(s, random.Random(1), _finished)
        assert view.ranking is not None and sorted(view.ranking) == [0, 1, 2, 3]
        counted = [line for line in view.sheet if line.annulled is None]
        assert len(counted) == 8  # the default game: 8 counted deals
        assert sum(view.scores) == 0
        assert view.scores == [sum(line.scores[i] for line in view.sheet) for i in range(4)]
        assert [view.scores[i] for i in view.ranking] == sorted(view.scores, reverse=True)
        assert [seat.kind for seat in view.seats] == ["human", "bot", "bot", "bot"]
        # Every finished deal's record is in the history, and replays to the
        # same scores.
        await s.send(GetHistory())
        history = await s.wait_for(History)
        assert len(history.records) == len(view.sheet)
        for record, line in zip(history.records, view.sheet, strict=True):
            assert replay_record(record)["scores"] == line.scores
        check_no_leaks(s, seated.seat, history.records)
        # Play again: a new game at the same table.
        await s.send(PlayAgain())
        again = await s.wait_view(lambda v: v.status == "playing" and not v.sheet)
        assert again.ranking is None
        await s.close()


async def test_four_humans_play_a_deal_each_on_another_subprotocol() -> None:
    # Versions 1 and 2, msgpack and JSON, at one table: the same game for all.
    async with running() as server:
        protos = [
            SUBPROTOCOL_MSGPACK,
            SUBPROTOCOL_JSON,
            SUBPROTOCOL_V2_MSGPACK,
            SUBPROTOCOL_V2_JSON,
        ]
        players = [
            await Session.open(url(server), f"P{i}", subprotocol=p, keep=True)
            for i, p in enumerate(protos)
        ]
        seated = await _table(players[0], name="four", deals=1, private=True)
        code = (await players[0].wait_view(lambda v: v.invite_code is not None)).invite_code
        for p in players[1:]:
            await p.send(JoinTable(code=code))
            assert isinstance(await p.wait_for(Seated, Error), Seated)
        await players[0].wait_view(lambda v: all(s.kind == "human" for s in v.seats))
        await players[0].send(StartGame())
        views = await asyncio.gather(
            *(autoplay(p, random.Random(i), _finished) for i, p in enumerate(players))
        )
        assert all(v.seats[i].kind == "human" for v in views for i in range(4))
        assert len({tuple(v.scores) for v in views}) == 1
        # Each seat played its 18 cards (and bid): nearly all of those frames
        # were read in place (server/link/reader.py; a frame that came while
        # websockets still held one, or mid-way through a write, goes its way).
        lean = lean_frames(server)
        assert all(lean[f"P{i}"] >= 9 for i in range(4)), lean
        await players[0].send(GetHistory())
        records = (await players[0].wait_for(History)).records
        for p in players:
            check_no_leaks(p, p.seat, records)
            await p.close()
        assert seated.table_id


# -- hidden information -------------------------------------------------------------


async def test_spectator_sees_no_hand_and_nothing_hidden() -> None:
    async with running() as server:
        host = await Session.open(url(server), "Host", keep=True)
        seated = await _table(host, name="watched", deals=1, seed="spec")
        watcher = await Session.open(url(server), "Watcher", keep=True)
        await watcher.send(Watch(table_id=seated.table_id))
        assert (await watcher.wait_for(Seated)).seat is None
        await host.send(StartGame())
        await autoplay(host, random.Random(3), _finished)
        final = await watcher.wait_view(_finished)
        assert final.you is None and final.hand == [] and final.invite_code is None
        await host.send(GetHistory())
        records = (await host.wait_for(History)).records
        check_no_leaks(watcher, None, records)
        check_no_leaks(host, seated.seat, records)


# -- refusals and bad input ------------------------------------------------------------


async def test_illegal_move_is_refused_and_changes_nothing() -> None:
    async with running(bot_think=0.05) as server:
        s = await Session.open(url(server), "Eve")
        await _table(s, seed="illegal", deals=1)
        await s.send(StartGame())
        view = await s.wait_view(lambda v: bool(v.legal.bids or v.legal.cards), timeout=20)
        seq = s.table_seq
        rid = await s.send(Play(card="KS"))  # a card, but not now / maybe not held
        err = await s.wait_for(Error)
        assert err.rid == rid and err.code in ("wrong_phase", "card_not_in_hand", "illegal_card")
        await s.send(Bid(bid="slam"))
        err = await s.wait_for(Error)
        assert err.code in ("bad_bid", "wrong_phase", "not_your_turn")
        await s.send(Play(card="ZZ"))
        assert (await s.wait_for(Error)).code in ("unknown_card", "wrong_phase")
        # A change would have come before the refusal that followed it.
        assert s.table_seq == seq and s.table == view  # nothing changed


async def test_malformed_oversized_unknown_frames_get_errors_or_close_and_table_plays_on() -> None:
    async with running(max_frame=4096) as server:
        player = await Session.open(url(server), "Good")
        await _table(player, deals=1, seed="frames")
        await player.send(StartGame())
        # A second, misbehaving client on the same server.
        bad = await Session.open(url(server), "Bad")
        await bad.send_raw(b"\xc1\xff not msgpack")
        assert (await bad.wait_for(Error)).code == "malformed"
        await bad.send_raw(msgspec.msgpack.encode({"t": "teleport", "rid": 1}))
        err = await bad.wait_for(Error)
        assert err.code == "unknown_message" and "teleport" in err.message
        await bad.send_raw(msgspec.msgpack.encode({"t": "play", "card": 5}))
        assert (await bad.wait_for(Error)).code == "invalid_message"
        await bad.send_raw("text frame on a msgpack connection")
        assert (await bad.wait_for(Error)).code == "malformed"
        await bad.send(Play(card="KS"))
        assert (await bad.wait_for(Error)).code == "not_at_table"
        await bad.send_raw(b"\x00" * 10_000)  # over max_frame: closed with 1009
        await asyncio.wait_for(bad.closed.wait(), 5)
        assert bad.close_code == 1009
        # The table played on.
        final = await autoplay(player, random.Random(5), _finished)
        assert final.ranking is not None


@pytest.mark.parametrize("subprotocol", [SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON])
async def test_frames_nested_100000_deep_are_malformed_and_the_connection_stays(
    subprotocol: str,
) -> None:
    depth = 100_000
    if subprotocol == SUBPROTOCOL_JSON:
        nest: bytes | str = "[" * depth + "1" + "]" * depth
        frames = [nest, '{"t": "chat", "text": ' + nest + ', "rid": 2}']
    else:
        nest = b"\x91" * depth + b"\x01"
        frames = [nest, b"\x83\xa1t\xa4chat\xa4text" + nest + b"\xa3rid\x02"]
    async with running(max_frame=1 << 20) as server:
        s = await Session.open(url(server), "Deep", subprotocol=subprotocol)
        for frame in frames:
            await s.send_raw(frame)
            err = await s.wait_for(Error)
            assert err.code == "malformed" and "nested too deeply" in err.message
        await s.send(Ping(rid=7))
        assert (await s.wait_for(Pong)).rid == 7
        assert not s.closed.is_set()


@pytest.mark.parametrize(
    ("subprotocol", "version"), [(SUBPROTOCOL_MSGPACK, 1), (SUBPROTOCOL_V2_MSGPACK, 2)]
)
async def test_incompatible_version_gets_a_clear_error(subprotocol: str, version: int) -> None:
    # The subprotocol names the version; a hello saying another is refused.
    async with running() as server:
        with pytest.raises(ServerError) as info:
            await Session.open(url(server), "Old", version=99, subprotocol=subprotocol)
        assert info.value.code == "incompatible_version"
        assert f"version {version}," in info.value.message


async def test_first_message_must_be_hello() -> None:
    async with running() as server:
        ws = await connect(url(server), subprotocols=[SUBPROTOCOL_JSON])  # type: ignore[list-item]
        await ws.send(json.dumps({"t": "quick", "rid": 4}))
        reply = json.loads(await ws.recv())
        assert reply["t"] == "error" and reply["code"] == "hello_first"
        with pytest.raises(Exception):  # noqa: B017 - closed with 4004
            await asyncio.wait_for(ws.recv(), 3)
        assert ws.close_code == 4004


async def test_a_client_that_stops_reading_is_dropped_not_buffered_for() -> None:
    # A spectator stops reading while four bots play a whole game quickly.
    # Once the socket buffers on both sides are full (made small here, as on
    # a congested link), what the server holds for it passes send_buffer and
    # it is dropped with 4002; the table plays on for everyone else.
    # No grace: the owner's away seat is played at once (a table its last
    # human left would close).
    async with running(send_buffer=4096, grace=0.0) as server:
        owner = await Session.open(url(server), "Owner")
        seated = await _table(owner, deals=20, bot_level="random")
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        ws = await connect(url(server), sock=sock, subprotocols=[SUBPROTOCOL_JSON], max_queue=1)  # type: ignore[list-item]
        await ws.send(json.dumps({"t": "hello", "name": "Sleepy", "version": 1, "rid": 1}))
        await ws.send(json.dumps({"t": "watch", "table_id": seated.table_id, "rid": 2}))
        while json.loads(await ws.recv())["t"] != "table":
            pass
        sleepy = next(c for c in server.front.conns if c.name == "Sleepy")
        server_sock = sleepy.ws.transport.get_extra_info("socket")
        server_sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        await owner.send(StartGame())
        await owner.close()  # away: bots play the four seats on
        # Not reading meanwhile: the server closes it once its buffer is full.
        await eventually(lambda: sleepy.closed, timeout=30, what="the slow reader closed")
        with pytest.raises(ConnectionClosed):
            async with asyncio.timeout(30):
                while True:
                    await ws.recv()
        assert ws.close_code == 4002
        # Nothing else suffered: a newcomer watches the same table play on
        # into its next deals (waited for: a loaded machine plays slowly).
        watcher = await Session.open(url(server), "Watcher")
        await watcher.send(Watch(table_id=seated.table_id))
        view = await watcher.wait_view(
            lambda v: v.table_id == seated.table_id and v.deal is not None and v.deal.number > 1,
            timeout=60,
        )
        assert view.deal is not None and view.deal.number > 1


async def test_flooding_client_is_rate_limited() -> None:
    async with running(rate=5.0, burst=5) as server:
        s = await Session.open(url(server), "Flood")
        for _ in range(12):
            await s.send(Chat(text="hi"))
        errors = []
        while len(errors) < 12:
            errors.append(await s.wait_for(Error))
        assert "rate_limited" in {e.code for e in errors}


# -- lobby ------------------------------------------------------------------------------


async def test_lobby_lists_public_tables_live_private_ones_by_code_only() -> None:
    async with running() as server:
        watcher = await Session.open(url(server), "Browser")
        host = await Session.open(url(server), "Host")
        seated = await _table(host, name="Public one", deals=3, bot_level="easy")
        private = await Session.open(url(server), "Secret")
        await _table(private, name="Private one", private=True)

        def listed(s: Session) -> list[str]:
            return [t.name for t in (s.lobby.tables if s.lobby else [])]

        await eventually(
            lambda: listed(watcher) == ["Public one"], detail=lambda: str(listed(watcher))
        )
        summary = watcher.lobby.tables[0]  # type: ignore[union-attr]
        assert (summary.table_id, summary.humans, summary.free, summary.deals) == (
            seated.table_id,
            1,
            3,
            3,
        )
        assert summary.bot_level == "easy" and summary.status == "waiting"
        await host.send(StartGame())
        await eventually(
            lambda: watcher.lobby.tables[0].status != "waiting",  # type: ignore[union-attr]
            detail=lambda: str(listed(watcher)),
        )
        assert watcher.lobby.tables[0].bots == 3  # type: ignore[union-attr]


async def test_quick_play_joins_an_open_table_or_opens_one() -> None:
    async with running() as server:
        a = await Session.open(url(server), "A")
        await a.send(QuickPlay())
        first = await a.wait_for(Seated)
        b = await Session.open(url(server), "B")
        await b.send(QuickPlay())
        second = await b.wait_for(Seated)
        assert second.table_id == first.table_id and second.seat != first.seat
        view = await a.wait_view(lambda v: sum(s.kind == "human" for s in v.seats) == 2)
        assert view.creator == first.seat


async def test_join_errors_and_creator_only_start() -> None:
    async with running() as server:
        a = await Session.open(url(server), "A")
        seated = await _table(a, name="mine")
        b = await Session.open(url(server), "B")
        await b.send(JoinTable(code="NOPE99"))
        assert (await b.wait_for(Error)).code == "no_such_table"
        await b.send(JoinTable(table_id=seated.table_id, seat=seated.seat))
        assert (await b.wait_for(Error)).code == "seat_taken"
        await b.send(JoinTable(table_id=seated.table_id, seat=2))
        assert (await b.wait_for(Seated)).seat == 2
        await b.send(StartGame())
        assert (await b.wait_for(Error)).code == "not_creator"
        await b.send(CreateTable(name="second"))
        assert (await b.wait_for(Error)).code == "already_seated"
        await b.send(Leave())
        assert isinstance(await b.wait_for(Left), Left)
        view = await a.wait_view(lambda v: v.seats[2].kind == "empty")
        assert view.seats[2].name is None


async def test_create_table_validates_settings() -> None:
    async with running() as server:
        s = await Session.open(url(server), "A")
        await s.send(CreateTable(deals=0))
        err = await s.wait_for(Error)
        assert err.code == "bad_table" and "deals" in err.message


# -- seats, reconnection, timers ---------------------------------------------------------


async def test_dropped_client_bot_plays_then_resumes_with_token() -> None:
    clock = ManualClock()
    async with running(bot_think=0.0, grace=10.0, clock=clock) as server:
        s = await Session.open(url(server), "Dropper")
        seated = await _table(s, seed="drop", deals=2)
        await s.send(StartGame())
        rng = random.Random(9)
        view = await autoplay(
            s,
            rng,
            lambda v: (
                v.deal is not None
                and v.deal.phase == "play"
                and bool(v.deal.trick and v.deal.trick.cards)
            ),
            timeout=30,
        )
        before = len([c for t in view.deal.tricks for c in t.cards])  # type: ignore[union-attr]
        core = server.lobby.tables[seated.table_id].core
        await s.ws.close()  # the connection drops mid-trick
        await eventually(lambda: not core.seat_of)  # the table saw it go
        version = core.state.version
        clock.advance(10.0)  # grace runs out: a bot plays the away seat's turn
        await eventually(lambda: core.state.version > version)
        back = await Session.open(url(server), "Dropper")
        seated2 = await back.resume(seated.token)
        assert isinstance(seated2, Seated) and seated2.seat == seated.seat
        view = await back.wait_view(lambda v: v.deal is not None)
        played = sum(len(t.cards) for t in view.deal.tricks)  # type: ignore[union-attr]
        assert played > before or view.status != "playing"  # the game went on
        assert view.seats[seated.seat].kind == "human"  # type: ignore[index]
        assert view.seats[seated.seat].connected  # type: ignore[index]
        final = await autoplay(back, rng, _finished)
        assert final.ranking is not None


async def test_resume_with_last_seq_gets_missing_patches_and_old_connection_closed() -> None:
    # Bots play at once; an away human's turn waits for the (manual) clock.
    async with running(bot_think=0.0, grace=5.0, clock=ManualClock()) as server:
        a = await Session.open(url(server), "Twice")
        seated = await _table(a, seed="seq")
        await a.send(StartGame())
        await a.wait_view(lambda v: v.status == "playing")
        # A second connection takes the seat: the first is told and closed.
        b = await Session.open(url(server), "Twice")
        assert isinstance(await b.resume(seated.token, last_seq=-1), Seated)  # type: ignore[arg-type]
        assert isinstance(await b.wait_for(TableSnapshot), TableSnapshot)
        assert (await a.wait_for(Bye)).code == "replaced"
        await asyncio.wait_for(a.closed.wait(), 5)
        assert a.close_code == 4001
        # b drops while bots play on; reconnecting with its last seq brings
        # only the patches it missed, which apply onto the view it kept.
        await b.wait_view(lambda v: bool(v.deal and v.deal.bids))
        kept = b.table_seq
        core = server.lobby.tables[seated.table_id].core
        stream = core.fan.streams[seated.seat]  # type: ignore[index]
        assert stream is not None
        await b.ws.close()
        await eventually(lambda: stream.peer is None and stream.seq > kept)  # away: a patch missed
        assert isinstance(await b.reconnect(), Seated)
        patch = await b.wait_for(TablePatch, TableSnapshot)
        assert isinstance(patch, TablePatch) and patch.seq == kept + 1
        await eventually(lambda: b.table_seq == stream.seq)
        assert b.snapshots_asked == 0 and b.table == stream.view
        bad = await Session.open(url(server), "Thief")
        assert isinstance(await bad.resume("nope.token"), Error)


async def test_human_takes_over_bot_seat_between_deals_only() -> None:
    async with running(deal_pause=1.0, bot_think=0.0) as server:
        a = await Session.open(url(server), "Host")
        seated = await _table(a, seed="takeover", deals=2)
        await a.send(StartGame())
        b = await Session.open(url(server), "Late")
        await b.send(JoinTable(table_id=seated.table_id, seat=2))
        assert (await b.wait_for(Error)).code in ("wait_for_deal_end", "table_full")
        await autoplay(a, random.Random(2), lambda v: v.status == "between_deals")
        await b.send(JoinTable(table_id=seated.table_id, seat=2))
        assert (await b.wait_for(Seated)).seat == 2
        view = await a.wait_view(lambda v: v.seats[2].kind == "human")
        assert view.seats[2].name == "Late"


async def test_turn_timer_lets_the_bot_play() -> None:
    async with running(bot_think=0.0) as server:
        s = await Session.open(url(server), "Slow")
        await _table(s, seed="timer", turn_timer=0.3, deals=1)
        await s.send(StartGame())
        view = await s.wait_view(lambda v: bool(v.legal.bids or v.legal.cards), timeout=10)
        assert view.deadline is not None
        seq = s.table_seq
        # Do nothing: the timer runs out and the bot plays for us.
        await s.wait_view(
            lambda v: s.table_seq > seq and not (v.legal.bids and v is view), timeout=5
        )
        assert s.table_seq > seq


async def test_chat_is_shared_short_and_rate_limited() -> None:
    async with running(chat_rate=1.0) as server:
        a = await Session.open(url(server), "A")
        seated = await _table(a)
        b = await Session.open(url(server), "B")
        await b.send(JoinTable(table_id=seated.table_id))
        await b.wait_for(Seated)
        await a.send(Chat(text="  bonsoir   tout le monde "))
        view = await b.wait_view(lambda v: bool(v.chat))
        assert view.chat[-1].text == "bonsoir tout le monde" and view.chat[-1].name == "A"
        await a.send(Chat(text="again"))
        assert (await a.wait_for(Error)).code == "rate_limited"
        await b.send(Chat(text="x" * 500))
        assert (await b.wait_for(Error)).code == "bad_chat"


async def test_idle_table_is_closed() -> None:
    clock = ManualClock()
    async with running(idle_close=900.0, clock=clock) as server:
        s = await Session.open(url(server), "Leaver")
        seated = await _table(s)
        await s.close()
        core = server.lobby.tables[seated.table_id].core
        await eventually(lambda: not core.seat_of)
        clock.advance(SWEEP_EVERY)  # a sweep with nobody there: not idle for long yet
        await eventually(lambda: core.state.last_human_at < clock.time())
        assert seated.table_id in server.lobby.tables
        clock.advance(900.0)  # the next sweep finds it idle for idle_close: closed
        await eventually(lambda: seated.table_id not in server.lobby.tables)
        assert core.state.status == "closed"


async def test_a_sweep_tells_the_tables_a_slice_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each table notes a human there when the sweep reaches it: ``SWEEP_SLICE``
    tables at a time, ``SWEEP_GAP`` apart, in the order they opened (all at
    once, 4,000 busy tables' wake-ups ran ahead of every move)."""
    monkeypatch.setattr(tables_module, "SWEEP_SLICE", 2)
    monkeypatch.setattr(tables_module, "SWEEP_GAP", 1.0)
    clock = ManualClock()
    async with running(clock=clock) as server:
        cores = []
        for name in ("Ann", "Bea", "Cid", "Dan", "Eve"):
            s = await Session.open(url(server), name)
            cores.append(server.lobby.tables[(await _table(s)).table_id].core)
        opened = clock.time()

        def stamped() -> list[bool]:
            return [core.state.last_human_at > opened for core in cores]

        clock.advance(SWEEP_EVERY)
        await eventually(lambda: stamped() == [True, True, False, False, False])
        clock.advance(1.0)
        await eventually(lambda: stamped() == [True, True, True, True, False])
        clock.advance(1.0)
        await eventually(lambda: all(stamped()))


# -- operations ---------------------------------------------------------------------------


async def test_healthz_and_metrics() -> None:
    async with running() as server:
        s = await Session.open(url(server), "M")
        await _table(s, seed="m", deals=1)
        await s.send(StartGame())
        await autoplay(s, random.Random(1), _finished)

        def get(path: str) -> tuple[int, str, str]:
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}") as r:
                return r.status, r.headers["Content-Type"], r.read().decode()

        status, ctype, body = await asyncio.to_thread(get, "/healthz")
        health = json.loads(body)
        assert status == 200 and ctype == "application/json"
        assert health["status"] == "ok" and health["tables"] == 1 and health["connections"] == 1
        assert health["bus_subscribed"] is None  # no Redis: no other processes
        status, ctype, body = await asyncio.to_thread(get, "/metrics")
        assert status == 200 and "text/plain" in ctype
        for name in (
            "atout_tables",
            "atout_connections",
            "atout_messages_in_total",
            "atout_messages_out_total",
            "atout_action_seconds_bucket",
            "atout_errors",
        ):
            assert name in body
        counts = dict(
            line.split() for line in body.splitlines() if line.startswith("atout_messages")
        )
        # The hello and the table's commands went in; a welcome and views came out.
        assert float(counts["atout_messages_in_total"]) >= 2
        assert float(counts["atout_messages_out_total"]) >= 2


async def test_client_seeing_a_gap_asks_for_a_snapshot_and_catches_up() -> None:
    async with running(bot_think=0.01) as server:
        s = await Session.open(url(server), "Gappy")
        await _table(s, seed="gap", deals=1)
        await s.send(StartGame())
        await s.wait_view(lambda v: v.status == "playing")
        s.table_seq -= 3  # pretend three patches were lost
        await autoplay(
            s, random.Random(4), lambda v: bool(v.deal and v.deal.tricks and wants_decision(v))
        )
        assert s.snapshots_asked >= 1
        # After the snapshot the client is in step again: its view is the
        # server's view of that seat (which waits for this seat to play).
        stream = server.lobby.tables[s.table_id].core.fan.streams[s.seat]  # type: ignore[index]
        assert stream is not None
        await eventually(lambda: s.table_seq == stream.seq)
        assert s.table == stream.view


async def test_limits_on_tables_and_connections() -> None:
    async with running(max_tables=1, max_connections=2) as server:
        a = await Session.open(url(server), "A")
        await _table(a)
        b = await Session.open(url(server), "B")
        await b.send(CreateTable(name="one too many"))
        err = await b.wait_for(Error)
        assert err.code == "too_many_tables"
        with pytest.raises(InvalidStatus) as info:  # HTTP 503 at the handshake
            await Session.open(url(server), "C")
        assert "503" in str(info.value)


async def test_deal_annulled_for_petit_sec_as_dealt_moves_on() -> None:
    async with running() as server:
        s = await Session.open(url(server), "Unlucky")
        await _table(s, seed="ps122", deals=1)  # this seed deals a petit sec first
        await s.send(StartGame())
        final = await autoplay(s, random.Random(2), _finished, timeout=30)
        assert final.sheet[0].annulled == "petit_sec"
        assert [line.annulled for line in final.sheet[1:]] == [None]


async def test_each_human_decision_gets_its_own_deadline() -> None:
    clock = ManualClock()
    async with running(clock=clock) as server:
        a = await Session.open(url(server), "A")
        seated = await _table(a, seed="deadlines", deals=1, turn_timer=2.0)
        b = await Session.open(url(server), "B")
        await b.send(JoinTable(table_id=seated.table_id, seat=1))
        await b.wait_for(Seated)
        await a.wait_view(lambda v: v.seats[1].kind == "human")
        await a.send(StartGame())
        # The first human to speak plays late; the second human to speak
        # must then get a whole new deadline.
        view = await a.wait_view(lambda v: v.deal is not None)
        order = [(view.deal.dealer + 1 + i) % 4 for i in range(4)]  # type: ignore[union-attr]
        first = a if next(x for x in order if x in (a.seat, b.seat)) == a.seat else b
        other = b if first is a else a
        await first.wait_view(lambda v: bool(v.legal.bids), timeout=5)
        clock.advance(1.0)
        await first.send(Bid(bid="pass"))
        nxt = await other.wait_view(lambda v: bool(v.legal.bids), timeout=5)
        assert nxt.deadline is not None
        assert nxt.deadline - clock.time() == 2.0  # a fresh 2 s, not what was left of first's


async def test_leaving_puts_you_back_in_the_lobby_and_snapshot_works_there() -> None:
    async with running() as server:
        s = await Session.open(url(server), "Wanderer")
        await _table(s, name="left behind")
        await s.send(Leave())
        await s.wait_for(Left)
        lobby = await s.wait_for(LobbySnapshot)
        assert isinstance(lobby, LobbySnapshot)
        other = await Session.open(url(server), "Other")
        await _table(other, name="fresh table")
        await eventually(lambda: s.lobby and "fresh table" in [t.name for t in s.lobby.tables])
        assert "fresh table" in [t.name for t in s.lobby.tables]  # type: ignore[union-attr]
        await s.send(SnapshotRequest())
        again = await s.wait_for(LobbySnapshot)
        assert again.view == s.lobby


async def test_an_empty_subprotocol_header_is_no_offer() -> None:
    # What some client libraries send for an empty offer list: the upgrade
    # succeeds without a subprotocol (msgpack), as for no header at all.
    async with running() as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(
            b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: \r\n\r\n"
        )
        head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)).decode()
        writer.close()
        assert head.startswith("HTTP/1.1 101"), head
        assert "sec-websocket-protocol" not in head.lower()


ANNULLING_SEED = "annul-138"
"""A seed whose first deal is annulled as dealt (a petit sec)."""


def _sheet_steps(views: list[TableView]) -> list[tuple[TableView, TableView]]:
    """(before, after) for each update that added a line to the score sheet."""
    return [(a, b) for a, b in itertools.pairwise(views) if len(b.sheet) > len(a.sheet)]


async def test_a_deal_ends_in_one_update_that_keeps_its_number() -> None:
    # The rule (docs/PROTOCOL.md §4.5): the update that ends a deal shows its
    # result, appends its sheet line (numbered as the deal) and updates the
    # totals; the deal keeps its number until the next one is dealt. An
    # annulled deal is dealt again under the same number.
    async with running(deal_pause=0.05) as server:
        s = await Session.open(url(server), "Sheet", keep=True)
        await _table(s, deals=2, seed=ANNULLING_SEED)
        await s.send(StartGame())
        await autoplay(s, random.Random(3), _finished)
        assert s.received is not None
        views = [v for _, v in s.received if v is not None]
        ends = _sheet_steps(views)
        assert len(ends) >= 3 and any(b.deal and b.deal.phase == "annulled" for _, b in ends)
        for before, after in ends:
            assert after.deal and after.deal.phase in ("done", "annulled")
            if before.deal and before.deal.phase not in ("done", "annulled"):
                assert after.deal.number == before.deal.number  # the same deal, now over
            assert len(after.sheet) == len(before.sheet) + 1
            assert after.sheet[-1].number == after.deal.number
            assert after.deal.result is not None
            assert after.deal.result["scores"] == after.sheet[-1].scores
            totals = [sum(line.scores[i] for line in after.sheet) for i in range(4)]
            assert after.scores == totals
        numbers = [v.deal.number for v in views if v.deal and v.deal.phase == "bidding"]
        assert numbers[0] == 1 and numbers[-1] == 2 and numbers == sorted(numbers)
        assert views[-1].deal and views[-1].deal.number == 2
