"""``seat_view.Reuse`` hands out exactly what the plain view builders would.

A table reuses completed tricks, the score sheet and unchanged hands from one
move to the next (for speed); a stale piece would show a seat a wrong card or
a wrong score, so every step of whole games is compared with a fresh build.
"""

from __future__ import annotations

import random

import pytest

from server.bots import make_bot
from server.game import Game
from server.game.commands import apply_command
from server.table.seat_view import Reuse, deal_view, hand_view, sheet
from tests.support.bots import table_view


def _check(game: Game, reuse: Reuse) -> None:
    assert deal_view(game, reuse) == deal_view(game)
    assert reuse.sheet(game) == sheet(game)
    for seat in (0, 1, 2, 3, None):
        assert reuse.hand(game.deal, seat) == hand_view(game.deal, seat)


@pytest.mark.parametrize("seed", range(6))
def test_reused_parts_match_fresh_ones_through_whole_games(seed: int) -> None:
    rng = random.Random(seed)
    game = Game(deals=3, seed=f"reuse/{seed}", first_dealer=seed % 4)
    bots = [make_bot("random", rng.randrange(2**32)) for _ in range(4)]
    reuse = Reuse()
    steps = 0
    while True:
        _check(game, reuse)
        seat = game.deal.turn
        if seat is not None:
            apply_command(game.deal, seat, bots[seat].decide(table_view(game, seat)))
            steps += 1
            continue
        game.record_deal()
        _check(game, reuse)  # the finished deal, scored, as shown between deals
        if game.finished:
            break
        game.next_deal()
    assert steps > 3 * 4  # whole deals were played, not just the bidding


def test_a_new_game_is_not_served_the_old_games_parts() -> None:
    reuse = Reuse()
    first = Game(deals=1, seed="reuse/a", first_dealer=0)
    _check(first, reuse)
    second = Game(deals=1, seed="reuse/b", first_dealer=0)
    _check(second, reuse)
