"""Tournament standings and exports (server/tournament/standings.py, export.py),
checked against hand computations written next to each assertion."""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from protocol.tournaments import (
    StandingLine,
    TournamentFormat,
    TournamentPlayer,
    TournamentSettings,
    TournamentView,
)
from server.tournament.export import DEAL_COLUMNS, STANDING_COLUMNS, export_csv, export_json
from server.tournament.standings import deal_scores, standings
from server.tournament.state import RoundState, TableEntry, TournamentState
from server.tournament.views import view_for

Seat = str | None
_ids = itertools.count(1)


def _table(
    number: int,
    seats: list[Seat],
    scores: list[list[int]],
    *,
    seed: str = "",
    finished: bool = True,
) -> TableEntry:
    return TableEntry(
        number=number,
        size=len(seats),
        seats=seats,
        names=[s if s is not None else f"Bot {i}" for i, s in enumerate(seats)],
        table_id=f"table-{next(_ids)}",
        deal_seed=seed,
        scores=scores,
        finished=finished,
    )


def _state(
    fmt: TournamentFormat,
    rounds: list[list[TableEntry]],
    teams: dict[str, str] | None = None,
    *,
    deals: int = 2,
) -> TournamentState:
    """Players are named by their ids (A, B, ...), in the order first seated."""
    ids: list[str] = []
    for tables in rounds:
        for table in tables:
            ids += [s for s in table.seats if s is not None and s not in ids]
    teams = teams or {}
    return TournamentState(
        code="ABCD",
        settings=TournamentSettings(
            name="Friday", rounds=len(rounds), deals=deals, format=fmt, team_size=2 if teams else 0
        ),
        host="A",
        host_name="A",
        seed="the-secret-seed",
        status="playing",
        players=[TournamentPlayer(player_id=p, name=p, team=teams.get(p, "")) for p in ids],
        rounds=[RoundState(number=i + 1, tables=t) for i, t in enumerate(rounds)],
    )


def _table_of(lines: list[StandingLine]) -> list[tuple[int, str, float, int, int]]:
    return [(line.position, line.name, line.score, line.points, line.deals) for line in lines]


def _free() -> TournamentState:
    """Two rounds of 2 deals, a table of 3 and one of 5 in each."""
    return _state(
        "free",
        [
            [
                _table(1, ["A", "B", "C"], [[100, -50, -50], [-60, 120, -60]]),
                _table(
                    2, ["D", "E", "F", "G", "H"], [[120, 60, -60, -60, -60], [-200, 50] + [50] * 3]
                ),
            ],
            [
                _table(1, ["A", "B", "C", "D", "E"], [[-40, -40, 80, 40, -40], [0] * 5]),
                _table(2, ["F", "G", "H"], [[-70, 140, -70], [40, -80, 40]]),
            ],
        ],
    )


def test_free_scales_tables_of_three_and_five_to_four() -> None:
    players, teams = standings(_free())
    # A point at 3 counts 3/2 = 1.5, at 5 3/4 = 0.75.
    # A: r1 at 3: 100 - 60 = 40 -> 60;   r2 at 5: -40 + 0 = -40 -> -30.  0 pts, 30
    # B: r1 at 3: -50 + 120 = 70 -> 105; r2 at 5: -40 -> -30.           30 pts, 75
    # C: r1 at 3: -110 -> -165;          r2 at 5: 80 -> 60.             -30 pts, -105
    # D: r1 at 5: 120 - 200 = -80 -> -60; r2 at 5: 40 -> 30.            -40 pts, -30
    # E: r1 at 5: 60 + 50 = 110 -> 82.5; r2 at 5: -40 -> -30.           70 pts, 52.5
    # F: r1 at 5: -10 -> -7.5; r2 at 3: -70 + 40 = -30 -> -45.          -40 pts, -52.5
    # G: r1 at 5: -10 -> -7.5; r2 at 3: 140 - 80 = 60 -> 90.            50 pts, 82.5
    # H: as F.                                                          -40 pts, -52.5
    assert _table_of(players) == [
        (1, "G", 82.5, 50, 4),
        (2, "B", 75.0, 30, 4),
        (3, "E", 52.5, 70, 4),
        (4, "A", 30.0, 0, 4),
        (5, "D", -30.0, -40, 4),
        (6, "F", -52.5, -40, 4),  # F and H level: one position, by name
        (6, "H", -52.5, -40, 4),
        (8, "C", -105.0, -30, 4),
    ]
    assert teams == []
    assert not any(line.you for line in players)
    assert all(line.player_id == line.name for line in players)


def test_free_ignores_a_table_still_playing_and_keeps_a_removed_player() -> None:
    state = _free()
    state.rounds[1].tables[1].finished = False  # F, G, H still at round 2
    state.players[0].removed = True  # A
    players, _ = standings(state)
    got = {line.name: (line.score, line.points, line.deals) for line in players}
    # F, G, H: round 1 only, 0.75 x -10 = -7.5 each.
    assert got["F"] == got["G"] == got["H"] == (-7.5, -10, 2)
    assert got["A"] == (30.0, 0, 4)
    # The others as before: B 75, E 52.5, A 30, D -30, C -105.
    assert [(line.position, line.name) for line in players] == [
        (1, "B"),
        (2, "E"),
        (3, "A"),
        (4, "F"),
        (4, "G"),
        (4, "H"),
        (7, "D"),
        (8, "C"),
    ]


def test_nothing_finished_everyone_level_at_zero() -> None:
    state = _free()
    for rnd in state.rounds:
        for table in rnd.tables:
            table.finished = False
    players, _ = standings(state)
    assert _table_of(players) == [(1, p, 0.0, 0, 0) for p in "ABCDEFGH"]


def _duplicate() -> TournamentState:
    """One round of 2 deals: three tables of 3 on the same cards (one seat a
    bot) and a table of 4 alone on its own cards."""
    seed3, seed4 = "r1-three", "r1-four"
    return _state(
        "duplicate",
        [
            [
                _table(1, ["A", "B", "C"], [[100, -50, -50], [-60, 120, -60]], seed=seed3),
                _table(2, ["D", "E", "F"], [[100, -50, -50], [-140, -140, 280]], seed=seed3),
                _table(3, ["G", None, "H"], [[-80, 40, 40], [-60, 120, -60]], seed=seed3),
                _table(
                    4, ["J", "K", "L", "M"], [[90, -30, -30, -30], [-30] * 3 + [90]], seed=seed4
                ),
            ]
        ],
    )


def test_duplicate_ranks_each_result_among_the_same_cards() -> None:
    players, _ = standings(_duplicate())
    # Each result: (others beaten + half the others tied) / others.
    # Deal 1, seat 0: 100, 100, -80: A and D beat 1, tie 1 -> 1.5/2 = 75; G 0.
    #         seat 1: -50, -50, 40(bot): B and E 0.5/2 = 25; the bot 100.
    #         seat 2: -50, -50, 40: C, F 25; H 100.
    # Deal 2, seat 0: -60, -140, -60: A, G 75; D 0.
    #         seat 1: 120, -140, 120(bot): B 75; E 0.
    #         seat 2: -60, 280, -60: C, H 25; F 100.
    # Means: A (75+75)/2 = 75; B (25+75)/2 = 50; C 25; D (75+0)/2 = 37.5;
    # E 12.5; F (25+100)/2 = 62.5; G (0+75)/2 = 37.5; H (100+25)/2 = 62.5.
    # The table of 4 is alone on its cards: 50 on every deal, J K L M 50.
    assert _table_of(players) == [
        (1, "A", 75.0, 40, 2),
        (2, "F", 62.5, 230, 2),
        (2, "H", 62.5, -20, 2),
        (4, "B", 50.0, 70, 2),
        (4, "J", 50.0, 60, 2),
        (4, "K", 50.0, -60, 2),
        (4, "L", 50.0, -60, 2),
        (4, "M", 50.0, 60, 2),
        (9, "D", 37.5, -40, 2),
        (9, "G", 37.5, -140, 2),
        (11, "C", 25.0, -110, 2),
        (12, "E", 12.5, -190, 2),
    ]


def test_duplicate_waits_for_every_table_on_the_same_cards() -> None:
    state = _duplicate()
    state.rounds[0].tables[2].finished = False  # G, bot, H
    players, _ = standings(state)
    got = {line.name: (line.score, line.deals) for line in players}
    # Tables 1 and 2 are done, but table 3 still plays their cards: nothing
    # of theirs counts yet (it would tell table 3 what is coming). The table
    # of 4 is alone on its cards and counts.
    assert all(got[p] == (0.0, 0) for p in "ABCDEFGH")
    assert all(got[p] == (50.0, 2) for p in "JKLM")


def test_duplicate_thirds_round_to_a_hundredth() -> None:
    # Four tables of 3 on one deal, seat 0: 30, 20, 20, 10.
    # 30 beats 3 -> 100; 20 beats 1, ties 1 -> 1.5/3 = 50; 10 -> 0.
    # Deal 2, seat 0: 10, 20, 30, 30 -> A 0, B 1/3 = 33.33.., C and D 2.5/3.
    # A: (100 + 0)/2 = 50; B: (50 + 33.33)/2 = 41.666.. -> 41.67;
    # C: (50 + 83.33)/2 = 66.67; D: (0 + 83.33)/2 = 41.67.
    seed = "r1"
    deals = [(30, 10), (20, 20), (20, 30), (10, 30)]
    tables = [
        _table(i + 1, [p, None, None], [[a, 0, 0], [b, 0, 0]], seed=seed)
        for i, (p, (a, b)) in enumerate(zip("ABCD", deals, strict=True))
    ]
    players, _ = standings(_state("duplicate", [tables]))
    assert _table_of(players) == [
        (1, "C", 66.67, 50, 2),
        (2, "A", 50.0, 40, 2),
        (3, "B", 41.67, 40, 2),
        (3, "D", 41.67, 40, 2),
    ]


def test_teams_of_two_add_their_members_up() -> None:
    teams = {"A": "Nord", "C": "Nord", "B": "Sud", "D": "Sud"}
    deals = [[90, -30, -30, -30], [-30, -30, 90, -30]]
    players, team_lines = standings(
        _state("free", [[_table(1, ["A", "B", "C", "D"], deals)]], teams)
    )
    # A: 90 - 30 = 60; B: -30 - 30 = -60; C: -30 + 90 = 60; D: -30 - 30 = -60.
    assert _table_of(players) == [
        (1, "A", 60.0, 60, 2),
        (1, "C", 60.0, 60, 2),
        (3, "B", -60.0, -60, 2),
        (3, "D", -60.0, -60, 2),
    ]
    # Nord: 60 + 60 = 120 over 4 deals; Sud: -60 - 60 = -120.
    assert _table_of(team_lines) == [(1, "Nord", 120.0, 120, 4), (2, "Sud", -120.0, -120, 4)]
    assert all(line.player_id is None and line.team == line.name for line in team_lines)


def test_duplicate_teams_add_their_mean_percentages() -> None:
    state = _duplicate()
    teams = {"A": "Un", "E": "Un", "F": "Deux", "J": "Deux", "C": "Trois", "H": "Trois"}
    for player in state.players:
        player.team = teams.get(player.player_id, "")
    state.settings.team_size = 2
    _, team_lines = standings(state)
    # Un: A 75 + E 12.5 = 87.5; Deux: F 62.5 + J 50 = 112.5; Trois: C 25 + H 62.5 = 87.5.
    assert _table_of(team_lines) == [
        (1, "Deux", 112.5, 290, 4),
        (2, "Trois", 87.5, -130, 4),
        (2, "Un", 87.5, -150, 4),
    ]


def _csv_table(state: TournamentState, table: str) -> list[list[str]]:
    """One CSV export, parsed: one table, its header first, no blank line."""
    rows = list(csv.reader(io.StringIO(export_csv(state, table))))
    assert all(rows), f"a blank line in the {table} CSV: one table per file"
    return rows


def _check_csv_totals(state: TournamentState) -> list[list[list[str]]]:
    deals, table = _csv_table(state, "deals"), _csv_table(state, "standings")
    sections = [deals, table, _csv_table(state, "teams")]
    header = deals[0]
    rows = [dict(zip(header, row, strict=True)) for row in deals[1:]]
    players, _ = standings(state)
    assert table[0] == ["position", "name", "player_id", "team", "score", "points", "deals"]
    assert [row[1] for row in table[1:]] == [line.name for line in players]
    duplicate = state.settings.format == "duplicate"
    for line, row in zip(players, table[1:], strict=True):
        mine = [r for r in rows if r["player_id"] == line.player_id]
        assert len(mine) == line.deals == int(row[6])
        assert sum(int(r["points"]) for r in mine) == line.points == int(row[5])
        total = sum(float(r["score"]) for r in mine)
        if duplicate:
            # Each deal's percentage is written to 0.01: their mean is within
            # 0.005 of the unrounded mean, which rounds to the standings' score.
            assert abs(total / max(1, len(mine)) - line.score) <= 0.01
        else:
            assert total == line.score  # multiples of 0.25: exact
        assert float(row[4]) == line.score
    return sections


def test_csv_parses_back_and_adds_up_to_the_standings() -> None:
    sections = _check_csv_totals(_free())
    assert len(sections[2]) == 1  # no teams: the teams' file has its header only
    first = sections[0][:2]
    assert first[0] == [
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
    ]
    # Round 1, table 1 (of 3), the first seat (1, as on screen) is A: deal 1,
    # 100 points -> 150.
    assert first[1] == ["1", "1", "3", "1", "A", "A", "", "1", "100", "150.00"]
    assert {row[3] for row in sections[0][1:]} <= {"1", "2", "3", "4", "5"}
    sections = _check_csv_totals(_duplicate())
    assert not any(row[4] == "" for row in sections[0][1:])  # the bot has no line


def test_csv_lists_the_teams_after_the_players() -> None:
    state = _duplicate()
    for player in state.players:
        player.team = "Un" if player.player_id in "ABCDEF" else "Deux"
    state.settings.team_size = 2
    sections = _check_csv_totals(state)
    assert sections[2][0] == ["position", "name", "player_id", "team", "score", "points", "deals"]
    # Un: A 75 + B 50 + C 25 + D 37.5 + E 12.5 + F 62.5 = 262.5;
    # Deux: G 37.5 + H 62.5 + J, K, L, M 4 x 50 = 300.
    assert [row[:5] for row in sections[2][1:]] == [
        ["1", "Deux", "", "Deux", "300.00"],
        ["2", "Un", "", "Un", "262.50"],
    ]


def _view(state: TournamentState) -> TournamentView:
    return view_for(state, None, 0.0)  # the view anyone may see


def test_json_holds_everything_and_each_table_its_records() -> None:
    state = _duplicate()
    state.rounds[0].tables[1].finished = False  # table 2 still on the cards of 3
    records: dict[str, list[dict[str, Any]]] = {
        t.table_id: [{"dealer": k, "hands": [["T21"]], "n": t.number} for k in range(2)]
        for t in state.rounds[0].tables
    }
    raw = export_json(_view(state), state, records)
    whole = json.loads(raw)
    assert whole["code"] == "ABCD" and whole["settings"]["format"] == "duplicate"
    assert [p["player_id"] for p in whole["players"]] == [p.player_id for p in state.players]
    players, _ = standings(state)
    assert [(s["name"], s["score"]) for s in whole["standings"]] == [
        (line.name, line.score) for line in players
    ]
    assert whole["teams"] == []
    tables = whole["rounds"][0]["tables"]
    assert [t["number"] for t in tables] == [1, 2, 3, 4]
    # Tables of 3: table 2 still plays, so the cards of 3 are withheld
    # everywhere (table 1's records would show table 2 its hands).
    for t in tables[:3]:
        assert t["withheld"] and t["records"] == [] and t["scores"] == []
    four = tables[3]
    assert not four["withheld"] and four["finished"]
    assert four["records"] == records[four["table_id"]]
    assert four["scores"] == [[90, -30, -30, -30], [-30, -30, -30, 90]]
    assert four["deal_scores"] == [[50.0] * 4] * 2
    assert [s["player_id"] for s in four["seats"]] == ["J", "K", "L", "M"]
    assert tables[2]["seats"][1] == {"seat": 1, "player_id": None, "name": "Bot 1", "team": ""}
    # The seeds the deals come from stay secret.
    assert b"the-secret-seed" not in raw and b"r1-three" not in raw and b"r1-four" not in raw


def test_json_of_a_finished_duplicate_round_shows_every_table() -> None:
    state = _duplicate()
    records = {t.table_id: [{"dealer": 0, "n": t.number}] for t in state.rounds[0].tables}
    whole = json.loads(export_json(_view(state), state, records))
    tables = whole["rounds"][0]["tables"]
    assert [t["records"] for t in tables] == [[{"dealer": 0, "n": n}] for n in (1, 2, 3, 4)]
    # Deal 2, seat 1 at table 2: -140 below 120 and 120 -> 0; the bot's 120 at table 3 -> 75.
    assert tables[1]["deal_scores"][1] == [0.0, 0.0, 100.0]
    assert tables[2]["deal_scores"][1] == [75.0, 75.0, 25.0]


_scores = st.sampled_from([-300, -120, -60, -30, 0, 30, 60, 120, 300])


@st.composite
def _duplicate_round(draw: st.DrawFn) -> TournamentState:
    size = draw(st.integers(3, 5))
    count = draw(st.integers(2, 7))
    deals = draw(st.integers(1, 4))
    tables = []
    for n in range(count):
        seats: list[Seat] = [draw(st.sampled_from([None, f"p{n}-{s}"])) for s in range(size)]
        scores = [[draw(_scores) for _ in range(size)] for _ in range(deals)]
        tables.append(_table(n + 1, seats, scores, seed="same"))
    return _state("duplicate", [tables], deals=deals)


@given(_duplicate_round())
def test_duplicate_percentages_average_fifty_in_each_group(state: TournamentState) -> None:
    # Among n results, the pairs split their 100 points: each pair's better
    # result takes the win (a tie splits it), so the percentages sum to
    # 100 x (pairs) / (n - 1) = 50 n.
    groups: dict[tuple[int, int], list[float]] = defaultdict(list)
    for result in deal_scores(state):
        groups[(result.deal, result.seat)].append(result.score)
    tables = len(state.rounds[0].tables)
    assert len(groups) == len(state.rounds[0].tables[0].scores) * state.rounds[0].tables[0].size
    for percents in groups.values():
        assert len(percents) == tables
        assert abs(sum(percents) / len(percents) - 50.0) < 1e-9
        assert all(0.0 <= p <= 100.0 for p in percents)


def test_the_docs_name_the_csv_columns_as_the_files_head_them() -> None:
    # A client written from the docs reads the files by these headers.
    root = Path(__file__).resolve().parent.parent
    deals, standing = ",".join(DEAL_COLUMNS), ",".join(STANDING_COLUMNS)
    for doc in ("PROTOCOL.md", "TOURNAMENTS.md"):
        text = (root / "docs" / doc).read_text(encoding="utf-8")
        assert f"`{deals}`" in text and f"`{standing}`" in text, doc
    text = (root / "docs" / "TOURNAMENTS.md").read_text(encoding="utf-8")
    example = text[text.index(deals + "\n") :].split("```")[0].splitlines()
    rows = [dict(zip(DEAL_COLUMNS, r.split(","), strict=True)) for r in example[1:]]
    assert rows and all(1 <= int(r["seat"]) <= int(r["players"]) for r in rows)
