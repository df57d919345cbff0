"""Pure readings of a ``TableView`` for the table screen: where each seat sits
on screen, what the taker needs, the trump tracker, the prompt for the
player, and the checks the écart and the poignée pickers make before asking
the server.

Nothing here draws or sends; every function takes a view (or part of one)
and returns plain data, so the rules of the display are tested without a
terminal. The server stays the judge: these checks only spare a round trip
and explain, in words, why a choice is not complete yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clients import server_clock
from clients.cli import call_facts, wording
from clients.cli.cards_text import is_trump, label, trump_number
from clients.cli.i18n import _, ngettext
from protocol.views import FOUR_PLAYERS, DealView, Legal, TableView, TrickView

BOUT_CODES = ("T1", "T21", "EX")
TRUMP_CODES = tuple(f"T{n}" for n in range(1, 22))


# -- seats -----------------------------------------------------------------------


def viewpoint(view: TableView) -> int:
    """The seat drawn at the bottom: yours, or seat 0 for a spectator."""
    return view.you if view.you is not None else 0


PLACES: dict[int, tuple[str, ...]] = {
    3: ("bottom", "right", "left"),
    4: ("bottom", "right", "top", "left"),
    5: ("bottom", "right", "top_right", "top_left", "left"),
}
"""The screen places of the seats of a table of 3, 4 or 5, from yours in the
order of play: at 3 the two others sit at your right and your left, at 5 two
sit across (right and left of the middle)."""


def positions(bottom: int, players: int = FOUR_PLAYERS) -> dict[int, str]:
    """Screen place of each seat of a table of ``players`` (``seat_count``).
    Play goes counter-clockwise: the seat after yours (``you + 1``) is on
    your right, then across, then on your left."""
    places = PLACES.get(players, PLACES[FOUR_PLAYERS])
    return {(bottom + i) % players: place for i, place in enumerate(places)}


def seat_count(view: TableView) -> int:
    """The table's seats: those the view lists, else those its deal was dealt to."""
    if view.seats:
        return len(view.seats)
    return view.deal.players if view.deal is not None else FOUR_PLAYERS


def seat_name(view: TableView, seat: int | None, *, own: bool = False) -> str:
    """A seat's display name; your own seat is "You" unless ``own`` asks for your name."""
    if seat is None:
        return "?"
    if seat == view.you and not (own and view.seats[seat].name):
        return _("You")
    if 0 <= seat < len(view.seats) and view.seats[seat].name:
        return wording.player_name(str(view.seats[seat].name))
    return wording.seat_word(seat + 1)


def seat_state(view: TableView, seat: int) -> str:
    """Who sits there and whether they are here: ``bot normal``, ``away``..."""
    s = view.seats[seat]
    if s.kind == "empty":
        return _("free seat")
    if s.kind == "bot":
        return _("bot {level}").format(level=wording.bot_level(s.bot_level)).strip()
    if s.away or not s.connected:
        # No bot plays before the game starts (nor after it): away, nothing more.
        if view.status in ("playing", "between_deals"):
            return _("away: a bot stands in")
        return _("away")
    return _("you") if seat == view.you else _("online")


def alone(view: TableView) -> bool:
    """We are the table's last person: every other seat is a bot's or free
    (a player away still holds theirs)."""
    return all(s.kind != "human" for i, s in enumerate(view.seats) if i != view.you)


def bid_of(deal: DealView | None, seat: int) -> str | None:
    if deal is None:
        return None
    for b in deal.bids:
        if b.seat == seat:
            return b.bid
    return None


# -- cards seen --------------------------------------------------------------------


def trick_seats(trick: TrickView, players: int = FOUR_PLAYERS) -> list[tuple[int, str]]:
    """(seat, card) of a trick, in the order played (``players``: the deal's)."""
    return [((trick.leader + i) % players, card) for i, card in enumerate(trick.cards)]


def played_cards(deal: DealView | None) -> set[str]:
    if deal is None:
        return set()
    out = {c for t in deal.tricks for c in t.cards}
    if deal.trick is not None:
        out.update(deal.trick.cards)
    return out


def last_trick(deal: DealView | None) -> TrickView | None:
    return deal.tricks[-1] if deal is not None and deal.tricks else None


@dataclass
class TrumpTracker:
    """Where each trump and the Excuse are, as far as this seat can know."""

    hand: list[str] = field(default_factory=list)
    played: list[str] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)
    """Trumps out of play in the écart: those shown to all, or your own as taker."""
    out: list[str] = field(default_factory=list)
    """Still in someone else's hand (or in an unseen chien)."""

    def state(self, code: str) -> str:
        for name in ("hand", "played", "discarded"):
            if code in getattr(self, name):
                return name
        return "out"


def trump_tracker(view: TableView) -> TrumpTracker:
    deal = view.deal
    played = played_cards(deal)
    hand = set(view.hand)
    discarded = set(deal.ecart_trumps if deal else []) | {c for c in view.ecart if is_trump(c)}
    tracker = TrumpTracker()
    for code in (*TRUMP_CODES, "EX"):
        if code in hand:
            tracker.hand.append(code)
        elif code in played:
            tracker.played.append(code)
        elif code in discarded:
            tracker.discarded.append(code)
        else:
            tracker.out.append(code)
    return tracker


# -- the contract ----------------------------------------------------------------


@dataclass
class Need:
    """What the taker needs: ``target`` when known, the bouts it rests on."""

    target: int | None
    bouts: list[str]
    exact: bool
    """True when you are the taker: the bouts are counted from your own cards."""

    def lines(self) -> list[str]:
        """Two short lines for a narrow panel."""
        if self.target is not None:
            held = " ".join(label(b) for b in self.bouts) or _("none")
            return [
                _("You need {points}").format(points=self.target),
                _("bouts: {cards}").format(cards=held),
            ]
        won = " ".join(label(b) for b in self.bouts) or _("none yet")
        return [_("Needs 56/51/41/36"), _("bouts won: {cards}").format(cards=won)]


def need(view: TableView) -> Need | None:
    """The taker's target. The bouts its camp won are the server's count
    (``deal.taker_bouts``: the Excuse with the camp that played it, the
    partner's tricks once known); as the taker you add those in your hand,
    so the target is exact; others only know the bouts already won. Once
    the deal is over, the result's own target."""
    deal = view.deal
    if deal is None or deal.taker is None or deal.phase in ("bidding", "annulled"):
        return None
    won = list(deal.taker_bouts)
    result = deal.result
    if result is not None and isinstance(result.get("target"), int):
        return Need(result["target"], won, exact=True)
    if view.you is not None and view.you == deal.taker:
        held = sorted(set(won) | {c for c in view.hand if c in BOUT_CODES}, key=BOUT_CODES.index)
        return Need(wording.TARGETS[len(held)], held, exact=True)
    return Need(None, sorted(set(won), key=BOUT_CODES.index), exact=False)


# -- what to do now --------------------------------------------------------------


def my_turn(view: TableView) -> bool:
    deal = view.deal
    return (
        view.status == "playing"
        and deal is not None
        and view.you is not None
        and deal.turn == view.you
    )


def decision(view: TableView) -> str:
    """The decision ``legal`` asks of this seat now: ``bid``, ``call``,
    ``ecart``, ``chelem``, ``play``, or ``""`` when there is none."""
    legal = view.legal
    if legal.bids:
        return "bid"
    if legal.calls:
        return "call"
    if legal.ecart:
        return "ecart"
    if legal.chelem:
        return "chelem"
    if legal.cards:
        return "play"
    return ""


def decision_key(view: TableView) -> tuple[Any, ...]:
    """What a decision is about: it changes when the view moves on, so a
    decision answered once is not offered again until then."""
    deal = view.deal
    if deal is None:
        return (view.status,)
    trick = len(deal.trick.cards) if deal.trick else 0
    return (
        deal.number,
        deal.dealer,
        deal.phase,
        deal.turn,
        len(deal.tricks),
        trick,
        len(deal.poignees),
        tuple(view.legal.poignee_sizes),
    )


def may_start(view: TableView) -> bool:
    """We may start the game now: the table's host, or anyone seated at a
    quick-play table gathering people (``gather_until``)."""
    if view.status != "waiting" or view.you is None:
        return False
    return view.creator == view.you or view.gather_until is not None


def prompt(view: TableView, *, again: bool = True, now: float | None = None) -> str:
    """One line saying what is happening, or what you are asked to do
    (``again``: a finished game offers "Play again"; daily tables do not;
    ``now``: the time a countdown counts from, else the clock's)."""
    deal = view.deal
    status = view.status
    if status == "waiting":
        if view.gather_until is not None:
            left = max(
                0, int(view.gather_until - (server_clock.now() if now is None else now) + 0.999)
            )
            return wording.gathering(left)
        if view.you is None:
            return _("Watching: the game has not started yet.")
        return wording.about(
            "waits_for_start", seat_name(view, view.creator), view.creator == view.you
        )
    if status == "finished":
        if view.you is None:
            return _("Game over.")
        if again:
            return _("Game over: play again, or Esc to leave.")
        return _("Game over: Esc to leave.")
    if status == "closed":
        return _("This table is closed.")
    if deal is None:
        return ""
    if deal.phase == "annulled":
        seat = deal.annulled_seat
        who = seat_name(view, seat) if seat is not None else None
        if reading_now(view):
            return wording.annulled_continue(
                deal.annulled, who, seat is not None and seat == view.you
            )
        return wording.annulment(deal.annulled, who, seat is not None and seat == view.you)
    if deal.phase == "done" or status == "between_deals":
        if view.you is None:
            return str(wording.WATCH_RESULT)
        return str(wording.READ_RESULT if reading_now(view) else wording.OTHERS_READING)
    turn = deal.turn
    mine = my_turn(view)
    match deal.phase:
        case "bidding":
            if mine:
                return _("Your bid: each player speaks once, higher than the bids before.")
            return wording.about("bidding", seat_name(view, turn), False)
        case "call":
            if mine:
                return _("Call a card: its holder plays with you, secretly until it is played.")
            return wording.about("call_wait", seat_name(view, turn), False)
        case "ecart":
            if mine:
                return wording.ecart_prompt(view.legal.ecart_trumps, view.legal.ecart_size)
            # The others see the chien the taker takes: the écart is as many cards.
            return wording.about("ecart_wait", seat_name(view, turn), False, n=len(deal.chien))
        case "chelem":
            if mine:
                return _("Declare a chelem (all {n} tricks)? +400 if made, −200 if not.").format(
                    n=deal.hand_size
                )
            return wording.about("chelem_wait", seat_name(view, turn), False)
        case "play":
            if mine:
                if view.legal.poignee_sizes:
                    return _("Your turn: play a card, or show a poignée first.")
                return _("Your turn: play a card.")
            who = seat_name(view, turn)
            if turn is not None and view.seats[turn].away:
                return wording.about("away_to_play", who, False)
            return wording.about("to_play", who, False)
    return ""


def deals_played(view: TableView) -> int:
    """How many deals a finished game had, by its own rule: ``view.deals``
    counted deals at an ordinary table (annulled ones are dealt again), or
    ``view.deals`` deals dealt, annulled ones included, at a daily table.
    The score sheet has a line per deal dealt, so it is the larger of the
    scored lines and the sheet's lines up to ``view.deals``: right for both
    kinds of table whichever numbering the deals carry."""
    scored = sum(1 for line in view.sheet if line.annulled is None)
    return max(scored, min(len(view.sheet), view.deals))


def reading(view: TableView) -> list[int]:
    """Between deals: the human seats still reading the result (not ``ready``)."""
    if view.status != "between_deals":
        return []
    return [s.seat for s in view.seats if s.kind == "human" and s.seat not in view.ready]


def reading_now(view: TableView) -> bool:
    """This player is asked to press Continue."""
    return view.you is not None and view.you in reading(view)


# -- pickers -----------------------------------------------------------------------


def ecart_problem(picked: list[str], legal: Legal) -> str | None:
    """Why ``picked`` is not a valid écart yet, or None when it is."""
    if any(c not in legal.ecart for c in picked):
        return _("only the highlighted cards may go to the écart")
    trumps = [c for c in picked if is_trump(c)]
    need_trumps = legal.ecart_trumps
    if len(trumps) > need_trumps:
        if need_trumps == 0:
            return _("trumps may go to the écart only when you lack other cards")
        return _exact_trumps(need_trumps)
    size = legal.ecart_size
    if len(picked) < size:
        more = size - len(picked)
        return ngettext("choose {n} more card", "choose {n} more cards", more).format(n=more)
    if len(picked) > size:
        return ngettext("choose exactly {n} card", "choose exactly {n} cards", size).format(n=size)
    if len(trumps) < need_trumps:
        return _exact_trumps(need_trumps)
    return None


def _exact_trumps(n: int) -> str:
    return ngettext("discard exactly {n} trump", "discard exactly {n} trumps", n).format(n=n)


def poignee_default(legal: Legal, size: int) -> list[str]:
    """A first choice of ``size`` cards to show: the lowest trumps but the
    Petit, which stays hidden while others can stand for it, then the Petit,
    then the Excuse (allowed only once every trump is shown)."""
    trumps = sorted((c for c in legal.poignee_cards if is_trump(c)), key=trump_number)
    others = [c for c in trumps if c != "T1"]
    picked = others[:size]
    if len(picked) < size and "T1" in trumps:
        picked.append("T1")
    if len(picked) < size and "EX" in legal.poignee_cards:
        picked.append("EX")
    return picked


def poignee_problem(picked: list[str], legal: Legal, size: int) -> str | None:
    if any(c not in legal.poignee_cards for c in picked):
        return _("a poignée shows trumps (and the Excuse) only")
    if len(picked) != size:
        return ngettext(
            "show exactly {n} card ({chosen} chosen)",
            "show exactly {n} cards ({chosen} chosen)",
            size,
        ).format(n=size, chosen=len(picked))
    if "EX" in picked:
        hidden = [c for c in legal.poignee_cards if is_trump(c) and c not in picked]
        if hidden:
            return _("the Excuse may stand in for a trump only when you show every trump")
    return None


# -- results -------------------------------------------------------------------------


def result_lines(view: TableView) -> list[str]:
    """The finished deal in short lines (contract, points, bonuses)."""
    deal = view.deal
    if deal is None or deal.result is None:
        return []
    r = deal.result
    if "annulled" in r:
        return [_("Deal annulled"), wording.ANNULMENTS.get(r.get("annulled", ""), "")]
    made = r.get("made")
    margin = r.get("margin", 0)
    bouts = r.get("bouts", 0)
    lines = [
        wording.labelled(wording.contract(r.get("contract")), seat_name(view, r.get("taker"))),
        (
            _("made by {margin} ({points}/{target})")
            if made
            else _("down by {margin} ({points}/{target})")
        ).format(margin=margin, points=wording.decimal(r.get("points")), target=r.get("target")),
        ngettext("{n} bout", "{n} bouts", bouts).format(n=bouts),
    ]
    if r.get("petit_au_bout"):
        lines.append(_("petit au bout: {side}").format(side=_side(r["petit_au_bout"])))
    for p in r.get("poignees") or []:
        lines.append(
            _("poignée {size}: {who}").format(
                size=wording.POIGNEE_NAMES.get(p.get("size"), p.get("size")),
                who=seat_name(view, p.get("seat")),
            )
        )
    if r.get("chelem"):
        lines.append(wording.CHELEMS.get(str(r["chelem"]), str(r["chelem"])))
    partner = call_facts.partner_line(view)
    if partner:
        lines.insert(1, partner)
    return lines


def _side(side: object) -> str:
    """``taker`` or ``defense`` (the result's words) for a person."""
    if side == "taker":
        return _("taker")
    if side == "defense":
        return _("defense")
    return str(side)


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n).replace("-", "−")
