"""Building deals with chosen cards, for the engine's rule tests."""

from __future__ import annotations

import random
import types

from protocol.cards import CARD_OF, CODES, DECK_SIZE, SUIT_OF, cards_of
from server.game import Deal
from server.game.contracts import BID_OF
from server.game.variant import FOUR, Variant


def deal_attributes() -> list[str]:
    """Every attribute of a ``Deal``. Not ``Deal.__slots__``, which the compiled
    build (server/base/compiled.py) has not: Python lists a class's slots as
    member descriptors, mypyc its attributes as getset descriptors."""
    kinds = (types.MemberDescriptorType, types.GetSetDescriptorType)
    return sorted(
        name
        for name, value in vars(Deal).items()
        if isinstance(value, kinds) and not name.startswith("__")
    )


def codes(text: str) -> list[int]:
    return [CARD_OF[c] for c in text.split()]


def names(cards: list[int]) -> list[str]:
    return [CODES[c] for c in cards]


def build(
    hands: dict[int, str] | None = None,
    chien: str | None = None,
    dealer: int = 0,
    seed: int = 0,
    allow_annul: bool = False,
    without: dict[int, str] | None = None,
    variant: Variant = FOUR,
) -> Deal:
    """A deal where the given seats hold (at least) the given cards.

    The remaining cards are spread with a seeded shuffle; ``without[seat]``
    names suits the shuffle must not give that seat ("S H D C", "T" for
    trumps, "X" for the Excuse). Seeds are tried until no seat has a petit
    sec, unless ``allow_annul``.
    """
    letters = "SHDCTX"
    banned = {s: {letters.index(x) for x in t.split()} for s, t in (without or {}).items()}
    hands = hands or {}
    fixed = {s: codes(t) for s, t in hands.items()}
    fixed_chien = codes(chien) if chien else []
    used = set(fixed_chien)
    for cs in fixed.values():
        assert not used & set(cs), "a card given twice"
        used.update(cs)
    rest_base = [c for c in range(DECK_SIZE) if c not in used]
    for attempt in range(1000):
        rest = list(rest_base)
        random.Random(seed * 1000 + attempt).shuffle(rest)
        size = variant.hand_size
        out: list[list[int]] = [list(fixed.get(s, [])) for s in variant.seats]
        # Restricted seats pick first, from the cards they may have.
        for s in sorted(variant.seats, key=lambda s: -len(banned.get(s, ()))):
            ok = [c for c in rest if SUIT_OF[c] not in banned.get(s, set())]
            take = ok[: size - len(out[s])]
            assert len(out[s]) + len(take) == size, "not enough cards for the constraints"
            out[s].extend(take)
            taken = set(take)
            rest = [c for c in rest if c not in taken]
        ch = fixed_chien + rest[: variant.chien_size - len(fixed_chien)]
        deal = Deal(dealer, out, ch, variant)
        if allow_annul or deal.phase != "annulled":
            return deal
    raise AssertionError("could not build a deal without petit sec")


def bid_all(deal: Deal, bids: dict[int, str]) -> None:
    """Every seat speaks in turn: its bid from ``bids`` or pass."""
    while deal.phase == "bidding":
        seat = deal.turn
        assert seat is not None
        deal.bid(seat, BID_OF[bids.get(seat, "pass")])


def any_ecart(deal: Deal) -> list[int]:
    """A legal écart: the forced trumps when forced, else the first suit cards."""
    cands = cards_of(deal.ecart_candidates())
    need = deal.ecart_trumps_needed()
    suits = [c for c in cands if c < 56]
    trumps = [c for c in cands if c >= 56]
    return suits + trumps[:need] if need else suits[: deal.variant.ecart_size]


def to_play(
    deal: Deal,
    taker: int,
    contract: str = "garde_sans",
    chelem: bool = False,
    call: str | None = None,
) -> Deal:
    """Bid ``contract`` for ``taker`` (others pass), call ``call`` at five
    players (the first card that may be called when not given), discard if
    needed, start play.

    Garde sans by default: no écart, so the cards a test gave stay in hand.
    """
    bid_all(deal, {taker: contract})
    if deal.phase == "call":
        deal.call(taker, CARD_OF[call] if call else deal.legal_calls()[0])
    if deal.phase == "ecart":
        deal.ecart(taker, any_ecart(deal))
    deal.declare_chelem(taker, chelem)
    assert deal.phase == "play"
    return deal


def play_codes(deal: Deal, text: str) -> None:
    """Play the given cards in turn order."""
    for c in codes(text):
        seat = deal.turn
        assert seat is not None
        deal.play(seat, c)


def random_finish(deal: Deal, rng: random.Random) -> Deal:
    """Play random legal cards to the end of the deal."""
    while deal.phase == "play":
        seat = deal.turn
        assert seat is not None
        deal.play(seat, rng.choice(deal.legal_cards()))
    return deal


def random_deal(rng: random.Random, dealer: int | None = None, variant: Variant = FOUR) -> Deal:
    """A complete random-legal deal: bids, the call (five players), écart,
    chelem, poignées, every trick.

    Bids lean towards passing so that every contract and the all-pass
    annulment all occur; poignées are shown whenever allowed, half the time.
    """
    deal = Deal.deal(rng, rng.randrange(variant.players) if dealer is None else dealer, variant)
    while deal.phase == "bidding":
        bids = deal.legal_bids()
        deal.bid(deal.turn, bids[0] if rng.random() < 0.6 else rng.choice(bids))  # type: ignore[arg-type]
    if deal.phase == "call":
        deal.call(deal.taker, rng.choice(deal.legal_calls()))
    if deal.phase == "ecart":
        cands = cards_of(deal.ecart_candidates())
        need = deal.ecart_trumps_needed()
        suits = [c for c in cands if c < 56]
        trumps = [c for c in cands if c >= 56]
        size = variant.ecart_size
        ecart = suits + rng.sample(trumps, need) if need else rng.sample(suits, size)
        deal.ecart(deal.taker, ecart)
    if deal.phase == "chelem":
        deal.declare_chelem(deal.taker, rng.random() < 0.05)
    while deal.phase == "play":
        seat = deal.turn
        assert seat is not None
        sizes = deal.poignee_sizes(seat)
        if sizes and rng.random() < 0.5:
            size = rng.choice(sizes)
            hand = cards_of(deal.hands[seat])
            trumps = [c for c in hand if 56 <= c < 77]
            shown = trumps[:size] if len(trumps) >= size else [*trumps, 77]
            deal.declare_poignee(seat, shown)
        deal.play(seat, rng.choice(deal.legal_cards()))
    return deal
