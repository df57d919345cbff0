"""The table size a game is played at, and everything that follows from it.

French Tarot is played by 3, 4 or 5. The number of players decides the seats,
the cards each is dealt (and how many at a time), the chien and so the écart,
the tricks of a deal, the poignée sizes, and how the two camps form. A
``Variant`` holds exactly those; every other module asks its variant rather
than writing a seat count, a hand size or a trick count of its own (a test,
``tests/test_variant.py``, scans the code for such literals).

``THREE``, ``FOUR`` and ``FIVE`` are the variants played (the FFT rules for
3 and 5 players, docs/RULES.md "Three and five players"). ``VARIANTS`` finds
a variant by its player count, which is all a stored game, a deal record or a
view needs to say to name its variant.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from protocol.cards import DECK_SIZE

CampRule = Literal["taker_alone", "called_partner"]
"""How the camps form. ``taker_alone``: the taker against all the others,
known from the bidding. ``called_partner``: the
taker calls a card and its holder joins the taker's camp, secretly, so the
camps are only known once that card is played (five players)."""

PoigneeSize = Literal["simple", "double", "triple"]


class Variant(msgspec.Struct, frozen=True):
    """One table size. Immutable, shared by every game played at that size."""

    players: int
    """Seats ``0 … players-1``; play and the deal go from ``s`` to ``(s+1) % players``."""
    hand_size: int
    """Cards dealt to each seat: also the tricks of a deal."""
    packet: int
    """Cards dealt at a time, to each seat in turn."""
    chien_size: int
    """Cards set aside (the chien); the écart is as many."""
    poignees: tuple[int, int, int]
    """Trumps shown for a simple, double and triple poignée."""
    camps: CampRule = "taker_alone"

    def __post_init__(self) -> None:
        if self.players * self.hand_size + self.chien_size != DECK_SIZE:
            raise ValueError("a variant deals the whole pack, every card once")
        if self.hand_size % self.packet:
            raise ValueError("a hand is a whole number of packets")

    @property
    def tricks(self) -> int:
        """Tricks in a deal: one per card of a hand."""
        return self.hand_size

    @property
    def ecart_size(self) -> int:
        """The taker discards as many cards as the chien holds."""
        return self.chien_size

    @property
    def packets(self) -> int:
        """Packets dealt to the players in a deal."""
        return self.players * self.hand_size // self.packet

    @property
    def default_deals(self) -> int:
        """Counted deals in a game unless the table says otherwise: each seat
        deals twice."""
        return 2 * self.players

    @property
    def seats(self) -> range:
        return range(self.players)

    def after(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` places after ``seat`` in the order of play."""
        return (seat + steps) % self.players

    def each(self, value: int) -> list[int]:
        """A list holding ``value`` for every seat (an empty hand: 0)."""
        return [value] * self.players

    def no_scores(self) -> list[int]:
        """A score of 0 for every seat (an annulled deal; a game not begun)."""
        return [0] * self.players

    def poignee_name(self, shown: int) -> PoigneeSize:
        """The poignée ``shown`` trumps make (``shown`` is one of ``poignees``)."""
        names: tuple[PoigneeSize, ...] = ("simple", "double", "triple")
        return names[self.poignees.index(shown)]

    def shares(self, taker: int, partner: int | None = None) -> list[int]:
        """Each seat's share of the deal's base: every defender pays ``base``
        and the attack camp wins what they pay, so the scores sum to 0. A
        taker alone takes it all; with a partner, the partner takes one
        defender's worth and the taker the rest."""
        shares = [-1] * self.players
        attack = self.players - 1
        if partner is not None and partner != taker:
            attack -= 2  # the partner is no defender, and takes one share
            shares[partner] = 1
        shares[taker] = attack
        return shares


THREE: Final = Variant(players=3, hand_size=24, packet=4, chien_size=6, poignees=(13, 15, 18))
"""French Tarot for three: 24 cards each, 4 at a time; a chien of 6; the taker
alone against two (and so wins twice the base); poignées of 13, 15 and 18."""

FOUR: Final = Variant(players=4, hand_size=18, packet=3, chien_size=6, poignees=(10, 13, 15))
"""French Tarot for four: 18 cards each, 3 at a time; a chien of 6; the taker
alone against three; poignées of 10, 13 and 15 trumps."""

FIVE: Final = Variant(
    players=5, hand_size=15, packet=3, chien_size=3, poignees=(8, 10, 13), camps="called_partner"
)
"""French Tarot for five: 15 cards each, 3 at a time; a chien of 3; the taker
calls a card and plays with its holder against three (or alone against four);
poignées of 8, 10 and 13 trumps."""

VARIANTS: Final[dict[int, Variant]] = {v.players: v for v in (THREE, FOUR, FIVE)}
"""The variants by player count."""


def variant_for(players: int) -> Variant:
    """The variant of ``players`` players (``KeyError`` if none is played)."""
    return VARIANTS[players]
