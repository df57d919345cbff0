"""Building what one seat may see of a game: the game half of a ``TableView``.

This is the single place where hidden information is filtered. A seat gets
its own hand, its own écart when it is the taker, its legal actions, and the
public history; nothing else. A spectator (``seat=None``) gets no hand.
"""

from __future__ import annotations

import itertools

import msgspec

from protocol.cards import CODES, EXCUSE, EXCUSE_BIT, MONDE, PETIT, TRUMP_MASK, cards_of
from protocol.views import BidView, DealLine, DealView, Legal, PoigneeView, TrickView
from server.game import BID_NAMES, Deal, Game, ScoredDeal
from server.game.contracts import takes_chien
from server.game.results import AnnulledDeal


def _codes(cards: list[int]) -> list[str]:
    return [CODES[c] for c in cards]


class Reuse:
    """Parts of views that most moves leave as they were, kept to be reused.

    A table builds every recipient's view after every move; the completed
    tricks, the score sheet and a hand that did not change come out the same
    each time. Reusing the very same objects saves building them, and the
    diff skips a field whose old and new values are one object without even
    comparing them. Views are never mutated, so sharing is safe. One per table.
    """

    __slots__ = ("_bids", "_hands", "_sheet", "_tricks")

    def __init__(self) -> None:
        # Each cache holds its key objects, so an ``is`` test cannot be fooled
        # by a new object that got the address of a dead one.
        self._tricks: tuple[Deal | None, int, list[TrickView]] = (None, 0, [])
        self._bids: tuple[Deal | None, int, list[BidView]] = (None, 0, [])
        self._sheet: tuple[Game | None, int, list[DealLine]] = (None, 0, [])
        self._hands: dict[int | None, tuple[int, list[str]]] = {}

    def tricks(self, deal: Deal) -> list[TrickView]:
        """The deal's completed tricks."""
        cached_deal, count, views = self._tricks
        if cached_deal is not deal or count != len(deal.tricks):
            # Tricks only ever complete one by one: build the new ones only.
            start = count if cached_deal is deal and count < len(deal.tricks) else 0
            done = zip(deal.tricks, deal.leaders, deal.winners, strict=True)
            views = views[:start] + [
                TrickView(leader=leader, cards=_codes(t), winner=w)
                for t, leader, w in itertools.islice(done, start, None)
            ]
            self._tricks = (deal, len(deal.tricks), views)
        return views

    def bids(self, deal: Deal) -> list[BidView]:
        """The deal's bids (they only ever grow: the same list until one is made)."""
        cached_deal, count, views = self._bids
        if cached_deal is not deal or count != len(deal.bids):
            after = deal.variant.after
            first = after(deal.dealer)
            views = [
                BidView(seat=after(first, i), bid=BID_NAMES[b]) for i, b in enumerate(deal.bids)
            ]
            self._bids = (deal, len(deal.bids), views)
        return views

    def sheet(self, game: Game, every_deal_counts: bool = False) -> list[DealLine]:
        # ``every_deal_counts`` is fixed for a table (one Reuse per table).
        cached_game, count, lines = self._sheet
        if cached_game is not game or count != len(game.results):
            lines = sheet(game, every_deal_counts)
            self._sheet = (game, len(game.results), lines)
        return lines

    def hand_after(self, deal: Deal, seat: int, before: list[str], card: str) -> list[str]:
        """``seat``'s hand once ``card`` left it, from the hand ``before``
        (its order kept): cheaper than reading the hand's mask anew."""
        after = [c for c in before if c != card]
        if len(after) != len(before) - 1:
            return self.hand(deal, seat)  # not the hand it left: read it
        self._hands[seat] = (deal.hands[seat], after)
        return after

    def hand_less(self, deal: Deal, seat: int, before: list[str], i: int) -> list[str]:
        """``seat``'s hand once its card at ``i`` in the hand ``before`` left
        it (``hand_after`` when the card's place is known)."""
        after = before[:i] + before[i + 1 :]
        self._hands[seat] = (deal.hands[seat], after)
        return after

    def hand(self, deal: Deal, seat: int | None) -> list[str]:
        if seat is None:
            return hand_view(deal, seat)  # a spectator holds no hand
        mask = deal.hands[seat]
        cached = self._hands.get(seat)
        if cached is None or cached[0] != mask:
            cached = self._hands[seat] = (mask, hand_view(deal, seat))
        return cached[1]


def deal_number(game: Game, every_deal_counts: bool = False) -> int:
    """The number of the counted deal that the current deal is (or was an
    attempt at): a finished deal keeps its number until the next is dealt,
    and an annulled deal has the number of the deal that is dealt again.

    ``every_deal_counts``: annulled deals count too, as the table's mode
    says (``TableMode.every_deal_counts``: a daily game plays a fixed number
    of deals dealt): each deal dealt has the next number, and the last
    one's is the game's count."""
    if every_deal_counts:
        return game.attempt + 1
    counted = game.counted
    if game.recorded and isinstance(game.results[-1], ScoredDeal):
        counted -= 1  # the current deal is already among the counted ones
    return counted + 1


def deal_view(game: Game, reuse: Reuse | None = None, every_deal_counts: bool = False) -> DealView:
    """The public state of the game's current deal (``every_deal_counts``:
    as for ``deal_number``)."""
    deal = game.deal
    reuse = reuse or Reuse()  # a fresh Reuse builds them all
    tricks = reuse.tricks(deal)
    trick = None
    if deal.phase == "play":
        trick = TrickView(leader=deal.leader, cards=_codes(deal.trick))
    result = deal.result()
    partner = public_partner(deal)
    return DealView(
        number=deal_number(game, every_deal_counts),
        dealer=deal.dealer,
        phase=deal.phase,
        turn=deal.turn,
        bids=reuse.bids(deal),
        taker=deal.taker if deal.taker >= 0 else None,
        contract=BID_NAMES[deal.contract] if deal.taker >= 0 else None,
        called=deal.called,
        partner=partner,
        # The chien is shown to all in a prise or garde, never otherwise; at
        # five players only after the call (the taker calls without seeing it).
        chien=_codes(deal.chien) if chien_shown(deal) else [],
        ecart_trumps=_codes(deal.ecart_trumps),
        chelem_declared=deal.chelem_declared,
        poignees=[
            PoigneeView(seat=s, size=deal.variant.poignee_name(len(cs)), cards=_codes(cs))
            for s, cs in deal.poignees
        ],
        tricks=tricks,
        trick=trick,
        tricks_won=tricks_won(deal, partner),
        annulled=deal.annulled_reason,
        annulled_seat=deal.annulled_seat,
        result=msgspec.to_builtins(result) if result is not None else None,
        players=deal.variant.players,
        hand_size=deal.variant.hand_size,
        taker_bouts=taker_bouts(deal, partner),
    )


def chien_shown(deal: Deal) -> bool:
    """The chien is public: a prise or garde was taken and called for."""
    return deal.taker >= 0 and takes_chien(deal.contract) and deal.phase != "call"


def public_partner(deal: Deal) -> int | None:
    """The partner as every seat may know it: only once the called card has
    been played (or the deal is over). Before that None for all, the
    partner's own view included, so that no view of anyone, nor the diff of
    one, depends on who holds the card (tests/test_secrecy.py)."""
    return deal.partner if deal.partner is not None and deal.partner_known else None


def tricks_won(deal: Deal, partner: int | None) -> list[int]:
    """Tricks won by [the taker's camp, the defense], the camps as publicly
    known: a hidden partner's tricks count for the defense until it is known
    (the engine's own count, by the real camps, would give it away)."""
    if deal.taker < 0:
        return [0, len(deal.tricks)]
    if partner is None and deal.partner is not None:
        attack = sum(1 for w in deal.winners if w == deal.taker)
    else:
        attack = deal.taker_tricks
    return [attack, len(deal.tricks) - attack]


BOUTS = (PETIT, MONDE, EXCUSE)
"""The three bouts, in the order a view lists them."""
_BOUT_SET = frozenset(BOUTS)


def taker_bouts(deal: Deal, partner: int | None) -> list[str]:
    """The bouts the taker's camp holds in its tricks so far, the camps as
    publicly known (``partner``: as ``public_partner`` gives it), so that no
    view tells more than its tricks do. Once the deal is over, the engine's
    own count, which the result's target rests on: the Excuse on the last
    trick (docs/RULES.md D1, D2) included — but a garde sans's chien, never
    shown, is left out (clients take the result's own target once it is
    over)."""
    if deal.taker < 0 or deal.annulled_reason is not None:
        return []
    if deal.phase == "done":
        held = {card for card, camp in deal.bout_camps.items() if camp == 0}
        if deal.excuse_camp == 0:
            held.add(EXCUSE)
        if not takes_chien(deal.contract):
            # A garde sans's chien is the taker's but nobody has seen it: its
            # bouts count in the result (its target) but are never named.
            held -= set(deal.chien)
        return [CODES[c] for c in BOUTS if c in held]
    attack = {deal.taker} if partner is None else {deal.taker, partner}
    players = deal.variant.players
    held = set()
    # Only tricks before the last are complete while the deal is played: the
    # Excuse in them stays with the camp of the seat that played it.
    for trick, leader, winner in zip(deal.tricks, deal.leaders, deal.winners, strict=True):
        if _BOUT_SET.isdisjoint(trick):
            continue  # most tricks (18 at four, mid-deal: once a trick, in C)
        _trick_bouts(trick, leader, winner, attack, players, held)
    return [CODES[c] for c in BOUTS if c in held]


def taker_bouts_after(bouts: list[str], deal: Deal, partner: int | None) -> list[str]:
    """``taker_bouts(deal, partner)`` once a trick more is won while the deal
    is played, from ``bouts``, its value before that trick, with the same
    ``partner``: the new trick's bouts alone are looked at (the whole deal's
    tricks were ~20,000 instructions a trick, compiled). ``bouts`` itself
    when that trick holds none (the diff skips it on "is")."""
    trick = deal.tricks[-1]
    if deal.taker < 0 or deal.annulled_reason is not None or _BOUT_SET.isdisjoint(trick):
        return bouts
    held = {c for c in BOUTS if CODES[c] in bouts}
    attack = {deal.taker} if partner is None else {deal.taker, partner}
    players = deal.variant.players
    _trick_bouts(trick, deal.leaders[-1], deal.winners[-1], attack, players, held)
    return [CODES[c] for c in BOUTS if c in held]


def _trick_bouts(
    trick: list[int], leader: int, winner: int, attack: set[int], players: int, held: set[int]
) -> None:
    """Add to ``held`` the bouts of a completed trick that the camp ``attack`` holds."""
    for i, card in enumerate(trick):
        if card == EXCUSE:
            if (leader + i) % players in attack:
                held.add(card)
        elif card in BOUTS and winner in attack:
            held.add(card)


NOTHING_LEGAL = Legal()
"""One shared value for "nothing to do now": most views have it, and the diff
skips a field whose old and new values are one object. Never mutated."""


def legal_view(deal: Deal, seat: int | None) -> Legal:
    """What ``seat`` may do now (nothing unless it is that seat's turn)."""
    if seat is None or deal.turn != seat:
        return NOTHING_LEGAL
    phase = deal.phase
    if phase == "bidding":
        return Legal(bids=[BID_NAMES[b] for b in deal.legal_bids()])
    if phase == "call":
        return Legal(calls=_codes(deal.legal_calls()))
    if phase == "ecart":
        return Legal(
            ecart=_codes(cards_of(deal.ecart_candidates())),
            ecart_trumps=deal.ecart_trumps_needed(),
            ecart_size=deal.variant.ecart_size,
        )
    if phase == "chelem":
        return Legal(chelem=True)
    if phase == "play":
        sizes = deal.poignee_sizes(seat)
        return Legal(
            cards=_codes(deal.legal_cards()),
            poignee_sizes=sizes,
            poignee_cards=_codes(cards_of(deal.hands[seat] & (TRUMP_MASK | EXCUSE_BIT)))
            if sizes
            else [],
        )
    return NOTHING_LEGAL


def hand_view(deal: Deal, seat: int | None) -> list[str]:
    return [] if seat is None else _codes(cards_of(deal.hands[seat]))


def ecart_view(deal: Deal, seat: int | None) -> list[str]:
    """The écart is the taker's secret: only the taker sees it."""
    return _codes(deal.ecart_cards) if seat is not None and seat == deal.taker else []


def sheet(game: Game, every_deal_counts: bool = False) -> list[DealLine]:
    """The score sheet: one line per finished deal, annulled ones included,
    numbered as ``deal_number`` numbered each deal."""
    lines = []
    number = 0
    for attempt, result in enumerate(game.results):
        dealer = game.variant.after(game.first_dealer, attempt)
        if isinstance(result, ScoredDeal) or every_deal_counts:
            number += 1
        if isinstance(result, ScoredDeal):
            lines.append(
                DealLine(
                    number=number,
                    dealer=dealer,
                    taker=result.taker,
                    contract=result.contract,
                    made=result.made,
                    partner=result.partner if isinstance(result.partner, int) else None,
                    scores=list(result.scores),
                )
            )
        else:
            assert isinstance(result, AnnulledDeal)
            # An annulled deal is an attempt at the next counted deal (or,
            # where every deal counts, a deal of its own).
            own = number if every_deal_counts else number + 1
            lines.append(
                DealLine(
                    number=own,
                    dealer=dealer,
                    annulled=result.annulled,
                    scores=list(result.scores),
                )
            )
    return lines
