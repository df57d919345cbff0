"""The table screen: everything a seat sees of a game, and the one place the
player acts on it (bid, écart, chelem, poignée, play, chat, leave).

It draws from the ``TableView`` the connection keeps in sync
(``update_view``) and offers exactly what ``view.legal`` allows: the legal
bids, the écart's candidates, the chelem question, the poignée sizes, the
legal cards (``HandWidget``). A decision answered once is not offered again
until the view moves on, so a double keystroke never sends two commands.

Fits 80×24: header, three panels (seats and contract, the trick, trumps and
chat), the hand, a prompt with its buttons, a message line and the keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Static

from clients.cli import table_facts as facts
from clients.cli import table_news as news
from clients.cli import table_panels as panels
from clients.cli import wording
from clients.cli.action_bar import action_bar
from clients.cli.call_dialog import CallDialog
from clients.cli.cards_widget import HandWidget
from clients.cli.dialogs import Confirm
from clients.cli.i18n import N_, Translated, _
from clients.cli.link import LinkStatus
from clients.cli.repaint import put
from clients.cli.screen_keys import ButtonArrows, KeysFooter, fit_footer, offer_key
from clients.cli.status_line import StatusLine
from clients.cli.table_hint import HintKey
from clients.cli.table_host import TableHost
from clients.cli.table_readings import TableReadings
from protocol.messages import (
    Bid,
    Call,
    Chelem,
    Ecart,
    Leave,
    Play,
    PlayAgain,
    Poignee,
    Ready,
    StartGame,
)
from protocol.views import TableView


class TableScreen(Translated, HintKey, TableReadings, ButtonArrows, Screen[None]):
    DEFAULT_CSS = """
    TableScreen { layout: vertical; }
    #top { height: 1; background: $panel; }
    #title { width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    #link { width: auto; padding: 0 1; }
    #main { height: 1fr; min-height: 8; }
    #main > * { height: 100%; }
    #seats, #trick, #tracker, #chat { text-wrap: nowrap; text-overflow: ellipsis; }
    #seats { width: 26; border: round $primary; border-title-align: left; }
    #trick { width: 1fr; border: round $primary; }
    #side { width: 27; border: round $primary; }
    #tracker { height: 5; }
    #chat { height: 1fr; }
    #hand { border: round $accent; max-height: 6; }
    #prompt { height: 1; padding: 0 1; }
    #actions { height: 1; padding: 0 1; }
    #actions Button { margin-right: 1; min-width: 0; width: auto; padding: 0 1; }
    #actions .picked { width: 1fr; }
    #message { height: 1; padding: 0 1; color: $text-muted; }
    #message.error { color: $error; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("l", "last_trick", N_("Last trick")),
        Binding("b", "sheet", N_("Scores")),
        Binding("h", "history", N_("Past deals")),
        Binding("m", "chat", N_("Chat")),
        Binding("p", "poignee", N_("Poignée"), show=False),
        Binding("r", "retry", N_("Reconnect"), show=False, priority=True),
        Binding("o", "tournament", N_("Tournament"), show=False),  # tournament_flow.py
        Binding("question_mark", "help", N_("Help")),
        Binding("space", "continue", show=False),
        # The innermost open thing first: the last trick, the poignée picker, then leave.
        Binding("escape", "back", N_("Leave")),
    ]
    FOOTER_OPTIONAL = ("history", "last_trick", "hint", "chat", "sheet")
    """Left out of the footer, first ones first, when it is too narrow (all in Help)."""

    def __init__(self, host: TableHost) -> None:
        super().__init__()
        self.host = host
        self._ready = False
        self.view: TableView | None = None
        self.show_last = False
        self.answered: tuple[Any, ...] | None = None
        """The decision already answered; cleared when the view moves on or on an error."""
        self.pick_kind = ""
        """"ecart" or "poignee" while the hand picks several cards."""
        self.poignee_size = 0
        self._actions_key: tuple[Any, ...] = ("none",)
        self._confirming = False
        self._call_offered: tuple[Any, ...] | None = None
        """The call the dialog was opened for by itself (once; then the button)."""
        self._asked: tuple[Screen[Any], tuple[Any, ...]] | None = None
        """A question open about a decision (the dialog, its decision's key)."""
        self._offline = False
        self.line = StatusLine()
        """The message line (``say``)."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield Static("Atout", id="title")
            yield Static("", id="link")
        with Horizontal(id="main"):
            seats = Static("", id="seats")
            seats.border_title = _("Seats")
            yield seats
            yield Static("", id="trick")
            with Vertical(id="side"):
                yield Static("", id="tracker")
                yield Static("", id="chat")
        yield HandWidget(id="hand")
        yield Static("", id="prompt")
        yield Horizontal(id="actions")
        yield Static("", id="message")
        yield KeysFooter()

    def on_unmount(self) -> None:
        self._ready = False

    def on_mount(self) -> None:
        hand = self.query_one("#hand", HandWidget)
        hand.border_title = _("Your hand")
        hand.focus()
        self.set_interval(0.5, self._tick)
        # The footer fitted before its first frame, with the keys of a table
        # not known yet (no hint key): ^q Quit is never pushed off.
        fit_footer(self, self.FOOTER_OPTIONAL)
        # The containers mount their own children after this handler (whether
        # before or after depends on the Python version's task order), so the
        # first draw waits until the whole screen is laid out.
        self.call_after_refresh(self._first_draw)

    def _first_draw(self) -> None:
        self._ready = True
        if self.view is not None:
            self.update_view(self.view)
        self.update_link(self.host.link_status)
        fit_footer(self, self.FOOTER_OPTIONAL)

    def on_resize(self) -> None:
        fit_footer(self, self.FOOTER_OPTIONAL)
        # The panels are drawn for their width: draw again once the new
        # layout is known (a resize, or the screen shown again after a
        # reconnection), not only at the next move.
        if self.view is not None:
            self.call_after_refresh(self._redraw)

    def on_screen_resume(self) -> None:
        self.on_resize()

    def _redraw(self) -> None:
        if self._ready and self.view is not None:
            self._draw(self.view)

    def reset(self) -> None:
        """Forget the table (we left it, or sat at another one)."""
        self.view = None
        self.answered = None
        self.pick_kind = ""
        self.show_last = False
        self._actions_key = ("none",)
        if self._ready:
            self.say("")  # news of that table (its last trick) is not this one's
            self.query_one("#actions", Horizontal).remove_children()
            self.query_one("#hand", HandWidget).show([])
            self.update_view(None)

    # -- from the connection ---------------------------------------------------------

    def update_view(self, view: TableView | None) -> None:
        """Draw the new view and offer what it allows."""
        old, self.view = self.view, view
        if not self._ready:
            return
        self.fit_hint_key(self.FOOTER_OPTIONAL)
        if view is None:
            self.query_one("#title", Static).update("Atout │ " + _("loading the table…"))
            return
        if self.answered is not None and self.answered != self._decision_key(view):
            self.answered = None
        if facts.decision(view) != "play" and self.pick_kind == "poignee":
            self.pick_kind = ""
        if facts.decision(view) != "ecart" and self.pick_kind == "ecart":
            self.pick_kind = ""
        self._draw(view)
        offer_key(self, "tournament", self.host.tournaments.at_table(view), self.FOOTER_OPTIONAL)
        key = self._decision_key(view)
        if self._asked is not None and self._asked[1] != key:
            # Play moved on (the turn timer ran out: a bot decided for us):
            # a question about that decision would answer nothing.
            dialog, self._asked = self._asked[0], None
            if self.app.screen is dialog:
                dialog.dismiss(None)
        if facts.decision(view) == "call" and self.answered is None and self._call_offered != key:
            self._call_offered = key  # opened by itself once; then the action bar's button
            self.call_after_refresh(self._open_call)
        if old is not None:
            note = news.what_happened(old, view)
            online = self.host.link_status.phase == "online"
            if note:
                self.say(note)
            elif news.moment(old) != news.moment(view) and online:
                self.say("")  # a new phase, deal or game: older news is stale
            elif self._decision_key(old) != self._decision_key(view) and online:
                self._show_line(self.line.moved_on())  # an error is stale once play moves on

    def update_link(self, status: LinkStatus) -> None:
        if not self._ready:
            return
        link = self.query_one("#link", Static)
        if status.phase == "online":
            link_ = self.host.link
            if self._offline and link_ is not None and link_.connections > 1:
                self.say(wording.CONNECTED_AGAIN)
            elif self._offline:
                self.say("")
            link.update(Text("● " + _("online"), style="green"))
        else:
            link.update(Text("○ " + status.phase_word(), style="bold red"))
            self.say(status.text(), error=True)
        self._offline = status.phase != "online"
        if self.view is not None:
            self._draw_header(self.view)

    def say(self, text: str, *, error: bool = False) -> None:
        """Put a line in the message bar (errors stand out); see ``status_line``."""
        if self._ready:
            self._show_line(self.line.put(text, error, self._prompt()))

    def _show_line(self, changed: bool) -> None:
        if changed and self._ready:
            message = self.query_one("#message", Static)
            put(message, Text(self.line.text))  # server text is never markup
            message.set_class(self.line.error, "error")

    def _prompt(self) -> str:
        view = self.view
        if view is None:
            return ""
        again = not (self.host.daily.is_daily(view) or self.host.tournaments.at_table(view))
        return self.host.tournaments.round_line(view) or facts.prompt(view, again=again)

    def server_error(self, text: str) -> None:
        # A refused command: let the player try again.
        self.answered = None
        self.say(text, error=True)
        if self.view is not None:
            self._draw(self.view)

    # -- drawing ---------------------------------------------------------------------------

    def _draw(self, view: TableView) -> None:
        self._draw_header(view)
        seats = self.query_one("#seats", Static)
        region = seats.content_region
        put(seats, panels.seats_panel(view, max(10, region.width or 24), region.height))
        trick = self.query_one("#trick", Static)
        width = trick.content_region.width or 24
        put(trick, panels.trick_panel(view, width, show_last=self.show_last, url=self.host.url))
        trick.border_title = (
            _("You: seat {n}").format(n=view.you + 1) if view.you is not None else _("Watching")
        )
        last = self.show_last and facts.last_trick(view.deal) is not None
        trick.border_subtitle = _("l or Esc: back") if last else ""
        put(self.query_one("#tracker", Static), panels.tracker_panel(view))
        chat = self.query_one("#chat", Static)
        region = chat.content_region
        put(chat, panels.chat_panel(view, region.height or 6, region.width or 25))
        self._draw_hand(view)
        put(self.query_one("#prompt", Static), Text(self._prompt(), style="bold"))
        self._draw_actions(view)

    def _draw_header(self, view: TableView) -> None:
        online = self.host.link_status.phase == "online"
        put(self.query_one("#title", Static), panels.header(view, online=online))

    def _draw_hand(self, view: TableView) -> None:
        hand = self.query_one("#hand", HandWidget)
        kind = facts.decision(view) if self.answered is None else ""
        legal = view.legal
        if view.you is None:
            hand.border_title = _("Watching: hands stay hidden")
            hand.show([])
            return
        hand.border_title = _("Your hand ({n})").format(n=len(view.hand))
        if kind == "ecart":
            first = self.pick_kind != "ecart"
            self.pick_kind = "ecart"
            hand.show(
                view.hand,
                legal.ecart,
                "pick",
                limit=legal.ecart_size,
                picked=[] if first else None,
                refusal=wording.ECART_REFUSAL,
            )
        elif kind == "play" and self.pick_kind == "poignee":
            hand.show(
                view.hand,
                legal.poignee_cards,
                "pick",
                limit=self.poignee_size,
                refusal=_("a poignée shows trumps (and the Excuse) only"),
            )
        elif kind == "play":
            hand.show(view.hand, legal.cards, "play", refusal=news.why_not(view))
        else:
            hand.show(view.hand, [], "view", refusal=news.not_now(view, self.answered is not None))

    def _decision_key(self, view: TableView) -> tuple[Any, ...]:
        return facts.decision_key(view)

    def _draw_actions(self, view: TableView) -> None:
        key, buttons, focus = self._actions_for(view)
        if key == self._actions_key:
            if self.pick_kind:
                self._refresh_pick_buttons()
            return
        self._actions_key = key
        actions = self.query_one("#actions", Horizontal)
        actions.remove_children()
        if buttons:
            actions.mount_all(buttons)
        if self.pick_kind:
            self.call_after_refresh(self._refresh_pick_buttons)
        if focus is not None:
            self.call_after_refresh(focus.focus)
        elif buttons or key[0] in ("play", "ecart", "poignee-pick"):
            hand = self.query_one("#hand", HandWidget)
            self.call_after_refresh(hand.focus)

    def _actions_for(self, view: TableView) -> tuple[tuple[Any, ...], list[Any], Any]:
        """(identity of the action bar, its widgets, the one to focus)."""
        return action_bar(
            view,
            kind=facts.decision(view) if self.answered is None else "",
            pick_kind=self.pick_kind,
            poignee_size=self.poignee_size,
            daily=self.host.daily.is_daily(view) or self.host.tournaments.at_table(view),
            decision_key=self._decision_key(view),
        )

    def _refresh_pick_buttons(self) -> None:
        view = self.view
        if view is None or not self.pick_kind:
            return
        hand = self.query_one("#hand", HandWidget)
        picked = hand.picked
        if self.pick_kind == "ecart":
            problem = facts.ecart_problem(picked, view.legal)
            verb, total = _("Discard"), view.legal.ecart_size
            button_class = ".ecart-go"
        else:
            problem = facts.poignee_problem(picked, view.legal, self.poignee_size)
            verb, total = _("Show"), self.poignee_size
            button_class = ".poignee-go"
        for button in self.query(f"#actions {button_class}").results(Button):
            button.disabled = problem is not None
        for widget in self.query("#actions .picked").results(Static):
            widget.update(panels.decision_summary(picked, total, verb, widget.size.width or 40))

    def _tick(self) -> None:
        view = self.view
        if view is not None and (view.deadline is not None or view.next_deal_at is not None):
            self._draw_header(view)
        if view is not None and view.status == "waiting" and view.gather_until is not None:
            # The quick-play table's countdown (PROTOCOL.md ``gather_until``).
            put(self.query_one("#prompt", Static), Text(self._prompt(), style="bold"))
        status = self.host.link_status
        if status.phase != "online":
            self.say(status.text(), error=True)

    # -- the player's actions ------------------------------------------------------------

    def _send(self, cmd: Any) -> None:
        if self.view is not None:
            self.answered = self._decision_key(self.view)
        self.host.send(cmd)
        if self.view is not None:
            self._draw(self.view)

    @on(HandWidget.Chosen)
    def _play(self, event: HandWidget.Chosen) -> None:
        view = self.view
        if view is None or self.answered is not None or event.card not in view.legal.cards:
            return
        self._send(Play(card=event.card))

    @on(HandWidget.Refused)
    def _refused(self, event: HandWidget.Refused) -> None:
        self.say(event.why, error=True)
        self.app.bell()

    @on(HandWidget.Picked)
    def _picked(self, event: HandWidget.Picked) -> None:
        self._refresh_pick_buttons()
        view = self.view
        if view is None:
            return
        if self.pick_kind == "ecart" and len(event.picked) == view.legal.ecart_size:
            problem = facts.ecart_problem(event.picked, view.legal)
            if problem:
                self.say(_("Not yet: {problem}.").format(problem=problem), error=True)
            else:
                self._confirm_ecart()
        elif self.pick_kind == "poignee":
            problem = facts.poignee_problem(event.picked, view.legal, self.poignee_size)
            self.say(problem or _("Ready: press “Show” to show your poignée."))

    def _confirm_ecart(self) -> None:
        view = self.view
        hand = self.query_one("#hand", HandWidget)
        picked = list(hand.picked)
        if view is None or facts.ecart_problem(picked, view.legal) or self._confirming:
            return
        question = panels.ecart_question(picked)
        self._confirming = True
        key = self._decision_key(view)

        def done(yes: bool | None) -> None:
            self._confirming = False
            if yes and self.view is not None and not facts.ecart_problem(picked, self.view.legal):
                self._send(Ecart(cards=picked))
            elif self.view is not None and self._decision_key(self.view) == key:
                self.say(_("Change your écart: pick a card again to put it back."))

        self._ask(Confirm(question, yes=_("Discard"), no=_("Change"), focus=True), done)

    def _ask(self, dialog: Screen[Any], done: Callable[[Any], None]) -> None:
        """A question about the decision awaited now: it closes by itself
        once that decision is made (``update_view``)."""
        if self.view is not None:
            self._asked = (dialog, self._decision_key(self.view))
        self.app.push_screen(dialog, done)

    @on(Button.Pressed, "#actions Button")
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        name = event.button.name or ""
        view = self.view
        if view is None:
            return
        if name == "start":
            self.host.send(StartGame())
        elif name == "continue":
            self.action_continue()
        elif name == "again":
            self.host.send(PlayAgain())
        elif name == "leave":
            self.action_leave()
        elif name.startswith("bid:") and self.answered is None:
            self._send(Bid(bid=name[4:]))
        elif name == "call":
            self._open_call()
        elif name.startswith("chelem:") and self.answered is None:
            self._send(Chelem(declare=name == "chelem:yes"))
        elif name == "ecart":
            self._confirm_ecart()
        elif name == "clear":
            hand = self.query_one("#hand", HandWidget)
            hand.picked = []
            hand.refresh()
            self._refresh_pick_buttons()
        elif name.startswith("poignee:"):
            self._start_poignee(int(name[8:]))
        elif name == "poignee-show":
            self._show_poignee()
        elif name == "poignee-cancel":
            self.pick_kind = ""
            self._draw(view)

    def _open_call(self) -> None:
        """The call dialog (5 players): the card chosen is sent, Esc leaves the button."""
        view = self.view
        if view is None or self.answered is not None or not view.legal.calls:
            return
        key = self._decision_key(view)

        def done(card: str | None) -> None:
            now = self.view
            if card and now is not None and self._decision_key(now) == key and not self.answered:
                self._send(Call(card=card))

        self._ask(CallDialog(view), done)

    def _start_poignee(self, size: int) -> None:
        view = self.view
        if view is None or size not in view.legal.poignee_sizes:
            return
        self.pick_kind = "poignee"
        self.poignee_size = size
        hand = self.query_one("#hand", HandWidget)
        hand.show(
            view.hand,
            view.legal.poignee_cards,
            "pick",
            limit=size,
            picked=facts.poignee_default(view.legal, size),
        )
        self._draw(view)
        self.say(
            _("Pick the {n} cards to show (the lowest trumps are chosen), then Show.").format(
                n=size
            )
        )

    def _show_poignee(self) -> None:
        view = self.view
        picked = list(self.query_one("#hand", HandWidget).picked)
        if view is None:
            return
        problem = facts.poignee_problem(picked, view.legal, self.poignee_size)
        if problem:
            self.say(problem, error=True)
            return
        self.pick_kind = ""
        self._send(Poignee(cards=picked))

    # -- key bindings ----------------------------------------------------------------------

    def action_last_trick(self) -> None:
        self.show_last = not self.show_last
        if self.view is not None:
            self._draw(self.view)
            if self.show_last and not facts.last_trick(self.view.deal):
                self.say(_("No trick has been played yet."))

    def action_poignee(self) -> None:
        view = self.view
        if view is None or not view.legal.poignee_sizes or self.answered is not None:
            self.say(_("No poignée to show now (only before your first card, with 10+ trumps)."))
            return
        self._start_poignee(view.legal.poignee_sizes[0])

    def action_continue(self) -> None:
        """The result is read: the next deal may come (``ready``)."""
        if self.view is not None and facts.reading_now(self.view):
            self.host.send(Ready())

    def action_retry(self) -> None:
        if self.host.link_status.phase == "online":  # a priority key, before the hand's
            raise SkipAction()  # codes: online it is the hand's (French R, Roi)
        self.host.retry_now()

    def action_tournament(self) -> None:
        self.host.tournaments.show()

    def action_back(self) -> None:
        """Esc: close what is open on the table before ever asking to leave."""
        if self.show_last:
            self.action_last_trick()
        elif self.pick_kind == "poignee" and self.view is not None:
            self.pick_kind = ""
            self._draw(self.view)
        else:
            self.action_leave()

    def action_leave(self) -> None:
        view = self.view
        if view is not None and view.status in ("finished", "closed"):
            # After the game there is nothing to lose: leaving is what the
            # player wants, without a question.
            self.host.leave_table(Leave())
            return
        playing = view is not None and view.status in ("playing", "between_deals")
        question = wording.LEAVE_QUESTION
        if playing and view is not None and view.you is not None:
            # The last person leaving a table of friends closes it: bots do
            # not play on for nobody (a tournament or daily seat is kept).
            last = not self.ranked(view) and facts.alone(view)
            question += "\n" + (wording.LEAVE_LAST if last else wording.LEAVE_MID_GAME)

        def done(yes: bool | None) -> None:
            if yes:
                self.host.leave_table(Leave())

        # Stay has the focus: Esc then Enter must not give the seat away.
        self.app.push_screen(
            Confirm(question, yes=wording.LEAVE, no=wording.STAY, safe=False), done
        )
