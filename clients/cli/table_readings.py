"""What the player opens to read at the table: the score sheet, past deals,
the chat and help — each a screen pushed over the table, from the view the
table screen holds. Mixed into ``TableScreen`` (kept apart so the screen
stays about the game's decisions)."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen

from clients.cli import wording
from clients.cli.dialogs import ChatBox, Help, History
from clients.cli.i18n import _
from clients.cli.sheet_dialog import ScoreSheet
from clients.cli.table_host import TableHost
from protocol.messages import Chat
from protocol.views import TableView


class TableReadings(Screen[Any]):
    """Mixed into the table screen before its Textual class: b, h, m and ?."""

    host: TableHost
    view: TableView | None

    def say(self, text: str, *, error: bool = False) -> None:
        raise NotImplementedError  # the table screen's message line

    def action_sheet(self) -> None:
        if self.view is not None:
            self.app.push_screen(ScoreSheet(self.view))

    def action_history(self) -> None:
        if self.view is None:
            return
        self.say(wording.HISTORY_LOADING)
        self.host.ask_history()

    def show_history(self, records: list[dict[str, Any]]) -> None:
        if self.view is not None:
            self.say("")
            self.app.push_screen(History(self.view, records))

    def action_chat(self) -> None:
        view = self.view
        if view is None:
            return
        if view.you is None:
            self.say(_("Spectators read the chat; sit down to write."))
            return

        def sent(text: str | None) -> None:
            if text:
                self.host.send(Chat(text=text))

        self.app.push_screen(ChatBox(view), sent)

    def action_help(self) -> None:
        self.app.push_screen(Help())
