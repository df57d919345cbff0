"""The taker's views over the reference deals, for the browser's node tests.

``tests/js/facts.test.mjs`` checks that the page's "You need N" reads these
views as the server means them: the taker's target from ``deal.taker_bouts``
and its hand during the deal, the result's ``target`` at its end. The views
come from the server's own functions (``server.table.seat_view``) over the
hand-checked reference deals at 3, 4 and 5 players; ``expected`` is the
server's count (``taker_bouts`` and the taker's hand, or the result's
target). ``tests/test_taker_bouts.py`` checks the file is what this writes:

    python -m tests.support.need_views > tests/data/need-views.json
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from protocol.cards import CODES, cards_of
from server.front.rules_view import SIZE_RULES
from server.table.seat_view import public_partner, taker_bouts
from tests.support.recorded import reference_records, replay_steps

BOUT_CODES = ("T1", "T21", "EX")


def need_views() -> dict[str, Any]:
    """``rules`` (as ``welcome`` sends them) and, per reference deal, the
    taker's view after each trick and at the end, with the figure expected."""
    rules = msgspec.to_builtins(SIZE_RULES)
    targets = {r.players: r.targets for r in SIZE_RULES}
    deals = []
    for name, record in reference_records():
        steps = []
        for deal in replay_steps(record):
            if deal.phase == "play" and deal.trick:
                continue  # a trick under way: one look per trick is enough
            if deal.taker < 0 or deal.phase not in ("play", "done"):
                continue
            hand = [CODES[c] for c in cards_of(deal.hands[deal.taker])]
            bouts = taker_bouts(deal, public_partner(deal))
            result = deal.result()
            target = getattr(result, "target", None)
            expected = (
                target
                if target is not None
                else targets[deal.variant.players][len(set(bouts) | set(hand) & set(BOUT_CODES))]
            )
            steps.append(
                {
                    "you": deal.taker,
                    "hand": hand,
                    "deal": {
                        "players": deal.variant.players,
                        "taker": deal.taker,
                        "phase": deal.phase,
                        "taker_bouts": bouts,
                        "result": {"target": target} if target is not None else None,
                    },
                    "expected": expected,
                }
            )
        deals.append({"name": name, "views": steps})
    return {"rules": rules, "deals": deals}


if __name__ == "__main__":
    print(json.dumps(need_views(), ensure_ascii=False, separators=(",", ":")))
