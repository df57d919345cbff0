"""The score sheet dialog (``b`` at the table): one line per deal and the
totals, as a Rich table sized to the terminal's width — every player's
column at any width from 80 columns up, names cropped only when the room
runs out (in cells: a CJK character takes two).
"""

from __future__ import annotations

from typing import ClassVar

from rich import box
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from clients.cli import wording
from clients.cli.dialogs import DIALOG_CSS
from clients.cli.i18n import N_, Translated
from clients.cli.table_facts import seat_count, seat_name, signed
from protocol.views import DealLine, TableView


class ScoreSheet(Translated, ModalScreen[None]):
    """The score sheet: one line per deal (annulled ones too, under the number
    of the deal they were an attempt at) and the totals, with a column for
    every player at any width from 80 columns up."""

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    #sheet { max-width: 100%; max-height: 100%; }
    #sheet-scroll { height: auto; max-height: 100%; width: auto; }
    #sheet > Label { width: auto; }
    #sheet-table { width: auto; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,b,enter", "close", N_("Close")),
        # A long game's sheet is taller than 24 lines: it scrolls (SHEET_FOOT says how).
        Binding("up", "scroll('up')", show=False),
        Binding("down", "scroll('down')", show=False),
        Binding("pageup", "scroll('page_up')", show=False),
        Binding("pagedown", "scroll('page_down')", show=False),
        Binding("home", "scroll('home')", show=False),
        Binding("end", "scroll('end')", show=False),
    ]

    def __init__(self, view: TableView) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        view = self.view
        with Vertical(classes="dialog", id="sheet"):
            yield Label(wording.sheet_title(view.name, len(counted_lines(view)), view.deals))
            with VerticalScroll(id="sheet-scroll"):
                yield Static(id="sheet-table")
            yield Static(Text(wording.SHEET_FOOT, style="dim"))

    def on_mount(self) -> None:
        self._fill()

    def on_resize(self) -> None:
        self._fill()

    def _fill(self) -> None:
        # The dialog's border and padding take 4 columns, the screen margin 2.
        table = sheet_table(self.view, max(40, self.app.size.width - 6))
        # Its border, title and foot take 4 lines of the dialog's 22 at most:
        # the lines of deals scroll in the rest, never cut off below.
        room = min(22, self.app.size.height) - 4
        self.query_one("#sheet-scroll", VerticalScroll).styles.max_height = max(3, room)
        widget = self.query_one("#sheet-table", Static)
        # A Static sized "auto" measures a Rich table too narrow: give it its width.
        widget.styles.width = table.width
        widget.update(table)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll(self, where: str) -> None:
        scroll = self.query_one("#sheet-scroll", VerticalScroll)
        match where:
            case "up":
                scroll.scroll_up()
            case "down":
                scroll.scroll_down()
            case "page_up":
                scroll.scroll_page_up()
            case "page_down":
                scroll.scroll_page_down()
            case "home":
                scroll.scroll_home()
            case _:
                scroll.scroll_end()


def counted_lines(view: TableView) -> list[DealLine]:
    return [line for line in view.sheet if not line.annulled]


def sheet_table(view: TableView, width: int) -> Table:
    """The sheet as a Rich table no wider than ``width``: a column per player,
    names as long as the room allows, the taker marked ★ in their column."""
    seats = range(seat_count(view))
    gaps = GAP * (len(seats) + 1)  # between the columns: deal, contract, a seat each
    rows: list[tuple[str, Text, list[Text]]] = []
    for line in view.sheet:
        if line.annulled:
            # An annulled line has the number of the deal it was an attempt
            # at, in brackets: it is not a deal of its own (issue 33).
            rows.append(
                (
                    f"({line.number})",
                    Text(wording.sheet_annulled(line.annulled), style="italic"),
                    [Text("") for _seat in seats],
                )
            )
            continue
        scores = []
        for seat, score in enumerate(line.scores):
            if seat == line.taker:
                scores.append(Text(f"★ {signed(score)}", style="bold"))
            else:
                scores.append(Text(signed(score)))
        rows.append(
            (str(line.number), Text(wording.sheet_contract(line.contract, line.made)), scores)
        )
    deal_w = max([cell_len(wording.SHEET_HEAD_DEAL)] + [len(r[0]) for r in rows])
    contract_w = max([cell_len(wording.SHEET_HEAD_CONTRACT)] + [r[1].cell_len for r in rows])
    names = [seat_name(view, seat, own=True) for seat in seats]
    totals = [signed(s) for s in view.scores]
    fits = [max([len(totals[seat])] + [r[2][seat].cell_len for r in rows]) for seat in seats]
    # Columns are 2 apart (a blank rule and a cell of padding); what is left
    # goes to the names, the longest cropped first.
    room = width - deal_w - contract_w - gaps
    wanted = [max(fit, cell_len(name)) for fit, name in zip(fits, names, strict=True)]
    widths = list(wanted)
    while sum(widths) > room and max(w - f for w, f in zip(widths, fits, strict=True)) > 0:
        i = max(seats, key=lambda k: (widths[k] - fits[k] > 0, widths[k]))
        widths[i] -= 1
    table = Table(
        box=box.SIMPLE_HEAD,
        show_footer=bool(rows),
        padding=(0, 0, 0, 1),
        pad_edge=False,
        show_edge=False,
        width=deal_w + contract_w + sum(widths) + gaps,
    )
    table.add_column(wording.SHEET_HEAD_DEAL, justify="right", width=deal_w, no_wrap=True)
    table.add_column(
        wording.SHEET_HEAD_CONTRACT,
        footer=Text(wording.SHEET_TOTAL, style="bold"),
        width=contract_w,
        no_wrap=True,
    )
    for seat in seats:
        table.add_column(
            Text(crop(names[seat], widths[seat]), style="bold" if seat == view.you else ""),
            footer=Text(totals[seat], style="bold"),
            justify="right",
            width=widths[seat],
            no_wrap=True,
        )
    for number, contract, scores in rows:
        table.add_row(number, contract, *scores)
    if not rows:
        table.add_row("", Text(wording.SHEET_EMPTY, style="dim"), "", "", "", "")
    return table


GAP = 2


def crop(s: str, n: int) -> str:
    """``s`` in at most ``n`` cells (a CJK character takes two), cut with "…"."""
    if cell_len(s) <= n:
        return s
    while s and cell_len(s) > n - 1:
        s = s[:-1]
    return s + "…"
