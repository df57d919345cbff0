"""Property tests over random legal deals (hypothesis drives the seeds)."""

from __future__ import annotations

import ast
import copy
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import CARD_OF, CODES, FULL_DECK, HALF_POINTS, cards_of
from server.game import Deal, RuleError, ScoredDeal, replay_record
from server.game.variant import VARIANTS
from tests.support.engine import random_deal

seeds = st.integers(min_value=0, max_value=2**32)


@settings(max_examples=300, deadline=None)
@given(seeds)
def test_cards_conserved_points_91_scores_sum_zero(seed: int) -> None:
    deal = random_deal(random.Random(seed))
    res = deal.result()
    assert res is not None and sum(res.scores) == 0
    if deal.phase != "done":
        return
    seen = 0
    for trick in deal.tricks:
        assert len(trick) == 4
        for c in trick:
            assert not seen >> c & 1
            seen |= 1 << c
    aside = deal.ecart_cards or deal.chien
    for c in aside:
        assert not seen >> c & 1
        seen |= 1 << c
    assert seen == FULL_DECK  # all 78 cards, each once
    assert all(h == 0 for h in deal.hands)
    assert sum(deal.camp_half) == 182  # 91 points between the camps
    assert isinstance(res, ScoredDeal)
    assert res.scores[deal.taker] == 3 * res.base


@settings(max_examples=300, deadline=None)
@given(seeds)
def test_replaying_own_record_gives_own_score(seed: int) -> None:
    deal = random_deal(random.Random(seed))
    import msgspec

    assert replay_record(deal.record()) == msgspec.to_builtins(deal.result())


def _plays(deal: Deal) -> list[tuple[int, int, int]]:
    """(trick, seat, card) of every card played, in order."""
    out = []
    for t, (trick, leader) in enumerate(zip(deal.tricks, deal.leaders, strict=True)):
        for i, c in enumerate(trick):
            out.append((t, (leader + i) % 4, c))
    return out


@settings(max_examples=200, deadline=None)
@given(seeds, st.integers(min_value=0, max_value=71))
def test_record_made_illegal_at_one_card_is_rejected_there(seed: int, at: int) -> None:
    rng = random.Random(seed)
    deal = random_deal(rng)
    if deal.phase != "done":
        return
    plays = _plays(deal)
    # Walk the deal again to find, from position ``at`` on, a card whose
    # player held an illegal alternative at that moment.
    redo = Deal(deal.dealer, deal.dealt, deal.chien)
    target = None
    i = 0
    for action in deal.log:
        if action[0] == "play":
            t, seat, card = plays[i]
            illegal = redo.hands[seat] & ~redo.legal_mask()
            if i >= at and illegal:
                target = (i, t, seat, card, cards_of(illegal)[0])
                break
            i += 1
        redo.apply(action)
    if target is None:
        return
    i, t, seat, card, wrong = target
    record = copy.deepcopy(deal.record())
    # Swap the two cards in the seat's play so the deck stays whole.
    j = next(k for k, (_, s, c) in enumerate(plays) if s == seat and c == wrong)
    pos = {k: (plays[k][0], k - 4 * plays[k][0]) for k in (i, j)}
    record["tricks"][pos[i][0]][pos[i][1]] = CODES[wrong]
    record["tricks"][pos[j][0]][pos[j][1]] = CODES[card]
    out = replay_record(record)
    assert out["error"] == "illegal_card"
    assert (out["trick"], out["seat"], out["card"]) == (t, seat, CODES[wrong])


@settings(max_examples=100, deadline=None)
@given(seeds, st.integers(min_value=0, max_value=71))
def test_record_with_a_card_not_held_is_rejected_there(seed: int, at: int) -> None:
    deal = random_deal(random.Random(seed))
    if deal.phase != "done":
        return
    plays = _plays(deal)
    t, seat, _card = plays[at]
    other = deal.dealt[(seat + 1) % 4][at % 18]  # another seat's card
    record = copy.deepcopy(deal.record())
    record["tricks"][t][at - 4 * t] = CODES[other]
    out = replay_record(record)
    # The first card breaking the record is this one: its player never held it.
    assert (out["error"], out["trick"], out["seat"], out["card"]) == (
        "card_not_in_hand",
        t,
        seat,
        CODES[other],
    )


ROOT = Path(__file__).resolve().parents[1]
PURE_PACKAGES = ("server/game", "protocol")


@pytest.mark.parametrize("package", PURE_PACKAGES)
def test_pure_packages_import_no_io(package: str) -> None:
    """The rules engine and the wire contract import no I/O or async library.

    Paths are taken from this file, not the working directory: run from
    elsewhere, a relative glob would find no file and the test would pass
    having checked nothing.
    """
    banned = {
        "asyncio",
        "websockets",
        "asyncio_redis",
        "redis",
        "structlog",
        "socket",
        "os",
        "time",
        "threading",
    }
    paths = sorted((ROOT / package).glob("*.py"))
    assert len(paths) >= 3, f"found only {paths} under {ROOT / package}"
    for path in paths:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [(node.module or "").split(".")[0]]
            else:
                continue
            assert not banned & set(mods), f"{path} imports {mods}"


def test_card_values_table() -> None:
    assert HALF_POINTS[CARD_OF["KS"]] == 9 and HALF_POINTS[CARD_OF["QH"]] == 7
    assert HALF_POINTS[CARD_OF["CD"]] == 5 and HALF_POINTS[CARD_OF["JC"]] == 3
    assert HALF_POINTS[CARD_OF["10S"]] == 1 and HALF_POINTS[CARD_OF["T2"]] == 1


@settings(max_examples=150, deadline=None)
@given(seeds, st.sampled_from([3, 4, 5]))
def test_legal_cards_read_off_held_are_the_legal_mask(seed: int, players: int) -> None:
    """``legal_cards`` reads a follower's cards off one suit (``following.legal_list``);
    at every card of a random deal it must list exactly ``legal_mask``, and ``play``
    (which trusts that list) must still refuse every other card of the hand."""
    rng = random.Random(seed)
    deal = Deal.deal(rng, 0, VARIANTS[players])
    while deal.phase == "annulled":
        deal = Deal.deal(rng, 0, VARIANTS[players])
    while deal.phase == "bidding":  # a garde sans: no écart, play starts at once
        deal.bid(deal.turn, 3 if not deal.bids else 0)  # type: ignore[arg-type]
    if deal.phase == "call":
        deal.call(deal.taker, rng.choice(deal.legal_calls()))
    deal.declare_chelem(deal.taker, False)
    checked = 0
    while deal.phase == "play":
        seat = deal.turn
        assert seat is not None
        cards = deal.legal_cards()
        fresh = deal.clone()
        fresh._legal = -1  # the mask computed afresh, not from the list's call
        assert cards == cards_of(fresh.legal_mask())
        illegal = cards_of(deal.hands[seat] & ~fresh.legal_mask())
        if illegal:
            trial = deal.clone()
            with pytest.raises(RuleError) as refused:
                trial.play(seat, rng.choice(illegal))
            assert refused.value.code == "illegal_card"
        deal.play(seat, rng.choice(cards))
        checked += 1
    assert checked == VARIANTS[players].tricks * players
