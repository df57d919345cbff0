"""The rules of each table size as the protocol tells them to clients.

``welcome`` carries them (``Welcome.rules``) so that a client shows the
poignée names and bonuses, the taker's targets and a new table's deals from
the server's own values (``server/game/variant.py``, ``scoring.py``), never
from a copy of its own that could disagree with the table it plays at.
"""

from __future__ import annotations

from typing import Final

from protocol.views import PoigneeRule, SizeRules
from server.game.scoring import POIGNEE_BONUS, TARGET_HALF
from server.game.variant import VARIANTS, Variant


def size_rules(variant: Variant) -> SizeRules:
    """What a client needs to know of ``variant``'s rules."""
    return SizeRules(
        players=variant.players,
        hand_size=variant.hand_size,
        chien_size=variant.chien_size,
        deals=variant.default_deals,
        poignees=[
            PoigneeRule(size=name, cards=cards, bonus=POIGNEE_BONUS[name])
            for cards in variant.poignees
            for name in (variant.poignee_name(cards),)
        ],
        targets=[half // 2 for half in TARGET_HALF],
    )


SIZE_RULES: Final = [size_rules(v) for v in sorted(VARIANTS.values(), key=lambda v: v.players)]
"""Every size played, smallest first: what ``welcome`` sends."""
