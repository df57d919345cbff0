"""The table's action bar: the buttons for the decision at hand (start,
bid, call, chelem, écart, poignée, continue, play again, leave), each with the
class and name ``TableScreen`` acts on, and the one to focus. Pure: a view
and the screen's state in, fresh widgets out.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Button, Static

from clients.cli import table_facts as facts
from clients.cli import wording
from clients.cli.i18n import _
from protocol.views import TableView


def action_bar(
    view: TableView,
    *,
    kind: str,
    pick_kind: str,
    poignee_size: int,
    daily: bool,
    decision_key: tuple[Any, ...],
) -> tuple[tuple[Any, ...], list[Any], Any]:
    """(identity of the action bar, its widgets, the one to focus) for the
    decision ``kind`` the player has to make now ("" when none)."""
    legal = view.legal
    if facts.may_start(view):
        # A quick-play table gathering people: anyone seated starts it now.
        words = _("Start now") if view.gather_until is not None else _("Start the game")
        start = Button(words, classes="start", name="start", variant="primary", compact=True)
        return ("start", words), [start], start
    if view.status == "finished" and view.you is not None:
        leave = Button(_("Leave"), classes="leave", name="leave", compact=True)
        if daily:
            # One ranked game a day: practice is the lobby's daily key.
            return ("finished", "daily"), [leave], leave
        again = Button(
            _("Play again"), classes="again", name="again", variant="primary", compact=True
        )
        return ("finished",), [again, leave], again
    if facts.reading_now(view):
        go = Button(
            wording.CONTINUE,
            classes="continue",
            name="continue",
            variant="primary",
            compact=True,
            tooltip=wording.CONTINUE_HELP,
        )
        return ("continue",), [go], go
    if kind == "bid":
        buttons = [
            Button(
                wording.contract(b)
                + (f" ×{wording.MULTIPLIERS[b]}" if b in wording.MULTIPLIERS else ""),
                classes=f"bid bid-{b}",
                name=f"bid:{b}",
                variant="default" if b == "pass" else "primary",
                compact=True,
                tooltip=wording.BID_HELP.get(b),
            )
            for b in legal.bids
        ]
        return ("bid", tuple(legal.bids), decision_key), buttons, buttons[0]
    if kind == "call":
        call = Button(
            _("Call a card…"), classes="call-open", name="call", variant="primary", compact=True
        )
        return ("call", decision_key), [call], call
    if kind == "chelem":
        no = Button(_("No chelem"), classes="chelem-no", name="chelem:no", compact=True)
        yes = Button(
            _("Declare a chelem"),
            classes="chelem-yes",
            name="chelem:yes",
            variant="warning",
            compact=True,
        )
        return ("chelem",), [no, yes], no
    if kind == "ecart":
        summary = Static("", classes="picked")
        go = Button(
            _("Discard"),
            classes="ecart-go",
            name="ecart",
            variant="primary",
            compact=True,
            disabled=True,
        )
        clear = Button(_("Clear"), classes="ecart-clear", name="clear", compact=True)
        return ("ecart",), [go, clear, summary], None
    if kind == "play" and pick_kind == "poignee":
        summary = Static("", classes="picked")
        go = Button(
            _("Show these {n}").format(n=poignee_size),
            classes="poignee-go",
            name="poignee-show",
            variant="primary",
            compact=True,
        )
        cancel = Button(_("Cancel"), classes="poignee-cancel", name="poignee-cancel", compact=True)
        return ("poignee-pick", poignee_size), [go, cancel, summary], None
    if kind == "play" and legal.poignee_sizes:
        buttons = [
            Button(
                _("Show poignée {name} ({n}, +{bonus})").format(
                    name=wording.POIGNEE_NAMES[kind],
                    n=n,
                    bonus=wording.POIGNEE_BONUS[kind],
                ),
                classes=f"poignee poignee-{n}",
                name=f"poignee:{n}",
                compact=True,
            )
            for n, kind in zip(legal.poignee_sizes, wording.POIGNEE_KINDS, strict=False)
        ]
        return ("play", "poignee-offer", tuple(legal.poignee_sizes)), buttons, None
    if kind == "play":
        return ("play",), [], None
    return ("none",), [], None
