"""The daily game in the terminal client: starting it, its result, and the
way from the result to the leaderboard.

``DailyFlow`` is what the app delegates to (three marked hooks in
``app.py``): who the server says we are once online, ``atout daily``'s
``daily`` command (unless a saved seat is being resumed), and the events of
docs/PROTOCOL.md §11 (``daily_result``, ``leaderboard``, ``player``).
``DailyResultScreen`` shows each deal against everyone's result on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from clients.cli import daily_words as words
from clients.cli.daily_history import FileHistory, game_record
from clients.cli.i18n import N_, Translated
from clients.cli.leaderboard_screen import LeaderboardScreen, ProfileScreen
from protocol.messages import Daily, DailyResult, Leaderboard, PlayerInfo
from protocol.views import DailyResultView

if TYPE_CHECKING:
    from clients.cli.app import AtoutApp


class DailyFlow:
    """The app's part for players and the daily game (one per app)."""

    def __init__(self, app: AtoutApp, *, start: bool, history: FileHistory | None) -> None:
        self.app = app
        self.start = start
        self.tables: set[str] = set()
        """Daily tables whose game ended here: "again" there is a practice game."""
        """``atout daily``: send ``daily`` once online, unless a seat is resumed."""
        self.history = history or FileHistory()
        self.player_id: str | None = None
        """Ours on this server; ``None`` while a guest (or not yet welcomed)."""
        self.results: list[DailyResultView] = []
        """Every daily result heard, oldest first (tests read it)."""
        self._sent = False

    # -- hooks called by the app --------------------------------------------------

    def online(self) -> None:
        """A connection opened: take our identity, and start the daily game once."""
        session = self.app.link.session if self.app.link else None
        if session is None:
            return
        self.player_id = session.player_id
        if session.player_name:
            self.app.player_name = session.player_name
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
                view = self.app.link.table if self.app.link else None
                if view is not None:
                    self.tables.add(view.table_id)
                self.history.add(self.app.url, game_record(result, view))
                self.app.push_screen(DailyResultScreen(result))
            case Leaderboard(view=view):
                for screen in self.app.screen_stack:
                    if isinstance(screen, LeaderboardScreen | ProfileScreen):
                        screen.take(view)
            case PlayerInfo(player_id=player_id, name=name):
                self.player_id, self.app.player_name = player_id, name
            case _:
                return False
        return True

    def _start(self) -> None:
        link = self.app.link
        if not self.start or self._sent or link is None:
            return
        if link.tokens.get(link.token_key) is not None:
            return  # a seat to resume first (the daily table itself, most likely)
        self._sent = True
        self.app.notify(words.DAILY_STARTING, timeout=3)
        self.app.send(Daily())


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

    def __init__(self, result: DailyResultView) -> None:
        super().__init__()
        self.result = result

    def text(self) -> Text:
        r = self.result
        out = Text(words.result_title(r.day) + "\n\n", style="bold")
        if not r.ranked:
            out.append(words.RESULT_PRACTICE + "\n\n", style="italic")
        for d in r.deals:
            out.append(words.deal_line(d) + "\n")
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
