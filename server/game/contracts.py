"""Bids and contracts: the words of the auction and what each one is worth.

A bid is an ``int`` inside the engine: 0 is a pass, 1..4 the contracts from
low to high, so "higher than every bid before" is a plain comparison.
"""

from __future__ import annotations

from typing import Final, Literal

BidName = Literal["pass", "prise", "garde", "garde_sans", "garde_contre"]
ContractName = Literal["prise", "garde", "garde_sans", "garde_contre"]

PASS: Final = 0
PRISE: Final = 1
GARDE: Final = 2
GARDE_SANS: Final = 3
GARDE_CONTRE: Final = 4

BID_NAMES: Final[tuple[BidName, ...]] = ("pass", "prise", "garde", "garde_sans", "garde_contre")
BID_OF: Final[dict[str, int]] = {name: i for i, name in enumerate(BID_NAMES)}

MULTIPLIER: Final = (0, 1, 2, 4, 6)
"""``MULTIPLIER[contract]``: prise 1, garde 2, garde sans 4, garde contre 6."""


def takes_chien(contract: int) -> bool:
    """Prise and garde: the chien is shown, taken, and the taker makes an écart."""
    return contract in (PRISE, GARDE)
