"""The small modal screens: confirm, new table, join by code, score sheet,
chat and help. Each one returns its answer through ``dismiss`` (None when
cancelled) and sends nothing itself; the screen that opened it acts.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from clients.cli import wording
from clients.cli.table_facts import seat_name, signed
from protocol.limits import MAX_DEALS, MAX_TURN_TIMER, TABLE_NAME_MAX
from protocol.messages import CreateTable
from protocol.views import TableView

BOT_LEVELS = ("random", "easy", "normal", "strong")

DIALOG_CSS = """
Confirm, NewTable, JoinByCode, ScoreSheet, ChatBox, Help {
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


class Confirm(ModalScreen[bool]):
    """A yes/no question; Enter on the focused button, Escape for no."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "no", "No")]

    def __init__(self, question: str | Text, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.question = question
        self.yes, self.no = yes, no

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="confirm"):
            yield Static(self.question)
            with Horizontal(classes="buttons"):
                yield Button(self.yes, id="yes", variant="primary", compact=True)
                yield Button(self.no, id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    @on(Button.Pressed, "#yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def action_no(self) -> None:
        self.dismiss(False)


class NewTable(ModalScreen[CreateTable | None]):
    """The form for a new table: name, private, deals, bot level, turn timer."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, default_name: str) -> None:
        super().__init__()
        self.default_name = default_name

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="new-table"):
            yield Label(Text("New table", style="bold"))
            with Horizontal(classes="row"):
                yield Label("Name", classes="label")
                yield Input(self.default_name, id="name", compact=True, max_length=TABLE_NAME_MAX)
            with Horizontal(classes="row"):
                yield Label("Who", classes="label")
                # A Select rather than a checkbox: its state reads the same without colour.
                yield Select(
                    [("public: listed in the lobby", False), ("private: invite code only", True)],
                    value=False,
                    allow_blank=False,
                    id="private",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Label("Deals", classes="label")
                yield Input("8", id="deals", compact=True, type="integer", max_length=2)
            with Horizontal(classes="row"):
                yield Label("Bots", classes="label")
                yield Select(
                    [(level, level) for level in BOT_LEVELS],
                    value="normal",
                    allow_blank=False,
                    id="bots",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Label("Turn timer", classes="label")
                yield Input("0", id="timer", compact=True, type="integer", max_length=3)
                yield Label(" seconds a move (0: none)")
            yield Static("", classes="error", id="problem")
            with Horizontal(classes="buttons"):
                yield Button("Create", id="create", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    @on(Button.Pressed, "#create")
    def _create(self) -> None:
        problem = self.query_one("#problem", Static)
        try:
            deals = int(self.query_one("#deals", Input).value or "0")
            timer = int(self.query_one("#timer", Input).value or "0")
        except ValueError:
            problem.update("Deals and turn timer are whole numbers.")
            return
        if not 1 <= deals <= MAX_DEALS:
            problem.update(f"A game has 1 to {MAX_DEALS} deals.")
            return
        if not 0 <= timer <= MAX_TURN_TIMER:
            problem.update(f"The turn timer is 0 (none) to {MAX_TURN_TIMER:.0f} seconds.")
            return
        level = self.query_one("#bots", Select).value
        self.dismiss(
            CreateTable(
                name=self.query_one("#name", Input).value.strip(),
                private=self.query_one("#private", Select).value is True,
                deals=deals,
                bot_level=level if level in BOT_LEVELS else "normal",
                turn_timer=float(timer),
            )
        )


class JoinByCode(ModalScreen[tuple[str, bool] | None]):
    """Ask for an invite code; answers (code, watch)."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="join-code"):
            yield Label(Text("Join a table by its invite code", style="bold"))
            with Horizontal(classes="row"):
                yield Label("Code", classes="label")
                yield Input(placeholder="ABC234", id="code", compact=True, max_length=12)
            yield Static("", classes="error", id="problem")
            with Horizontal(classes="buttons"):
                yield Button("Sit down", id="join", variant="primary", compact=True)
                yield Button("Watch", id="watch", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#code", Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

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
                "Type the code your friend sees at the table."
            )
            return
        self.dismiss((code, watch))


class ScoreSheet(ModalScreen[None]):
    """The score sheet: one line per deal (annulled ones too) and the totals."""

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    #sheet DataTable { height: auto; max-height: 16; width: auto; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,b,enter", "close", "Close")]

    def __init__(self, view: TableView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        view = self.view
        with Vertical(classes="dialog", id="sheet"):
            yield Label(
                Text.assemble(("Score sheet", "bold"), f" — {view.name} ({view.deals} deals)")
            )
            table: DataTable[str | Text] = DataTable(zebra_stripes=True, cursor_type="none")
            yield table
            yield Static(Text("Esc to close", style="dim"))

    def on_mount(self) -> None:
        view = self.view
        table = self.query_one(DataTable)
        names = [Text(seat_name(view, i)[:9]) for i in range(4)]
        table.add_columns("#", "Contract", "Taker", *names)
        for line in view.sheet:
            if line.annulled:
                table.add_row(
                    str(line.number or "–"),
                    Text(
                        f"annulled: {wording.ANNULMENTS.get(line.annulled, line.annulled)}"[:24],
                        style="dim",
                    ),
                    "",
                    *["" for _ in range(4)],
                )
                continue
            result = "made" if line.made else "down"
            table.add_row(
                str(line.number),
                f"{wording.contract(line.contract)} {result}",
                Text(seat_name(view, line.taker)[:9]),
                *[Text(signed(s), justify="right") for s in line.scores],
            )
        table.add_row(
            "",
            Text("Total", style="bold"),
            "",
            *[Text(signed(s), style="bold", justify="right") for s in view.scores],
        )
        if not view.sheet:
            self.query_one("#sheet Label", Label).update(
                Text.assemble(("Score sheet", "bold"), " — no deal finished yet")
            )

    def action_close(self) -> None:
        self.dismiss(None)


class ChatBox(ModalScreen[str | None]):
    """The table's chat: the lines so far and a line to type; Enter sends."""

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    #chat { width: 70; }
    #chat-lines { height: auto; max-height: 14; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    def __init__(self, view: TableView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="chat"):
            yield Label(Text.assemble(("Chat", "bold"), " (Enter sends, Esc closes)"))
            with VerticalScroll(id="chat-lines"):
                yield Static(chat_text(self.view, 50), id="chat-text")
            yield Input(placeholder="say something…", id="say", compact=True, max_length=200)

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
        out.append("no message yet", style="dim")
    for i, line in enumerate(lines):
        if i:
            out.append("\n")
        out.append(f"{line.name}: ", style="bold")
        out.append(line.text)
    return out


def help_text() -> Text:
    """The keys and how to read the table (built as Text: no markup to get wrong)."""
    t = Text()

    def title(name: str) -> None:
        t.append(("\n" if t else "") + name + "\n", style="bold")

    title("Playing")
    t.append("  ← →  move between the cards you may play (others are dimmed)\n")
    t.append("  Enter, Space or a click  play the card (or pick it for the écart)\n")
    t.append("  type a code  KS  10H  CD (Knight ♦)  T21  EX: played once unique\n")
    title("At the table")
    t.append("  l last trick   b score sheet   m chat   p poignée (when offered)\n")
    t.append("  r reconnect now (while offline)   Esc leave the table\n")
    title("Reading the screen")
    t.append("  ▶ whose turn   D dealer   ★ taker   trumps: ")
    t.append("21", style="reverse")
    t.append(" yours, · gone\n")
    t.append("  The taker needs 56 / 51 / 41 / 36 points with 0 / 1 / 2 / 3 bouts\n")
    t.append("  (the 21, the Petit T1 and the Excuse).\n")
    t.append("Esc to close", style="dim")
    return t


class Help(ModalScreen[None]):
    DEFAULT_CSS = DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,enter", "close", "Close")
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="help"):
            yield Static(help_text())

    def action_close(self) -> None:
        self.dismiss(None)
