"""strong's endgame solver (``server/bots/endgame.py``): its values are the
engine's scores under perfect play, and it finds the card that wins."""

from __future__ import annotations

import random

import pytest

from server.bots.endgame import Endgame
from server.bots.playout import greedy_card, play_out, score_out
from server.game import Deal, Game
from server.game.variant import variant_for
from tests.support.engine import build, to_play


def _attack_score(deal: Deal) -> int:
    """The attack's score before shares, as the engine counts it."""
    result = deal.result()
    assert result is not None
    return result.scores[deal.taker] // deal.variant.shares(deal.taker, deal.partner)[deal.taker]


def _brute(deal: Deal) -> int:
    """Minimax over every legal card, played by the engine: no pruning, no
    cards grouped as alike."""
    if deal.phase != "play":
        return _attack_score(deal)
    seat = deal.turn
    assert seat is not None
    values = []
    for card in deal.legal_cards():
        trial = deal.clone()
        trial.play(seat, card)
        values.append(_brute(trial))
    return max(values) if deal.camp_of(seat) == 0 else min(values)


def _ending(players: int, seed: int, left: int, contract: str) -> Deal:
    """A deal played greedily (random cards now and then) until ``left``
    cards remain in the hand of the seat to play, mid-trick at times."""
    rng = random.Random(seed)
    game = Game(deals=1, seed=f"endgame/{seed}", variant=variant_for(players))
    deal = game.deal
    if deal.phase == "annulled":
        deal = build(seed=seed, variant=variant_for(players))
    to_play(deal, rng.randrange(players), contract, chelem=rng.random() < 0.1)
    stop = rng.randrange(players)  # how far into the trick to stop
    while deal.phase == "play":
        seat = deal.turn
        assert seat is not None
        if deal.hands[seat].bit_count() <= left and len(deal.trick) == stop % players:
            break
        card = rng.choice(deal.legal_cards()) if rng.random() < 0.3 else greedy_card(deal)
        deal.play(seat, card)
    return deal


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_endgame_value_is_the_engines_score_under_perfect_play(players: int) -> None:
    left = {3: 3, 4: 3, 5: 2}[players]
    checked = 0
    for seed in range(40):
        contract = ("prise", "garde", "garde_sans", "garde_contre")[seed % 4]
        deal = _ending(players, seed, left, contract)
        if deal.phase != "play":
            continue
        solver = Endgame(deal)
        assert solver.value() == _brute(deal), seed
        for card, value in solver.values().items():
            trial = deal.clone()
            assert trial.turn is not None
            trial.play(trial.turn, card)
            assert value == _brute(trial), (seed, card)
        checked += 1
    assert checked >= 30


def test_solved_playouts_find_what_greedy_ones_miss() -> None:
    # In some endings (one world, every hand known, four cards a hand) the
    # card the greedy playouts rate best is worth less under perfect play
    # than the best card (``score_out`` with the last four cards solved,
    # which is perfect play: the test above): there the old search chose
    # wrong.
    better = 0
    for seed in range(160):
        contract = ("prise", "garde", "garde_sans", "garde_contre")[seed % 4]
        deal = _ending(4, seed, 4, contract)
        if deal.phase != "play":
            continue
        me = deal.turn
        assert me is not None
        greedy: dict[int, int] = {}
        exact: dict[int, int] = {}
        for card in deal.legal_cards():
            trial = deal.clone()
            trial.play(me, card)
            exact[card] = score_out(trial.clone(), me, solve_cards=4)
            play_out(trial)
            result = trial.result()
            assert result is not None
            greedy[card] = result.scores[me]
        picked = max(greedy, key=lambda c: greedy[c])
        better += exact[picked] < max(exact.values())
    assert better >= 3
