"""Dealing's own draws (``server.game.dealing``) against the standard library's.

The same seed must deal the same cards on every Python the project runs on
(a replay, a stored game, the tests' seeded deals): ``sample_range`` draws
the chien's places as ``random.Random.sample`` does. If a Python changed
``sample``'s draws, these tests would fail on it.
"""

from __future__ import annotations

import random

import pytest

from server.game.dealing import deal_cards, sample_range
from server.game.variant import VARIANTS


@pytest.mark.parametrize("n", [1, 2, 5, 17, 21, 22, 23, 24, 40, 90])
def test_sample_range_draws_as_random_sample(n: int) -> None:
    """Every size of sample of small and larger populations (``sample``
    draws from a pool up to a size, then into a set): the same numbers, and
    the generator left in the same state."""
    for seed in range(60):
        for k in range(min(n, 12) + 1):
            ours, theirs = random.Random(seed), random.Random(seed)
            assert sample_range(ours, n, k) == theirs.sample(range(n), k), (seed, n, k)
            assert ours.getstate() == theirs.getstate()


class _Counting(random.Random):
    """A generator of its own (a subclass): its ``sample`` is the one used."""

    def __init__(self) -> None:
        super().__init__(3)
        self.samples = 0

    def sample(self, population, k, *, counts=None):  # type: ignore[no-untyped-def]
        self.samples += 1
        return super().sample(population, k, counts=counts)


def test_a_subclass_draws_with_its_own_sample() -> None:
    rng = _Counting()
    assert sample_range(rng, 23, 6) == random.Random(3).sample(range(23), 6)
    assert rng.samples == 1


def test_each_size_deals_the_same_cards_as_before() -> None:
    """Three seeds' deals at each size, as dealt before ``sample_range``
    (with ``rng.sample``)."""
    for players, variant in VARIANTS.items():
        for seed in range(3):
            rng = random.Random(seed)
            keys = [rng.random() for _ in range(78)]
            pack = sorted(range(78), key=keys.__getitem__)
            gaps = sorted(rng.sample(range(variant.packets - 1), variant.chien_size))
            places = [(gap + 1) * variant.packet + j for j, gap in enumerate(gaps)]
            chien = [pack[p] for p in places]
            hands, dealt_chien = deal_cards(random.Random(seed), 0, variant)
            assert dealt_chien == chien, players
            first = [c for c in pack if c not in chien][: variant.packet]
            assert hands[1][: variant.packet] == first
