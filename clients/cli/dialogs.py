"""The small modal screens: confirm, new table, join by code, score sheet,
chat and help. Each one returns its answer through ``dismiss`` (None when
cancelled) and sends nothing itself; the screen that opened it acts.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from clients.cli import history, wording
from clients.cli.cards_text import card_text, cards_text
from clients.cli.help_text import help_keys, help_text
from clients.cli.i18n import N_, Translated, _
from clients.cli.screen_keys import ButtonArrows
from clients.cli.table_facts import seat_count, seat_name
from clients.cli.table_names import table_name
from protocol.limits import MAX_DEALS, MAX_TURN_TIMER, TABLE_NAME_MAX
from protocol.messages import CreateTable
from protocol.views import TableView

T = TypeVar("T")

BOT_LEVELS = ("random", "easy", "normal", "strong")
PLAYERS = (3, 4, 5)
"""The table sizes French Tarot is played at."""


def players_word(n: int) -> str:
    """``3 players``, and at five what makes it different: the called King."""
    if n == 5:
        return _("5 players, a called King")
    return _("{n} players").format(n=n)


DIALOG_CSS = """
Confirm, NewTable, JoinByCode, ScoreSheet, ChatBox, Help, History, Replay {
    align: center middle;
    background: $background 60%;
}
.dialog {
    width: auto;
    max-width: 76;
    height: auto;
    max-height: 22;
    border: round $accent;
    background: $surface;
    padding: 0 1;
}
.dialog .row {
    height: auto;
    width: 100%;
}
.dialog Input { width: 32; }
.dialog Select { width: 34; }
.dialog #deals, .dialog #timer { width: 6; }
#new-table, #join-code { width: 60; }
#help { width: 76; }
.dialog > Static { width: auto; max-width: 72; }
.dialog .buttons {
    height: 1;
    width: auto;
    margin-top: 1;
}
.dialog Button {
    margin-right: 2;
    min-width: 0;
    width: auto;
    padding: 0 1;
}
.dialog .label {
    width: 12;
}
.dialog .error {
    color: $error;
    height: auto;
}
"""


def bot_level_select() -> Select[str]:
    """The bots' level, "normal" chosen: one field of the table's and the
    tournament's forms (``#bots``)."""
    return Select(
        [(wording.bot_level(level), level) for level in BOT_LEVELS],
        value="normal",
        allow_blank=False,
        id="bots",
        compact=True,
    )


class Form(Translated, ButtonArrows, ModalScreen[T | None], Generic[T]):
    """A form in a dialog: its answer a ``T``, or None when cancelled (Esc,
    or its ``#cancel`` button)."""

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)


class Confirm(Translated, ButtonArrows, ModalScreen[bool]):
    """A yes/no question. Escape gives the *safe* answer (``safe``: no by
    default), which also has the focus unless ``focus`` says otherwise, so a
    stray Enter or Escape never loses a game or a seat."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "safe", N_("Cancel"))]

    def __init__(
        self,
        question: str | Text,
        yes: str | None = None,
        no: str | None = None,
        *,
        safe: bool = False,
        focus: bool | None = None,
    ) -> None:
        super().__init__()
        self.question = question
        self.yes, self.no = yes or _("Yes"), no or _("No")
        self.safe = safe
        self.focus_yes = safe if focus is None else focus

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="confirm"):
            yield Static(self.question)
            with Horizontal(classes="buttons"):
                yield Button(
                    self.yes,
                    id="yes",
                    variant="primary" if self.focus_yes else "default",
                    compact=True,
                )
                yield Button(
                    self.no,
                    id="no",
                    variant="default" if self.focus_yes else "primary",
                    compact=True,
                )

    def on_mount(self) -> None:
        self.query_one("#yes" if self.focus_yes else "#no", Button).focus()

    @on(Button.Pressed, "#yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def _no(self) -> None:
        self.dismiss(False)

    def action_safe(self) -> None:
        self.dismiss(self.safe)


class NewTable(Form[CreateTable]):
    """The form for a new table: name, private, players (3, 4 or 5), deals,
    bot level, turn timer."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, default_name: str) -> None:
        super().__init__()
        self.default_name = default_name
        self._players = 4

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="new-table"):
            yield Label(Text(_("New table"), style="bold"))
            with Horizontal(classes="row"):
                yield Label(_("Name"), classes="label")
                yield Input(self.default_name, id="name", compact=True, max_length=TABLE_NAME_MAX)
            with Horizontal(classes="row"):
                yield Label(_("Who"), classes="label")
                # A Select rather than a checkbox: its state reads the same without colour.
                yield Select(
                    [
                        (_("public: listed in the lobby"), False),
                        (_("private: invite code only"), True),
                    ],
                    value=False,
                    allow_blank=False,
                    id="private",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Label(_("Players"), classes="label")
                yield Select(
                    [(players_word(n), n) for n in PLAYERS],
                    value=4,
                    allow_blank=False,
                    id="players",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Label(_("Deals"), classes="label")
                yield Input("8", id="deals", compact=True, type="integer", max_length=2)
                yield Label(" " + _("each player deals twice"), id="deals-note")
            with Horizontal(classes="row"):
                yield Label(_("Bots"), classes="label")
                yield bot_level_select()
            with Horizontal(classes="row"):
                yield Label(_("Turn timer"), classes="label")
                yield Input("0", id="timer", compact=True, type="integer", max_length=3)
                yield Label(" " + _("seconds a move (0: none)"))
            yield Static("", classes="error", id="problem")
            with Horizontal(classes="buttons"):
                yield Button(_("Create"), id="create", variant="primary", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    @on(Select.Changed, "#players")
    def _players_changed(self, event: Select.Changed) -> None:
        # A game is two deals per player by default (6, 8 or 10): the deals
        # follow the size unless the player typed a number of their own.
        deals = self.query_one("#deals", Input)
        players = event.value if isinstance(event.value, int) else 4
        if deals.value == str(2 * self._players):
            deals.value = str(2 * players)
        self._players = players

    @on(Input.Submitted)
    @on(Button.Pressed, "#create")
    def _create(self) -> None:
        problem = self.query_one("#problem", Static)
        try:
            deals = int(self.query_one("#deals", Input).value or "0")
            timer = int(self.query_one("#timer", Input).value or "0")
        except ValueError:
            problem.update(_("Deals and turn timer are whole numbers."))
            return
        if not 1 <= deals <= MAX_DEALS:
            problem.update(_("A game has 1 to {deals} deals.").format(deals=MAX_DEALS))
            return
        if not 0 <= timer <= MAX_TURN_TIMER:
            problem.update(
                _("The turn timer is 0 (none) to {seconds} seconds.").format(
                    seconds=f"{MAX_TURN_TIMER:.0f}"
                )
            )
            return
        level = self.query_one("#bots", Select).value
        players = self.query_one("#players", Select).value
        self.dismiss(
            CreateTable(
                name=self.query_one("#name", Input).value.strip(),
                private=self.query_one("#private", Select).value is True,
                deals=deals,
                players=players if isinstance(players, int) and players in PLAYERS else 4,
                bot_level=level if level in BOT_LEVELS else "normal",
                turn_timer=float(timer),
            )
        )


class JoinByCode(Form[tuple[str, bool]]):
    """Ask for an invite code; answers (code, watch)."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="join-code"):
            yield Label(Text(_("Join a table by its invite code"), style="bold"))
            with Horizontal(classes="row"):
                yield Label(_("Code"), classes="label")
                yield Input(placeholder="ABC234", id="code", compact=True, max_length=12)
            yield Static("", classes="error", id="problem")
            with Horizontal(classes="buttons"):
                yield Button(_("Sit down"), id="join", variant="primary", compact=True)
                yield Button(_("Watch"), id="watch", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#code", Input).focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#join")
    def _join(self) -> None:
        self._answer(watch=False)

    @on(Button.Pressed, "#watch")
    def _watch(self) -> None:
        self._answer(watch=True)

    def _answer(self, watch: bool) -> None:
        code = "".join(self.query_one("#code", Input).value.split()).upper()
        if not code:
            self.query_one("#problem", Static).update(
                _("Type the code your friend sees at the table.")
            )
            return
        self.dismiss((code, watch))


class History(Translated, ModalScreen[None]):
    """This table's past deals (the ``history`` records), one line each;
    Enter replays the chosen one trick by trick."""

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    #history { width: 76; }
    #history OptionList { height: auto; max-height: 16; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,h", "close", N_("Close"))]

    def __init__(self, view: TableView, records: list[dict[str, Any]]) -> None:
        super().__init__()
        self.view = view
        self.deals = history.past_deals(records)

    def compose(self) -> ComposeResult:
        names = [seat_name(self.view, seat, own=True) for seat in range(seat_count(self.view))]
        with Vertical(classes="dialog", id="history"):
            title = f"{wording.HISTORY_TITLE} — {table_name(self.view.name)}"
            yield Label(Text(title, style="bold"))
            if self.deals:
                yield OptionList(*[Option(history.summary(d, names)) for d in self.deals])
            else:
                yield Static(wording.HISTORY_EMPTY)
            yield Static(Text(wording.HISTORY_FOOT, style="dim"))

    def on_mount(self) -> None:
        for options in self.query(OptionList).results(OptionList):
            options.highlighted = len(self.deals) - 1  # the latest deal first
            options.focus()

    @on(OptionList.OptionSelected)
    def _replay(self, event: OptionList.OptionSelected) -> None:
        self.app.push_screen(Replay(self.view, self.deals[event.option_index]))

    def action_close(self) -> None:
        self.dismiss(None)


class Replay(Translated, ModalScreen[None]):
    """One past deal, trick by trick (← →)."""

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    #replay { width: 76; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", N_("Back")),
        Binding("left", "step(-1)", N_("Previous trick")),
        Binding("right,space", "step(1)", N_("Next trick")),
        Binding("home", "goto(0)", show=False),
        Binding("end", "goto(-1)", show=False),
    ]

    def __init__(self, view: TableView, deal: history.PastDeal) -> None:
        super().__init__()
        self.view = view
        self.deal = deal
        self.trick = 0

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="replay"):
            yield Static(id="replay-body")
            yield Static(Text(wording.REPLAY_FOOT, style="dim"))

    def on_mount(self) -> None:
        self._draw()

    def _draw(self) -> None:
        self.query_one("#replay-body", Static).update(self.body())

    def body(self) -> Text:
        deal, view = self.deal, self.view
        seats = range(seat_count(view))
        names = [seat_name(view, seat) for seat in seats]
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(history.summary(deal, [seat_name(view, s, own=True) for s in seats]))
        out.stylize("bold")
        if deal.bids:
            out.append("\n" + wording.replay_bids([(names[s], b) for s, b in deal.bids]))
        if deal.chien:
            out.append("\n" + _("Chien:") + " ")
            out.append_text(cards_text(deal.chien))
        if not deal.tricks:
            return out
        trick = deal.tricks[self.trick]
        out.append("\n\n")
        out.append(wording.replay_trick_title(self.trick + 1, len(deal.tricks)), style="bold")
        out.append(f" · {wording.replay_led(names[trick.leader])}")
        for seat, card in trick.cards:
            out.append("\n  ")
            out.append(f"{names[seat]:<24} ")
            out.append_text(card_text(card, "bold" if seat == trick.winner else ""))
            if seat == trick.winner:
                out.append(" ★ " + wording.replay_took(names[seat], seat == view.you))
        return out

    def action_step(self, step: int) -> None:
        if self.deal.tricks:
            self.trick = max(0, min(len(self.deal.tricks) - 1, self.trick + step))
            self._draw()

    def action_goto(self, index: int) -> None:
        if self.deal.tricks:
            self.trick = index % len(self.deal.tricks)
            self._draw()

    def action_close(self) -> None:
        self.dismiss(None)


class ChatBox(Translated, ModalScreen[str | None]):
    """The table's chat: the lines so far and a line to type; Enter sends."""

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    #chat { width: 70; }
    #chat-lines { height: auto; max-height: 14; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", N_("Close"))]

    def __init__(self, view: TableView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="chat"):
            yield Label(Text.assemble((_("Chat"), "bold"), " " + _("(Enter sends, Esc closes)")))
            with VerticalScroll(id="chat-lines"):
                yield Static(chat_text(self.view, 50), id="chat-text")
            yield Input(placeholder=_("say something…"), id="say", compact=True, max_length=200)

    def on_mount(self) -> None:
        self.query_one("#say", Input).focus()
        self.query_one("#chat-lines").scroll_end(animate=False)

    def update_view(self, view: TableView) -> None:
        self.view = view
        self.query_one("#chat-text", Static).update(chat_text(view, 50))
        self.query_one("#chat-lines").scroll_end(animate=False)

    @on(Input.Submitted)
    def _send(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if text:
            self.dismiss(text)

    def action_close(self) -> None:
        self.dismiss(None)


def chat_text(view: TableView, last: int) -> Text:
    out = Text()
    lines = view.chat[-last:]
    if not lines:
        out.append(_("no message yet"), style="dim")
    for i, line in enumerate(lines):
        if i:
            out.append("\n")
        out.append(f"{line.name}: ", style="bold")
        out.append(line.text)
    return out


class Help(Translated, ModalScreen[None]):
    """The keys and rules (``help_text``) laid out for the width, as tall as the terminal."""

    DEFAULT_CSS = DIALOG_CSS + "#help-keys { color: $text-muted; } #help-scroll { height: auto; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,enter", "close", N_("Close"))
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="help"):
            yield Static(help_keys(), id="help-keys")
            with VerticalScroll(id="help-scroll"):
                yield Static(id="help-text")

    def on_mount(self) -> None:
        self._fit()
        self.query_one("#help-scroll").focus()  # ↑ ↓ PgUp PgDn scroll

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        width, height = self.app.size
        # The dialog: 76 cells at most, less its border, padding and scrollbar.
        self.query_one("#help-text", Static).update(help_text(min(76, width - 4) - 6))
        self.query_one("#help").styles.max_height = max(6, height - 2)
        self.query_one("#help-scroll").styles.max_height = max(3, height - 5)

    def action_close(self) -> None:
        self.dismiss(None)
