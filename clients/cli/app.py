"""The Textual application: it owns the connection (``Link``), routes every
server message to the screen it concerns, and switches between the lobby and
the table.

Two ways in: with a ``url`` it connects to that server (``atout connect``);
without one it starts an ``EmbeddedServer`` first (``server/process/embedded.py``,
the one part of the server a client uses besides the rules) and, given
``autoplay``, creates that table, starts it and lands the player at it
(``atout play``). With a ``play_file`` the embedded server keeps its tables
in that SQLite file and the seat's token is saved, with what this client
last saw of the game (``saved_game.py``): the next start offers to resume
it before the server starts, then asks that server over the protocol like
any other, by resuming the seat. Declined (or gone), the game is dropped
from the file by the server (``keep_only``): ``atout play`` has one game at
a time. The client never reads the server's file.

Quitting in the middle of a game asks first, with "Stay" focused.

Every server ``Error`` becomes a message bar line and a notification with
its code; a lost connection is shown and repaired by the link. A bug of
ours is logged with its traceback and the screen shows a short sentence —
never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import traceback
from pathlib import Path
from ssl import SSLContext
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec
from textual.app import App
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches

from clients.cli import cards_text, wording
from clients.cli.daily_history import FileHistory
from clients.cli.daily_screen import DailyFlow
from clients.cli.dialogs import ChatBox, Confirm
from clients.cli.i18n import N_, Translated, _
from clients.cli.keys import Keys
from clients.cli.leaderboard_screen import BoardHost
from clients.cli.link import Link, LinkStatus
from clients.cli.lobby_screen import LobbyScreen
from clients.cli.saved_game import SavedGameFile
from clients.cli.table_hint import hint_line
from clients.cli.table_screen import TableScreen
from clients.cli.tokens import FileTokens, MemoryTokens, Tokens, seat_key
from clients.cli.tournament_dialogs import TournamentEntry
from clients.cli.tournament_flow import TournamentFlow
from clients.cli.tournament_memory import memory_beside
from protocol.messages import (
    CreateTable,
    Error,
    GetHistory,
    HintAnswer,
    Leave,
    Left,
    LobbyPatch,
    LobbySnapshot,
    QuickPlay,
    Seated,
    StartGame,
    TablePatch,
    TableSnapshot,
)
from protocol.messages import History as HistoryAnswer
from server.process.embedded import EmbeddedError, EmbeddedServer, Settings

log = logging.getLogger("atout.client")


NEVER_CONNECTED = 1
"""The exit status when the client stops before it ever got in (its reason is printed)."""


class AtoutApp(Translated, App[None]):
    TITLE = "Atout"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", N_("Quit"), priority=True)]
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        *,
        url: str | None = None,
        name: str = "Player",
        tokens: Tokens | None = None,
        autoplay: CreateTable | None = None,
        embedded_settings: Settings | None = None,
        base_delay: float = 0.25,
        log_path: str = "",
        play_file: Path | None = None,
        profile: str | None = None,
        keys: Keys | None = None,
        daily: bool = False,
        history: FileHistory | None = None,
        ssl: SSLContext | None = None,
        players: int = 4,
        tournament: TournamentEntry | None = None,
    ) -> None:
        super().__init__()
        cards_text.set_colour(not self.no_color)
        self.url = url or ""
        self.player_name = name
        self.play_file = None if url else play_file
        # An embedded server in memory dies with this process, so its tokens
        # need not outlive it; one with a file keeps its games, and the token.
        self.tokens: Tokens = tokens or (
            FileTokens() if url or self.play_file is not None else MemoryTokens()
        )
        # Our seat's token and player key: for this server and this player
        # (profile or name), so two people on one machine are two players.
        server = self.url if url else f"atout-play:{self.play_file or 'memory'}"
        self.player = profile or name
        self.token_key = seat_key(server, self.player)
        self.ssl = ssl
        """What a wss:// server's certificate may be signed by (``--cafile``; tls.py)."""
        self.autoplay = autoplay
        self.embedded = (
            None
            if url
            else EmbeddedServer(
                embedded_settings,
                store_path=self.play_file,
                keep_only=self._our_table if self.play_file is not None else None,
            )
        )
        self.base_delay = base_delay
        self.log_path = log_path
        self.link: Link | None = None
        self.link_status = LinkStatus("connecting", _("starting…"))
        self.lobby_screen = LobbyScreen(self)
        self.table_screen = TableScreen(self)
        self.statuses: list[LinkStatus] = []
        """The connection's recent states, oldest first (tests read it)."""
        self.errors: list[str] = []
        """Every error shown to the player, oldest first (tests read it)."""
        self._outbox: asyncio.Queue[Any] = asyncio.Queue()
        self._created = False
        self._started = False
        self._asking_quit = False
        self._left = asyncio.Event()
        """Set when the server says we left a table (``quit_now`` waits for it)."""
        self.players = players
        """The table size quick play asks for (``--players``)."""
        self._history_asked = False
        self.saved_game = (
            SavedGameFile(self.play_file.with_name(self.play_file.name + ".game.json"))
            if self.play_file is not None
            else None
        )
        """``atout play``'s resume offer: what we last saw of our game."""
        self._offer: str | None = None
        """The saved game being resumed, until the server seats us (or says it is gone)."""
        # Players and the daily game (clients/cli/daily_screen.py): with
        # ``keys`` we say hello as a player of this server, else as a guest.
        self.keys = keys
        self.daily = DailyFlow(self, start=daily, history=history)
        # Tournaments (clients/cli/tournament_flow.py): ``atout tournament``'s
        # create or join, the tournament screen, and following the rounds.
        self.tournaments = TournamentFlow(
            self, tournament, memory=memory_beside(self.tokens), key=self.token_key
        )

    # -- start and stop ------------------------------------------------------------

    def on_mount(self) -> None:
        self.add_mode("lobby", lambda: self.lobby_screen)
        self.add_mode("table", lambda: self.table_screen)
        self.add_mode("tournament", lambda: self.tournaments.screen)
        self.begin()

    def begin(self) -> None:
        """Show the first screen and start connecting."""
        first = "tournament" if self.tournaments.start is not None else "lobby"
        self.switch_mode("table" if self.autoplay is not None else first)
        self.run_worker(self._connect(), name="link", group="link")
        self.run_worker(self._sender(), name="sender", group="link")

    async def _connect(self) -> None:
        if self.embedded is not None:
            if self.saved_game is not None:
                await self._offer_saved_game(self.saved_game)
            self._status(LinkStatus("connecting", _("starting the local server…")))
            try:
                self.url = await asyncio.to_thread(self.embedded.start)
            except EmbeddedError as e:
                log.exception("embedded server failed")
                self._status(LinkStatus("stopped", str(e)))
                return
        self.link = Link(
            self.url,
            self.player_name,
            self.tokens,
            on_message=self.on_server,
            on_status=self._status,
            base_delay=self.base_delay,
            token_key=self.token_key,
            keys=self.keys,
            player=self.player,
            ssl=self.ssl,
        )
        await self.link.run()

    def _our_table(self) -> str | None:
        """The table our saved seat is at, if any (the embedded server keeps
        only that one in its file; called in its thread)."""
        saved = self.tokens.get(self.token_key)
        return saved.table_id if saved is not None else None

    async def _offer_saved_game(self, games: SavedGameFile) -> None:
        """Before the local server starts: offer the game our saved seat is
        at, as we last saw it. Declined, or nothing to offer: the seat is
        forgotten, and the server drops its table as it starts."""
        seat = self.tokens.get(self.token_key)
        game = games.load()
        resume = False
        if seat is not None and game is not None and game.table_id == seat.table_id:
            resume = bool(
                await self.push_screen(
                    Confirm(game.question(), yes=wording.RESUME, no=wording.NEW_GAME, safe=True),
                    wait_for_dismiss=True,
                )
            )
        if resume and seat is not None:
            self._offer = seat.table_id  # the server has the last word: see on_server
        else:
            self.tokens.forget(self.token_key)
            games.forget()

    async def aclose(self) -> None:
        """Close the connection, then the embedded server (if any)."""
        if self.link is not None:
            await self.link.close()
        if self.embedded is not None:
            await asyncio.to_thread(self.embedded.stop)

    async def action_quit(self) -> None:
        """Quit; in the middle of a game, only once the player confirms."""
        view = self.link.table if self.link is not None else None
        playing = (
            view is not None
            and view.you is not None
            and view.status in ("playing", "between_deals")
        )
        if self._asking_quit:
            return  # the question is on screen already
        if not playing:
            await self.quit_now()
            return
        after = wording.QUIT_PLAY_SAVED if self.play_file is not None else wording.QUIT_SEAT_KEPT

        async def done(yes: bool | None) -> None:
            self._asking_quit = False
            if yes:
                await self.quit_now()

        self._asking_quit = True
        self.push_screen(
            Confirm(f"{wording.QUIT_QUESTION}\n{after}", yes=wording.QUIT, no=wording.STAY),
            done,
        )

    async def quit_now(self) -> None:
        with contextlib.suppress(TimeoutError):  # quit all the same
            await asyncio.wait_for(self._leave_unstarted(), 2.0)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.aclose(), 5.0)
        self.exit()

    async def _leave_unstarted(self) -> None:
        """Quitting at a table not started (or over) leaves it: there is no
        game to come back to, and a seat kept would keep the table in the
        others' lobby with nobody to start it (issue 33). Returns once the
        server said ``left`` (the link forgets the seat's token then)."""
        link = self.link
        view = link.table if link is not None else None
        if link is None or view is None or view.you is None or not link.online:
            return
        if view.status not in ("waiting", "finished") or self.play_file is not None:
            return  # ``atout play`` keeps its game file's table to resume
        self._left.clear()
        if await link.send(Leave()) is not None:
            await self._left.wait()

    @property
    def seated_at(self) -> str | None:
        """The table we sit at (or watch), or whose seat we are taking back
        (a saved token: the link resumes it as it connects), if any."""
        link = self.link
        session = link.session if link is not None else None
        if session is not None and session.table_id is not None:
            return session.table_id
        saved = link.tokens.get(link.token_key) if link is not None else None
        return saved.table_id if saved is not None else None

    def redraw_table(self) -> None:
        """Draw the table again: its prompt says where its tournament stands."""
        if self.table_screen.view is not None:
            self.table_screen.update_view(self.table_screen.view)

    # -- to the server -------------------------------------------------------------

    def send(self, cmd: Any) -> None:
        """Queue a command; one sender keeps them in order."""
        self._outbox.put_nowait(cmd)

    async def _sender(self) -> None:
        while True:
            cmd = await self._outbox.get()
            rid = await self.link.send(cmd) if self.link is not None else None
            if rid is None:
                self.show_error(_("Not sent: not connected to the server right now."))

    def leave_table(self, cmd: Any) -> None:
        self.send(cmd)

    def retry_now(self) -> None:
        if self.link is not None:
            self.link.retry_now()

    # -- from the server -------------------------------------------------------------

    def _status(self, status: LinkStatus) -> None:
        was = self.link_status
        self.link_status = status
        self.statuses = [*self.statuses[-49:], status]
        # While the app closes, screens lose their widgets before they unmount.
        with contextlib.suppress(NoMatches):
            self.lobby_screen.update_link(status)
            self.table_screen.update_link(status)
            self.tournaments.screen.update_link(status)
        if status.phase == "online" and was.phase != "online" and self.link is not None:
            if self.link.connections > 1 and self.current_mode != "table":
                # The table screen says so on its message line: once is enough.
                self.notify(_("Reconnected."), timeout=3)
            self.daily.online()  # daily_screen.py
            self.tournaments.online()  # tournament_flow.py
            self._autoplay_create()
        elif status.phase == "stopped":
            if self.link is not None and self.link.connections == 0:
                # Never got in (an untrusted certificate, a refused key): an
                # empty lobby would say nothing more. The client exits, and
                # says why on the terminal (``__main__``), as a failure.
                self.exit(return_code=NEVER_CONNECTED)
                return
            self.notify(
                _("Disconnected: {reason}").format(reason=status.reason),
                severity="error",
                timeout=10,
                markup=False,
            )

    def on_server(self, msg: Any) -> None:
        """Every message from the server, in order (called by the link)."""
        link = self.link
        if self.daily.on_server(msg):  # daily_screen.py: daily_result, leaderboard, player
            return
        if self.tournaments.on_server(msg):  # tournament_flow.py: tournament, its join's refusals
            return
        match msg:
            case TableSnapshot() | TablePatch():
                view = link.table if link else None
                self.show_mode("table")
                if self.saved_game is not None:
                    self.saved_game.note(view)
                self.table_screen.update_view(view)
                chat = self.screen
                if isinstance(chat, ChatBox) and view is not None:
                    chat.update_view(view)
                self._autoplay_start()
            case LobbySnapshot() | LobbyPatch():
                self.lobby_screen.update_lobby(link.lobby if link else None)
            case Seated(seat=seat, table_id=table_id):
                self._offer = None
                if (
                    self.table_screen.view is not None
                    and self.table_screen.view.table_id != table_id
                ):
                    self.table_screen.reset()
                self.show_mode("table")
                if seat is None:
                    self.table_screen.say(_("You are watching this table."))
            case Left(reason=reason, table_id=table_id):
                self._left.set()
                if self.saved_game is not None:
                    self.saved_game.forget()  # no seat, no game to offer
                left = self.daily.left_words(reason, self.table_screen.view)  # daily_screen.py
                if not self.tournaments.left_table(table_id, left):  # tournament_flow.py
                    self.show_mode("lobby")
                    self.lobby_screen.say(left)
                self.table_screen.reset()
            case HintAnswer():
                self.table_screen.say(hint_line(msg))  # table_hint.py: the ``i`` key
            case HistoryAnswer(records=records):
                if self._history_asked and self.current_mode == "table":
                    self._history_asked = False
                    self.table_screen.show_history(records)
            case Error(code=code, message=message, rid=rid):
                text = wording.error(code, message)
                if link is not None and rid is not None and rid == link.resume_rid:
                    if self._offer is not None:
                        # ``atout play``: the server no longer has the saved
                        # game (the link forgot its token): a new one, quietly.
                        self._offer = None
                        if self.saved_game is not None:
                            self.saved_game.forget()
                        self._created = False
                        self._autoplay_create()
                        return
                    text = _("Could not take your seat back: {error}").format(error=text)
                    self.show_mode("lobby")
                    self.table_screen.reset()
                    self._created = False
                    self._autoplay_create()
                    self.daily.resume_failed()  # daily_screen.py
                    self.tournaments.resume_failed()  # tournament_flow.py
                self.show_error(text)

    def show_error(self, text: str) -> None:
        self.errors.append(text)
        log.info("error shown: %s", text)
        if self.current_mode == "table":
            self.table_screen.server_error(text)
        elif self.current_mode == "tournament":
            self.tournaments.screen.server_error(text)
        else:
            self.lobby_screen.server_error(text)
        self.notify(text, severity="error", timeout=6, markup=False)

    def show_mode(self, mode: str) -> None:
        if self.current_mode == mode:
            return
        # A dialog left open belongs to the screen we leave.
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.switch_mode(mode)

    # -- atout play: a table with three bots, started at once --------------------------

    def _autoplay_create(self) -> None:
        link = self.link
        if self.autoplay is None or self._created or link is None:
            return
        if link.tokens.get(link.token_key) is not None:
            return  # we have a seat to resume
        self._created = True
        self._started = False
        self.send(msgspec.structs.replace(self.autoplay, rid=0))

    def ask_history(self) -> None:
        """Ask for this table's deal records; the answer opens the history screen."""
        self._history_asked = True
        self.send(GetHistory())

    def quick_play(self) -> None:
        """Quick play: a seat at a public table where people wait, or else a
        new table that gathers people a short while (the server starts it
        when full or when the time is up; "Start now" sooner). Never started
        here at once: a friend pressing quick play a moment later would get
        a table of their own (issue 33)."""
        self.send(QuickPlay(players=self.players))

    def _autoplay_start(self) -> None:
        view = self.link.table if self.link else None
        if self.autoplay is None or self._started or view is None:
            return
        if view.status == "waiting" and view.you is not None and view.creator == view.you:
            self._started = True
            self.send(StartGame())

    # -- our own bugs --------------------------------------------------------------------

    def _fatal_error(self) -> None:
        # Textual would print a traceback; the player gets a sentence and the
        # traceback goes to the log file.
        error = self._exception
        detail = "".join(traceback.format_exception(error)) if error else traceback.format_exc()
        log.error("unexpected error\n%s", detail)
        text = _(
            "Atout hit an unexpected problem and closed. Your seat is kept: run the "
            "same command again to resume."
        )
        if self.log_path:
            text += " " + _("Details: {path}").format(path=self.log_path)
        self.panic(text)


if TYPE_CHECKING:
    # The leaderboard and profile screens find their host as their ``app``
    # (leaderboard_screen.py says why): mypy checks here that ours is one.
    _board_host: type[BoardHost] = AtoutApp
