"""Dealing the unseen cards consistently with a ``Knowledge``, and rebuilding the deal.

A *world* is one guess at where every unseen card is: the other seats' hands
and the hidden pile (another taker's écart, or an unseen chien), respecting
the places each card may be in (voids, trump ceilings, poignées, shown
écart trumps, a shown chien) and how many cards each place holds.

``Sampler.sample`` deals one; ``rebuild_deal`` turns it into an engine ``Deal``
by dealing the cards each seat must have started with and replaying the
public actions, so the engine itself checks the guess (a world that breaks
a rule is thrown away) and the search then plays on with ``Deal.clone``.
``worlds_within`` is the search's loop: it plays worlds one after another
while the budget allows.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterator
from typing import TypeVar

from protocol.cards import cards_of
from server.bots.knowledge import Knowledge
from server.game import Action, Deal, RuleError

World = tuple[list[int], int]
"""``(hands, pile)``: the seats' current hands and the hidden pile, as masks."""

T = TypeVar("T")

GIVE_UP_FAILURES = 20
"""Worlds that may fail (the sampler found none, or the engine rejected it)
before the search gives up, once they also outnumber the played ones 4 to 1:
the facts are then too tight for the sampler, and the rules' answer is trusted."""


def _places(mask: int) -> list[int]:
    return [p for p in range(mask.bit_length()) if mask >> p & 1]


class Sampler:
    """Deals worlds for one decision: the facts are read once, then each
    ``sample`` is one random deal of the unseen cards."""

    def __init__(self, k: Knowledge) -> None:
        self.pile = k.pile
        self.caps = k.capacities()
        self.fixed = [0] * len(self.caps)  # an empty mask per place
        self.fixed[k.me] = k.hand
        known = 0
        for card, place in k.known_places().items():
            self.fixed[place] |= 1 << card
            self.caps[place] -= 1
            known |= 1 << card
        self.free = cards_of(k.unseen() & ~known)
        self.allowed = {c: k.allowed_places(c) for c in self.free}
        self.options = {c: _places(self.allowed[c]) for c in self.free}
        self.consistent = sum(self.caps) == len(self.free) and min(self.caps) >= 0

    def sample(self, rng: random.Random) -> World | None:
        """One random world, or ``None`` if none was found.

        Cards go out most-constrained first, each to a place drawn in
        proportion to the room left there (which, without constraints, is a
        uniform deal). When a card finds every allowed place full, cards
        already dealt are moved along an augmenting path to make room, so a
        world is found whenever one exists.
        """
        if not self.consistent:
            return None
        caps = list(self.caps)
        free = list(self.free)
        rng.shuffle(free)
        options = self.options
        free.sort(key=lambda c: len(options[c]))  # most constrained first
        members: list[list[int]] = [[] for _ in caps]
        random_ = rng.random
        for card in free:
            total = 0
            for p in options[card]:
                total += caps[p]
            if total:
                r = random_() * total
                place = -1
                for p in options[card]:
                    if caps[p]:
                        place = p
                        r -= caps[p]
                        if r < 0:
                            break
            else:
                found = _make_room(card, self.allowed, caps, members)
                if found is None:
                    return None
                place = found
            members[place].append(card)
            caps[place] -= 1
        hands = list(self.fixed)
        for place, cards in enumerate(members):
            m = hands[place]
            for c in cards:
                m |= 1 << c
            hands[place] = m
        return hands[: self.pile], hands[self.pile]


def _make_room(
    card: int, allowed: dict[int, int], caps: list[int], members: list[list[int]]
) -> int | None:
    """Move dealt cards along a shortest path of places so that one of
    ``card``'s allowed places gets a free slot; return that place."""
    starts = _places(allowed[card])
    parent: dict[int, tuple[int, int] | None] = {p: None for p in starts}
    queue = deque(starts)
    while queue:
        place = queue.popleft()
        if caps[place] > 0:
            # Walk back: each step moves one card one place further along.
            while True:
                step = parent[place]
                if step is None:
                    return place  # the caller deals ``card`` into the freed slot
                prev, moved = step
                members[prev].remove(moved)
                members[place].append(moved)
                caps[prev] += 1
                caps[place] -= 1
                place = prev
        for moved in members[place]:
            for nxt in _places(allowed[moved]):
                if nxt not in parent:
                    parent[nxt] = (place, moved)
                    queue.append(nxt)
    return None


def dealt_hands(k: Knowledge, world: World) -> tuple[list[int], int, int]:
    """The hands as dealt, the chien and the écart (masks) that lead to ``world``."""
    hands, pile = world
    dealt = [hands[s] | k.played_by[s] for s in k.variant.seats]
    if k.chien_taken and k.phase != "ecart":
        ecart = k.my_ecart if k.me == k.taker else pile
        # The taker's hand after the écart plus the écart, minus the chien taken.
        dealt[k.taker] = (dealt[k.taker] | ecart) & ~k.chien
        return dealt, k.chien, ecart
    return dealt, pile, 0


def public_actions(k: Knowledge, ecart: int) -> list[Action]:
    """The deal's log as the engine would have it, with ``ecart`` as the écart."""
    log: list[Action] = [("bid", seat, bid) for seat, bid in k.bids]
    if k.taker < 0 or k.phase in ("bidding", "call"):
        return log
    if k.called >= 0:
        log.append(("call", k.taker, k.called))
    if k.phase == "ecart":
        return log
    if k.chien_taken:
        log.append(("ecart", k.taker, cards_of(ecart)))
    if k.phase == "chelem":
        return log
    log.append(("chelem", k.taker, k.chelem_declared))
    # A poignée is shown just before its seat's first card.
    shown = set()
    for seat, card in k.plays:
        if seat in k.poignees and seat not in shown:
            log.append(("poignee", seat, k.poignees[seat]))
            shown.add(seat)
        log.append(("play", seat, card))
    for seat, cards in k.poignees.items():
        if seat not in shown:
            log.append(("poignee", seat, cards))
    return log


def rebuild_deal(k: Knowledge, world: World) -> Deal | None:
    """The engine ``Deal`` of ``world`` at the view's moment, or ``None`` when
    the world breaks a rule (the engine is the judge of consistency)."""
    dealt, chien, ecart = dealt_hands(k, world)
    variant = k.variant
    if any(m.bit_count() != variant.hand_size for m in dealt):
        return None
    if chien.bit_count() != variant.chien_size:
        return None
    deal = Deal(k.dealer, [cards_of(m) for m in dealt], cards_of(chien), variant)
    if deal.phase == "annulled" and k.phase != "annulled":
        return None  # a petit sec the real deal did not have
    try:
        for action in public_actions(k, ecart):
            deal.apply(action)
    except RuleError:
        return None
    return deal


def worlds_within(
    play: Callable[[], T | None],
    deadline: float,
    cap: int | None,
    clock: Callable[[], float],
) -> Iterator[T]:
    """What ``play`` makes of one world after another (``None``: the world
    failed), while time is left before ``deadline`` on ``clock`` and fewer
    than ``cap`` worlds were played. A world is not started when the mean
    time of those before says it would end past the deadline."""
    start = clock()
    worlds = failures = 0
    per_world = 0.0
    while cap is None or worlds < cap:
        if clock() + per_world > deadline:
            return
        out = play()
        if out is None:
            failures += 1
            if failures > GIVE_UP_FAILURES and failures > 4 * worlds:
                return
            continue
        yield out
        worlds += 1
        per_world = (clock() - start) / worlds
