"""The table screen's panels drawn as Rich text from a ``TableView``: the
header, the seats and the contract (left), the trick area (centre), the trump
tracker and the chat (right).

Each function is pure: view in, text out, for a given width. Marks never rely
on colour alone (``▶`` whose turn, ``D`` dealer, ``★`` taker, reverse video
for your trumps, ``·`` for trumps gone), so a NO_COLOR terminal shows
everything.
"""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from clients import server_clock
from clients.cli import call_facts, wording
from clients.cli import table_facts as facts
from clients.cli.cards_text import card_text, cards_text, label
from clients.cli.i18n import _, ngettext
from clients.cli.table_names import table_name
from protocol.views import FOUR_PLAYERS, TableView, TrickView


def _crop(s: str, n: int) -> str:
    return _crop_cells(s, n)


def _crop_cells(s: str, n: int) -> str:
    """``s`` in at most ``n`` terminal cells (a CJK character takes two), cut with ``…``."""
    if cell_len(s) <= n:
        return s
    out = ""
    for ch in s:
        if cell_len(out + ch) > n - 1:
            break
        out += ch
    return out + "…"


def _pad(s: str, n: int) -> str:
    """``s`` padded with spaces to ``n`` cells."""
    return s + " " * max(0, n - cell_len(s))


# -- header --------------------------------------------------------------------------


def countdown(view: TableView, now: float | None = None) -> str:
    """``⏱ 12s`` while a turn timer runs, ``⏱ next deal in 42s`` between
    deals, else ""."""
    now = server_clock.now() if now is None else now
    if view.status == "between_deals" and view.next_deal_at is not None:
        return "⏱ " + wording.next_deal_in(max(0, int(view.next_deal_at - now + 0.999)))
    if view.deadline is None:
        return ""
    left = max(0, int(view.deadline - now + 0.999))
    return f"⏱ {left}s"


def header(view: TableView, now: float | None = None, *, online: bool = True) -> Text:
    deal = view.deal
    out = Text()
    out.append("Atout", style="bold")
    out.append(f" │ {_crop(table_name(view.name), 28)}")
    if view.private:
        out.append(" " + _("(private)"), style="dim")
    if view.status == "finished":
        # The count of the finished game, not the number of a deal that was
        # the last attempt (or, at a daily table, the next one's).
        played = wording.deals(facts.deals_played(view))
        out.append(" │ " + _("game over · {deals}").format(deals=played))
    elif deal is not None and view.status != "waiting":
        out.append(" │ " + _("deal {n}/{total}").format(n=deal.number, total=view.deals))
    elif view.status == "waiting":
        out.append(" │ " + _("waiting to start"))
    clock = countdown(view, now) if online else ""  # a dead link has no clock
    if clock and view.status == "between_deals":
        out.append(f" │ {clock}")
    elif clock:
        whose = facts.seat_name(view, deal.turn if deal else None)
        out.append(f" │ {clock} {whose}", style="bold" if facts.my_turn(view) else "")
    if view.you is None:
        out.append(" │ " + _("watching"), style="italic")
    return out


# -- seats and contract (left) ----------------------------------------------------------


ARROWS = {
    "bottom": "↓",
    "right": "→",
    "top": "↑",
    "top_right": "↗",
    "top_left": "↖",
    "left": "←",
}
"""Where each seat sits, seen from yours, as in the trick area."""


def seats_panel(view: TableView, width: int = 24, height: int = 0) -> Text:
    """A seat or two lines each (who, and their state), then the contract. When
    ``height`` is too short for both (five seats at 80×24), one line each: the
    state line stays only for a player away."""
    deal = view.deal
    out = Text(no_wrap=True, overflow="crop")
    bottom = facts.viewpoint(view)
    players = facts.seat_count(view)
    where = facts.positions(bottom, players)
    playing = view.status in ("playing", "between_deals") and deal is not None
    contract = contract_lines(view, width)
    tall = not height or 2 * players + len(contract) <= height
    partner = call_facts.partner(view)
    for n, seat in enumerate(sorted(range(players), key=lambda s: (s - bottom) % players)):
        if seat >= len(view.seats):
            continue
        if n:
            out.append("\n")
        turn = playing and deal is not None and deal.turn == seat and deal.phase != "done"
        marks = ""
        if deal is not None and deal.dealer == seat:
            marks += " D"
        if deal is not None and deal.taker == seat:
            marks += " ★"
        if seat == partner:
            marks += " ☆"
        name = facts.seat_name(view, seat)
        if seat == view.you and view.seats[seat].name:
            name = _("{name} (you)").format(name=view.seats[seat].name)
        room = width - 4 - len(marks)
        out.append("▶ " if turn else "  ", style="bold")
        out.append(ARROWS[where[seat]] + " ", style="dim")
        out.append(_crop(name, room), style="bold" if turn else "")
        out.append(" " * max(0, room - cell_len(_crop(name, room))))
        out.append(marks, style="bold")
        away = view.seats[seat].kind == "human" and view.seats[seat].away
        if tall or away:
            out.append("\n    ")
            out.append(
                _crop(facts.seat_state(view, seat), width - 4), style="italic" if away else "dim"
            )
    for line in contract:
        out.append("\n")
        out.append_text(line)
    return out


def contract_lines(view: TableView, width: int = 24) -> list[Text]:
    """The contract under the seats: kept short, since the panel is as tall
    as the screen allows (the contract and the taker share a line when they fit)."""
    deal = view.deal
    if deal is None or view.status == "waiting":
        return []
    lines: list[Text] = [Text("─" * 22, style="dim")]
    if deal.phase == "annulled":
        lines.append(Text(_("Deal annulled"), style="bold"))
        return lines
    if deal.taker is None:
        best = max((b for b in deal.bids if b.bid != "pass"), default=None, key=_bid_rank)
        if best is None:
            lines.append(Text(_("No bid yet"), style="dim"))
        else:
            lines.append(
                Text(_("Best bid: {contract}").format(contract=wording.contract(best.bid)))
            )
        return lines
    contract = wording.contract(deal.contract)
    mult = wording.MULTIPLIERS.get(deal.contract or "", 1)
    head = Text(f"{contract} ×{mult}", style="bold")
    taker = Text(f"★ {facts.seat_name(view, deal.taker)}")
    if head.cell_len + 2 + taker.cell_len <= width:
        lines.append(head + Text("  ") + taker)
    else:
        lines += [head, taker]
    lines += called_lines(view, width)
    need = facts.need(view)
    if need is not None:
        for i, part in enumerate(need.lines()):
            lines.append(Text(part, style="bold" if need.exact and not i else ""))
    won = deal.tricks_won
    if deal.tricks:  # no line for "0 · 0" before the first trick
        lines.append(
            Text(_("Tricks: taker {taker} · def {defense}").format(taker=won[0], defense=won[1]))
        )
    if deal.chelem_declared:
        lines.append(Text(_("Chelem declared!"), style="bold"))
    for p in deal.poignees:
        size = wording.POIGNEE_NAMES.get(p.size, p.size)
        who = facts.seat_name(view, p.seat)
        line = _("Poignée {size}: {who}").format(size=size, who=who)
        if cell_len(line) <= width:
            lines.append(Text(line))
        else:  # too long for the panel: the name on a line of its own, never cut
            lines += [
                Text(_("Poignée {size}: {who}").format(size=size, who="").rstrip()),
                Text(who),
            ]
    return lines


def called_lines(view: TableView, width: int) -> list[Text]:
    """At five: the called card, then who the partner was once the card is
    played ("Bob was the partner: K♥"), or that the taker plays alone."""
    card = call_facts.called(view)
    if card is None:
        return []
    said = call_facts.partner_line(view)
    if not said:
        return [Text(_("Called: {card}").format(card=label(card)))]
    return [Text(line, style="bold") for line in wrapped(said, width)]


_CONSOLE = Console(file=io.StringIO(), width=200, color_system=None)


def wrapped(text: str, width: int) -> list[str]:
    """``text`` on lines of at most ``width`` cells, cut between words (or
    anywhere in Chinese and Korean)."""
    return [line.plain.rstrip() for line in Text(text).wrap(_CONSOLE, max(8, width))]


def _bid_rank(b: object) -> int:
    order = list(wording.CONTRACT_ORDER)
    return order.index(getattr(b, "bid", "pass")) if getattr(b, "bid", "") in order else 0


# -- the trick area (centre) -------------------------------------------------------------


def _center(t: Text, width: int) -> Text:
    pad = max(0, (width - t.cell_len) // 2)
    return Text(" " * pad) + t


def compass(view: TableView, trick: TrickView | None, width: int, *, show_bids: bool) -> list[Text]:
    """The seats around the table with what each played (or bid): at 4 one
    across, at 3 none, at 5 two across (inset, so the table reads round)."""
    deal = view.deal
    players = facts.seat_count(view)
    where = facts.positions(facts.viewpoint(view), players)
    by_place: dict[str, int] = {place: seat for seat, place in where.items()}
    played = dict(facts.trick_seats(trick, players)) if trick is not None else {}
    winner = trick.winner if trick is not None else None
    leader = trick.leader if trick is not None and trick.cards else None

    def name(seat: int) -> Text:
        room = width - 2 if where[seat] in ("top", "bottom") else width // 2 - 1
        full = facts.seat_name(view, seat)
        own = view.seats[seat].name if seat < len(view.seats) else None
        if cell_len(full) > room and own and own.startswith("Bot "):
            full = own.removeprefix("Bot ")  # its own name: the seats panel says it is a bot
        n = _crop(full, room)
        style = "bold" if deal is not None and deal.turn == seat and deal.phase != "done" else ""
        t = Text(n, style=style)
        if seat == winner:
            t.append(" ★", style="bold")
        elif seat == leader:
            t.append(" ›", style="dim")
        return t

    def what(seat: int) -> Text:
        if show_bids and deal is not None:
            bid = facts.bid_of(deal, seat)
            if bid is not None:
                return Text(wording.contract(bid), style="bold" if bid != "pass" else "dim")
            return Text("…" if deal.turn == seat else "", style="dim")
        if seat in played:
            return card_text(played[seat], "bold")
        if deal is not None and deal.turn == seat and deal.phase == "play":
            return Text("…", style="dim")
        return Text("·", style="dim")

    def sides(left: Text, right: Text, inset: int = 0) -> Text:
        gap = max(1, width - left.cell_len - right.cell_len - 2 * inset)
        return Text(" " * inset) + left + Text(" " * gap) + right

    lines: list[Text] = []
    if "top" in by_place:
        top = by_place["top"]
        lines += [_center(name(top), width), _center(what(top), width)]
    if "top_left" in by_place:
        far_left, far_right = name(by_place["top_left"]), name(by_place["top_right"])
        inset = max(0, min(width // 6, (width - far_left.cell_len - far_right.cell_len - 2) // 2))
        lines += [
            sides(far_left, far_right, inset),
            sides(
                Text(" ") + what(by_place["top_left"]),
                what(by_place["top_right"]) + Text(" "),
                inset,
            ),
        ]
    left, right, bottom = by_place["left"], by_place["right"], by_place["bottom"]
    lines += [
        sides(name(left), name(right)),
        sides(Text(" ") + what(left), what(right) + Text(" ")),
        _center(what(bottom), width),
        _center(name(bottom), width),
    ]
    return lines


def trick_panel(
    view: TableView, width: int = 24, *, show_last: bool = False, url: str = ""
) -> Text:
    deal = view.deal
    lines: list[Text] = []
    if view.status == "waiting" or deal is None:
        lines = waiting_lines(view, width, url)
    elif view.status == "finished":
        # The last deal's result stays above the standings.
        scored = deal.result is not None and "annulled" not in deal.result
        # Past four seats the last deal's points would push the standings
        # out of an 80×24 screen: the standings and the score sheet have them.
        four = facts.seat_count(view) <= FOUR_PLAYERS
        last_result = result_panel(view, width, scores=four) if scored else []
        ranking = ranking_lines(view)
        heading = Text(wording.labelled(wording.LAST_DEAL, ""), style="dim")
        if last_result and heading.cell_len + last_result[0].cell_len <= width:
            last_result[0] = heading + last_result[0]
            last_result.append(Text(""))
        elif last_result:
            # "Last deal" on a line of its own: the blank lines go to keep the height.
            last_result.insert(0, heading)
            ranking = [line for line in ranking if line.plain]
        lines = last_result + ranking
    elif deal.phase == "annulled":
        why = wording.ANNULMENTS.get(deal.annulled or "", deal.annulled or "")
        if deal.annulled == "petit_sec" and deal.annulled_seat is not None:
            why = _("petit sec: {who}").format(who=facts.seat_name(view, deal.annulled_seat))
        lines = [
            Text(_("Deal annulled"), style="bold"),
            Text(why),
            Text(_("the next dealer deals")),
        ]
        lines += reading_lines(view, width)
    elif deal.phase == "done" and deal.result is not None:
        lines = result_panel(view, width) + reading_lines(view, width)
    else:
        last = facts.last_trick(deal)
        current = deal.trick
        showing_last = show_last and last is not None
        if showing_last:
            # How to go back is said under the panel (TableScreen): a title this
            # narrow has room for what it is only.
            lines.append(Text(_("Last trick ({n})").format(n=len(deal.tricks)), style="bold"))
            lines += compass(view, last, width, show_bids=False)
        else:
            # Between tricks the finished one stays in view until the next card.
            trick = current if current is not None and current.cards else last or current
            title = _("Bids") if deal.phase == "bidding" else ""
            if deal.phase == "play" and trick is not None:
                n = len(deal.tricks) + (1 if trick is current else 0)
                title = (
                    _("Trick {n}").format(n=n)
                    if trick is current
                    else _("Trick {n} (done)").format(n=n)
                )
            lines.append(Text(title, style="bold"))
            lines += compass(view, trick, width, show_bids=deal.phase == "bidding")
            if last is not None and trick is not last:
                lines += last_trick_lines(view, last, width)
        if deal.phase in ("ecart", "chelem") and deal.chien:
            lines += card_lines(_("Chien:"), deal.chien, width)
        if deal.ecart_trumps:
            lines += card_lines(_("Écart trumps:"), deal.ecart_trumps, width)
        if view.ecart and view.you == deal.taker:
            lines += card_lines(_("Your écart:"), view.ecart, width)
        elif deal.chien and deal.phase == "play":
            lines += card_lines(_("Chien:"), deal.chien, width)
    out = Text(no_wrap=True, overflow="ellipsis")
    for i, line in enumerate(lines):
        if i:
            out.append("\n")
        out.append_text(line)
    return out


def card_lines(title: str, codes: list[str], width: int) -> list[Text]:
    """``title`` then the cards, wrapped to ``width`` (a chien never hides a card)."""
    lines = [Text(title.rstrip(), style="dim")]
    for code in codes:
        piece = card_text(code)
        if lines[-1].cell_len + 1 + piece.cell_len > width:
            lines.append(Text(" "))
        lines[-1].append(" ")
        lines[-1].append_text(piece)
    return lines


def last_trick_lines(view: TableView, trick: TrickView, width: int) -> list[Text]:
    """``Last: 4♦ 5♦ 3♦ 1♦ → Bot Blaise``, the taker on a line of their own
    when the panel is too narrow for both."""
    t = Text(_("Last:") + " ", style="dim")
    t.append_text(cards_text(trick.cards))
    lines = [t]
    if t.cell_len > width:  # five cards, in a long language: the cards wrap
        lines = card_lines(_("Last:"), trick.cards, width)
    if trick.winner is None:
        return lines
    taker = Text(f"→ {facts.seat_name(view, trick.winner)}")
    if lines[-1].cell_len + 1 + taker.cell_len <= width:
        return [*lines[:-1], lines[-1] + Text(" ") + taker]
    return [*lines, Text("  ") + Text(_crop(taker.plain, width - 2))]


def waiting_lines(view: TableView, width: int = 24, url: str = "") -> list[Text]:
    lines = [Text(wording.WAITING_TITLE, style="bold"), Text("")]
    if view.invite_code:
        lines.append(Text(wording.INVITE_CODE) + Text(view.invite_code, style="bold reverse"))
        lines.append(Text(wording.INVITE_FRIENDS, style="dim"))
        # The whole command on one line when it fits; else the address on
        # lines of its own, wrapped but never cut.
        command = f"atout connect {url}" if url else "atout connect"
        parts = [command] if len(command) <= width else ["atout connect", url]
        room = max(8, width)
        for part in filter(None, parts):
            for start in range(0, len(part), room):
                lines.append(Text(part[start : start + room], style="bold"))
        lines.append(Text(wording.invite_then(view.invite_code), style="dim"))
    lines.append(Text(""))
    bots = _("bots {level}").format(level=wording.bot_level(view.bot_level))
    lines.append(Text(f"{wording.deals(view.deals)} · {bots}"))
    if view.turn_timer:
        timer = _("{s}s a move").format(s=f"{view.turn_timer:.0f}")
    else:
        timer = _("no turn timer")
    lines.append(Text(timer))
    if view.spectators:
        watching = ngettext("{n} watching", "{n} watching", view.spectators)
        lines.append(Text(watching.format(n=view.spectators), style="dim"))
    return lines


def result_panel(view: TableView, width: int = 24, *, scores: bool = True) -> list[Text]:
    """The deal's result, then (``scores``) each seat's points for it."""
    lines = [Text(part) for line in facts.result_lines(view) for part in wrapped(line, width)]
    if lines:
        lines[0].stylize("bold")
    result = view.deal.result if view.deal and scores else None
    points = (result or {}).get("scores") or []
    for seat, score in enumerate(points):
        name = _crop_cells(facts.seat_name(view, seat), 12)
        lines.append(Text(f"{_pad(name, 13)}{facts.signed(int(score)):>6}"))
    return lines


def reading_lines(view: TableView, width: int = 24) -> list[Text]:
    """Who is still reading the result, between deals (on as many lines as it takes)."""
    names = [facts.seat_name(view, s) for s in facts.reading(view)]
    text = wording.still_reading(names)
    return (
        [Text("")] + [Text(line, style="italic") for line in wrapped(text, width)] if text else []
    )


def ranking_lines(view: TableView) -> list[Text]:
    lines = [Text(_("Game over"), style="bold"), Text("")]
    order = view.ranking or sorted(range(len(view.scores)), key=lambda s: -view.scores[s])
    for place, seat in enumerate(order, 1):
        name = _crop_cells(facts.seat_name(view, seat), 12)
        style = "bold" if seat == view.you else ""
        score = facts.signed(view.scores[seat])
        lines.append(Text(f"{place}. {_pad(name, 13)}{score:>6}", style=style))
    return lines


# -- trump tracker and chat (right) -----------------------------------------------------


def tracker_panel(view: TableView) -> Text:
    """The 21 trumps and the Excuse: yours marked ``*`` (and in reverse video),
    gone ones ``·``, so the legend reads the same without colour or attributes;
    then how many trumps you have not seen yet."""
    tracker = facts.trump_tracker(view)
    out = Text(no_wrap=True, overflow="crop")
    out.append(wording.TRACKER_TITLE, style="bold")
    out.append(wording.TRACKER_LEGEND + "\n", style="dim")
    for row in range(3):
        for col in range(7):
            n = row * 7 + col + 1
            _tracker_cell(out, f"{n:>2}", tracker.state(f"T{n}"))
        if row == 2:
            _tracker_cell(out, "EX", tracker.state("EX"))  # the Excuse reads as a trump does
        out.append("\n")
    unseen = sum(1 for c in tracker.out if c != "EX")
    # Neither played nor yours: in other hands, or in a chien you have not seen.
    out.append(
        ngettext("{n} trump not seen yet", "{n} trumps not seen yet", unseen).format(n=unseen)
    )
    return out


def _tracker_cell(out: Text, name: str, state: str) -> None:
    if state == "hand":
        out.append(name, style="reverse bold")
        out.append("*", style="bold")
    elif state in ("played", "discarded"):
        out.append(" · ", style="dim")
    else:
        out.append(f"{name} ")


def chat_panel(view: TableView, lines: int, width: int) -> Text:
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(_("Chat") + " ", style="bold")
    out.append(_("(m to write)"), style="dim")
    for line in view.chat[-max(0, lines - 1) :]:
        out.append("\n")
        out.append(_crop_cells(f"{line.name}: {line.text}", width))
    return out


def decision_summary(picked: list[str], total: int, verb: str, width: int = 80) -> Text:
    """``Discard (4/6): 7♠ 8♠ Q♥ C♣`` for the pickers; in ``width`` cells, the
    verb goes first, then the cards (the hand underlines them anyway)."""
    cards = cards_text(picked) if picked else Text(_("none yet"), style="dim")
    count = f"({len(picked)}/{total})"
    for head in (f"{verb} {count}: ", f"{count}: "):
        if cell_len(head) + cards.cell_len <= width:
            return Text(head, style="bold") + cards
    return Text(f"{verb} {count}", style="bold")


def ecart_question(picked: list[str]) -> Text:
    """The écart's confirmation: the cards, and a word on the trumps shown."""
    n = len(picked)
    ask = ngettext("Discard this card?", "Discard these {n} cards?", n).format(n=n)
    question = Text(ask + "\n", style="bold")
    question.append_text(cards_text(picked))
    if any(c.startswith("T") for c in picked):
        question.append("\n" + _("The trumps you discard are shown to everyone."), style="italic")
    return question
