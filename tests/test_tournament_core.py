"""The tournament's decisions, pure (server/tournament/core.py): who may
join, leave, start, remove and hurry, and how a round's end leads to the
next round or to the end — each refusal changing nothing."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.tournaments import TournamentSettings
from server.tournament import core
from server.tournament.state import TournamentState

NOW = 1_000_000.0


def gathered(players: int, **chosen: object) -> TournamentState:
    settings = TournamentSettings(**chosen)  # type: ignore[arg-type]
    state = core.create("ABCDEF", settings, "p0", "Ann", NOW, "seed")
    for k in range(players):
        assert core.join(state, f"p{k}", f"N{k}", "") is None
    return state


def refused(refusal: core.Refusal | None) -> str | None:
    """The error code of a refusal (None: it was done)."""
    return None if refusal is None else refusal[0]


def finish_round(state: TournamentState, now: float = NOW) -> None:
    current = state.current
    assert current is not None
    for t in [t for t in current.tables if not t.finished]:
        scores = [[0] * t.size for _ in range(state.settings.deals)]
        assert core.table_done(state, t.table_id, scores, now)


def test_refusals_change_nothing() -> None:
    state = gathered(2)
    before = copy.deepcopy(state)
    assert refused(core.join(state, "p1", "N1", "")) == "already_joined"
    assert refused(core.leave(state, "p9")) == "not_joined"
    assert refused(core.start(state, "p1", NOW)) == "not_host"
    assert refused(core.start(state, "p0", NOW)) == "too_few_players"
    assert refused(core.remove(state, "p1", "p0")) == "not_host"
    assert refused(core.hurry(state, "p0", NOW)) == "too_early"
    assert refused(core.join(state, "p7", "N7", "Reds")) == "bad_tournament"
    assert state == before


def test_rounds_follow_one_another_to_the_end() -> None:
    state = gathered(9, rounds=3, deals=2)
    assert core.start(state, "p0", NOW) is None
    assert state.status == "playing" and len(state.rounds) == 1
    assert refused(core.start(state, "p0", NOW)) == "tournament_started"
    first = state.rounds[0].tables[0]
    assert core.table_done(state, first.table_id, [[0, 0, 0]] * 2, NOW)
    # Told twice, or a table nobody knows: nothing changes.
    assert not core.table_done(state, first.table_id, [[1, -1, 0]] * 2, NOW)
    assert not core.table_done(state, "nosuch", [[0]], NOW)
    assert first.scores == [[0, 0, 0]] * 2
    finish_round(state)
    assert len(state.rounds) == 2 and state.rounds[1].started_at == NOW
    finish_round(state)
    finish_round(state)
    assert state.status == "finished" and len(state.rounds) == 3
    assert refused(core.join(state, "p99", "Late", "")) == "tournament_finished"


def test_a_removed_player_is_not_seated_again() -> None:
    state = gathered(5, rounds=2)
    assert core.start(state, "p0", NOW) is None
    assert core.remove(state, "p0", "p4") is None
    finish_round(state)
    seated = {p for t in state.rounds[1].tables for p in t.seats}
    assert "p4" not in seated and len(seated) == 4
    removed = state.player("p4")
    assert removed is not None and removed.removed


def test_the_host_may_hurry_once_the_timeout_is_past() -> None:
    state = gathered(3, round_timeout=600)
    assert core.start(state, "p0", NOW) is None
    assert refused(core.hurry(state, "p0", NOW + 599)) == "too_early"
    assert refused(core.hurry(state, "p1", NOW + 601)) == "not_host"
    assert core.hurry(state, "p0", NOW + 601) is None and state.hurried == 1


def test_teams_are_one_whatever_their_case_and_fill_up() -> None:
    state = core.create("ABCDEF", TournamentSettings(team_size=2), "p0", "Ann", NOW, "s")
    assert core.join(state, "p0", "Ann", "Reds") is None
    assert core.join(state, "p1", "Bob", "reds ") is None
    assert [p.team for p in state.players] == ["Reds", "Reds"]
    assert refused(core.join(state, "p2", "Cid", "REDS")) == "team_full"


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=3, max_value=30), st.integers(min_value=1, max_value=4))
def test_every_round_seats_every_player_once(players: int, rounds: int) -> None:
    state = gathered(players, rounds=rounds)
    assert core.start(state, "p0", NOW) is None
    while state.status == "playing":
        current = state.current
        assert current is not None
        seated = [p for t in current.tables for p in t.seats if p is not None]
        assert sorted(seated) == sorted(f"p{k}" for k in range(players))
        assert len({t.table_id for t in current.tables}) == len(current.tables)
        finish_round(state)
    assert len(state.rounds) == rounds
