"""Shuffling and dealing: a hand to each seat and the chien, as the variant says.

Cards go out a packet at a time (3 at four players) in the order of play,
starting after the dealer; the chien cards go one at a time between packets,
never as the first or the last card of the pack. The RNG is injected so that
a seeded game deals the same cards every time it is replayed.
"""

from __future__ import annotations

import random

from protocol.cards import DECK_SIZE, EXCUSE_BIT, PETIT, TRUMP_MASK
from server.game.variant import FOUR, Variant


def deal_cards(
    rng: random.Random, dealer: int, variant: Variant = FOUR
) -> tuple[list[list[int]], list[int]]:
    """Shuffle a fresh pack and deal it; returns ``(hands, chien)``.

    ``hands[seat]`` lists that seat's cards in the order received.
    """
    # Sorting by random keys is a uniform shuffle, and twice as fast as
    # random.shuffle here (one C-level sort instead of 77 Python-level swaps).
    keys = [rng.random() for _ in range(DECK_SIZE)]
    pack = sorted(range(DECK_SIZE), key=keys.__getitem__)
    # A chien card may follow any packet but the last, and never comes first:
    # choose the chien's gaps among those between consecutive packets.
    packets = variant.packets
    chien_after = frozenset(rng.sample(range(packets - 1), variant.chien_size))
    players = variant.players
    size = variant.packet
    hands: list[list[int]] = [[] for _ in range(players)]
    chien: list[int] = []
    seat = (dealer + 1) % players
    pos = 0
    for packet in range(packets):
        hands[seat].extend(pack[pos : pos + size])
        pos += size
        seat = (seat + 1) % players
        if packet in chien_after:
            chien.append(pack[pos])
            pos += 1
    return hands, chien


def has_petit_sec(hand_mask: int) -> bool:
    """Petit sec: the Petit is the hand's only trump and there is no Excuse."""
    return hand_mask & (TRUMP_MASK | EXCUSE_BIT) == 1 << PETIT
