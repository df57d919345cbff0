"""The leaderboards and the player's profile.

``LeaderboardScreen``: one tab per period (today, yesterday, 7 days, all
time), a page of 20 lines with our own line highlighted, and our position
below the page wherever it is. ``ProfileScreen``: who we are on this server,
our line on each board, and the statistics of the daily games played from
this computer (``daily_history.py`` says why those are local).

Both only ask (``leaderboard`` commands through the app) and redraw what
comes back: ``take`` receives every ``Leaderboard`` event (the app routes
them through ``DailyFlow``), and a screen keeps the ones it asked for.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static, Tab, Tabs

from clients.cli import daily_history
from clients.cli import daily_words as words
from clients.cli.daily_history import FileHistory
from clients.cli.i18n import N_, Translated
from clients.cli.screen_keys import KeysFooter
from protocol.messages import GetLeaderboard
from protocol.views import LeaderboardLine, LeaderboardPeriod, LeaderboardView

PERIODS: tuple[LeaderboardPeriod, ...] = ("today", "yesterday", "week", "all")
OWN_STYLE = "bold"


class BoardDaily(Protocol):
    @property
    def player_id(self) -> str | None:
        """Ours on this server; ``None`` while a guest."""
        ...

    @property
    def history(self) -> FileHistory: ...


@runtime_checkable
class BoardHost(Protocol):
    """What the leaderboard and profile screens need from the app. They are
    opened from several screens (and by tests) with no arguments, so they
    find it as their ``app``; ``app.py`` has mypy check the app is one."""

    @property
    def url(self) -> str: ...
    @property
    def player_name(self) -> str: ...
    @property
    def daily(self) -> BoardDaily: ...
    def send(self, cmd: Any) -> None: ...


def board_host(screen: Screen[Any]) -> BoardHost:
    app = screen.app
    if not isinstance(app, BoardHost):
        raise TypeError(f"{type(screen).__name__} runs in an app that is a BoardHost")
    return app


def board_row(line: LeaderboardLine, period: str) -> tuple[Text, ...]:
    second = (
        str(line.days)
        if period in ("week", "all")
        else f"{line.points:+d}".replace("-", "\N{MINUS SIGN}")
    )
    cells = (
        Text(str(line.position), justify="right"),
        Text(("▶ " if line.you else "  ") + line.name),  # a name is never markup
        Text(words.number(line.percent, 2), justify="right"),  # 73,50 in French
        Text(second, justify="right"),
    )
    if line.you:
        for cell in cells:
            cell.stylize(OWN_STYLE)
    return cells


class LeaderboardScreen(Translated, Screen[None]):
    DEFAULT_CSS = """
    LeaderboardScreen { layout: vertical; }
    #board-top { height: 1; background: $panel; padding: 0 1; }
    #board { height: 1fr; border: round $primary; }
    #own { height: 1; padding: 0 1; }
    #board-message { height: 1; padding: 0 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", N_("Back")),
        Binding("1", "period('today')", N_("Today"), show=False),
        Binding("2", "period('yesterday')", N_("Yesterday"), show=False),
        Binding("3", "period('week')", N_("7 days"), show=False),
        Binding("4", "period('all')", N_("All time"), show=False),
        Binding("left", "step(-1)", N_("Period"), show=False),
        Binding("right", "step(1)", N_("Period"), show=False),
        Binding("pagedown", "page(1)", N_("Next page")),
        Binding("pageup", "page(-1)", N_("Previous page")),
        Binding("u", "profile", N_("Profile")),
        Binding("r", "refresh", N_("Refresh"), show=False),
    ]

    def __init__(self, period: LeaderboardPeriod = "today") -> None:
        super().__init__()
        self.period: LeaderboardPeriod = period
        self.page = 0
        self.view: LeaderboardView | None = None

    @property
    def host(self) -> BoardHost:
        return board_host(self)

    def compose(self) -> ComposeResult:
        yield Static(Text(words.BOARD_TITLE, style="bold"), id="board-top")
        periods = words.PERIODS
        yield Tabs(*(Tab(periods[p], id=p) for p in PERIODS), active=self.period)
        table: DataTable[Text] = DataTable(id="board", cursor_type="none", zebra_stripes=True)
        yield table
        yield Static("", id="own")
        yield Static(words.BOARD_KEYS, id="board-message")
        yield KeysFooter()

    def on_mount(self) -> None:
        table = self.query_one("#board", DataTable)
        heads = words.COLUMNS
        table.add_column(heads["position"], key="position", width=4)
        table.add_column(heads["name"], key="name", width=28)
        table.add_column(heads["percent"], key="percent", width=7)
        table.add_column(heads["points"], key="second", width=7)
        self._ask()

    # -- asking and drawing ---------------------------------------------------------

    def _ask(self) -> None:
        self.query_one("#own", Static).update(words.BOARD_LOADING)
        self.host.send(GetLeaderboard(period=self.period, page=self.page))

    def take(self, view: LeaderboardView) -> None:
        """A page from the server: drawn when it is the one we show."""
        if view.period != self.period or view.page != self.page:
            return  # an answer to a tab or page we have left since
        self.view = view
        self._draw()

    def _draw(self) -> None:
        view = self.view
        if view is None:
            return
        table = self.query_one("#board", DataTable)
        table.clear()
        second = "days" if view.period in ("week", "all") else "points"
        table.columns["second"].label = Text(words.COLUMNS[second])  # type: ignore[index]
        for line in view.lines:
            table.add_row(*board_row(line, view.period), key=f"{line.position}:{line.name}")
        # Our line, when on this page, carries the row cursor: the whole row lit.
        ours = [i for i, line in enumerate(view.lines) if line.you]
        table.cursor_type = "row" if ours else "none"
        if ours:
            table.move_cursor(row=ours[0])
        table.border_title = words.board_days(view.first_day, view.last_day)
        table.border_subtitle = words.board_page(view.page, view.pages, view.total)
        guest = self.host.daily.player_id is None
        own = Text(words.own_line(view.own, guest, view.period))
        if view.own is not None:
            own.stylize("bold")
        self.query_one("#own", Static).update(own)
        message = words.BOARD_EMPTY[view.period] if not view.lines else words.BOARD_KEYS
        self.query_one("#board-message", Static).update(message)

    # -- actions --------------------------------------------------------------------

    @on(Tabs.TabActivated)
    def _tab(self, event: Tabs.TabActivated) -> None:
        period = event.tab.id
        if period in PERIODS and period != self.period:
            self.period, self.page = period, 0
            self._ask()

    def action_period(self, period: str) -> None:
        self.query_one(Tabs).active = period  # TabActivated asks for it

    def action_step(self, step: int) -> None:
        i = (PERIODS.index(self.period) + step) % len(PERIODS)
        self.action_period(PERIODS[i])

    def action_page(self, step: int) -> None:
        pages = self.view.pages if self.view is not None else 1
        page = min(max(0, self.page + step), max(0, pages - 1))
        if page != self.page:
            self.page = page
            self._ask()

    def action_refresh(self) -> None:
        self._ask()

    def action_profile(self) -> None:
        self.app.push_screen(ProfileScreen())

    def action_back(self) -> None:
        self.dismiss()


class ProfileScreen(Translated, Screen[None]):
    DEFAULT_CSS = """
    ProfileScreen { layout: vertical; }
    #profile-top { height: 1; background: $panel; padding: 0 1; }
    #profile { height: 1fr; border: round $primary; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", N_("Back")),
        Binding("l", "leaderboard", N_("Leaderboard")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.lines: dict[str, LeaderboardLine | None] = {}

    @property
    def host(self) -> BoardHost:
        return board_host(self)

    def compose(self) -> ComposeResult:
        yield Static(Text(words.PROFILE_TITLE, style="bold"), id="profile-top")
        yield Static("", id="profile")
        yield KeysFooter()

    def on_mount(self) -> None:
        if self.host.daily.player_id is not None:
            for period in PERIODS:
                self.host.send(GetLeaderboard(period=period))
        self._draw()

    def take(self, view: LeaderboardView) -> None:
        if view.page == 0:
            self.lines[view.period] = view.own
            self._draw()

    def text(self) -> Text:
        app = self.host
        out = Text()
        out.append(app.player_name, style="bold")  # a name is never markup
        out.append(f"  {app.url}\n\n")
        if app.daily.player_id is None:
            out.append(words.PROFILE_GUEST + "\n")
            return out
        out.append(words.PROFILE_BOARDS + "\n", style="underline")
        for line in words.profile_boards(self.lines, PERIODS):
            out.append(f"  {line}\n")
        out.append("\n" + words.PROFILE_LOCAL + "\n", style="underline")
        games = app.daily.history.games(app.url)
        if not games:
            out.append("  " + words.PROFILE_NO_LOCAL + "\n")
            return out
        s = daily_history.stats(games)
        for line in words.profile_stats(s.games, s.ranked, s.deals, s.taken, s.made, s.mean):
            out.append(f"  {line}\n")
        return out

    def _draw(self) -> None:
        self.query_one("#profile", Static).update(self.text())

    def action_leaderboard(self) -> None:
        self.app.push_screen(LeaderboardScreen())

    def action_back(self) -> None:
        self.dismiss()
