"""A tournament's exports: the whole of it as JSON (settings, players,
standings, every table with its seats, per-deal scores and deal records) and
its results as CSV files, one table each (a spreadsheet opens one table per
file): the standings, every player's deals, and with teams the teams'
standings. Pure: the service gathers the deal records from the table
store and sends the bytes.

What is withheld: a table's scores and records appear once they count in the
standings (``server.tournament.standings.counted``). In ``duplicate`` a table
that finished first would otherwise show the cards that the other tables of
its size are still playing; the table is listed with ``"withheld": true``.
A ``free`` table's finished deals hide nothing from anyone (no other table
plays its cards), so they are shown as they come. Neither the tournament's
seed nor a table's deal seed is exported: future deals come from them.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any

import msgspec

from protocol.tournaments import StandingLine, TournamentView
from server.tournament.standings import DealScore, counted, deal_scores, standings
from server.tournament.state import TournamentState

DEAL_COLUMNS = (
    "round",
    "table",
    "players",
    "seat",
    "player_id",
    "name",
    "team",
    "deal",
    "points",
    "score",
)
"""The deals CSV's columns: ``table``, ``seat`` and ``deal`` count from 1, as
every screen numbers them (a deal record's ``hands[seat]`` is seat
``seat - 1`` here); ``score`` is what the deal adds to the standings (free:
the points scaled to a table of four; duplicate: the percentage)."""
STANDING_COLUMNS = ("position", "name", "player_id", "team", "score", "points", "deals")


def export_json(
    view: TournamentView, state: TournamentState, records: Mapping[str, list[dict[str, Any]]]
) -> bytes:
    """The whole tournament, indented JSON.

    ``records``: table id -> that table's deal records, oldest first, as the
    table store keeps them (decoded JSON). Standings are computed afresh
    (``you`` false on every line: the file is the same for everyone).
    """
    players, teams = standings(state)
    per_deal: dict[tuple[int, int], list[list[float | None]]] = {}
    for result in deal_scores(state):
        rows = per_deal.setdefault((result.round, result.table.number), [])
        while len(rows) <= result.deal:
            rows.append([None] * result.table.size)
        rows[result.deal][result.seat] = round(result.score, 2)
    team_of = {p.player_id: p.team for p in state.players}
    rounds = []
    duplicate = state.settings.format == "duplicate"
    for rnd in state.rounds:
        tables = []
        for table in rnd.tables:
            shown = not duplicate or counted(state, rnd, table)
            seats = [
                {
                    "seat": s,
                    "player_id": pid,
                    "name": table.names[s] if s < len(table.names) else "",
                    "team": team_of.get(pid, "") if pid else "",
                }
                for s, pid in enumerate(table.seats)
            ]
            tables.append(
                {
                    "number": table.number,
                    "table_id": table.table_id,
                    "players": table.size,
                    "finished": table.finished,
                    "withheld": not shown,
                    "seats": seats,
                    "scores": table.scores if shown else [],
                    "deal_scores": per_deal.get((rnd.number, table.number), []),
                    "records": list(records.get(table.table_id, ())) if shown else [],
                }
            )
        rounds.append({"number": rnd.number, "started_at": rnd.started_at, "tables": tables})
    whole = {
        "code": view.code,
        "settings": view.settings,
        "host": view.host,
        "host_name": view.host_name,
        "status": view.status,
        "round": view.round,
        "created_at": state.created_at,
        "players": state.players,
        "standings": players,
        "teams": teams,
        "rounds": rounds,
    }
    return msgspec.json.format(msgspec.json.encode(whole), indent=2) + b"\n"


def _deal_row(state: TournamentState, result: DealScore) -> list[str | int]:
    pid = result.player_id or ""
    player = state.player(pid)
    table = result.table
    names = table.names
    name = player.name if player else (names[result.seat] if result.seat < len(names) else "")
    return [
        result.round,
        table.number,
        table.size,
        result.seat + 1,  # as on screen; the JSON and deal records count from 0
        pid,
        name,
        player.team if player else "",
        result.deal + 1,
        result.points,
        f"{result.score:.2f}",
    ]


def _standing_row(line: StandingLine) -> list[str | int]:
    return [
        line.position,
        line.name,
        line.player_id or "",
        line.team,
        f"{line.score:.2f}",
        line.points,
        line.deals,
    ]


CSV_TABLES = ("standings", "deals", "teams")
"""The CSV files of a tournament (``/tournaments/CODE.csv``, ``CODE.deals.csv``,
``CODE.teams.csv``: server/tournament/http.py)."""


def export_csv(state: TournamentState, table: str = "standings") -> str:
    """One table of the results, with its header line:

    - ``standings``: the players' standings (``STANDING_COLUMNS``);
    - ``deals``: one line per player per deal counted (``DEAL_COLUMNS``; bots
      get none), from which the standings can be computed again;
    - ``teams``: the teams' standings (``STANDING_COLUMNS``, no player id;
      only the header when the tournament has no teams).
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if table == "deals":
        writer.writerow(DEAL_COLUMNS)
        rows = deal_scores(state)
        writer.writerows(_deal_row(state, r) for r in rows if r.player_id is not None)
        return out.getvalue()
    if table not in CSV_TABLES:
        raise ValueError(f"no CSV table {table!r}")
    players, teams = standings(state)
    writer.writerow(STANDING_COLUMNS)
    lines = players if table == "standings" else teams if state.settings.team_size else []
    writer.writerows(_standing_row(line) for line in lines)
    return out.getvalue()
