"""The persisted tournament: ``TournamentState``, the one value a store keeps
per tournament (msgpack), with its rounds and each round's tables.

Saved whole after every accepted change, under a version the store checks
(two processes may change one tournament: the later write is refused and
retried, ``server.tournament.store``). New fields always get a default so
that a state saved by an older server still decodes.
"""

from __future__ import annotations

import msgspec

from protocol.tournaments import TournamentPlayer, TournamentSettings, TournamentStatus


class TableEntry(msgspec.Struct, kw_only=True):
    """One table of a round, as the tournament knows it."""

    number: int
    """1 for the round's first table."""
    size: int
    """Seats at the table: 3, 4 or 5."""
    seats: list[str | None]
    """The player id at each seat, in seat order; None: a bot."""
    names: list[str] = msgspec.field(default_factory=list)
    """The name shown at each seat (a player's, or a bot's)."""
    table_id: str = ""
    """The table's id once opened ("" before)."""
    deal_seed: str = ""
    """Where the table's deals come from: in ``duplicate`` the same for every
    table of one size in a round (each seat holds the same cards there)."""
    scores: list[list[int]] = msgspec.field(default_factory=list)
    """Each deal dealt, in order (annulled ones: all 0), each seat's points."""
    finished: bool = False


class RoundState(msgspec.Struct, kw_only=True):
    number: int
    """1 for the first round."""
    started_at: float = 0.0
    tables: list[TableEntry] = msgspec.field(default_factory=list)

    @property
    def finished(self) -> bool:
        return all(t.finished for t in self.tables)


class TournamentState(msgspec.Struct, kw_only=True):
    code: str
    settings: TournamentSettings
    host: str
    """The host's player id."""
    host_name: str = ""
    created_at: float = 0.0
    seed: str = ""
    """The tournament's secret seed: its movements and its deals come from it."""
    status: TournamentStatus = "gathering"
    players: list[TournamentPlayer] = msgspec.field(default_factory=list)
    rounds: list[RoundState] = msgspec.field(default_factory=list)
    hurried: int = 0
    """The round whose host had bots finish it (0: none): every process
    hands that round's tables it serves to bots (server/tournament/service.py)."""
    version: int = 0

    def player(self, player_id: str) -> TournamentPlayer | None:
        return next((p for p in self.players if p.player_id == player_id), None)

    @property
    def current(self) -> RoundState | None:
        return self.rounds[-1] if self.rounds else None


encode_tournament = msgspec.msgpack.Encoder().encode
decode_tournament = msgspec.msgpack.Decoder(TournamentState).decode
