"""The daily game in the terminal client: starting it, its result, and the
way from the result to the leaderboard.

``DailyFlow`` is what the app delegates to (three marked hooks in
``app.py``): who the server says we are once online, ``atout daily``'s
``daily`` command (unless a saved seat is being resumed), and the events of
docs/PROTOCOL.md §11 (``daily_result``, ``leaderboard``, ``player``).
``DailyResultScreen`` shows each deal against everyone's result on it.
Once today's ranked game is known to be played (heard here, or in this
computer's history), the lobby's ``d`` asks before it starts a practice
game (``ask_start``); leaving a daily table says what becomes of it
(``left_words``).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any, ClassVar, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from clients.cli import daily_words as words
from clients.cli import wording
from clients.cli.daily_history import FileHistory, game_record
from clients.cli.dialogs import Confirm
from clients.cli.i18n import N_, Translated, _
from clients.cli.leaderboard_screen import LeaderboardScreen, ProfileScreen
from clients.cli.link import Link
from clients.cli.table_names import is_daily, is_practice
from protocol.messages import Daily, DailyResult, Leaderboard, PlayerInfo
from protocol.views import DailyResultView, TableView


class DailyHost(Protocol):
    """What ``DailyFlow`` needs from the app it works for (``app.py``)."""

    player_name: str
    """The name we play under: the server may tell us another (a registered one)."""

    @property
    def url(self) -> str: ...
    @property
    def link(self) -> Link | None: ...
    @property
    def screen_stack(self) -> list[Screen[Any]]: ...
    def send(self, cmd: Any) -> None: ...
    def notify(self, message: str, *, timeout: float | None = None) -> None: ...
    def push_screen(
        self, screen: Screen[Any], callback: Callable[[Any], None] | None = None
    ) -> object: ...


def utc_day() -> str:
    """Today as the server counts daily games (UTC), ISO."""
    return datetime.datetime.now(datetime.UTC).date().isoformat()


class DailyFlow:
    """The app's part for players and the daily game (one per app)."""

    def __init__(self, host: DailyHost, *, start: bool, history: FileHistory | None) -> None:
        self.host = host
        self.start = start
        self.tables: set[str] = set()
        """Daily tables whose game ended here: "again" there is a practice game."""
        """``atout daily``: send ``daily`` once online, unless a seat is resumed."""
        self.history = history or FileHistory()
        self.player_id: str | None = None
        """Ours on this server; ``None`` while a guest (or not yet welcomed)."""
        self.results: list[DailyResultView] = []
        """Every daily result heard, oldest first (tests read it)."""
        self.today: Callable[[], str] = lambda: (
            datetime.datetime.now(datetime.UTC).date().isoformat()
        )
        """The server's day (UTC), ISO; tests that move the server's clock set it too."""
        self._sent = False

    # -- hooks called by the app --------------------------------------------------

    def online(self) -> None:
        """A connection opened: take our identity, and start the daily game once."""
        session = self.host.link.session if self.host.link else None
        if session is None:
            return
        self.player_id = session.player_id
        if session.player_name:
            self.host.player_name = session.player_name
        self._start()

    def resume_failed(self) -> None:
        """The saved seat is gone: ``atout daily`` asks for the daily game instead."""
        self._sent = False
        self._start()

    def on_server(self, msg: Any) -> bool:
        """Take the events this module owns; False for every other one."""
        match msg:
            case DailyResult(result=result):
                self.results.append(result)
                view = self.host.link.table if self.host.link else None
                if view is not None:
                    self.tables.add(view.table_id)
                self.history.add(self.host.url, game_record(result, view))
                self.host.push_screen(DailyResultScreen(result, annulled_deals(result, view)))
            case Leaderboard(view=view):
                for screen in self.host.screen_stack:
                    if isinstance(screen, LeaderboardScreen | ProfileScreen):
                        screen.take(view)
            case PlayerInfo(player_id=player_id, name=name):
                self.player_id, self.host.player_name = player_id, name
            case _:
                return False
        return True

    def is_daily(self, view: TableView) -> bool:
        """A daily table (ranked or practice): the server refuses "play again" there."""
        return view.table_id in self.tables or is_daily(view.name)

    def played_today(self) -> bool:
        """Today's ranked game is over, as far as this client knows."""
        day = self.today()
        if any(r.ranked and r.day == day for r in self.results):
            return True
        return any(
            g.get("ranked") and g.get("day") == day for g in self.history.games(self.host.url)
        )

    def ask_start(self) -> None:
        """The lobby's ``d``: today's game, or, once it is played, a practice
        game after a question (it is not ranked, and it is not the game
        the player may think of)."""
        if not self.played_today():
            self.host.send(Daily())
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.host.send(Daily())

        self.host.push_screen(
            Confirm(words.PRACTICE_QUESTION, yes=words.PRACTICE_YES, no=_("Cancel")), done
        )

    def left_words(self, reason: str, view: TableView | None) -> str:
        """What leaving ``view``'s table means, from the server's ``left`` reason."""
        if view is not None and reason.startswith("your daily game waits"):
            # The server says so of practice tables too, but ``d`` then
            # starts a new practice game: the one left does not wait.
            return str(words.PRACTICE_LEFT if is_practice(view.name) else words.DAILY_LEFT)
        return wording.left(reason) if reason else wording.left("you left the table")

    def _start(self) -> None:
        link = self.host.link
        if not self.start or self._sent or link is None:
            return
        if link.tokens.get(link.token_key) is not None:
            return  # a seat to resume first (the daily table itself, most likely)
        self._sent = True
        self.host.notify(words.DAILY_STARTING, timeout=3)
        self.host.send(Daily())


class DailyResultScreen(Translated, ModalScreen[None]):
    """Each deal of the day against everyone's result on it, then the leaderboard."""

    DEFAULT_CSS = """
    DailyResultScreen { align: center middle; background: $background 60%; }
    DailyResultScreen > Vertical {
        width: auto; max-width: 76; height: auto; max-height: 22;
        border: round $accent; background: $surface; padding: 0 1;
    }
    DailyResultScreen Static { width: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", N_("Close")),
        Binding("l,enter", "leaderboard", N_("Leaderboard")),
    ]

    def __init__(self, result: DailyResultView, annulled: list[bool] | None = None) -> None:
        super().__init__()
        self.result = result
        self.annulled = annulled or []
        """Per deal: it was annulled (from the table's score sheet)."""

    def text(self) -> Text:
        r = self.result
        out = Text(words.result_title(r.day) + "\n\n", style="bold")
        if not r.ranked:
            out.append(words.RESULT_PRACTICE + "\n\n", style="italic")
        for i, d in enumerate(r.deals):
            annulled = i < len(self.annulled) and self.annulled[i]
            out.append(words.deal_line(d, annulled) + "\n")
        out.append("\n" + words.result_summary(r) + "\n", style="bold")
        out.append("\n" + words.RESULT_KEYS, style="dim")
        return out

    def compose(self) -> ComposeResult:
        with Vertical(id="daily-result"):
            yield Static(self.text())

    def action_close(self) -> None:
        self.dismiss()

    def action_leaderboard(self) -> None:
        self.dismiss()
        self.app.push_screen(LeaderboardScreen("today"))


def annulled_deals(result: DailyResultView, view: TableView | None) -> list[bool]:
    """Which of the result's deals were annulled. ``daily_result`` does not say
    (an annulled deal scores 0); the finished table's score sheet does, one
    line per deal dealt, which on a daily table is one per deal of the day."""
    explicit = [getattr(d, "annulled", None) for d in result.deals]
    if all(isinstance(a, bool) for a in explicit) and explicit:
        return [bool(a) for a in explicit]
    sheet = view.sheet if view is not None else []
    if len(sheet) != len(result.deals):
        return []  # not that game's sheet: claim nothing
    return [line.annulled is not None for line in sheet]
