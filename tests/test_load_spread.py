"""The load bench's tables begin their moves over ``--spread`` seconds
(bench/load_bench/table_clients.py, ``first_move_delay``): started within one
move's period, their deals, ~80 moves each, all ended in the same second."""

from __future__ import annotations

import random

from bench.load_bench.table_clients import first_move_delay


def test_the_first_moves_fall_within_a_period_or_over_the_spread() -> None:
    rng = random.Random(1)
    together = [first_move_delay(rng, 1.0, 0.0) for _ in range(1000)]
    assert min(together) >= 0 and max(together) < 1.0
    apart = [first_move_delay(rng, 1.0, 80.0) for _ in range(1000)]
    assert min(apart) >= 0 and max(apart) < 80.0
    # Every 10-second slice of the 80 holds some tables' first moves: the
    # deals' ends are spread over the whole deal's length, not bunched.
    assert {int(d // 10) for d in apart} == set(range(8))
