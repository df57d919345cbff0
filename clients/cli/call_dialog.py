"""The call dialog: at a table of five, the taker calls a card, and its
holder becomes the taker's partner. The dialog lists the cards that may be
called (``legal.calls``) as buttons, says why those and no others, and
what calling a card of one's own hand means; it answers the card chosen
(``dismiss``), or None when closed with Esc — the table's action bar then
offers it again.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from clients.cli import call_facts
from clients.cli.cards_text import card_text, label
from clients.cli.dialogs import DIALOG_CSS
from clients.cli.i18n import N_, Translated, _
from clients.cli.screen_keys import ButtonArrows
from clients.cli.table_panels import wrapped
from protocol.views import TableView

WIDTH = 60
"""The dialog's text width: 64 cells less its border and padding."""


def _lines(text: str) -> str:
    # Wrapped here, between words (anywhere in Chinese and Korean), so that a
    # line of CJK text is never folded in the middle of what reads as a word.
    return "\n".join(wrapped(text, WIDTH))


class CallDialog(Translated, ButtonArrows, ModalScreen[str | None]):
    """Which card to call: a button each, the first one not in your hand focused."""

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    CallDialog { align: center middle; background: $background 60%; }
    #call { width: 64; }
    #call > Static { width: 100%; }
    #call .buttons { height: 1; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", N_("Later"))]

    def __init__(self, view: TableView) -> None:
        super().__init__()
        self.view = view
        self.calls = list(view.legal.calls)

    def compose(self) -> ComposeResult:
        view = self.view
        with Vertical(classes="dialog", id="call"):
            yield Label(Text(_("Call a card"), style="bold"))
            yield Static(_lines(call_facts.call_reason(self.calls)))
            yield Static(
                _lines(
                    _(
                        "Its holder becomes your partner, a secret until the card is played. "
                        "In the chien or in your own hand, it leaves you alone against four."
                    )
                )
            )
            with Horizontal(classes="buttons"):
                for card in self.calls:
                    yield Button(
                        card_text(card),
                        name=f"call:{card}",
                        classes="call",
                        variant="default" if card in view.hand else "primary",
                        compact=True,
                        tooltip=call_facts.call_note(card, view),
                    )
            held = [c for c in self.calls if c in view.hand]
            if held:
                said = _("In your hand: {cards}. Calling it, you play alone.")
                cards = " ".join(label(c) for c in held)
                yield Static(Text(_lines(said.format(cards=cards)), style="italic"))
            yield Static(Text(_("← → choose · Enter call · Esc later"), style="dim"))

    def on_mount(self) -> None:
        buttons = list(self.query(".call").results(Button))
        first = next(
            (b for b in buttons if b.variant == "primary"), buttons[0] if buttons else None
        )
        if first is not None:
            first.focus()

    @on(Button.Pressed, ".call")
    def _call(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.name or "")[5:] or None)

    def action_close(self) -> None:
        self.dismiss(None)
