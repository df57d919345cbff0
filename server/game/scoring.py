"""Counting and scoring a finished deal, from the taker's side.

``score`` is pure arithmetic over what the deal established (card points of
the taker's camp, bouts, petit au bout, poignées, chelem); ``Deal.result``
gathers those facts. The result's Structs are in ``results`` (this module is
compiled, they cannot be). Points are kept in half-points until the very end so no
float ever decides a contract.
"""

from __future__ import annotations

from typing import Final

from msgspec import UNSET

from server.game.contracts import BID_NAMES, MULTIPLIER
from server.game.results import Camp, ChelemOutcome, PoigneeScore, ScoredDeal
from server.game.variant import FOUR, PoigneeSize, Variant

POIGNEE_BONUS: Final[dict[PoigneeSize, int]] = {"simple": 20, "double": 30, "triple": 40}
CHELEM_BONUS: Final[dict[ChelemOutcome, int]] = {
    "declared_made": 400,
    "undeclared_made": 200,
    "declared_failed": -200,
    "defense": -200,
}

TARGET_HALF: Final = (112, 102, 82, 72)
"""Half-points the taker needs by the number of bouts held: 56, 51, 41, 36."""


def score(
    *,
    taker: int,
    contract: int,
    taker_half_points: int,
    bouts: int,
    petit_au_bout: Camp | None,
    poignees: list[tuple[int, int]],
    chelem: ChelemOutcome | None,
    variant: Variant = FOUR,
    partner: int | None = None,
) -> ScoredDeal:
    """Score a deal. ``poignees`` lists ``(seat, number of cards shown)``;
    ``partner`` is the taker's called partner, where the variant has one
    (``None``: the taker played alone)."""
    target_half = TARGET_HALF[bouts]
    over = taker_half_points - target_half
    made = over >= 0
    # FFT half-point rule: a half point goes to the camp that wins the deal,
    # so the margin in whole points is the ceiling of |points - target|.
    margin = (abs(over) + 1) // 2
    sign = 1 if made else -1
    multiplier = MULTIPLIER[contract]
    base = sign * (25 + margin) * multiplier
    if petit_au_bout == "taker":
        base += 10 * multiplier
    elif petit_au_bout == "defense":
        base -= 10 * multiplier
    named = [(seat, variant.poignee_name(n)) for seat, n in poignees]
    shown = [PoigneeScore(seat, size, POIGNEE_BONUS[size]) for seat, size in named]
    # Poignée bonuses go to the camp that wins the deal, whoever showed them.
    base += sign * sum(p.bonus for p in shown)
    if chelem is not None:
        base += CHELEM_BONUS[chelem]
    scores = [share * base for share in variant.shares(taker, partner)]
    name = BID_NAMES[contract]
    assert name != "pass"
    return ScoredDeal(
        taker=taker,
        contract=name,
        multiplier=multiplier,
        bouts=bouts,
        target=target_half // 2,
        points=taker_half_points / 2,
        made=made,
        margin=margin,
        petit_au_bout=petit_au_bout,
        poignees=shown,
        chelem=chelem,
        base=base,
        scores=scores,
        partner=partner if variant.camps == "called_partner" else UNSET,
    )
