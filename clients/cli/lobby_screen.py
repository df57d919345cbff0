"""The lobby: the live list of open public tables, and the ways to a seat —
quick play, a new table (public or private), join the selected table or one
by its invite code, or watch one.

The list is the ``LobbyView`` the connection keeps in sync; the screen only
redraws it and asks the app to send commands. What follows (``Seated`` or
an ``Error``) comes back through the app like every server message.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Button, DataTable, Static

from clients.cli import wording
from clients.cli.dialogs import Help, JoinByCode, NewTable
from clients.cli.i18n import N_, Translated, _, ngettext
from clients.cli.leaderboard_screen import LeaderboardScreen, ProfileScreen
from clients.cli.link import LinkStatus
from clients.cli.screen_keys import ButtonArrows, KeysFooter, fit_footer
from clients.cli.table_names import table_name
from clients.cli.tournament_dialogs import (
    JoinAnswer,
    JoinTournament,
    NewTournament,
    TournamentEntry,
)
from clients.cli.tournament_words import default_name
from protocol.messages import JoinTable, Watch
from protocol.views import LobbyView, TableSummary


class DailyStarter(Protocol):
    def ask_start(self) -> None:
        """The daily game: today's, or a practice game after a question."""


class LobbyTournaments(Protocol):
    """The lobby's way into tournaments (``tournament_flow.py``)."""

    @property
    def code(self) -> str | None:
        """The tournament last followed, offered again."""

    def enter(self, entry: TournamentEntry) -> None:
        """Create (and join) a tournament, or join one."""


class LobbyHost(Protocol):
    """What the lobby needs from the app that shows it (``app.py``)."""

    @property
    def url(self) -> str: ...
    @property
    def player_name(self) -> str: ...
    @property
    def link_status(self) -> LinkStatus: ...
    @property
    def daily(self) -> DailyStarter: ...
    @property
    def tournaments(self) -> LobbyTournaments: ...
    def send(self, cmd: Any) -> None: ...
    def quick_play(self) -> None: ...
    def retry_now(self) -> None: ...


STATUS_WORDS = {
    "waiting": N_("waiting"),
    "playing": N_("playing"),
    "between_deals": N_("playing"),
    "finished": N_("game over"),
    "closed": N_("closed"),
}


COLUMNS = (
    ("name", N_("Table")),
    ("status", N_("Status")),
    ("seats", N_("Seats")),
    ("deals", N_("Deals")),
    ("bots", N_("Bots")),
    ("watch", N_("Watch")),
)


def _row(t: TableSummary) -> tuple[Text, ...]:
    seats = ngettext("{n} human", "{n} humans", t.humans).format(n=t.humans)
    if t.bots:
        seats += ", " + ngettext("{n} bot", "{n} bots", t.bots).format(n=t.bots)
    if t.free:
        seats += ", " + ngettext("{n} free", "{n} free", t.free).format(n=t.free)
    # The table's size first (3, 4 or 5 seats), then who sits in them: the
    # lobby has no room for a column of its own at 80 columns.
    seats = _("{size}: {seats}").format(size=t.players, seats=seats)
    return (
        Text(table_name(t.name), no_wrap=True, overflow="ellipsis"),  # a name is never markup
        Text(_(STATUS_WORDS.get(t.status, t.status))),
        Text(seats),
        Text(str(t.deals)),
        Text(wording.bot_level(t.bot_level)),
        Text(str(t.spectators or "")),
    )


def column_widths(rows: list[tuple[Text, ...]], room: int) -> list[int]:
    """Each column as wide as its header and cells (in cells: a CJK character
    takes two); the table's name gets what is left, at least 12 — a name
    longer than that ends in "…" rather than pushing a column out of view."""
    widths = [
        max([cell_len(_(head))] + [row[i].cell_len for row in rows])
        for i, (_key, head) in enumerate(COLUMNS)
    ]
    others = sum(widths[1:]) + 2 * len(COLUMNS)  # a cell of padding each side
    widths[0] = max(12, min(widths[0], room - others), cell_len(_(COLUMNS[0][1])))
    return widths


class LobbyScreen(Translated, ButtonArrows, Screen[None]):
    DEFAULT_CSS = """
    LobbyScreen { layout: vertical; }
    #top { height: 1; background: $panel; }
    #title { width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    #link { width: auto; padding: 0 1; }
    #tables { height: 1fr; border: round $primary; }
    #empty { height: auto; padding: 0 1; color: $text-muted; }
    #buttons { height: 1; padding: 0 1; }
    #buttons Button { margin-right: 0; min-width: 0; width: auto; padding: 0; }
    #message { height: 1; padding: 0 1; color: $text-muted; }
    #message.error { color: $error; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "quick", N_("Quick play")),
        Binding("n", "new", N_("New table")),
        Binding("i", "code", N_("Invite code")),
        Binding("w", "watch", N_("Watch")),
        Binding("t", "tournament", N_("Tournament")),  # tournament_dialogs.py
        # leaderboard_screen.py: the daily game, the boards, the profile
        Binding("d", "daily", N_("Daily")),
        Binding("l", "leaderboard", N_("Leaderboard")),
        Binding("u", "profile", N_("Profile")),  # also on the leaderboard screen
        Binding("r", "retry", N_("Reconnect"), show=False),
        Binding("question_mark", "help", N_("Help"), show=False),
    ]
    FOOTER_OPTIONAL = ("watch", "code", "new", "quick", "tournament")
    """Left out of the footer, first ones first, when it is too narrow (the
    buttons have them): what has no button (d, l, u) always shows."""

    def __init__(self, host: LobbyHost) -> None:
        super().__init__()
        self.host = host
        self._ready = False
        self.lobby: LobbyView | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield Static("Atout", id="title")
            yield Static("", id="link")
        table: DataTable[str | Text] = DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="empty")
        with Horizontal(id="buttons"):
            yield Button(
                _("Quick play"), classes="quick", name="quick", variant="primary", compact=True
            )
            yield Button(_("New table"), classes="new", name="new", compact=True)
            yield Button(_("Join"), classes="join", name="join", compact=True)
            yield Button(_("Invite code"), classes="code", name="code", compact=True)
            yield Button(_("Watch"), classes="watch", name="watch", compact=True)
            yield Button(_("Tournament"), classes="tournament", name="tournament", compact=True)
        yield Static("", id="message")
        yield KeysFooter()

    def on_unmount(self) -> None:
        self._ready = False

    def on_mount(self) -> None:
        # Textual marks the screen mounted only after this handler; draw now.
        self._ready = True
        table = self.query_one("#tables", DataTable)
        table.border_title = _("Open tables")
        table.focus()
        self.update_lobby(self.lobby)
        self.update_link(self.host.link_status)
        self.set_interval(0.5, self._tick)
        fit_footer(self, self.FOOTER_OPTIONAL)

    def on_resize(self) -> None:
        fit_footer(self, self.FOOTER_OPTIONAL)
        if self._ready:
            # The columns fit the new width once it is laid out. The lobby is
            # read then, not now: the server's first lobby may arrive in
            # between, and a redraw of the one held now would wipe it.
            self.call_after_refresh(self._redraw)

    def _redraw(self) -> None:
        self.update_lobby(self.lobby)

    def _tick(self) -> None:
        # The countdown to the next attempt moves while we are not online.
        status = self.host.link_status
        if status.phase != "online":
            self.update_link(status)

    def update_lobby(self, lobby: LobbyView | None) -> None:
        self.lobby = lobby
        if not self._ready:
            return
        app = self.host
        title = Text("Atout", style="bold")
        title.append(f" │ {app.url or _('starting…')} │ {app.player_name}")
        if lobby is not None:
            title.append(" │ " + _("{n} online").format(n=lobby.players_online))
        self.query_one("#title", Static).update(title)
        table = self.query_one("#tables", DataTable)
        selected = self._selected()
        rows = [_row(t) for t in lobby.tables] if lobby else []
        table.clear(columns=True)
        room = (table.scrollable_content_region.width or 78) - 1  # a cell for a scrollbar
        for (key, head), width in zip(COLUMNS, column_widths(rows, room), strict=True):
            table.add_column(_(head), key=key, width=width)
        for t, row in zip(lobby.tables if lobby else [], rows, strict=True):
            table.add_row(*row, key=t.table_id)
        if selected is not None and lobby is not None:
            ids = [t.table_id for t in lobby.tables]
            if selected in ids:
                table.move_cursor(row=ids.index(selected))
        empty = self.query_one("#empty", Static)
        if lobby is not None and not lobby.tables:
            empty.update(_("No open table yet: p for quick play, n for a new table."))
        else:
            empty.update(_("Enter joins the selected table; w watches it."))

    def update_link(self, status: LinkStatus) -> None:
        if not self._ready:
            return
        link = self.query_one("#link", Static)
        if status.phase == "online":
            link.update(Text("● " + _("online"), style="green"))
            self.say("")
        else:
            link.update(Text("○ " + status.phase_word(), style="bold red"))
            self.say(status.text(), error=True)
        if status.unreachable:
            self.query_one("#empty", Static).update(wording.CANNOT_REACH_HINT)
        elif status.phase == "online" and self.lobby is None:
            self.query_one("#empty", Static).update("")

    def say(self, text: str, *, error: bool = False) -> None:
        if not self._ready:
            return
        message = self.query_one("#message", Static)
        message.update(Text(text))  # server text is never markup
        message.set_class(error, "error")

    def server_error(self, text: str) -> None:
        self.say(text, error=True)

    def _selected(self) -> str | None:
        table = self.query_one("#tables", DataTable)
        if table.row_count == 0:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:  # no row under the cursor
            return None
        return str(key.value) if key.value is not None else None

    # -- actions -------------------------------------------------------------------

    @on(DataTable.RowSelected)
    def _row(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.host.send(JoinTable(table_id=str(event.row_key.value)))

    @on(Button.Pressed, "#buttons Button")
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        match event.button.name:
            case "quick":
                self.action_quick()
            case "new":
                self.action_new()
            case "join":
                self.action_join()
            case "code":
                self.action_code()
            case "watch":
                self.action_watch()
            case "tournament":
                self.action_tournament()

    def action_quick(self) -> None:
        self.say(_("Looking for a table…"))
        self.host.quick_play()

    def action_new(self) -> None:
        def done(cmd: object) -> None:
            if cmd is not None:
                self.host.send(cmd)

        self.app.push_screen(NewTable(_("{name}'s table").format(name=self.host.player_name)), done)

    def action_join(self) -> None:
        table_id = self._selected()
        if table_id is None:
            self.say(_("Select a table first (or p for quick play)."))
            return
        self.host.send(JoinTable(table_id=table_id))

    def action_watch(self) -> None:
        table_id = self._selected()
        if table_id is None:
            self.say(_("Select a table to watch first."))
            return
        self.host.send(Watch(table_id=table_id))

    def action_code(self) -> None:
        def done(answer: tuple[str, bool] | None) -> None:
            if answer is None:
                return
            code, watch = answer
            self.host.send(Watch(code=code) if watch else JoinTable(code=code))

        self.app.push_screen(JoinByCode(), done)

    def action_tournament(self) -> None:
        """A tournament: join one by its code, or create one (the form)."""
        tournaments = self.host.tournaments

        def created(entry: TournamentEntry | None) -> None:
            if entry is not None:
                tournaments.enter(entry)

        def answered(answer: JoinAnswer) -> None:
            if answer == "create":
                self.app.push_screen(NewTournament(default_name(self.host.player_name)), created)
            elif isinstance(answer, TournamentEntry):
                tournaments.enter(answer)

        self.app.push_screen(JoinTournament(tournaments.code or ""), answered)

    def action_retry(self) -> None:
        self.host.retry_now()

    def action_help(self) -> None:
        self.app.push_screen(Help())

    # -- the daily game and leaderboards (leaderboard_screen.py) -----------------------

    def action_daily(self) -> None:
        self.host.daily.ask_start()  # asks first when it can only be practice

    def action_leaderboard(self) -> None:
        self.app.push_screen(LeaderboardScreen())

    def action_profile(self) -> None:
        self.app.push_screen(ProfileScreen())
