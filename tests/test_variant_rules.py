"""The rules at three and five players (docs/RULES.md "Three and five players").

Dealing and sizes, the five-player call (its phase, the cards that may be
called, the partner, refusals that change nothing), the opening lead in the
called suit, camps for the Excuse, petit au bout and chelem, and scoring with
the worked examples of the variants. Dealer 0 throughout: seat 1 speaks
first and leads the first trick.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from protocol.cards import CARD_OF, DECK_SIZE, cards_of
from protocol.messages import Call
from server.game import Deal, Game, RuleError, ScoredDeal
from server.game.commands import apply_command
from server.game.contracts import BID_OF
from server.game.dealing import deal_cards
from server.game.scoring import score
from server.game.variant import FIVE, FOUR, THREE, variant_for
from tests.support.engine import bid_all, build, codes, deal_attributes, names, to_play

C = CARD_OF


def refused(code: str, fn: Any, *args: Any) -> RuleError:
    with pytest.raises(RuleError) as info:
        fn(*args)
    assert info.value.code == code, info.value.message
    return info.value


def snapshot(deal: Deal) -> dict[str, Any]:
    """Every slot of a deal, deep-copied: to see that a refusal changed nothing."""
    return {name: copy.deepcopy(getattr(deal, name)) for name in deal_attributes()}


# -- the variants and dealing -----------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "hand", "packet", "chien", "poignees", "deals"),
    [(THREE, 24, 4, 6, (13, 15, 18), 6), (FIVE, 15, 3, 3, (8, 10, 13), 10)],
)
def test_variant_sizes(
    variant: Any, hand: int, packet: int, chien: int, poignees: tuple[int, ...], deals: int
) -> None:
    assert variant_for(variant.players) is variant
    assert (variant.hand_size, variant.packet, variant.chien_size) == (hand, packet, chien)
    assert (variant.tricks, variant.ecart_size, variant.poignees) == (hand, chien, poignees)
    assert variant.default_deals == deals
    assert Game(seed="d", variant=variant).deals == deals
    assert Game(seed="d").deals == FOUR.default_deals == 8


@pytest.mark.parametrize("variant", [THREE, FIVE])
def test_dealing_whole_pack_in_packets_chien_never_first_or_last(variant: Any) -> None:
    for seed in range(50):
        hands, chien = deal_cards(random.Random(seed), dealer=1, variant=variant)
        assert [len(h) for h in hands] == [variant.hand_size] * variant.players
        assert len(chien) == variant.chien_size
        assert len({c for h in hands for c in h} | set(chien)) == DECK_SIZE
    # Reconstruct the pack order: the chien cards sit between packets.
    rng = random.Random(3)
    keys = [rng.random() for _ in range(DECK_SIZE)]
    pack = sorted(range(DECK_SIZE), key=keys.__getitem__)
    hands, chien = deal_cards(random.Random(3), dealer=1, variant=variant)
    assert pack[0] not in chien and pack[-1] not in chien
    # The first packet goes to the seat after the dealer.
    assert hands[2][: variant.packet] == pack[: variant.packet]


def test_petit_sec_annuls_at_three_and_five() -> None:
    for variant in (THREE, FIVE):
        deal = build(
            {2: "T1 " + " ".join(f"{r}S" for r in range(1, 10))},
            variant=variant,
            without={2: "T X"},
            allow_annul=True,
        )
        assert deal.phase == "annulled" and deal.annulled_reason == "petit_sec"
        assert deal.annulled_seat == 2
        result = deal.result()
        assert result is not None and result.scores == [0] * variant.players


# -- the call (five players) ------------------------------------------------------


def test_call_phase_after_the_bidding_before_the_chien() -> None:
    deal = build({2: "KS KH 1C"}, chien="2C 3C 4C", variant=FIVE)
    bid_all(deal, {2: "garde"})
    assert deal.phase == "call" and deal.turn == 2 and deal.taker == 2
    assert not deal.hands[2] >> C["2C"] & 1  # the chien is not taken yet
    assert names(deal.legal_calls()) == ["KS", "KH", "KD", "KC"]
    deal.call(2, C["KD"])
    assert deal.phase == "ecart" and deal.hands[2] >> C["2C"] & 1
    assert deal.called == "KD" and deal.log[-1] == ("call", 2, C["KD"])


def test_garde_sans_calls_then_goes_to_the_chelem_question() -> None:
    deal = build({0: "KD"}, variant=FIVE)
    bid_all(deal, {3: "garde_sans"})
    deal.call(3, C["KD"])
    assert deal.phase == "chelem" and deal.partner == 0 and deal.camp_of(0) == 0


@pytest.mark.parametrize(
    ("held", "callable"),
    [
        ("KS KH KD", ["KS", "KH", "KD", "KC"]),  # KC with seat 2
        ("KS KH KD KC", ["QS", "QH", "QD", "QC", "KS", "KH", "KD", "KC"]),
        (
            "KS KH KD KC QS QH QD QC",
            ["CS", "QS", "KS", "CH", "QH", "KH", "CD", "QD", "KD", "CC", "QC", "KC"],
        ),
        ("KS KH KD KC QS QH QD QC CS CH CD CC", None),
    ],
)
def test_the_cards_that_may_be_called(held: str, callable: list[str] | None) -> None:
    # With a King elsewhere, seat 1 cannot hold all four.
    deal = build({1: held} | ({} if "KC" in held else {2: "KC"}), variant=FIVE)
    bid_all(deal, {1: "prise"})
    got = names(deal.legal_calls())
    if callable is None:  # every King, Queen, Knight: the Jacks too
        assert len(got) == 16 and {c[0] for c in got} == {"J", "C", "Q", "K"}
    else:
        assert sorted(got) == sorted(callable)


def test_bad_call_wrong_phase_not_your_turn_change_nothing() -> None:
    deal = build({1: "KS", 2: "KD"}, variant=FIVE)
    before = snapshot(deal)
    refused("wrong_phase", deal.call, 1, C["KS"])  # during the bidding
    refused("wrong_phase", deal.apply, ("call", 1, C["KS"]))
    assert snapshot(deal) == before
    bid_all(deal, {1: "garde"})
    before = snapshot(deal)
    refused("bad_call", deal.call, 1, C["QS"])  # a Queen without the four Kings
    refused("bad_call", deal.call, 1, C["T21"])
    refused("bad_call", deal.call, 1, 99)
    refused("not_your_turn", deal.call, 2, C["KS"])
    refused("wrong_phase", deal.play, 1, C["KS"])
    refused("bad_call", apply_command, deal, 1, Call(card="XX"))
    assert snapshot(deal) == before
    apply_command(deal, 1, Call(card="KH"))
    assert deal.called == "KH"
    before = snapshot(deal)
    refused("wrong_phase", deal.call, 1, C["KS"])  # called already
    assert snapshot(deal) == before


@pytest.mark.parametrize("variant", [THREE, FOUR])
def test_a_call_at_three_or_four_is_wrong_phase(variant: Any) -> None:
    deal = build(variant=variant)
    bid_all(deal, {1: "garde"})
    before = snapshot(deal)
    refused("wrong_phase", deal.call, 1, C["KS"])
    assert snapshot(deal) == before and deal.legal_calls() == []


def test_partner_holds_the_called_card_secret_until_played() -> None:
    deal = build({3: "KH 2H"}, variant=FIVE)
    to_play(deal, 1, call="KH")
    assert deal.partner == 3 and deal.camps == [1, 0, 1, 0, 1]
    assert not deal.partner_known
    # Seat 1 leads anything but a heart; play on until KH falls.
    while deal.phase == "play" and not deal.partner_known:
        deal.play(deal.turn, deal.legal_cards()[0])  # type: ignore[arg-type]
    assert deal.partner_known


def test_called_card_in_the_takers_hand_taker_alone() -> None:
    deal = build({1: "KH"}, variant=FIVE)
    to_play(deal, 1, call="KH")
    assert deal.partner is None and deal.camps == [1, 0, 1, 1, 1]


def test_called_card_in_the_chien_taker_alone() -> None:
    deal = build(chien="KH 2S 3S", variant=FIVE)
    to_play(deal, 1, call="KH")
    assert deal.partner is None


def test_called_queen_in_the_chien_may_be_discarded() -> None:
    deal = build({1: "KS KH KD KC"}, chien="QH 2S 3S", variant=FIVE)
    bid_all(deal, {1: "garde"})
    deal.call(1, C["QH"])
    assert deal.partner is None and deal.phase == "ecart"
    suits = [c for c in cards_of(deal.ecart_candidates()) if c != C["QH"]]
    deal.ecart(1, [C["QH"], *suits[:2]])
    assert deal.ecart_cards[0] == C["QH"]


# -- the opening lead --------------------------------------------------------------


def test_opening_lead_not_in_the_called_suit_unless_the_called_card() -> None:
    deal = build({1: "2H 3H KH 4S"}, variant=FIVE)
    to_play(deal, 0, call="KD")
    legal = names(deal.legal_cards())
    assert "2H" in legal and "4S" in legal
    deal = build({1: "2H 3H 4S", 2: "KH"}, variant=FIVE)
    to_play(deal, 0, call="KH")
    legal = names(deal.legal_cards())
    assert "2H" not in legal and "3H" not in legal and "4S" in legal
    before = snapshot(deal)
    err = refused("illegal_card", deal.play, 1, C["2H"])
    assert "called suit" in err.message and snapshot(deal) == before


def test_opening_lead_may_be_the_called_card_itself() -> None:
    deal = build({1: "KH 2H 4S"}, variant=FIVE)
    to_play(deal, 0, call="KH")
    legal = names(deal.legal_cards())
    assert "KH" in legal and "2H" not in legal


def test_after_an_excuse_opening_lead_the_called_suit_may_follow() -> None:
    deal = build({1: "EX 4S", 2: "2H 3H"}, variant=FIVE)
    to_play(deal, 0, call="KH")
    deal.play(1, C["EX"])
    assert "2H" in names(deal.legal_cards())


def test_the_restriction_binds_the_taker_after_a_chelem_declaration() -> None:
    deal = build({0: "2H 3H 4S"}, variant=FIVE)
    to_play(deal, 0, call="KH", chelem=True)
    assert deal.turn == 0
    assert "2H" not in names(deal.legal_cards())


# -- camps: the Excuse, petit au bout, chelem ----------------------------------------


def _finish_first_legal(deal: Deal) -> None:
    while deal.phase == "play":
        deal.play(deal.turn, deal.legal_cards()[0])  # type: ignore[arg-type]


def test_scores_with_a_partner_and_alone_sum_to_zero() -> None:
    for call, partner in (("KH", 3), ("KS", None)):
        deal = build({3: "KH", 1: "KS"}, variant=FIVE)
        to_play(deal, 1, "garde", call=call)
        _finish_first_legal(deal)
        result = deal.result()
        assert isinstance(result, ScoredDeal) and result.partner == partner
        assert sum(result.scores) == 0
        shares = [-1] * 5
        if partner is None:
            shares[1] = 4
        else:
            shares[1], shares[partner] = 2, 1
        assert result.scores == [s * result.base for s in shares]


def test_three_players_taker_wins_twice_the_base() -> None:
    deal = build(variant=THREE)
    to_play(deal, 2, "garde")
    _finish_first_legal(deal)
    result = deal.result()
    assert isinstance(result, ScoredDeal)
    assert result.scores[2] == 2 * result.base and sum(result.scores) == 0
    assert len(deal.tricks) == 24 and all(len(t) == 3 for t in deal.tricks)


def test_four_player_results_say_no_partner() -> None:
    deal = build()
    to_play(deal, 1, "garde")
    _finish_first_legal(deal)
    import msgspec

    assert "partner" not in msgspec.to_builtins(deal.result())


def test_partner_excuse_stays_in_the_attack_camp_before_the_last_trick() -> None:
    # The partner's Excuse in a trick the taker wins needs no exchange.
    deal = build({1: "T21 T20", 2: "EX KH"}, variant=FIVE)
    to_play(deal, 1, call="KH")  # seat 1 takes garde sans, seat 2 partner
    assert deal.partner == 2
    deal.play(1, C["T21"])
    deal.play(2, C["EX"])
    while deal.trick:
        deal.play(deal.turn, deal.legal_cards()[0])  # type: ignore[arg-type]
    assert deal.winners[0] == 1 and deal.excuse_camp == 0


def test_excuse_poignee_sizes_five() -> None:
    trumps = " ".join(f"T{n}" for n in range(2, 10))  # 8 trumps: a simple poignée
    deal = build({1: trumps}, variant=FIVE)
    to_play(deal, 0, call="KH")
    assert deal.turn == 1 and deal.poignee_sizes(1)[0] == 8
    deal.declare_poignee(1, codes(trumps))
    refused("bad_poignee", deal.declare_poignee, 1, codes(trumps))


def test_petit_au_bout_goes_by_camp() -> None:
    # Rig the last trick: the partner's T1 won by the partner is the attack's.
    for seed in range(3000):
        rng = random.Random(seed)
        deal = Deal.deal(rng, 0, FIVE)
        if deal.phase == "annulled":
            continue
        bid_all(deal, {1: "garde_sans"})
        deal.call(1, deal.legal_calls()[rng.randrange(4)])
        deal.declare_chelem(1, False)
        while deal.phase == "play":
            deal.play(deal.turn, rng.choice(deal.legal_cards()))  # type: ignore[arg-type]
        last = deal.tricks[-1]
        if C["T1"] in last and deal.partner is not None and deal.winners[-1] == deal.partner:
            assert deal.petit_au_bout() == "taker"
            return
    pytest.skip("no seed put the Petit in a last trick the partner won")


# -- scoring: the worked examples of the variants ------------------------------------


def test_worked_example_1_three_players_garde_made_by_5() -> None:
    r = score(
        taker=0,
        contract=BID_OF["garde"],
        taker_half_points=2 * (41 + 5),
        bouts=2,
        petit_au_bout=None,
        poignees=[],
        chelem=None,
        variant=THREE,
    )
    assert r.base == (25 + 5) * 2 == 60 and r.scores == [120, -60, -60]


def test_worked_example_2_five_players_prise_with_partner_and_poignee() -> None:
    r = score(
        taker=0,
        contract=BID_OF["prise"],
        taker_half_points=2 * (41 + 2),
        bouts=2,
        petit_au_bout=None,
        poignees=[(0, 8)],
        chelem=None,
        variant=FIVE,
        partner=3,
    )
    assert r.base == (25 + 2) * 1 + 20 == 47
    assert r.scores == [94, -47, -47, 47, -47] and r.partner == 3


def test_worked_example_3_five_players_garde_failed_alone() -> None:
    r = score(
        taker=0,
        contract=BID_OF["garde"],
        taker_half_points=2 * (41 - 3),
        bouts=2,
        petit_au_bout=None,
        poignees=[],
        chelem=None,
        variant=FIVE,
        partner=None,
    )
    assert r.base == -(25 + 3) * 2 == -56
    assert r.scores == [-224, 56, 56, 56, 56] and r.partner is None


def test_worked_example_4_three_players_half_point_to_the_defence() -> None:
    r = score(
        taker=0,
        contract=BID_OF["prise"],
        taker_half_points=81,
        bouts=2,
        petit_au_bout=None,
        poignees=[],
        chelem=None,
        variant=THREE,
    )
    assert r.points == 40.5 and not r.made and r.margin == 1
