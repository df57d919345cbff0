"""The end of a deal solved exactly, every hand known: ``strong``'s last tricks.

Inside one sampled world (``sampling.py``) every hand is known. With a few
cards left in each hand the whole game tree is small, so instead of the
greedy playout (``playout.py``) ``strong`` plays the rest perfectly for
both camps: a minimax with alpha-beta pruning over the card masks, the
attack maximising its score and the defence minimising it. The leaf is the
deal's score for the attack as the engine counts it (``scoring.score``:
the contract made or failed by its margin, the petit au bout, the poignées
and a chelem), so the search weighs a trick's points against the Petit
won at the last trick. Cards that play alike (the same suit and points,
nothing anyone else holds between them) are tried once.

It follows the engine's rules of the trick (``following.follow_mask``, the
Excuse kept by its camp before the last trick and lost in it, the Excuse
led to the last trick by a camp that won every trick); ``tests/test_bots``
checks its values against the engine's own play of every line.
"""

from __future__ import annotations

from protocol.cards import (
    BOUTS,
    EXCUSE,
    HALF_POINTS,
    MONDE,
    NO_SUIT,
    PETIT,
    SUIT_OF,
    TRUMP,
)
from server.bots.tactics import iter_cards
from server.game import Deal
from server.game.contracts import MULTIPLIER
from server.game.following import follow_mask
from server.game.scoring import CHELEM_BONUS, POIGNEE_BONUS, TARGET_HALF

INFINITY = 1 << 30

Undo = tuple[tuple[int, ...], list[int]]
"""What a card played changed: the trick's state before it, and the trick's list."""


class TooLong(Exception):
    """The search tried more cards than its limit allows."""


class Endgame:
    """The rest of ``deal`` (in its play phase, every hand known) as a game
    tree; ``value`` is the attack's score with perfect play from here."""

    def __init__(self, deal: Deal, limit: int = INFINITY) -> None:
        variant = deal.variant
        self.players = deal.players
        self.camps = list(deal.camps)
        self.hands = list(deal.hands)
        self.trick = list(deal.trick)
        self.leader = deal.leader
        self.led = deal.led
        self.win_card = deal.win_card
        self.win_seat = deal.win_seat
        self.turn = deal.turn if deal.turn is not None else -1
        self.number = len(deal.tricks)
        self.last = deal.last_trick
        self.attack_half = deal.camp_half[0]
        self.petit_camp = deal.bout_camps.get(PETIT, -1)
        self.monde_camp = deal.bout_camps.get(MONDE, -1)
        self.excuse_camp = deal.excuse_camp
        self.taker_tricks = deal.taker_tricks
        self.petit_au_bout = 0
        self.multiplier = MULTIPLIER[deal.contract]
        self.poignees = sum(
            POIGNEE_BONUS[variant.poignee_name(len(cards))] for _seat, cards in deal.poignees
        )
        self.chelem_declared = deal.chelem_declared
        self.nodes = 0
        """Cards tried: past ``limit`` the search raises ``TooLong`` (a
        budget for a search whose size varies a lot with the hands)."""
        self.limit = limit

    # -- the search ----------------------------------------------------------

    def values(self) -> dict[int, int]:
        """The attack's score after each distinct card the seat to play may
        play now, both camps playing perfectly afterwards."""
        out = {}
        for card in self._moves():
            undo = self._play(card)
            out[card] = self._search(-INFINITY, INFINITY)
            self._undo(card, undo)
        return out

    def value(self) -> int:
        """The attack's score with perfect play from here."""
        return self._search(-INFINITY, INFINITY)

    def _search(self, alpha: int, beta: int) -> int:
        if self.turn < 0:
            return self._score()
        attack = self.camps[self.turn] == 0
        best = -INFINITY if attack else INFINITY
        for card in self._moves():
            undo = self._play(card)
            v = self._search(alpha, beta)
            self._undo(card, undo)
            if attack:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            elif v < best:
                best = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        return best

    def _moves(self) -> list[int]:
        """One card per class of alike legal cards, the highest first (the
        likelier to cut the search short)."""
        seat = self.turn
        hand = self.hands[seat]
        legal = hand if self.led < 0 else follow_mask(hand, self.led, self.win_card)
        others = 0
        for s, h in enumerate(self.hands):
            if s != seat:
                others |= h
        out: list[int] = []
        prev = -1
        for card in iter_cards(legal):
            if (
                prev >= 0
                and SUIT_OF[card] == SUIT_OF[prev]
                and HALF_POINTS[card] == HALF_POINTS[prev]
                and card not in BOUTS
                and prev not in BOUTS
                and not others & ((1 << card) - (2 << prev))
            ):
                out[-1] = card  # alike: keep one, the higher
            else:
                out.append(card)
            prev = card
        out.reverse()
        return out

    # -- the rules of the trick ------------------------------------------------

    def _play(self, card: int) -> Undo:
        """Play ``card`` for the seat to play; returns what ``_undo`` restores."""
        self.nodes += 1
        if self.nodes > self.limit:
            raise TooLong
        seat = self.turn
        saved = (
            seat,
            self.led,
            self.win_card,
            self.win_seat,
            self.leader,
            self.attack_half,
            self.petit_camp,
            self.monde_camp,
            self.excuse_camp,
            self.taker_tricks,
            self.petit_au_bout,
            self.number,
        )
        trick = self.trick
        self.hands[seat] ^= 1 << card
        trick.append(card)
        suit = SUIT_OF[card]
        if suit != NO_SUIT:
            if self.led < 0:
                self.led = suit
                self.win_card = card
                self.win_seat = seat
            elif card > self.win_card and (suit == self.led or suit == TRUMP):
                self.win_card = card
                self.win_seat = seat
        if len(trick) < self.players:
            self.turn = (seat + 1) % self.players
        else:
            self._end_trick()
        return saved, trick

    def _end_trick(self) -> None:
        trick = self.trick
        camps = self.camps
        winner = self.win_seat
        leader = self.leader
        last = self.number == self.last
        excuse_led_wins = (
            last
            and trick[0] == EXCUSE
            and self.taker_tricks == (self.last if camps[leader] == 0 else 0)
        )
        if excuse_led_wins:
            winner = leader
        win_camp = camps[winner]
        half = 0
        for card in trick:
            half += HALF_POINTS[card]
        if EXCUSE in trick and not excuse_led_wins:
            half -= 9
            owner = camps[(leader + trick.index(EXCUSE)) % self.players]
            if not last:
                if owner == win_camp:
                    half += 9
                else:
                    if owner == 0:
                        self.attack_half += 8
                    half += 1
                self.excuse_camp = owner
            else:
                if owner == 1:
                    self.attack_half += 9
                self.excuse_camp = 1 - owner
        elif EXCUSE in trick:
            self.excuse_camp = win_camp
        if win_camp == 0:
            self.attack_half += half
            self.taker_tricks += 1
        if PETIT in trick:
            self.petit_camp = win_camp
            if last:
                self.petit_au_bout = 1 if win_camp == 0 else -1
        if MONDE in trick:
            self.monde_camp = win_camp
        self.trick = []
        self.led = -1
        self.win_card = -1
        self.win_seat = -1
        if last:
            self.turn = -1
        else:
            self.number += 1
            self.turn = winner
            self.leader = winner

    def _undo(self, card: int, undo: Undo) -> None:
        saved, trick = undo
        (
            seat,
            self.led,
            self.win_card,
            self.win_seat,
            self.leader,
            self.attack_half,
            self.petit_camp,
            self.monde_camp,
            self.excuse_camp,
            self.taker_tricks,
            self.petit_au_bout,
            self.number,
        ) = saved
        trick.pop()  # the trick's own list, also when the card ended it
        self.trick = trick
        self.hands[seat] ^= 1 << card
        self.turn = seat

    def _score(self) -> int:
        """The attack's score (before each seat's share) at the deal's end."""
        bouts = (self.petit_camp == 0) + (self.monde_camp == 0) + (self.excuse_camp == 0)
        over = self.attack_half - TARGET_HALF[bouts]
        made = over >= 0
        sign = 1 if made else -1
        multiplier = self.multiplier
        base = sign * (25 + (abs(over) + 1) // 2) * multiplier
        base += 10 * multiplier * self.petit_au_bout
        base += sign * self.poignees
        tricks = self.last + 1
        if self.taker_tricks == tricks:
            base += CHELEM_BONUS["declared_made" if self.chelem_declared else "undeclared_made"]
        elif self.chelem_declared:
            base += CHELEM_BONUS["declared_failed"]
        elif self.taker_tricks == 0:
            base += CHELEM_BONUS["defense"]
        return base
