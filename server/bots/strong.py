"""The ``strong`` bot: chooses its card by playing sampled deals out with the engine.

For a card to play it deals the unseen cards many times over, each time
consistently with everything public (cards played, voids and trump ceilings
shown, the chien if it was shown, poignées, shown écart trumps, its own
écart when it is the taker) and, loosely, with the bids heard (a taker's
hand must look like its contract, a passer's like a pass) and, at five
players, with who may hold the called card (``call_weight``): the camps of
a world follow from where it puts that card. Each such world
becomes an engine ``Deal`` (``sampling.rebuild_deal``); every distinct legal
card is tried in it and the deal is played to the end with the fast greedy
policy of ``playout.py``; the card with the best total score for its seat
over the same worlds wins, but it overrules ``normal``'s card only when it
beats it by ``PRIOR_Z`` standard errors on those worlds (with few worlds the
playouts' noise would otherwise cost more than the search gains). It stops
when its time budget runs out, and plays ``normal``'s card if not a single
world could be played.

Its bids come from the same search (``strong_bids.py``: the contract worth
most in deals played out from its seat); the écart, the chelem and
poignées follow ``normal``'s rules.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from protocol.cards import CODES, EXCUSE, HALF_POINTS, SUIT_OF, TRUMP
from protocol.messages import Bid, GameCommand, Play, Poignee
from protocol.views import TableView
from server.bots.evaluation import hand_strength, thresholds
from server.bots.knowledge import Knowledge, mask_of_codes
from server.bots.normal import NormalBot, choose_bid, choose_card, choose_poignee
from server.bots.playout import SOLVE_CARDS, score_out
from server.bots.sampling import Sampler, World, dealt_hands, rebuild_deal, worlds_within
from server.bots.strong_bids import bid_from_values, searches_bid, taking_value
from server.bots.tactics import iter_cards
from server.game import Deal
from server.game.contracts import BID_NAMES, BID_OF, GARDE_CONTRE, PASS

BID_SLACK = 8
"""How far a hidden hand's count may stray from what its bid suggests (other
players do not all count like ``normal``)."""
SAMPLE_TRIES = 8
"""Worlds drawn at most to find one that agrees with the bids."""
PRIOR_Z = 1.0
"""Standard errors by which the search must beat ``normal``'s card to overrule it."""
BOLDER: dict[int, float] = {3: 0.0, 4: 0.0, 5: 0.0}
"""Per table size, how far below ``normal``'s bars strong bids (its search
makes more of the same hand as taker; tuned in duplicate against normal)."""
BID_WORLDS = 4
"""With a fixed count of worlds per card (``max_worlds``), the bid plays
this many times as many (it is one decision a deal, and a noisy one)."""
SIMULATED_BIDS = {3: False, 4: True, 5: True}
"""Per table size, whether strong bids by its search (``strong_bids.py``) or
by ``normal``'s count. At three players the search's bids took too few
contracts (30 against normal's 139 on 60 boards) and did worse in
duplicate: +3.5 ± 10.5 against +9.2 ± 6.6 with the count."""
T = TypeVar("T")

ROOT_SOLVE_FROM = 5
ROOT_SOLVE_CARDS = 4
"""Holding ``ROOT_SOLVE_FROM`` cards or fewer, strong's playouts solve the
last ``ROOT_SOLVE_CARDS`` tricks exactly rather than the playouts' usual
``playout.SOLVE_CARDS``: few tricks are left to search, so each world may
cost more (``playout.SOLVE_NODES`` still bounds a solve)."""

SAFETY = 0.85
"""Share of the budget the search plans to use: the rest absorbs the last
world's overrun and the clock's jitter, so the budget holds at the p99."""


class StrongBot:
    """Search over sampled deals within ``budget_s`` seconds per card."""

    def __init__(
        self,
        seed: int | str | None = None,
        *,
        budget_s: float = 0.3,
        max_worlds: int | None = None,
        prior_z: float = PRIOR_Z,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.rng = random.Random(seed)
        self.budget_s = budget_s
        self.clock = clock
        """What the budget is counted on: the time a player waits. A test
        counts the thread's CPU time instead (``time.thread_time``), which
        other processes on a busy machine leave alone."""
        self.max_worlds = max_worlds
        """Stop after this many worlds even with time left (reproducible runs)."""
        self.prior_z = prior_z
        self.normal = NormalBot(seed)
        self.last_worlds = 0
        """Worlds played out for the last card chosen (for measurements)."""

    def decide(self, view: TableView) -> GameCommand:
        start = self.clock()
        self.last_worlds = 0
        legal = view.legal
        if legal.bids:
            k = Knowledge.from_view(view)
            return Bid(bid=BID_NAMES[self.choose_bid(k, [BID_OF[b] for b in legal.bids], start)])
        if not legal.cards:
            return self.normal.decide(view)
        k = Knowledge.from_view(view)
        if legal.poignee_sizes:
            shown = choose_poignee(k.hand, legal.poignee_sizes)
            if shown:
                return Poignee(cards=[CODES[c] for c in shown])
        return Play(card=CODES[self.choose_card(k, mask_of_codes(legal.cards), start)])

    def choose_bid(self, k: Knowledge, legal: list[int], start: float) -> int:
        """The bid worth most in played-out deals (``strong_bids.py``)."""
        rules = choose_bid(k, legal, BOLDER[k.variant.players])
        if not SIMULATED_BIDS[k.variant.players] or not searches_bid(legal, rules):
            return rules
        cap = None if self.max_worlds is None else self.max_worlds * BID_WORLDS
        scores = list(self.worlds(k, start, cap, lambda deal: taking_value(deal, k.me)))
        self.last_worlds = len(scores)
        return bid_from_values(k, legal, rules, scores)

    def worlds(
        self, k: Knowledge, start: float, cap: int | None, play: Callable[[Deal], T | None]
    ) -> Iterator[T]:
        """What ``play`` makes of each sampled world, rebuilt as an engine
        ``Deal`` at this seat's turn, while the budget from ``start`` (or
        ``cap`` worlds) allows (``sampling.worlds_within``)."""
        sampler = Sampler(k)
        me = k.me

        def one() -> T | None:
            world = self._sample(k, sampler)
            deal = rebuild_deal(k, world) if world is not None else None
            if deal is None or deal.turn != me:
                return None
            return play(deal)

        deadline = start + self.budget_s * SAFETY
        return worlds_within(one, deadline, cap, self.clock)

    def choose_card(self, k: Knowledge, legal: int, start: float) -> int:
        """The searched card; ``start`` is when the decision began (the budget's origin)."""
        self.last_worlds = 0
        fallback = choose_card(k, legal)
        choices = distinct_choices(k, legal)
        if len(choices) == 1:
            return fallback if same_class(k, fallback, choices[0]) else choices[0]
        me = k.me
        solve = ROOT_SOLVE_CARDS if k.hand.bit_count() <= ROOT_SOLVE_FROM else SOLVE_CARDS

        def play(deal: Deal) -> list[int]:
            out = []
            for card in choices:
                trial = deal.clone()
                trial.play(me, card)
                out.append(score_out(trial, me, solve))
            return out

        rows = list(self.worlds(k, start, self.max_worlds, play))
        worlds = len(rows)
        scores = [list(column) for column in zip(*rows, strict=True)] if rows else []
        self.last_worlds = worlds
        if not worlds:
            return fallback
        totals = [sum(s) for s in scores]
        best = totals.index(max(totals))
        rules = next((i for i, c in enumerate(choices) if same_class(k, fallback, c)), None)
        if rules is None or rules == best:
            return choices[best]
        # Leave the rules' card only when the search is clearly better on the
        # same worlds: with few worlds the playouts' noise would mislead.
        gains = [a - b for a, b in zip(scores[best], scores[rules], strict=True)]
        if worlds < 2 or statistics.fmean(gains) <= self.prior_z * statistics.stdev(
            gains
        ) / math.sqrt(worlds):
            return fallback
        return choices[best]

    def _sample(self, k: Knowledge, sampler: Sampler) -> World | None:
        """A world that agrees with the bids heard and the play seen, or the
        last one drawn."""
        world = None
        for _ in range(SAMPLE_TRIES):
            world = sampler.sample(self.rng)
            if world is None:
                return None
            if agrees_with_bids(k, world) and self.rng.random() < call_weight(k, world):
                return world
        return world


def call_weight(k: Knowledge, world: World) -> float:
    """Five players, the partner still hidden from this seat: how well the
    world's holder of the called card fits what was seen (1 at best). The
    sampler deals the called card like any other; this reads the play: a
    taker seldom calls its own card, and a seat that loaded the taker's
    tricks is likelier the partner (``Knowledge.loaded``)."""
    if k.called < 0 or k.partner() >= 0:
        return 1.0
    hands, _pile = world
    holder = next((s for s in k.variant.seats if hands[s] >> k.called & 1), -1)
    if holder < 0:
        return 1.0  # in an unseen chien
    if holder == k.taker:
        return 0.1
    return float(4 ** min(k.loaded[holder], 2)) / 16


def agrees_with_bids(k: Knowledge, world: World) -> bool:
    """Whether the hands dealt in ``world`` look like the bids each seat made."""
    if not k.bids:
        return True
    dealt, _, _ = dealt_hands(k, world)
    high = PASS
    least = thresholds(k.variant)
    for seat, bid in k.bids:
        if seat != k.me:
            strength = hand_strength(dealt[seat], k.variant)
            if bid == PASS:
                # It passed: its hand did not support outbidding ``high``.
                if high < GARDE_CONTRE and strength >= least[high + 1] + BID_SLACK:
                    return False
            elif strength < least[bid] - BID_SLACK:
                return False
        high = max(high, bid)
    return True


def distinct_choices(k: Knowledge, legal: int) -> list[int]:
    """One card per class of legal cards that play alike: same suit, same
    points, and no card anyone else may hold ranked between them."""
    out: list[int] = []
    prev = -1
    unseen = k.unseen()
    for card in iter_cards(legal):
        if prev >= 0 and _alike(prev, card, unseen):
            continue
        out.append(card)
        prev = card
    return out


def _alike(low: int, high: int, unseen: int) -> bool:
    if EXCUSE in (low, high) or SUIT_OF[low] != SUIT_OF[high]:
        return False
    if HALF_POINTS[low] != HALF_POINTS[high]:
        return False
    if SUIT_OF[low] == TRUMP and HALF_POINTS[low] != 1:
        return False  # the Petit and the 21 are bouts
    between = ((1 << high) - 1) & ~((2 << low) - 1)
    return not unseen & between


def same_class(k: Knowledge, a: int, b: int) -> bool:
    """Whether two legal cards play alike (see ``distinct_choices``)."""
    return a == b or _alike(min(a, b), max(a, b), k.unseen())
