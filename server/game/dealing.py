"""Shuffling and dealing: a hand to each seat and the chien, as the variant says.

Cards go out a packet at a time (3 at four players) in the order of play,
starting after the dealer; the chien cards go one at a time between packets,
never as the first or the last card of the pack. The RNG is injected so that
a seeded game deals the same cards every time it is replayed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from functools import cache
from itertools import repeat, starmap
from operator import itemgetter

from protocol.cards import DECK_SIZE, PETIT
from server.game.variant import FOUR, Variant


@cache
def _hand_places(variant: Variant) -> tuple[itemgetter[tuple[int, ...]], ...]:
    """For the ``i``-th seat served, the places of its cards in the pack once
    the chien is taken out: packet ``k`` goes to the ``k % players``-th seat."""
    size, players = variant.packet, variant.players
    places = [
        [p for p in range(variant.players * variant.hand_size) if p // size % players == i]
        for i in range(players)
    ]
    return tuple(itemgetter(*p) for p in places)


def deal_cards(
    rng: random.Random, dealer: int, variant: Variant = FOUR
) -> tuple[list[list[int]], list[int]]:
    """Shuffle a fresh pack and deal it; returns ``(hands, chien)``.

    ``hands[seat]`` lists that seat's cards in the order received.
    """
    # Sorting by random keys is a uniform shuffle, and twice as fast as
    # random.shuffle here (one C-level sort instead of 77 Python-level swaps).
    # The keys drawn from C (starmap) rather than by a comprehension (which,
    # compiled, would unbox each float and box it again).
    keys = list(starmap(rng.random, repeat((), DECK_SIZE)))
    pack = sorted(range(DECK_SIZE), key=keys.__getitem__)
    # A chien card may follow any packet but the last, and never comes first:
    # choose the chien's gaps among those between consecutive packets.
    gaps = sorted(sample_range(rng, variant.packets - 1, variant.chien_size))
    # The j-th chien card follows packet gaps[j], after j chien cards before it.
    size = variant.packet
    chien_places = [(gap + 1) * size + j for j, gap in enumerate(gaps)]
    chien = [pack[p] for p in chien_places]
    for p in reversed(chien_places):
        del pack[p]
    # The rest goes out a packet at a time, by table (C-level itemgetters)
    # rather than a Python loop over the packets.
    players = variant.players
    first = dealer + 1
    hands: list[list[int]] = [[] for _ in range(players)]
    for i, places in enumerate(_hand_places(variant)):
        hands[(first + i) % players] = list(places(pack))
    return hands, chien


def sample_range(rng: random.Random, n: int, k: int) -> list[int]:
    """``rng.sample(range(n), k)``: the same numbers for the same state of
    ``rng``, drawn here when ``rng`` is a ``random.Random`` (no subclass:
    its own methods might draw otherwise), with the same draws as the
    standard library's ``sample`` (its Python frames cost as much as the rest
    of the deal's dealing). tests/test_dealing.py checks both agree."""
    if type(rng) is not random.Random:
        return rng.sample(range(n), k)
    getrandbits = rng.getrandbits
    out: list[int] = []
    # ``sample``'s choice: a pool for a small population, else a set of
    # what was drawn (``setsize``, from random.py).
    setsize = 21
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    if n <= setsize:
        pool = list(range(n))
        for i in range(k):
            left = n - i
            j = _below(getrandbits, left)
            out.append(pool[j])
            pool[j] = pool[left - 1]
    else:
        chosen: set[int] = set()
        for _ in range(k):
            j = _below(getrandbits, n)
            while j in chosen:
                j = _below(getrandbits, n)
            chosen.add(j)
            out.append(j)
    return out


def _below(getrandbits: Callable[[int], int], n: int) -> int:
    """``random.Random._randbelow(n)``: ``n.bit_length()`` bits until below ``n``."""
    bits = n.bit_length()
    r = getrandbits(bits)
    while r >= n:
        r = getrandbits(bits)
    return r


def has_petit_sec(hand_mask: int) -> bool:
    """Petit sec: the Petit is the hand's only trump and there is no Excuse."""
    return hand_mask >> PETIT == 1  # the trumps and the Excuse: bits 56 to 77
