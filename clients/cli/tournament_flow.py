"""Tournaments in the terminal client: what the app delegates to (marked
hooks in ``app.py``), and what follows a tournament round after round.

``TournamentFlow`` sends ``atout tournament``'s create or join once online
(``online``); a create's answer is followed by the host's own join (the
server counts as players those who join), with its team. On each
reconnection it asks for the view again (``tournament``: the server sends
its changes to the connections that asked). It takes every ``Tournament``
event (``on_server``) and draws it on its ``TournamentScreen``.

Following the rounds: when a view names a ``your_table`` other than the one
followed so far, the client leaves the table it sits at (a finished one),
waits for the server's ``left`` (a join while still seated is refused),
and joins that one (``JoinTable``: the server keeps the seat for us,
whatever our token); the table screen then opens as for any seat. A person
who leaves their table by hand is not pulled back to it: the tournament
screen offers "Your table" instead. A finished table of a round still
playing says so on its prompt line (``round_line``); ``o`` there opens the
tournament screen, which shows the final standings once the last round
ends (it opens by itself then).

Coming back: joining again a tournament one is in (``atout tournament join
CODE`` after a restart) is answered ``already_joined`` (or
``tournament_started``): the flow then asks for the view, whose
``your_table`` leads back to the seat, and only says the error when the view
shows we are not a player of it. The tournament one plays in is also kept
for the next start (``tournament_memory.py``), so ``atout connect`` follows
it again too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from textual.screen import Screen

from clients.cli import tournament_words as words
from clients.cli import wording
from clients.cli.link import Link, LinkStatus
from clients.cli.tournament_dialogs import TournamentEntry
from clients.cli.tournament_memory import MemoryTournaments, TournamentMemory
from clients.cli.tournament_screen import TournamentScreen
from protocol.messages import (
    Error,
    JoinTable,
    Leave,
    Tournament,
    TournamentCreate,
    TournamentGet,
    TournamentJoin,
)
from protocol.tournaments import TournamentView
from protocol.views import TableView

JOINED_ALREADY = ("already_joined", "tournament_started", "tournament_finished")
"""Answers to a join that may only mean we are in it already: ask for the view."""


class TournamentHost(Protocol):
    """What the flow needs from the app it works for (``app.py``)."""

    @property
    def url(self) -> str: ...
    @property
    def player_name(self) -> str: ...
    @property
    def link(self) -> Link | None: ...
    @property
    def seated_at(self) -> str | None:
        """The table we sit at (or watch, or are taking our seat back at), if any."""

    @property
    def link_status(self) -> LinkStatus: ...
    def send(self, cmd: Any) -> None: ...
    def retry_now(self) -> None: ...
    def show_mode(self, mode: str) -> None:
        """Show the "lobby", "table" or "tournament" screen (closing dialogs)."""

    def show_error(self, text: str) -> None: ...
    def redraw_table(self) -> None:
        """The table's prompt line follows the tournament (``round_line``)."""

    def notify(self, message: str, *, timeout: float | None = None) -> None: ...
    def clear_notifications(self) -> None: ...
    def push_screen(
        self, screen: Screen[Any], callback: Callable[[Any], None] | None = None
    ) -> object: ...


class TournamentFlow:
    """The app's part for tournaments (one per app)."""

    def __init__(
        self,
        host: TournamentHost,
        start: TournamentEntry | None = None,
        *,
        memory: TournamentMemory | None = None,
        key: str = "",
    ) -> None:
        self.host = host
        self.start = start
        self.memory = memory or MemoryTournaments()
        """The tournament we are in, kept for the next start (``tournament_memory.py``)."""
        self.key = key
        """Whose: this server and player (``tokens.seat_key``)."""
        self._recalled: TournamentGet | None = None
        """The ``tournament`` command asking for the remembered one (its refusal is quiet)."""
        self.view: TournamentView | None = None
        self.code: str | None = (start.code or None) if start is not None else None
        """The tournament we follow (its views are drawn; another's are not)."""
        self.player_id: str | None = None
        """Ours on this server, from the welcome (None: a guest, or not yet welcomed)."""
        self.views: list[TournamentView] = []
        """Every view taken, oldest first (tests read it)."""
        self.screen = TournamentScreen(self)
        self.tables: set[str] = set()
        """Every table of the tournament seen: no "play again" there."""
        self._started = False
        self._asked: TournamentCreate | TournamentJoin | None = None
        """The create or join in flight; its ``rid`` is filled in as it is sent."""
        self._team = ""
        """Our team, for the join that follows a create."""
        self._moving: str | None = None
        """The finished table we leave for the next round's (its ``left`` is expected)."""
        self._leave: Leave | None = None
        self._then: str | None = None
        """The table to join once the server says we left (``left``, or a refused leave)."""
        self._held: str | None = None
        """A join's refusal, said only if the view shows we are not in it."""
        self._followed: str | None = None
        """The ``your_table`` the client went to (or found itself at)."""
        self._show_next = start is not None
        if start is not None:
            self.screen.wait_for(words.joining(start.code) if start.code else str(words.CREATING))

    # -- what the screen asks of its host ---------------------------------------------------

    @property
    def url(self) -> str:
        return self.host.url

    @property
    def player_name(self) -> str:
        return self.host.player_name

    @property
    def link_status(self) -> LinkStatus:
        return self.host.link_status

    def send(self, cmd: Any) -> None:
        self.host.send(cmd)

    def retry_now(self) -> None:
        self.host.retry_now()

    def back(self) -> None:
        self.host.show_mode("table" if self._here() is not None else "lobby")

    def go_to_table(self) -> None:
        view = self.view
        if view is None or view.your_table is None:
            return
        self._followed = view.your_table
        if self._here() == view.your_table:
            self.host.show_mode("table")
        else:
            self._join(view, view.your_table)

    def left_tournament(self) -> None:
        self.memory.forget(self.key)
        self.view = self.code = None
        self._followed = None
        self.screen.wait_for("")
        self.host.show_mode("lobby")

    # -- hooks called by the app ---------------------------------------------------------

    def online(self) -> None:
        """A connection opened: ask once for what the command line wanted;
        on a reconnection, for the view again (the server sends its changes
        to the connection that asked)."""
        session = self.host.link.session if self.host.link else None
        if session is not None:
            self.player_id = session.player_id
        if self.start is not None and not self._started:
            self._started = True
            self._ask(self.start)
        elif self.code is not None:
            self.host.send(TournamentGet(code=self.code))
        elif (code := self.memory.get(self.key)) is not None:
            # A tournament we were in when the client last ran: follow it
            # again (to our seat, if a round is under way).
            self.code = code
            self._recalled = TournamentGet(code=code)
            self.host.send(self._recalled)

    def on_server(self, msg: Any) -> bool:
        """Take the events this module owns; False for every other one."""
        match msg:
            case Tournament(view=view, rid=rid):
                self._take(view, rid)
                return True
            case Error(rid=rid) if self._recalled is not None and rid == self._recalled.rid != 0:
                # The remembered tournament is gone (or we are no longer let
                # in): forget it, and say nothing of a tournament not asked for.
                self._recalled, self.code = None, None
                self.memory.forget(self.key)
                return True
            case Error(rid=rid) if self._leave is not None and rid == self._leave.rid != 0:
                # Not at that table after all (closed meanwhile): sit down all the same.
                self._moving = None
                self._left()
                return True
            case Error(code=code, message=message, rid=rid) if self._answers(rid):
                asked, self._asked = self._asked, None
                if isinstance(asked, TournamentJoin) and code in JOINED_ALREADY:
                    self._held = None if code == "already_joined" else wording.error(code, message)
                    self.code = asked.code
                    self.host.send(TournamentGet(code=asked.code))
                    return True
        return False

    def resume_failed(self) -> None:
        """The saved seat is gone: go to our table of the round anew (the
        view may have come while we counted on taking that seat back)."""
        self._followed = None
        if self.view is not None:
            self._follow(self.view)

    def left_table(self, table_id: str, said: str) -> bool:
        """We left ``table_id``: a tournament's table leads to the tournament
        screen, which says ``said`` (unless we are on our way to the next
        round's table). False for any other table (the lobby's business)."""
        if self._moving == table_id:
            # Left on our way to our table (the one we left may be of no
            # tournament: a finished game, an earlier tournament's table).
            self._moving = None
            self.host.show_mode("tournament")
            self._left()
            return True
        if table_id not in self.tables or self.view is None:
            return False
        self.host.show_mode("tournament")
        self.screen.say(said)
        return True

    # -- from the lobby ----------------------------------------------------------------------

    def enter(self, entry: TournamentEntry) -> None:
        """From the lobby: create (and join) a tournament, or join one."""
        if self._guest():
            return
        code = entry.code or None
        if code is None or code != self.code:
            self.view, self._followed = None, None
        self.code = code
        self._show_next = True
        self.host.show_mode("tournament")
        self._ask(entry)

    def _guest(self) -> bool:
        """A guest (``atout connect --guest``) cannot enter: say so at once."""
        link = self.host.link
        if link is not None and link.online and self.player_id is None:
            self.host.show_error(str(words.GUEST))
            return True
        return False

    def _ask(self, entry: TournamentEntry) -> None:
        """Send the create or the join ``entry`` asks for."""
        if entry.settings is not None:
            cmd: TournamentCreate | TournamentJoin = TournamentCreate(settings=entry.settings)
            self.screen.wait_for(str(words.CREATING))
        else:
            cmd = TournamentJoin(code=entry.code, team=entry.team)
            self.screen.wait_for(words.joining(entry.code))
        self._asked, self._held, self._team = cmd, None, entry.team
        self.host.send(cmd)

    def _answers(self, rid: int | None) -> bool:
        return self._asked is not None and rid is not None and rid == self._asked.rid != 0

    # -- for the table screen ------------------------------------------------------------------

    def at_table(self, view: TableView) -> bool:
        """One of the tournament's tables: no "play again" there."""
        return view.table_id in self.tables

    def round_line(self, view: TableView) -> str:
        """A finished table of the round under way (ours: the view names no
        table to sit at once it is over), or any once the tournament is
        over: where the tournament stands, and the key to its screen."""
        t = self.view
        if t is None or view.table_id not in self.tables or view.status != "finished":
            return ""
        if t.status != "finished" and all(x.table_id != view.table_id for x in t.tables):
            return ""  # an earlier round's table, left behind for the next one
        return words.table_line(t)

    def show(self) -> None:
        """The table's ``o``: the tournament screen (standings so far)."""
        if self.view is None and self.code is None:
            self.host.notify(str(words.NOT_IN_ONE), timeout=4)
            return
        self.host.show_mode("tournament")

    # -- taking a view -------------------------------------------------------------------------

    def _take(self, view: TournamentView, rid: int | None) -> None:
        if self.code is not None and view.code != self.code and view.your_table is None:
            return  # news of another tournament, which we do not follow
        old = self.view if self.view is not None and self.view.code == view.code else None
        if old is None:
            self._followed = None
        self.view, self.code = view, view.code
        self.views.append(view)
        recalled = self._recalled is not None and rid == self._recalled.rid
        if recalled:
            self._recalled = None
        if self._answers(rid):
            asked, self._asked = self._asked, None
            if isinstance(asked, TournamentCreate):
                # The server counts as players those who join: its host too.
                self._ask(TournamentEntry(code=view.code, team=self._team))
        self.tables.update(t.table_id for t in view.tables)
        if view.your_table is not None:
            self.tables.add(view.your_table)
        held, self._held = self._held, None
        if held is not None and not self._in(view):
            self.host.show_error(held)
        self._remember(view)
        self.screen.update_view(view)
        self.host.redraw_table()
        if old is not None and 0 < old.round < view.round and self._in(view):
            # Our round is over: the next one seats us at once (a round of
            # one table leaves no time to look), so the standings are said
            # as it does, by name (and stay a key away: o).
            self.host.notify(words.round_over(old.round, view), timeout=12)
        if self._follow(view):
            return
        if recalled and self._in(view) and view.status == "gathering":
            self.host.notify(words.recalled(view), timeout=8)
        just_finished = old is not None and old.status != "finished" and view.status == "finished"
        if just_finished:
            self.screen.say("")  # "to your seat at table 2…" is no longer true
            self.host.clear_notifications()  # nor "Round 2 is over: …": the final is
        if self._show_next or just_finished:
            self._show_next = False
            at_our_table = view.your_table is not None and self._here() == view.your_table
            if just_finished or not at_our_table:
                self.host.show_mode("tournament")

    def _remember(self, view: TournamentView) -> None:
        """Keep the tournament for the next start while we play in it."""
        if self._in(view) and view.status != "finished":
            self.memory.save(self.key, view.code)
        elif self.memory.get(self.key) == view.code:
            self.memory.forget(self.key)

    def _in(self, view: TournamentView) -> bool:
        me = self.player_id
        return any(p.player_id == me and not p.removed for p in view.players)

    def _here(self) -> str | None:
        return self.host.seated_at

    def _follow(self, view: TournamentView) -> bool:
        """Go to ``your_table`` when it is a new one; True when on the way."""
        target = view.your_table
        if target is None or target == self._followed or view.status == "finished":
            return False
        self._followed = target
        if self._here() == target:
            return False
        self._join(view, target)
        return True

    def _join(self, view: TournamentView, table_id: str) -> None:
        """Sit at ``table_id``; at a table, once the server has us leave it
        (a join while still seated is refused: docs/PROTOCOL.md §12.2)."""
        here = self._here()
        number = next((t.number for t in view.tables if t.table_id == table_id), 0)
        self.screen.say(words.going_to(view.round, number))
        if here is None:
            self.host.send(JoinTable(table_id=table_id))
            return
        self._moving, self._then = here, table_id
        self._leave = Leave()
        self.host.send(self._leave)

    def _left(self) -> None:
        """Left (or never at) the table we were leaving: on to the next one."""
        then, self._then, self._leave = self._then, None, None
        if then is not None:
            self.host.send(JoinTable(table_id=then))
