"""The daily game's deals and its duplicate-style ranking math (pure)."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.daily.deals import daily_spec, day_start, utc_day
from server.daily.ranking import (
    Comparison,
    DayLine,
    board_score,
    compare,
    day_standings,
    from_board_score,
    percent_beaten,
    period_standings,
    positions,
)
from server.game import Game

DAY = dt.date(2025, 6, 1)

# --- the day's deals ----------------------------------------------------------------


def _deals(seed: str, n: int = 3) -> list[tuple[int, list[int], int]]:
    """(dealer, hands as masks, chien mask) of the first ``n`` deals of a seeded game."""
    game = Game(deals=n, seed=seed)
    out = []
    for attempt in range(n):
        game.attempt = attempt
        deal = game._new_deal()
        out.append((deal.dealer, list(deal.hands), deal.chien))
    return out


def test_everyone_gets_the_same_game_on_a_day() -> None:
    one, two = daily_spec("s3cret", DAY, 4), daily_spec("s3cret", DAY, 4)
    assert one == two
    assert _deals(one.seed) == _deals(two.seed)


def test_the_game_changes_every_day_and_with_the_secret() -> None:
    days = [daily_spec("s3cret", DAY + dt.timedelta(days=i), 4) for i in range(30)]
    assert len({d.seed for d in days}) == 30
    assert len({d.seat for d in days}) == 4  # the human seat moves around too
    assert len({tuple(_deals(d.seed, 1)[0][1]) for d in days}) == 30
    assert daily_spec("other", DAY, 4).seed != days[0].seed


def test_an_empty_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="secret"):
        daily_spec("", DAY, 4)


def test_utc_days() -> None:
    start = day_start(DAY)
    assert utc_day(start) == DAY
    assert utc_day(start - 1) == DAY - dt.timedelta(days=1)
    assert utc_day(start + 86399) == DAY


# --- one deal ------------------------------------------------------------------------


def test_one_player_alone_gets_half() -> None:
    assert percent_beaten(120, [120]) == 50.0
    alone = compare(120, {120: 1})
    assert alone == Comparison(others=0, beaten=0, tied=0) and alone.percent == 50.0


def test_two_players() -> None:
    assert percent_beaten(100, [50, 100]) == 100.0
    assert percent_beaten(50, [50, 100]) == 0.0


def test_ties_count_half() -> None:
    ordered = [0, 10, 10]
    assert percent_beaten(10, ordered) == 75.0  # beats one of two, ties the other
    assert percent_beaten(0, ordered) == 0.0
    assert percent_beaten(5, [5, 5, 5, 5]) == 50.0
    # Against the *other* players only: beats one of two, ties the other.
    against = compare(10, {0: 1, 10: 2})
    assert against == Comparison(others=2, beaten=1, tied=1) and against.percent == 75.0
    assert compare(7, {7: 4}) == Comparison(others=3, beaten=0, tied=3)


def test_two_players_count_one_other() -> None:
    # "better than 1 of 1 other player", not "100% of 2 players".
    better = compare(100, {50: 1, 100: 1})
    assert better == Comparison(others=1, beaten=1, tied=0) and better.percent == 100.0
    level = compare(50, {50: 2})
    assert level == Comparison(others=1, beaten=0, tied=1) and level.percent == 50.0


@given(st.lists(st.integers(-500, 500), min_size=1, max_size=60))
def test_a_deal_shares_out_half_of_everything(scores: list[int]) -> None:
    ordered = sorted(scores)
    percents = [percent_beaten(s, ordered) for s in scores]
    # Each pair of results gives 100 points to the better one, or 50 each.
    assert sum(percents) == pytest.approx(50.0 * len(scores))
    assert all(0.0 <= p <= 100.0 for p in percents)
    for s, p in zip(scores, percents, strict=True):
        counts: dict[int, int] = {}
        for x in scores:
            counts[x] = counts.get(x, 0) + 1
        against = compare(s, counts)
        assert against.percent == pytest.approx(p)
        assert against.others == len(scores) - 1
        assert against.beaten + against.tied <= against.others
    # A better score never gets a smaller percentage.
    by_score = sorted(zip(scores, percents, strict=True))
    assert all(a[1] <= b[1] for a, b in itertools.pairwise(by_score))


# --- a day ---------------------------------------------------------------------------


def test_a_day_is_the_mean_of_its_deals() -> None:
    lines = day_standings({"ann": [100, -50], "bob": [-100, 50], "cat": [0, 0]})
    got = {x.player: x for x in lines}
    assert got["ann"] == DayLine(player="ann", percent=50.0, points=50)
    assert got["bob"] == DayLine(player="bob", percent=50.0, points=-50)
    assert got["cat"] == DayLine(player="cat", percent=50.0, points=0)
    # Level on percent: the points total decides the order.
    assert [x.player for x in lines] == ["ann", "cat", "bob"]


def test_a_day_with_one_player() -> None:
    assert day_standings({"ann": [10, 20, 30, 40]}) == [
        DayLine(player="ann", percent=50.0, points=100)
    ]
    assert day_standings({}) == []


def test_many_players_in_order() -> None:
    results = {f"p{i:03}": [i, i, -i, 3 * i] for i in range(200)}
    lines = day_standings(results)
    assert [x.player for x in lines] == [f"p{i:03}" for i in reversed(range(200))]
    assert lines[0].percent == pytest.approx((100 + 100 + 0 + 100) / 4)


@given(
    st.dictionaries(
        st.text(min_size=1, max_size=3),
        st.lists(st.integers(-50, 50), min_size=4, max_size=4),
        min_size=1,
        max_size=30,
    )
)
def test_a_day_averages_to_half(results: dict[str, list[int]]) -> None:
    lines = day_standings(results)
    assert len(lines) == len(results)
    assert sum(x.percent for x in lines) == pytest.approx(50.0 * len(results))
    keys = [(x.percent, x.points) for x in lines]
    assert keys == sorted(keys, reverse=True)


# --- periods, board scores, positions -------------------------------------------------


def test_periods_need_three_days() -> None:
    days = [{"ann": 80.0, "bob": 10.0}, {"ann": 60.0, "bob": 30.0}, {"ann": 70.0, "cat": 100.0}]
    lines = period_standings(days)
    assert [(x.player, x.percent, x.days) for x in lines] == [("ann", 70.0, 3)]
    assert [x.player for x in period_standings(days, min_days=1)] == ["cat", "ann", "bob"]


@given(st.floats(0, 100), st.integers(-4_999_999, 4_999_999))
def test_a_board_score_keeps_percent_and_tiebreak(percent: float, tiebreak: int) -> None:
    got_percent, got_tiebreak = from_board_score(board_score(percent, tiebreak))
    assert got_tiebreak == tiebreak
    assert abs(got_percent - percent) <= 0.005 + 1e-9


def test_board_scores_order_by_percent_then_tiebreak() -> None:
    assert board_score(50.01, -4_000) > board_score(50.0, 4_000) > board_score(50.0, 3_999)


def test_positions_are_shared_by_ties() -> None:
    assert positions([9, 8, 8, 7, 7, 7, 1]) == [1, 2, 2, 4, 4, 4, 7]
    assert positions([]) == []
