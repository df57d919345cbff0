"""Shuffling and dealing: 18 cards to each seat, 6 to the chien.

Cards go out 3 at a time in the order of play, starting after the dealer; the
chien cards go one at a time between packets, never as the first or the last
card of the pack. The RNG is injected so that a seeded game deals the same
cards every time it is replayed.
"""

from __future__ import annotations

import random

from protocol.cards import DECK_SIZE, EXCUSE_BIT, PETIT, TRUMP_MASK

PACKETS: int = 24  # 72 cards to the players, 3 at a time


def deal_cards(rng: random.Random, dealer: int) -> tuple[list[list[int]], list[int]]:
    """Shuffle a fresh pack and deal it; returns ``(hands, chien)``.

    ``hands[seat]`` lists that seat's 18 cards in the order received.
    """
    # Sorting by random keys is a uniform shuffle, and twice as fast as
    # random.shuffle here (one C-level sort instead of 77 Python-level swaps).
    keys = [rng.random() for _ in range(DECK_SIZE)]
    pack = sorted(range(DECK_SIZE), key=keys.__getitem__)
    # A chien card may follow any packet but the last, and never comes first:
    # choose 6 of the 23 gaps between consecutive packets.
    chien_after = frozenset(rng.sample(range(PACKETS - 1), 6))
    hands: list[list[int]] = [[], [], [], []]
    chien: list[int] = []
    seat = (dealer + 1) % 4
    pos = 0
    for packet in range(PACKETS):
        hands[seat].extend(pack[pos : pos + 3])
        pos += 3
        seat = (seat + 1) % 4
        if packet in chien_after:
            chien.append(pack[pos])
            pos += 1
    return hands, chien


def has_petit_sec(hand_mask: int) -> bool:
    """Petit sec: the Petit is the hand's only trump and there is no Excuse."""
    return hand_mask & (TRUMP_MASK | EXCUSE_BIT) == 1 << PETIT
