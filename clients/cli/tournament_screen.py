"""The tournament screen: a tournament as it stands (``TournamentView``) —
its name and code (big, to share), its settings, where it stands, the
players, the current round's tables with who sits where, and the standings
with your line highlighted (and the teams' when it has teams) — and the
host's controls: start, remove a player, have bots finish the round.

It draws what the flow (``tournament_flow.py``) hands it and sends nothing
without a person's say; what follows comes back as a new view or an error.
The host's buttons show only to the host (``view.you_host``); "Finish with
bots" is enabled once ``finish_at`` is past and says until when it is not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Protocol

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, DataTable, Static

from clients import server_clock
from clients.cli import tournament_words as words
from clients.cli.dialogs import Confirm, Help
from clients.cli.i18n import N_, Translated, _
from clients.cli.link import LinkStatus
from clients.cli.screen_keys import ButtonArrows, KeysFooter, fit_footer
from clients.cli.tournament_dialogs import RemovePlayer
from protocol.messages import (
    TournamentFinish,
    TournamentGet,
    TournamentLeave,
    TournamentRemove,
    TournamentStart,
)
from protocol.tournaments import StandingLine, TournamentView

OWN_STYLE = "bold"
TEAM_LINES = 6
"""The teams' standings, at most (then it scrolls)."""
NAME_WIDTHS = (12, 28)
"""The standings' name column: as wide as the names, within these (and the room left)."""


class TournamentScreenHost(Protocol):
    """What the screen needs from whoever shows it (``tournament_flow.py``)."""

    @property
    def url(self) -> str: ...
    @property
    def player_name(self) -> str: ...
    @property
    def player_id(self) -> str | None:
        """Ours on this server (None before the welcome)."""

    @property
    def link_status(self) -> LinkStatus: ...
    def send(self, cmd: Any) -> None: ...
    def back(self) -> None:
        """Esc: to the table we sit at, else the lobby."""

    def go_to_table(self) -> None:
        """To our table of this round (``your_table``)."""

    def left_tournament(self) -> None:
        """We asked to leave the tournament (before it started)."""

    def retry_now(self) -> None: ...


def standing_row(line: StandingLine, fmt: str) -> tuple[Text, ...]:
    cells = (
        Text(str(line.position), justify="right"),
        Text(("▶ " if line.you else "  ") + line.name, no_wrap=True, overflow="ellipsis"),
        Text(words.score(line.score, fmt), justify="right"),
        Text(str(line.deals), justify="right"),
    )
    if line.you:
        for cell in cells:
            cell.stylize(OWN_STYLE)
    return cells


def code_text(code: str) -> Text:
    """The code, big: spaced letters in reverse video, readable across a room."""
    return Text(f" {' '.join(code)} ", style="bold reverse")


class TournamentScreen(Translated, ButtonArrows, Screen[None]):
    DEFAULT_CSS = """
    TournamentScreen { layout: vertical; }
    #t-top { height: 1; background: $panel; }
    #t-title { width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    #t-link { width: auto; padding: 0 1; }
    #t-head { height: auto; max-height: 5; padding: 0 1; }
    #t-body { height: 1fr; min-height: 6; }
    #t-left { width: 36; border: round $primary; border-title-align: left; }
    #t-right { width: 1fr; border: round $primary; border-title-align: left; }
    #t-standings { height: 1fr; }
    #t-empty { height: auto; padding: 0 1; color: $text-muted; }
    #t-teams { margin-top: 1; }
    #t-note { height: 1; padding: 0 1; color: $text-muted; }
    #t-buttons { height: 1; padding: 0 1; }
    #t-buttons Button { margin-right: 1; min-width: 0; width: auto; padding: 0 1; }
    #t-message { height: 1; padding: 0 1; color: $text-muted; }
    #t-message.error { color: $error; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", N_("Back")),
        Binding("t", "table", N_("Your table")),
        Binding("s", "start", N_("Start")),
        # The host's buttons say these; the keys are in Help (the footer is full).
        Binding("x", "remove", N_("Remove a player"), show=False),
        Binding("f", "finish", N_("Finish with bots"), show=False),
        Binding("r", "refresh", N_("Refresh"), show=False),
        Binding("question_mark", "help", N_("Help"), show=False),
    ]
    FOOTER_OPTIONAL = ("table", "start")
    """Left out of the footer, first ones first, when it is too narrow (the buttons have them)."""

    def __init__(self, host: TournamentScreenHost) -> None:
        super().__init__()
        self.host = host
        self.view: TournamentView | None = None
        self.waiting = ""
        """What the screen says while it has no view ("Creating the tournament…")."""
        self.now: Callable[[], float] = server_clock.now
        """The clock ``finish_at`` is compared with (tests set it)."""
        self._ready = False
        self._said = ("", False)

    # -- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="t-top"):
            yield Static("Atout", id="t-title")
            yield Static("", id="t-link")
        yield Static("", id="t-head")
        with Horizontal(id="t-body"):
            with VerticalScroll(id="t-left"):
                yield Static("", id="t-tables")
            with Vertical(id="t-right"):
                yield Static("", id="t-empty")
                yield DataTable(id="t-standings", cursor_type="none", zebra_stripes=True)
                yield DataTable(id="t-teams", cursor_type="none", zebra_stripes=True)
        yield Static("", id="t-note")
        with Horizontal(id="t-buttons"):
            yield Button(
                words.START, name="start", classes="start", variant="primary", compact=True
            )
            yield Button(words.REMOVE, name="remove", classes="remove", compact=True)
            yield Button(words.FINISH, name="finish", classes="finish", compact=True)
            yield Button(
                words.YOUR_TABLE, name="table", classes="table", variant="primary", compact=True
            )
            yield Button(words.LEAVE, name="leave", classes="leave", compact=True)
        yield Static("", id="t-message")
        yield KeysFooter()

    def on_mount(self) -> None:
        self._ready = True
        self.query_one("#t-right").border_title = words.STANDINGS
        self.set_interval(1.0, self._tick)
        text, error = self._said
        self.say(text, error=error)
        self.update_link(self.host.link_status)
        fit_footer(self, self.FOOTER_OPTIONAL)
        # The standings' columns are sized for the laid-out width.
        self.call_after_refresh(self._redraw)

    def on_unmount(self) -> None:
        self._ready = False

    def on_resize(self) -> None:
        fit_footer(self, self.FOOTER_OPTIONAL)
        if self._ready:
            self.call_after_refresh(self._redraw)

    def _redraw(self) -> None:
        # The view as it is when the layout is known, not as it was when asked.
        self.update_view(self.view)

    def on_screen_resume(self) -> None:
        if self._ready:
            self.update_view(self.view)
            self.update_link(self.host.link_status)

    # -- from the flow -------------------------------------------------------------------

    def wait_for(self, text: str) -> None:
        """No view yet: say what we wait for."""
        self.view, self.waiting = None, text
        if self._ready:
            self.update_view(None)
            self.say("")

    def update_view(self, view: TournamentView | None) -> None:
        self.view = view
        if not self._ready:
            return
        title = Text("Atout", style="bold")
        title.append(f" │ {words.TITLE} │ {self.host.url} │ {self.host.player_name}")
        self.query_one("#t-title", Static).update(title)
        self._draw_head(view)
        self._draw_left(view)
        self._draw_standings(view)
        self._draw_controls(view)
        fit_footer(self, self.FOOTER_OPTIONAL)  # the keys offered follow the view

    def update_link(self, status: LinkStatus) -> None:
        if not self._ready:
            return
        link = self.query_one("#t-link", Static)
        if status.phase == "online":
            link.update(Text("● " + _("online"), style="green"))
        else:
            link.update(Text("○ " + status.phase_word(), style="bold red"))
            self.say(status.text(), error=True)

    def say(self, text: str, *, error: bool = False) -> None:
        """The message line; kept until the screen shows, if it is not shown yet."""
        self._said = (text, error)
        if not self._ready:
            return
        message = self.query_one("#t-message", Static)
        message.update(Text(text))  # server text is never markup
        message.set_class(error, "error")

    def server_error(self, text: str) -> None:
        self.say(text, error=True)

    # -- drawing ---------------------------------------------------------------------------

    def _draw_head(self, view: TournamentView | None) -> None:
        head = self.query_one("#t-head", Static)
        if view is None:
            head.update(Text(self.waiting or words.NOTHING, style="bold"))
            return
        out = Text(words.title(view), style="bold")
        if view.host_name:
            out.append(f" · {words.HOST}: {view.host_name}")
        out.append("\n")
        out.append_text(code_text(view.code))
        out.append("  " + words.share(view.code, self.host.url) + "\n", style="bold")
        out.append(words.settings_line(view.settings) + "\n")
        out.append(words.status_line(view), style="bold")
        head.update(out)

    def _draw_left(self, view: TournamentView | None) -> None:
        left = self.query_one("#t-left")
        out = Text()
        # Tables only while a round is played: gathering there are none yet,
        # and once finished the last round's are over (the standings say it all).
        playing = view is not None and bool(view.tables) and view.status == "playing"
        if view is not None and playing:
            left.border_title = words.rounds_title(view.round, view.settings.rounds)
            for table in view.tables:
                mine = table.table_id == view.your_table
                head = words.table_title(
                    table.number, table.deals_played, view.settings.deals, table.finished
                )
                out.append(("▶ " if mine else "  ") + head + "\n", style="bold" if mine else "")
                for i, seat in enumerate(table.seats):
                    out.append(f"   {i + 1} ")
                    you = seat.player_id is not None and mine and i == view.your_seat
                    out.append(seat.name + "\n", style="bold" if you else "")
            out.append("\n")
        players = view.players if view is not None else []
        if view is not None:
            if not playing:
                left.border_title = words.players_title(len(players))
            else:
                out.append(words.players_title(len(players)) + "\n", style="underline")
        for p in players:
            out.append("  " + p.name, style="strike" if p.removed else "")
            notes = []
            if view is not None and p.player_id == view.host:
                notes.append(words.HOST)
            if p.team:
                notes.append(p.team)
            if p.removed:
                notes.append(words.REMOVED)
            if notes:
                out.append(" · " + ", ".join(notes), style="dim")
            out.append("\n")
        self.query_one("#t-tables", Static).update(out)

    def _draw_standings(self, view: TournamentView | None) -> None:
        grid: DataTable[Text] = self.query_one("#t-standings", DataTable)
        teams: DataTable[Text] = self.query_one("#t-teams", DataTable)
        right = self.query_one("#t-right")
        final = view is not None and view.status == "finished"
        right.border_title = words.FINAL_STANDINGS if final else words.STANDINGS
        fmt = view.settings.format if view is not None else "free"
        lines = view.standings if view is not None else []
        self._fill(grid, lines, fmt, words.column("name"))
        empty = self.query_one("#t-empty", Static)
        empty.display = not lines
        empty.update("" if view is None else words.NO_STANDINGS)
        grid.display = bool(lines)
        team_lines = view.teams if view is not None else []
        teams.display = bool(team_lines)
        if team_lines:
            self._fill(teams, team_lines, fmt, words.column("team"))
            # Its own lines (a head and one a team): the players' standings take the rest.
            teams.styles.height = min(len(team_lines) + 1, TEAM_LINES)

    def _fill(self, grid: DataTable[Text], lines: list[StandingLine], fmt: str, head: str) -> None:
        rows = [standing_row(line, fmt) for line in lines]
        heads = [words.column("position"), head, words.column("score"), words.column("deals")]
        widths = [max([cell_len(h)] + [r[i].cell_len for r in rows]) for i, h in enumerate(heads)]
        room = (grid.scrollable_content_region.width or 42) - 1  # a cell for a scrollbar
        others = widths[0] + widths[2] + widths[3] + 2 * 4  # a cell of padding each side
        least, most = NAME_WIDTHS
        widths[1] = max(least, cell_len(head), min(widths[1], most, room - others))
        grid.clear(columns=True)
        for key, label, width in zip(
            ("position", "name", "score", "deals"), heads, widths, strict=True
        ):
            grid.add_column(label, key=key, width=width)
        for i, row in enumerate(rows):
            grid.add_row(*row, key=str(i))
        # Our line carries the row cursor: the whole row lit.
        ours = [i for i, line in enumerate(lines) if line.you]
        grid.cursor_type = "row" if ours else "none"
        if ours:
            grid.move_cursor(row=ours[0])

    def _draw_controls(self, view: TournamentView | None) -> None:
        shown = self._buttons(view)
        for button in self.query("#t-buttons Button").results(Button):
            button.display = button.name in shown
        finish = self.query_one("#t-buttons .finish", Button)
        finish.disabled = not self._may_finish(view)
        self.query_one("#t-note", Static).update(self._note(view))

    def _buttons(self, view: TournamentView | None) -> set[str]:
        if view is None:
            return set()
        shown: set[str] = set()
        if view.your_table is not None and view.status != "gathering":
            shown.add("table")
        if view.you_host and view.status == "gathering":
            shown.add("start")
        if view.you_host and view.status != "finished":
            shown.add("remove")
        if view.you_host and view.status == "playing":
            shown.add("finish")
        if view.status == "gathering" and self._member(view):
            shown.add("leave")
        return shown

    def _member(self, view: TournamentView) -> bool:
        me = self.host.player_id
        return any(p.player_id == me and not p.removed for p in view.players)

    def _may_finish(self, view: TournamentView | None) -> bool:
        if view is None or not view.you_host or view.status != "playing":
            return False
        return view.finish_at is not None and view.finish_at <= self.now()

    def _note(self, view: TournamentView | None) -> str:
        if view is None:
            return ""
        if view.you_host and view.status == "playing" and view.waiting_for > 0:
            return words.finish_note(view.finish_at, self.now())
        return words.scaling_note(view)  # else why the standings are not a table's scores

    def _tick(self) -> None:
        # The finish button comes alive when ``finish_at`` passes; the note counts down.
        view = self.view
        if view is not None and view.you_host and view.status == "playing":
            self._draw_controls(view)

    # -- actions ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The footer offers what the buttons offer now (and the same keys work).
        keyed = {"start": "start", "remove": "remove", "finish": "finish", "table": "table"}
        if action in keyed:
            if keyed[action] not in self._buttons(self.view):
                return False
            if action == "finish" and not self._may_finish(self.view):
                return None  # shown, dimmed: not yet
            return True
        return super().check_action(action, parameters)

    @on(Button.Pressed, "#t-buttons Button")
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        match event.button.name:
            case "start":
                self.action_start()
            case "remove":
                self.action_remove()
            case "finish":
                self.action_finish()
            case "table":
                self.action_table()
            case "leave":
                self._leave()

    def action_back(self) -> None:
        self.host.back()

    def action_table(self) -> None:
        self.host.go_to_table()

    def action_refresh(self) -> None:
        view = self.view
        if view is not None:
            self.host.send(TournamentGet(code=view.code))
        self.host.retry_now()

    def action_help(self) -> None:
        self.app.push_screen(Help())

    def _ask(
        self, question: str, yes: str, then: Callable[[], None], *, focus_yes: bool = False
    ) -> None:
        def done(answer: bool | None) -> None:
            if answer:
                then()

        # Cancel has the focus (a stray Enter changes nothing), unless
        # ``focus_yes``: starting is what the host came to this dialog for.
        self.app.push_screen(Confirm(question, yes=yes, no=_("Cancel"), focus=focus_yes), done)

    def action_start(self) -> None:
        view = self.view
        if view is None or "start" not in self._buttons(view):
            return
        players = sum(1 for p in view.players if not p.removed)
        code = view.code
        self._ask(
            words.start_question(players),
            words.START,
            lambda: self.host.send(TournamentStart(code=code)),
            focus_yes=True,
        )

    def action_remove(self) -> None:
        view = self.view
        if view is None or "remove" not in self._buttons(view):
            return
        players = [p for p in view.players if not p.removed and p.player_id != view.host]
        if not players:
            self.say(words.REMOVE_NOBODY)
            return
        code = view.code

        def picked(player_id: str | None) -> None:
            who = next((p for p in players if p.player_id == player_id), None)
            if who is None:
                return
            self._ask(
                words.remove_question(who.name),
                _("Remove"),
                lambda: self.host.send(TournamentRemove(code=code, player_id=who.player_id)),
            )

        self.app.push_screen(RemovePlayer(players), picked)

    def action_finish(self) -> None:
        view = self.view
        if view is None:
            return
        if not self._may_finish(view):
            self.say(words.finish_note(view.finish_at, self.now()))
            return
        code = view.code
        self._ask(
            words.FINISH_QUESTION, words.FINISH, lambda: self.host.send(TournamentFinish(code=code))
        )

    def _leave(self) -> None:
        view = self.view
        if view is None:
            return
        code = view.code

        def leave() -> None:
            self.host.send(TournamentLeave(code=code))
            self.host.left_tournament()

        self._ask(words.LEAVE_QUESTION, words.LEAVE, leave)
