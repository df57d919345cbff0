"""Checking and scoring deal records (docs/DEAL-RECORD.md), step by step.

``replay_record`` takes one decoded JSON record and returns what
``atout-server replay`` prints for it: the score, the annulment, or the first
broken rule with its stable code and where it happened. Pure: reading files
and printing is the CLI's job.
"""

from __future__ import annotations

from typing import Any, TypeGuard

import msgspec

from protocol.cards import CARD_OF, CODES, DECK_SIZE
from protocol.errors import ErrorCode
from server.game.commands import parse_cards
from server.game.contracts import BID_OF, takes_chien
from server.game.deal import Deal
from server.game.errors import RuleError
from server.game.variant import FOUR, VARIANTS, Variant


def _malformed(message: str, **where: Any) -> RuleError:
    return RuleError("malformed", message, **where)


def _card_list(value: Any, what: str, size: int | None, code: ErrorCode = "malformed") -> list[str]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise _malformed(f"{what} must be a list of card codes")
    if size is not None and len(value) != size:
        raise RuleError(code, f"{what} must hold {size} cards, not {len(value)}")
    return value


def _cards(codes: list[str], what: str, code: ErrorCode) -> list[int]:
    # A record's bad card is blamed on the part it is in (bad_deck, bad_ecart...).
    return parse_cards(codes, code=code, what=what)


def _is_seat(value: Any, variant: Variant) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value in variant.seats


def _variant_of(record: Any) -> Variant:
    if not isinstance(record, dict):
        raise _malformed("a deal record is a JSON object")
    # A record without ``players`` is of four (every record before variants).
    players = record.get("players", FOUR.players)
    if type(players) is not int or players not in VARIANTS:
        sizes = ", ".join(str(n) for n in VARIANTS)
        raise _malformed(f"players must be one of {sizes}, not {players!r}")
    return VARIANTS[players]


def _deal_from(record: Any, variant: Variant) -> Deal:
    if not isinstance(record, dict):
        raise _malformed("a deal record is a JSON object")
    dealer = record.get("dealer")
    if not _is_seat(dealer, variant):
        raise _malformed(f"dealer must be a seat 0-{variant.players - 1}")
    hands = record.get("hands")
    if not isinstance(hands, list) or len(hands) != variant.players:
        raise _malformed(f"hands must be a list of {variant.players} hands")
    hand_cards = [
        _cards(
            _card_list(h, f"hand of seat {s}", variant.hand_size, "bad_deck"),
            f"hand of seat {s}",
            "bad_deck",
        )
        for s, h in enumerate(hands)
    ]
    chien_size = variant.chien_size
    chien = _cards(
        _card_list(record.get("chien"), "chien", chien_size, "bad_deck"), "chien", "bad_deck"
    )
    seen = set(chien)
    for h in hand_cards:
        seen.update(h)
    if len(seen) != DECK_SIZE:
        missing = [CODES[c] for c in range(DECK_SIZE) if c not in seen]
        raise RuleError(
            "bad_deck", f"the deal is not the {DECK_SIZE} cards once each; missing {missing}"
        )
    return Deal(dealer, hand_cards, chien, variant)


def _play_tricks(deal: Deal, record: dict[str, Any]) -> None:
    variant = deal.variant
    tricks = record.get("tricks")
    if not isinstance(tricks, list) or len(tricks) != variant.tricks:
        raise _malformed(f"tricks must be a list of {variant.tricks} tricks")
    poignees: dict[int, list[int]] = {}
    raw = record.get("poignees", [])
    if not isinstance(raw, list):
        raise _malformed("poignees must be a list")
    for p in raw:
        if not isinstance(p, dict):
            raise _malformed("a poignée is an object with seat and cards")
        seat = p.get("seat")
        if not _is_seat(seat, variant):
            raise RuleError("bad_poignee", f"a poignée's seat must be 0-{variant.players - 1}")
        if seat in poignees:
            raise RuleError("bad_poignee", "one poignée per player", seat=seat)
        codes = _card_list(p.get("cards"), "poignée", None)
        poignees[seat] = _cards(codes, "poignée", "bad_poignee")
    for number, trick in enumerate(tricks):
        if not isinstance(trick, list) or len(trick) != variant.players:
            raise _malformed(f"trick {number} must hold {variant.players} cards", trick=number)
        for code in trick:
            seat = deal.turn
            assert seat is not None
            if not isinstance(code, str) or code not in CARD_OF:
                raise RuleError(
                    "unknown_card", f"unknown card code {code!r}", trick=number, seat=seat
                )
            if number == 0 and seat in poignees:
                deal.declare_poignee(seat, poignees.pop(seat))
            deal.play(seat, CARD_OF[code])


def _result(deal: Deal) -> dict[str, Any]:
    result: dict[str, Any] = msgspec.to_builtins(deal.result())
    return result


def replay_record(record: Any) -> dict[str, Any]:
    """Check one record against the rules and score it, or say what is wrong."""
    try:
        deal = _deal_from(record, _variant_of(record))
        if deal.phase == "annulled":
            if record.get("tricks"):
                raise _malformed("the deal was annulled (petit sec) but the record goes on")
            return _result(deal)
        bids = record.get("bids")
        players = deal.variant.players
        if not isinstance(bids, list) or len(bids) != players:
            raise _malformed(f"bids must list exactly {players} bids")
        for bid in bids:
            seat = deal.turn
            assert seat is not None
            if not isinstance(bid, str) or bid not in BID_OF:
                raise RuleError("bad_bid", f"unknown bid {bid!r}", seat=seat)
            deal.bid(seat, bid)
        if deal.annulled_reason == "all_pass":
            if record.get("tricks"):
                raise _malformed("every player passed but the record goes on")
            return _result(deal)
        if deal.phase == "call":
            # Five players: the taker's called card. A ``call`` elsewhere (3 or
            # 4 players, everyone passed) is ignored, as DEAL-RECORD.md says.
            called = record.get("call")
            if not isinstance(called, str):
                raise _malformed("call must be the called card's code", seat=deal.taker)
            deal.call(deal.taker, _cards([called], "call", "bad_call")[0])
        ecart = record.get("ecart")
        if takes_chien(deal.contract):
            codes = _card_list(ecart, "écart", None)
            deal.ecart(deal.taker, _cards(codes, "écart", "bad_ecart"))
        elif ecart:
            raise RuleError(
                "bad_ecart", "there is no écart in a garde sans or garde contre", seat=deal.taker
            )
        chelem = record.get("chelem", False)
        if not isinstance(chelem, bool):
            raise RuleError("bad_chelem", "chelem must be true or false", seat=deal.taker)
        deal.declare_chelem(deal.taker, chelem)
        _play_tricks(deal, record)
        return _result(deal)
    except RuleError as e:
        return e.as_dict()
