"""Benchmark: complete random-legal deals through the engine's public API.

Each deal: shuffle and deal, the bids, the call (five players), the écart,
the chelem decision, a poignée when one may be shown, every trick, the
score. Deals annulled (everyone passed, a petit sec) count as dealt but are
not timed as played deals. Prints figures for each table size asked, the
last line of each being ``deals_per_second: <number>``.

    python bench/engine.py [--deals N] [--seed S] [--players 3 4 5]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.cards import cards_of
from server.game import Deal
from server.game.variant import VARIANTS, Variant


def annulled(deal: Deal) -> bool:
    # A function, not an inline test: each call to the deal changes its phase,
    # which a type checker's narrowing of ``deal.phase`` would not see.
    return deal.phase == "annulled"


def play_one(rng: random.Random, dealer: int, variant: Variant) -> Deal:
    deal = Deal.deal(rng, dealer, variant)
    if annulled(deal):
        return deal
    # Bids: pass mostly, so that all contracts and all-pass annulments occur.
    while deal.phase == "bidding":
        bids = deal.legal_bids()
        deal.bid(deal.turn, bids[0] if rng.random() < 0.6 else rng.choice(bids))  # type: ignore[arg-type]
    if annulled(deal):
        return deal
    if deal.phase == "call":
        deal.call(deal.taker, rng.choice(deal.legal_calls()))
    if deal.phase == "ecart":
        candidates = cards_of(deal.ecart_candidates())
        needed = deal.ecart_trumps_needed()
        if needed:
            suits = [c for c in candidates if c < 56]
            trumps = [c for c in candidates if c >= 56]
            deal.ecart(deal.taker, suits + rng.sample(trumps, needed))
        else:
            deal.ecart(deal.taker, rng.sample(candidates, variant.ecart_size))
    deal.declare_chelem(deal.taker, rng.random() < 0.01)
    # A uniform choice among the legal cards, by index: random.choice's
    # Python frames would cost more than some of the rules. The deal's
    # methods are looked up once a deal, not once a card.
    random_ = rng.random
    legal_cards = deal.legal_cards
    play = deal.play
    # The first trick: a poignée may be shown before one's first card.
    while deal.phase == "play" and not deal.tricks:
        seat = deal.turn
        if deal.poignee_sizes(seat):  # type: ignore[arg-type]
            trumps = [c for c in cards_of(deal.hands[seat]) if 56 <= c < 77]  # type: ignore[index]
            smallest = variant.poignees[0]
            if len(trumps) >= smallest:
                deal.declare_poignee(seat, trumps[:smallest])  # type: ignore[arg-type]
        cards = legal_cards()
        play(seat, cards[int(random_() * len(cards))])  # type: ignore[arg-type]
    while deal.phase == "play":
        cards = legal_cards()
        play(deal.turn, cards[int(random_() * len(cards))])  # type: ignore[arg-type]
    deal.result()
    return deal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--players", type=int, nargs="+", choices=sorted(VARIANTS), default=sorted(VARIANTS)
    )
    args = parser.parse_args()
    # As in the server (server/process/collector.py tune_gc): the engine allocates many
    # short-lived lists, and default GC thresholds make collections frequent.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    for players in args.players:
        measure(VARIANTS[players], args.deals, args.seed)


def measure(variant: Variant, deals: int, seed: int) -> None:
    rng = random.Random(seed)
    times: list[float] = []
    played = annulled = 0
    clock = time.perf_counter
    for i in range(deals):
        t0 = clock()
        deal = play_one(rng, i % variant.players, variant)
        elapsed = clock() - t0
        if deal.phase == "done":
            times.append(elapsed)
            played += 1
        else:
            annulled += 1
    total = sum(times)
    times.sort()
    print(f"players: {variant.players}")
    print(f"deals: {deals} (played {played}, annulled {annulled})")
    print(f"played_deal_median_us: {statistics.median(times) * 1e6:.1f}")
    print(f"played_deal_p99_us: {times[int(len(times) * 0.99)] * 1e6:.1f}")
    print(f"deals_per_second: {played / total:.0f}")


if __name__ == "__main__":
    main()
