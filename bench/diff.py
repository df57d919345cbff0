"""Benchmark protocol.diff: diff+encode of a ~3 KB table view after one card is played.

Run from the repository root: ``python -m bench.diff``. Prints median
microseconds per call (over rounds of many calls, so one GC pause or a
noisy neighbour does not move it) and the patch size against a snapshot.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Literal

import msgspec

from protocol.diff import Patch, apply, diff

ROUNDS = 41
CALLS_PER_ROUND = 500


# Shaped like the TableView a seat receives in the middle of a deal.
class Seat(msgspec.Struct, frozen=True):
    name: str
    bot: bool
    connected: bool
    score: int
    bid: str | None = None


class Trick(msgspec.Struct, frozen=True):
    leader: int
    cards: list[str]
    winner: int | None = None


class ChatLine(msgspec.Struct, frozen=True):
    seat: int
    text: str
    at: float


class Contract(msgspec.Struct, frozen=True):
    taker: int
    bid: Literal["petite", "garde", "garde_sans", "garde_contre"]
    called_king: str | None = None


class TableView(msgspec.Struct, frozen=True, tag=True):
    table: str
    deal: int
    phase: Literal["bidding", "chien", "playing", "scoring"]
    me: int
    seats: list[Seat]
    dealer: int
    hand: list[str]
    legal: list[str]
    contract: Contract | None
    chien: list[str]
    tricks: list[Trick]
    to_play: int | None
    deadline: float | None
    scores: dict[str, int]
    history: list[list[int]]
    chat: list[ChatLine]


CHAT = [
    "salut tout le monde",
    "bonne partie !",
    "garde, je tente",
    "courage",
    "le petit est tombé…",
    "bien joué",
    "merci",
    "on continue après ?",
    "oui, une dernière",
    "ok",
]


def _views() -> tuple[TableView, TableView]:
    hand = ["1S", "4S", "9S", "JS", "KS", "3H", "QH", "7D", "T2", "T7", "T13", "T19"]
    before = TableView(
        table="a3f9c2e1-7b44-4c1e-9e0a-5d2f61c0b8aa",
        deal=4,
        phase="playing",
        me=0,
        seats=[
            Seat("Camille", bot=False, connected=True, score=120, bid="garde"),
            Seat("bot-Léa", bot=True, connected=True, score=-40, bid="pass"),
            Seat("Maxime", bot=False, connected=True, score=-60, bid="pass"),
            Seat("bot-Hugo", bot=True, connected=True, score=-20, bid="pass"),
        ],
        dealer=3,
        hand=hand,
        legal=["1S", "4S", "9S", "JS", "KS"],
        contract=Contract(taker=0, bid="garde", called_king=None),
        chien=["2C", "8C", "10H", "CD", "T5", "6S"],
        tricks=[
            Trick(1, ["QD", "KD", "T8", "1D"], winner=0),
            Trick(0, ["T21", "T3", "T6", "T10"], winner=0),
            Trick(0, ["EX", "2H", "KH", "5H"], winner=3),
            Trick(3, ["10C", "QC", "T14", "1C"], winner=0),
            Trick(0, ["T18", "T1", "T9", "T4"], winner=0),
            Trick(0, ["CH", "8H", "T11", "9H"], winner=2),
            Trick(2, ["3S", "7S"]),  # the current trick: South is next
        ],
        to_play=0,
        deadline=1_718_000_030.0,
        scores={"Camille": 120, "bot-Léa": -40, "Maxime": -60, "bot-Hugo": -20},
        history=[[50, -50, 25, -25], [-70, 20, 30, 20], [140, -50, -25, -65]] * 4,
        chat=[ChatLine(i % 4, text, 1_718_000_000.0 + 7 * i) for i, text in enumerate(CHAT * 5)],
    )
    # South plays the King of spades into the current trick; West is next.
    current = before.tricks[-1]
    after = msgspec.structs.replace(
        before,
        hand=[c for c in before.hand if c != "KS"],
        legal=[],
        tricks=[
            *before.tricks[:-1],
            msgspec.structs.replace(current, cards=[*current.cards, "KS"]),
        ],
        to_play=1,
        deadline=1_718_000_060.0,
    )
    return before, after


def _median_us(fn: Callable[[], object]) -> float:
    per_call = []
    for _ in range(ROUNDS):
        start = time.perf_counter_ns()
        for _ in range(CALLS_PER_ROUND):
            fn()
        per_call.append((time.perf_counter_ns() - start) / CALLS_PER_ROUND / 1000)
    return statistics.median(per_call)


def main() -> None:
    before, after = _views()
    msgpack = msgspec.msgpack.Encoder()
    json = msgspec.json.Encoder()
    patch = diff(before, after)
    assert apply(before, patch) == after
    wire: Patch = msgspec.msgpack.decode(msgpack.encode(patch), type=Patch)

    rows = [
        ("diff + msgpack encode", _median_us(lambda: msgpack.encode(diff(before, after)))),
        ("diff alone", _median_us(lambda: diff(before, after))),
        ("snapshot msgpack encode", _median_us(lambda: msgpack.encode(after))),
        ("apply (decoded patch)", _median_us(lambda: apply(before, wire))),
    ]
    print(f"median of {ROUNDS} rounds x {CALLS_PER_ROUND} calls")
    for name, us in rows:
        print(f"  {name:<28}{us:8.1f} µs")
    print("sizes")
    print(f"  snapshot msgpack  {len(msgpack.encode(after)):6d} B")
    print(f"  snapshot json     {len(json.encode(after)):6d} B")
    print(f"  patch msgpack     {len(msgpack.encode(patch)):6d} B  ({len(patch)} ops)")
    print(f"  patch json        {len(json.encode(patch)):6d} B")
    print(f"  {json.encode(patch).decode()}")


if __name__ == "__main__":
    main()
