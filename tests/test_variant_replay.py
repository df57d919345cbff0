"""`atout-server replay` at three and five players against an independent scorer.

Random legal deals are played through the engine, their records written to
a file and replayed by ``atout-server replay`` (``server/replay_cli.py``);
every result must equal what ``independent_score`` below computes from the
record alone. That scorer is written from the rules text (the FFT rules and
the variants: docs/RULES.md), card codes and all: it calls nothing of the
engine, so a mistake shared by both would have to be made twice.

Then hypothesis property tests of random deals at three and five players.
"""

from __future__ import annotations

import io
import json
import math
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from server.game import replay_record
from server.game.variant import FIVE, THREE, Variant
from server.replay_cli import run
from tests.engine_helpers import random_deal

ROOT = Path(__file__).resolve().parent.parent

# -- the independent scorer ---------------------------------------------------

MULT = {"prise": 1, "garde": 2, "garde_sans": 4, "garde_contre": 6}
CONTRACTS = ["pass", "prise", "garde", "garde_sans", "garde_contre"]
TARGET = {0: 56, 1: 51, 2: 41, 3: 36}
POIGNEE = {  # players -> trumps shown -> (size, bonus)
    3: {13: ("simple", 20), 15: ("double", 30), 18: ("triple", 40)},
    4: {10: ("simple", 20), 13: ("double", 30), 15: ("triple", 40)},
    5: {8: ("simple", 20), 10: ("double", 30), 13: ("triple", 40)},
}
FACE = {"K": 4.5, "Q": 3.5, "C": 2.5, "J": 1.5}
RANK = {"J": 11, "C": 12, "Q": 13, "K": 14}


def value(card: str) -> float:
    if card in ("T1", "T21", "EX"):
        return 4.5
    if card.startswith("T"):
        return 0.5
    return FACE.get(card[:-1], 0.5)


def suit(card: str) -> str:
    return "T" if card.startswith("T") else "X" if card == "EX" else card[-1]


def strength(card: str) -> int:
    if card.startswith("T"):
        return int(card[1:])
    return RANK.get(card[:-1]) or int(card[:-1])


def trick_winner(cards: list[str], seats: list[int]) -> int:
    """Highest trump, else highest card of the suit led (the Excuse never wins)."""
    trumps = [(strength(c), s) for c, s in zip(cards, seats, strict=True) if suit(c) == "T"]
    if trumps:
        return max(trumps)[1]
    led = next(suit(c) for c in cards if c != "EX")
    return max((strength(c), s) for c, s in zip(cards, seats, strict=True) if suit(c) == led)[1]


def independent_score(rec: dict[str, Any]) -> dict[str, Any]:
    n = rec.get("players", 4)
    first = (rec["dealer"] + 1) % n
    bids = rec["bids"]
    high = max(CONTRACTS.index(b) for b in bids)
    if high == 0:
        return {"annulled": "all_pass", "scores": [0] * n}
    taker = (first + [CONTRACTS.index(b) for b in bids].index(high)) % n
    contract = CONTRACTS[high]
    partner = None
    if n == 5:
        holders = [s for s, h in enumerate(rec["hands"]) if rec["call"] in h]
        partner = holders[0] if holders and holders[0] != taker else None
    attack = {taker} if partner is None else {taker, partner}
    points = {True: 0.0, False: 0.0}  # by "is attack"
    bouts = {True: 0, False: 0}
    aside = rec.get("ecart") if contract in ("prise", "garde") else rec["chien"]
    aside_attack = contract != "garde_contre"
    for c in aside:
        points[aside_attack] += value(c)
        bouts[aside_attack] += c in ("T1", "T21", "EX")
    leader = taker if rec.get("chelem") else first
    tricks = rec["tricks"]
    won_by_attack: list[bool] = []
    last = len(tricks) - 1
    for number, cards in enumerate(tricks):
        seats = [(leader + i) % n for i in range(n)]
        winner = trick_winner(cards, seats)
        # The chelem exception: the Excuse led to the last trick by a camp
        # that won every trick before wins it.
        excuse_wins = (
            number == last
            and cards[0] == "EX"
            and all(w == (leader in attack) for w in won_by_attack)
        )
        if excuse_wins:
            winner = leader
        camp = winner in attack
        won_by_attack.append(camp)
        for c, s in zip(cards, seats, strict=True):
            if c == "EX" and not excuse_wins:
                owner = s in attack
                if number < last:  # kept by its owner, half a point given
                    points[owner] += 4.5
                    if owner != camp:
                        points[owner] -= 0.5
                        points[camp] += 0.5
                    bouts[owner] += 1
                else:  # the last trick: it changes camp
                    points[not owner] += 4.5
                    bouts[not owner] += 1
                continue
            points[camp] += value(c)
            bouts[camp] += c in ("T1", "T21", "EX")
        leader = winner
    pts = points[True]
    assert pts + points[False] == 91
    target = TARGET[bouts[True]]
    made = pts >= target
    margin = math.ceil(abs(pts - target))
    sign = 1 if made else -1
    mult = MULT[contract]
    base = sign * (25 + margin) * mult
    # Petit au bout: the Petit in the last trick, or in the one before when
    # the last was won by the Excuse under the chelem exception.
    pab = None
    final = last
    if tricks[last][0] == "EX" and "T1" not in tricks[last] and excuse_wins:
        final = last - 1
    if "T1" in tricks[final]:
        pab = "taker" if won_by_attack[final] else "defense"
        base += (10 if pab == "taker" else -10) * mult
    shown = []
    for p in rec.get("poignees", []):
        size, bonus = POIGNEE[n][len(p["cards"])]
        shown.append({"seat": p["seat"], "size": size, "bonus": bonus})
        base += sign * bonus
    chelem = None
    if all(won_by_attack):
        chelem = "declared_made" if rec.get("chelem") else "undeclared_made"
    elif rec.get("chelem"):
        chelem = "declared_failed"
    elif not any(won_by_attack):
        chelem = "defense"
    base += {None: 0, "declared_made": 400, "undeclared_made": 200}.get(chelem, -200)
    scores = [-base] * n
    if partner is None:
        scores[taker] = (n - 1) * base
    else:
        scores[taker], scores[partner] = 2 * base, base
    out: dict[str, Any] = {
        "taker": taker,
        "contract": contract,
        "multiplier": mult,
        "bouts": bouts[True],
        "target": target,
        "points": pts,
        "made": made,
        "margin": margin,
        "petit_au_bout": pab,
        "poignees": shown,
        "chelem": chelem,
        "base": base,
        "scores": scores,
    }
    if n == 5:
        out["partner"] = partner
    return out


# -- replay of random records agrees with it --------------------------------------


def _records(variant: Variant, count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        deal = random_deal(rng, variant=variant)
        if deal.annulled_reason != "petit_sec":
            out.append(deal.record())
    return out


def test_replay_of_random_three_and_five_player_records_agrees_with_independent_scorer(
    tmp_path: Path,
) -> None:
    for variant in (THREE, FIVE):
        records = _records(variant, 400, seed=variant.players)
        path = tmp_path / f"records-{variant.players}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        out = io.StringIO()
        assert run([str(path)], out) == 0
        results = [json.loads(line) for line in out.getvalue().splitlines()]
        assert len(results) == len(records)
        played = 0
        for rec, got in zip(records, results, strict=True):
            assert got == independent_score(rec), rec
            played += "taker" in got
        assert played > 200
        if variant is FIVE:
            partners = [r.get("partner") for r in results if "taker" in r]
            assert None in partners and any(p is not None for p in partners)


def test_the_replay_command_reads_players_and_call() -> None:
    rec = _records(FIVE, 1, seed=11)[0]
    done = subprocess.run(
        [sys.executable, "-m", "server", "replay", "-"],
        input=json.dumps(rec),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=60,
    )
    assert json.loads(done.stdout) == independent_score(rec)


# -- records at three and five players that break a rule -------------------------------


def _played(variant: Variant, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    while True:
        deal = random_deal(rng, variant=variant)
        if deal.phase == "done":
            return deal.record()


def test_a_five_player_record_without_call_is_malformed() -> None:
    rec = _played(FIVE, 1)
    del rec["call"]
    assert replay_record(rec)["error"] == "malformed"


def test_a_card_that_may_not_be_called_is_bad_call() -> None:
    rec = _played(FIVE, 2)
    rec["call"] = "1S"
    assert replay_record(rec)["error"] == "bad_call"
    rec["call"] = "ZZ"
    assert replay_record(rec)["error"] == "bad_call"


def test_a_call_at_three_or_four_players_is_ignored() -> None:
    rec = _played(THREE, 3)
    expected = replay_record(rec)
    assert replay_record(rec | {"call": "KH"}) == expected and "partner" not in expected


def test_wrong_sizes_for_players_are_malformed() -> None:
    rec = _played(THREE, 4)
    assert replay_record(rec | {"players": 6})["error"] == "malformed"
    assert replay_record(rec | {"players": "3"})["error"] == "malformed"
    assert replay_record(rec | {"tricks": rec["tricks"][:-1]})["error"] == "malformed"
    assert replay_record(rec | {"bids": rec["bids"][:-1]})["error"] == "malformed"
    five = _played(FIVE, 5)
    # A five-player deal read as four: the hands are the wrong number.
    assert replay_record(five | {"players": 4})["error"] == "malformed"


# -- properties ------------------------------------------------------------------------

seeds = st.integers(min_value=0, max_value=2**32)
variants = st.sampled_from([THREE, FIVE])


@settings(max_examples=200, deadline=None)
@given(seeds, variants)
def test_random_deals_sizes_tricks_and_zero_sum(seed: int, variant: Variant) -> None:
    deal = random_deal(random.Random(seed), variant=variant)
    assert [len(h) for h in deal.dealt] == [variant.hand_size] * variant.players
    assert len(deal.chien) == variant.chien_size
    result = deal.result()
    assert result is not None and sum(result.scores) == 0
    assert len(result.scores) == variant.players
    if deal.phase != "done":
        return
    assert len(deal.tricks) == variant.hand_size
    assert all(len(t) == variant.players for t in deal.tricks)
    if deal.ecart_cards:
        assert len(deal.ecart_cards) == variant.ecart_size
    if variant is FIVE:
        assert deal.called is not None and deal.partner_known
        rec = deal.record()
        if deal.called in rec["chien"] or deal.called in rec["hands"][deal.taker]:
            assert deal.partner is None
        else:
            assert deal.partner is not None and deal.called in rec["hands"][deal.partner]
    # The record replays to the same result.
    assert replay_record(deal.record()) == msgspec.to_builtins(result)


# -- the reference deals at three and five players ------------------------------------

REFERENCE = ROOT / "tests" / "data" / "reference-deals-3-5.jsonl"


def test_reference_deals_at_three_and_five_replay_to_their_results() -> None:
    entries = [json.loads(line) for line in REFERENCE.read_text(encoding="utf-8").splitlines()]
    names = {e["name"] for e in entries}
    assert {"5p-alone-own-king", "5p-called-in-chien", "5p-partner-excuse-last-trick"} <= names
    out = io.StringIO()
    assert run([str(REFERENCE)], out) == 0
    for entry, line in zip(entries, out.getvalue().splitlines(), strict=True):
        assert json.loads(line) == entry["expected"] == independent_score(entry["record"])
    by_name = {e["name"]: e for e in entries}
    alone = by_name["5p-alone-own-king"]
    assert alone["record"]["call"] in alone["record"]["hands"][alone["expected"]["taker"]]
    chien = by_name["5p-called-in-chien"]
    assert chien["record"]["call"] in chien["record"]["chien"]
    assert chien["expected"]["partner"] is None
