"""Tables of three and five, end to end: a real server, real WebSockets,
scripted clients playing legal moves to the end of short games; the lobby
by size; and bad input about sizes and the called card, refused with a
documented code and nothing changed."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from clients.session import Session
from protocol.messages import (
    Bid,
    Call,
    CreateTable,
    Error,
    GetHistory,
    History,
    JoinTable,
    LobbyPatch,
    LobbySnapshot,
    QuickPlay,
    Seated,
    StartGame,
)
from protocol.views import TableView
from server.game import replay_record
from server.game.variant import FIVE, THREE, Variant
from tests.server_helpers import autoplay, check_no_leaks, choose, running, url

pytestmark = pytest.mark.asyncio


def _finished(v: TableView) -> bool:
    return v.status == "finished"


async def _create(s: Session, **kw: Any) -> Seated:
    await s.send(CreateTable(**kw))
    seated = await s.wait_for(Seated, Error)
    assert isinstance(seated, Seated), seated
    await s.wait_view(lambda v: v.table_id == seated.table_id)
    return seated


def _taking(view: TableView, rng: random.Random) -> Any:
    """A player who takes a garde when it may, and calls a King it lacks."""
    legal = view.legal
    if legal.bids:
        return Bid(bid="garde" if "garde" in legal.bids else "pass")
    if legal.calls:
        lacking = [c for c in legal.calls if c.startswith("K") and c not in view.hand]
        return Call(card=(lacking or legal.calls)[0])
    return choose(view, rng)


def _check_scores(variant: Variant, view: TableView, records: list[dict[str, Any]]) -> int:
    """Every deal of the sheet is its record's replay, and the scores follow
    the rules of ``variant``'s size; returns the deals scored with a partner."""
    assert len(records) == len(view.sheet)
    with_partner = 0
    for record, line in zip(records, view.sheet, strict=True):
        assert record.get("players", 4) == variant.players
        assert len(record["hands"]) == variant.players
        result = replay_record(record)
        assert "error" not in result, result
        assert result["scores"] == line.scores and len(line.scores) == variant.players
        assert sum(line.scores) == 0
        if line.annulled is not None:
            continue
        taker, base = result["taker"], result["base"]
        partner = result.get("partner")
        assert line.partner == partner
        for seat in variant.seats:
            if seat == taker:
                share = variant.players - 1 if partner is None else variant.players - 3
            elif seat == partner:
                share = 1
            else:
                share = -1
            assert line.scores[seat] == share * base, (seat, result)
        if partner is not None:
            with_partner += 1
    assert view.scores == [sum(line.scores[i] for line in view.sheet) for i in variant.seats]
    assert sum(view.scores) == 0
    return with_partner


def _partner_shown_only_once_played(s: Session) -> int:
    """In every view ``s`` held, ``deal.partner`` is set only once the
    called card has been played; returns how many views showed it."""
    assert s.received
    shown = 0
    for _msg, view in s.received:
        d = view.deal if view is not None else None
        if d is None or d.called is None:
            continue
        played = {c for t in d.tricks for c in t.cards} | set(d.trick.cards if d.trick else [])
        if d.partner is not None:
            assert d.called in played or d.phase == "done"
            shown += 1
    return shown


async def test_three_friends_play_a_three_player_game_to_the_end() -> None:
    async with running() as server:
        players = [await Session.open(url(server), f"P{i}", keep=True) for i in range(3)]
        await _create(players[0], name="three", players=3, deals=2, private=True, seed="three")
        view = await players[0].wait_view(lambda v: v.invite_code is not None)
        assert len(view.seats) == THREE.players and view.scores == [0, 0, 0]
        for p in players[1:]:
            await p.send(JoinTable(code=view.invite_code))
            assert isinstance(await p.wait_for(Seated, Error), Seated)
        # A fourth finds the table full: three seats, no more.
        late = await Session.open(url(server), "Late")
        await late.send(JoinTable(code=view.invite_code))
        refused = await late.wait_for(Seated, Error)
        assert isinstance(refused, Error) and refused.code == "table_full"
        await players[0].send(StartGame())
        views = await asyncio.gather(
            *(autoplay(p, random.Random(i), _finished) for i, p in enumerate(players))
        )
        assert [s.kind for s in views[0].seats] == ["human"] * THREE.players
        assert views[0].deal is not None and views[0].deal.hand_size == THREE.hand_size
        assert len({tuple(v.scores) for v in views}) == 1
        await players[0].send(GetHistory())
        records = (await players[0].wait_for(History)).records
        _check_scores(THREE, views[0], records)
        assert len([line for line in views[0].sheet if line.annulled is None]) == 2
        for p in players:
            check_no_leaks(p, p.seat, records)
            await p.close()
        await late.close()


async def test_two_friends_and_three_bots_play_five_with_a_called_king() -> None:
    async with running() as server:
        alice = await Session.open(url(server), "Alice", keep=True)
        bob = await Session.open(url(server), "Bob", keep=True)
        await _create(alice, name="five", players=5, deals=2, seed="five-1", bot_level="random")
        table = await alice.wait_view(lambda v: v.invite_code is not None)
        await bob.send(JoinTable(code=table.invite_code))
        assert isinstance(await bob.wait_for(Seated, Error), Seated)
        await alice.send(StartGame())
        views = await asyncio.gather(
            autoplay(alice, random.Random(1), _finished, decide=_taking),
            autoplay(bob, random.Random(2), _finished, decide=_taking),
        )
        view = views[0]
        assert [s.kind for s in view.seats].count("bot") == 3 and len(view.seats) == 5
        await alice.send(GetHistory())
        records = (await alice.wait_for(History)).records
        with_partner = _check_scores(FIVE, view, records)
        calls = [r["call"] for r in records if "call" in r]
        assert calls and all(c.startswith("K") for c in calls)
        assert with_partner >= 1  # a called King found its partner
        shown = 0
        for s in (alice, bob):
            check_no_leaks(s, s.seat, records)
            shown += _partner_shown_only_once_played(s)
        assert shown > 0
        await alice.close()
        await bob.close()


async def test_the_lobby_lists_each_tables_size_and_quick_play_keeps_to_it() -> None:
    async with running() as server:
        host = await Session.open(url(server), "Host")
        await _create(host, name="for five", players=5)
        watcher = await Session.open(url(server), "Watcher")
        await watcher.wait_for(
            LobbySnapshot, LobbyPatch, where=lambda _: bool(watcher.lobby and watcher.lobby.tables)
        )
        assert watcher.lobby is not None
        [listed] = watcher.lobby.tables
        assert (listed.players, listed.free) == (5, 4)
        # Quick play for three opens a table of three: the five's free seats
        # are not offered.
        await watcher.send(QuickPlay(players=3))
        seated = await watcher.wait_for(Seated, Error)
        assert isinstance(seated, Seated)
        view = await watcher.wait_view(lambda v: v.table_id == seated.table_id)
        assert len(view.seats) == 3 and view.deals == 2 * 3  # each seat deals twice
        # Quick play for five sits at the five's table.
        third = await Session.open(url(server), "Third")
        await third.send(QuickPlay(players=5))
        seated = await third.wait_for(Seated, Error)
        assert isinstance(seated, Seated) and seated.table_id == listed.table_id
        for s in (host, watcher, third):
            await s.close()


# -- bad input ---------------------------------------------------------------------


async def _refused(s: Session, command: Any, code: str) -> Error:
    """``command`` is refused with ``code`` and changes nothing: no patch
    comes before the answer to a ``history`` sent after it (the table takes
    commands in order; it waits for a human, so no bot moves meanwhile)."""
    seq = s.table_seq
    rid = await s.send(command)
    error = await s.wait_for(Error, where=lambda e: e.rid == rid)
    assert error.code == code, error
    assert error.message and "_" not in error.message.split()[0]  # words for a person
    await s.send(GetHistory())
    await s.wait_for(History)
    assert s.table_seq == seq, f"{command} changed the table"
    return error


async def test_sizes_other_than_three_to_five_are_refused_and_open_nothing() -> None:
    async with running() as server:
        s = await Session.open(url(server), "Alice")
        for players in (2, 6, 0):
            rid = await s.send(CreateTable(players=players))
            error = await s.wait_for(Error, where=lambda e, rid=rid: e.rid == rid)
            assert error.code == "bad_players" and str(players) in error.message
        rid = await s.send(QuickPlay(players=6))
        error = await s.wait_for(Error, where=lambda e: e.rid == rid)
        assert error.code == "bad_players"
        assert s.table_id is None and len(server.lobby.tables) == 0
        await s.close()


async def test_a_call_where_none_is_due_is_refused_and_changes_nothing() -> None:
    async with running() as server:
        # A table of four: nobody calls.
        four = await Session.open(url(server), "Four")
        await _create(four, players=4, deals=1, seed="four")
        await four.send(StartGame())
        await four.wait_view(lambda v: bool(v.legal.bids))  # the table waits for us
        error = await _refused(four, Call(card="KH"), "wrong_phase")
        assert "table of 4" in error.message
        await four.close()
        # A table of five: two humans, three bots.
        alice = await Session.open(url(server), "Alice")
        bob = await Session.open(url(server), "Bob")
        await _create(alice, players=5, deals=1, seed="calls", bot_level="normal")
        table = await alice.wait_view(lambda v: v.invite_code is not None)
        await bob.send(JoinTable(code=table.invite_code))
        assert isinstance(await bob.wait_for(Seated, Error), Seated)
        await alice.send(StartGame())
        # Out of phase: nobody took yet (the table waits for Alice's bid).
        await alice.wait_view(lambda v: bool(v.legal.bids))
        await _refused(alice, Call(card="KH"), "wrong_phase")

        def taking(view: TableView, rng: random.Random) -> Any:
            legal = view.legal
            return Bid(bid=legal.bids[-1]) if legal.bids else choose(view, rng)

        def called(v: TableView) -> bool:
            # (or over: then a bot took and called, and the test says so)
            return v.deal is not None and v.deal.phase in ("call", "done", "annulled")

        at_call = await asyncio.gather(
            autoplay(alice, random.Random(1), called, decide=taking),
            autoplay(bob, random.Random(2), called, decide=taking),
        )
        deal = at_call[0].deal
        assert deal is not None and deal.taker in (alice.seat, bob.seat), "a human took"
        taker, other = (alice, bob) if deal.taker == alice.seat else (bob, alice)
        calls = taker.table.legal.calls if taker.table else []
        assert calls and other.table is not None and not other.table.legal.calls
        # Out of turn, then cards that may not be called.
        await _refused(other, Call(card=calls[0]), "not_your_turn")
        not_callable = next(c for c in ("QH", "T21", "1S", "EX") if c not in calls)
        error = await _refused(taker, Call(card=not_callable), "bad_call")
        assert not_callable in error.message
        await _refused(taker, Call(card="ZZ"), "bad_call")
        # The good call goes through, public to all at once.
        await taker.send(Call(card=calls[0]))
        for s in (taker, other):
            view = await s.wait_view(lambda v: v.deal is not None and v.deal.called is not None)
            assert view.deal is not None and view.deal.called == calls[0]
            assert view.deal.partner is None
        await _refused(taker, Call(card=calls[0]), "wrong_phase")  # called already
        for s in (alice, bob):
            await s.close()
