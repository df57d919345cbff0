"""The hint key (``i``) of the table screen: what the strong bot would do here.

At a casual table, on the player's turn, ``i`` sends ``hint``; the server's
answer (``HintAnswer``) comes back through the app, which shows
``hint_line`` in the message bar: the choice and a one-line reason in the
player's language ("Hint: K♥ — cashes the King of ♥"). Daily and
tournament tables give no hints (the server refuses them, ``no_hints``), so
the key is not offered there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.screen import Screen

from clients.cli import wording
from clients.cli.cards_text import label
from clients.cli.i18n import N_, _
from clients.cli.screen_keys import fit_footer
from clients.cli.table_host import TableHost
from protocol.cards import SUIT_SYMBOLS, SUITS
from protocol.messages import Hint, HintAnswer
from protocol.views import TableView

REASONS = {
    "weak_hand": N_("the hand makes no contract"),
    "trumps_and_bouts": N_("trumps and bouts"),
    "long_suit": N_("long in {suit}"),
    "strong_hand": N_("a hand of honours"),
    "call_king": N_("the King of {suit}"),
    "void_suit": N_("voids {suit} to trump it"),
    "bank_points": N_("puts points away safe"),
    "no_chelem": N_("no chelem without every trick sure"),
    "show_poignee": N_("the poignée's bonus"),
    "only_card": N_("the only card you may play"),
    "save_petit": N_("saves the Petit in a trick your camp wins"),
    "keep_petit": N_("keeps the Petit safe"),
    "petit_au_bout": N_("the Petit in the last trick"),
    "excuse": N_("the Excuse rather than a card worth points"),
    "draw_trumps": N_("draws the defence's trumps"),
    "cash_king": N_("cashes the King of {suit}"),
    "win_trick": N_("takes the trick"),
    "give_points": N_("gives points to your camp's trick"),
    "cheap_card": N_("the trick is lost: the cheapest card"),
}
"""The words of each reason code (docs/PROTOCOL.md, ``hint``)."""


def hint_line(answer: HintAnswer) -> str:
    """The message bar's line for a hint: the choice, then why."""
    if answer.command == "bid":
        choice = wording.CONTRACTS.get(answer.choice[0], answer.choice[0])
    elif answer.command == "chelem":
        choice = _("declare a chelem") if answer.choice == ["yes"] else _("no chelem")
    else:
        choice = " ".join(label(c) for c in answer.choice)
    suit = SUIT_SYMBOLS[SUITS.index(answer.suit)] if answer.suit in SUITS else ""
    words = REASONS.get(answer.reason)
    if words is None:  # a reason newer than this client: the choice alone
        return _("Hint: {choice}").format(choice=choice)
    reason = _(words).format(suit=suit)
    return _("Hint: {choice} — {reason}").format(choice=choice, reason=reason)


class HintKey(Screen[Any]):
    """Mixed into the table screen before its Textual class: the ``i`` key."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("i", "hint", N_("Hint"))]
    host: TableHost
    view: TableView | None

    def casual(self) -> bool:
        """A table that gives hints: neither a daily nor a tournament one."""
        view = self.view
        return view is not None and not self.ranked(view) and view.you is not None

    def ranked(self, view: TableView) -> bool:
        return self.host.daily.is_daily(view) or self.host.tournaments.at_table(view)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "hint":
            # Hidden at a daily or tournament table, and until the table is
            # known (it showed for a frame at a tournament table, issue 33);
            # elsewhere shown (greyed while it cannot be used), so the footer
            # is fitted with it.
            view = self.view
            if view is None or self.ranked(view):
                return False
            return True if self.casual() else None
        return super().check_action(action, parameters)

    _hint_offered: bool | None = False
    """Whether the footer was last fitted with the hint key (``check_action``)."""

    def fit_hint_key(self, optional: Sequence[str]) -> None:
        """The hint key comes or goes with the table: fit the footer again then."""
        hint = self.check_action("hint", ())
        if hint != self._hint_offered:
            self._hint_offered = hint
            fit_footer(self, optional)

    def action_hint(self) -> None:
        view = self.view
        if view is None or not self.casual():
            return
        legal = view.legal
        if not (legal.bids or legal.calls or legal.ecart or legal.chelem or legal.cards):
            self.notify(_("A hint is for your own decision: wait for your turn."))
            return
        self.host.send(Hint())
