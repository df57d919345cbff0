"""Scripted tournament players (``Entrant``): a real ``Session`` with a
player key that follows one tournament, sits at each round's table as the
``tournament`` view says (``your_table``) and plays it through with random
legal moves; and the reference computation of standings from deal records
(``reference_scores``), to check the server's against."""

from __future__ import annotations

import asyncio
import random
import secrets
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any, Self

import pytest

from clients.session import Session
from protocol.messages import Error, JoinTable, Leave, Left, Seated, Tournament
from protocol.tournaments import TournamentView
from server.daily.ranking import compare
from server.game.replay import replay_record
from tests.support.clients import autoplay, finished


class Entrant:
    """One scripted player of a tournament."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.view: TournamentView | None = None
        self._changed = asyncio.Event()
        self.played: list[str] = []
        """The tables this player sat at and played through, in order."""
        session.on_change = self._heard

    @classmethod
    async def open(cls, url: str, name: str, key: str | None = None) -> Self:
        """A new player (a new key), or the player of ``key`` coming back."""
        if key is not None:
            return cls(await Session.open(url, name, key=key))
        return cls(await Session.open(url, name, key=secrets.token_hex(16), register=True))

    def _heard(self, msg: Any) -> None:
        if isinstance(msg, Tournament):
            self.view = msg.view
            self._changed.set()

    async def until(
        self, holds: Callable[[TournamentView], bool], timeout: float = 30.0
    ) -> TournamentView:
        """The tournament view once ``holds(view)``."""

        async def loop() -> TournamentView:
            while self.view is None or not holds(self.view):
                self._changed.clear()
                await self._changed.wait()
            return self.view

        return await asyncio.wait_for(loop(), timeout)

    async def ask(self, msg: Any, timeout: float = 10.0) -> Any:
        """Send a tournament command; its answer (a ``Tournament`` or an ``Error``)."""
        rid = await self.session.send(msg)
        return await self.session.wait_for(
            Tournament, Error, timeout=timeout, where=lambda m: m.rid == rid
        )

    async def play(self, rng: random.Random, timeout: float = 120.0) -> TournamentView:
        """Sit at every round's table and play it, until the tournament is over."""

        def next_step(v: TournamentView) -> bool:
            return v.status == "finished" or (
                v.your_table is not None and v.your_table not in self.played
            )

        async def rounds() -> TournamentView:
            while True:
                view = await self.until(next_step, timeout)
                table = view.your_table
                if table is None or table in self.played:
                    return view  # finished, and this player's last table played
                await self.sit(table)
                await autoplay(self.session, rng, finished, timeout=timeout)
                self.played.append(table)

        return await asyncio.wait_for(rounds(), timeout)

    async def sit(self, table: str) -> None:
        """Leave the table this player is at (if any), sit at ``table``."""
        s = self.session
        if s.table_id is not None:
            await s.send(Leave())
            await s.wait_for(Left)
        rid = await s.send(JoinTable(table_id=table))
        # The answer to this join (not a late refusal of a move at the table before).
        answer = await s.wait_for(Seated, Error, where=lambda m: m.rid == rid)
        assert isinstance(answer, Seated), answer
        await s.wait_view(lambda v: v.table_id == table)

    async def close(self) -> None:
        await self.session.close()


def reference_scores(export: Mapping[str, Any], fmt: str) -> dict[str, float]:
    """Each player's tournament score, computed again from the exported deal
    records alone (each record scored by ``replay_record``): free, the sum of
    points scaled to a table of four (× 3 / (players − 1)); duplicate, the mean
    over the player's deals of the share of the results at the same seat on
    the same cards beaten (ties half; alone: 50)."""
    results: dict[str, list[float]] = {}
    groups: dict[tuple[Any, ...], list[int]] = {}
    seated: list[tuple[str, tuple[Any, ...], int]] = []
    for played in export["rounds"]:
        for table in played["tables"]:
            size = table["players"]
            for k, record in enumerate(table["records"]):
                scores = replay_record(record)["scores"]
                for seat, at in enumerate(table["seats"]):
                    player = at["player_id"]
                    group = (played["number"], size, k, seat)
                    groups.setdefault(group, []).append(scores[seat])
                    if player is not None:
                        seated.append((player, group, scores[seat]))
    for player, group, score in seated:
        if fmt == "free":
            size = group[1]
            results.setdefault(player, []).append(score * 3 / (size - 1))
        else:
            counts: dict[int, int] = {}
            for s in groups[group]:
                counts[s] = counts.get(s, 0) + 1
            against = compare(score, counts)
            others = against.others
            share = 50.0 if others == 0 else 100 * (against.beaten + against.tied / 2) / others
            results.setdefault(player, []).append(share)
    if fmt == "free":
        return {p: round(sum(v), 2) for p, v in results.items()}
    return {p: round(sum(v) / len(v), 2) for p, v in results.items()}


def fetch(port: int, path: str) -> tuple[int, str, bytes]:
    """GET ``path`` from the server on ``port``: status, content type, body."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


def check_standings(final: TournamentView, export: dict[str, Any], fmt: str) -> None:
    """The standings of ``final`` are those computed again from ``export``."""
    reference = reference_scores(export, fmt)
    shown = {line.player_id: line.score for line in final.standings}
    assert set(shown) == set(reference)
    for player, score in reference.items():
        assert shown[player] == pytest.approx(score, abs=0.011), player
    scores = [line.score for line in final.standings]
    assert scores == sorted(scores, reverse=True)
