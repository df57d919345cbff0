"""What the table screen needs from the app that shows it: the screen
declares it here and the app (``app.py``) gives itself, checked by mypy, so
the screen never imports the app (no import circle, no cast).
"""

from __future__ import annotations

from typing import Any, Protocol

from clients.cli.link import Link, LinkStatus
from protocol.views import TableView


class DailyTables(Protocol):
    def is_daily(self, view: TableView) -> bool:
        """A daily table (ranked or practice): no "play again" there."""
        ...


class TournamentTables(Protocol):
    def at_table(self, view: TableView) -> bool:
        """One of a tournament's tables: no "play again" there."""
        ...

    def round_line(self, view: TableView) -> str:
        """A finished tournament table's prompt while its round goes on ("" if none)."""
        ...

    def show(self) -> None:
        """Open the tournament screen (the ``o`` key)."""


class TableHost(Protocol):
    """What the table screen needs from the app that shows it (``app.py``)."""

    @property
    def url(self) -> str: ...
    @property
    def link(self) -> Link | None: ...
    @property
    def link_status(self) -> LinkStatus: ...
    @property
    def daily(self) -> DailyTables: ...
    @property
    def tournaments(self) -> TournamentTables: ...
    def send(self, cmd: Any) -> None: ...
    def ask_history(self) -> None: ...
    def retry_now(self) -> None: ...
    def leave_table(self, cmd: Any) -> None: ...
