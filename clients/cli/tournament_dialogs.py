"""The tournament's small modal screens: join one by its code (or go on to
create one), the new tournament's form, and the host's pick of a player to
remove. As in ``dialogs.py``, each answers through ``dismiss`` (None when
cancelled) and sends nothing itself: the screen that opened it acts.

The form checks the settings against ``protocol/tournaments.py``'s limits
(``tournament_words.settings_problem``) so a person hears of a mistake at
once; the server checks again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from clients.cli import tournament_words as words
from clients.cli.dialogs import BOT_LEVELS, DIALOG_CSS, Form, bot_level_select
from clients.cli.i18n import N_, Translated, _
from protocol.tournaments import TEAM_NAME_MAX, TEAM_SIZES, TournamentPlayer, TournamentSettings

TOURNAMENT_DIALOG_CSS = (
    DIALOG_CSS
    + """
NewTournament, JoinTournament, RemovePlayer {
    align: center middle;
    background: $background 60%;
}
#new-tournament, #join-tournament { width: 64; }
#remove-player { width: 56; }
#remove-player OptionList { height: auto; max-height: 14; }
#remove-player Static { width: 100%; }
.dialog #rounds, .dialog #t-deals, .dialog #minutes { width: 6; }
.dialog #format, .dialog #fill { width: 48; }
.dialog #teams { width: 20; }
.dialog #my-team { width: 26; margin-left: 2; }
"""
)


@dataclass(frozen=True)
class TournamentEntry:
    """How a person enters a tournament: create one with ``settings`` (and
    join it, as its host plays too), or join the one of ``code``; ``team``:
    theirs, in a tournament of teams."""

    settings: TournamentSettings | None = None
    code: str = ""
    team: str = ""


JoinChoice = TournamentEntry | Literal["create"]
JoinAnswer = JoinChoice | None
"""The join dialog's answer: the tournament to join, or "create" for the form."""


def code_of(text: str) -> str:
    """A code as typed (spaces, lower case) as the host sees it."""
    return "".join(text.split()).upper()


class JoinTournament(Form[JoinChoice]):
    """A tournament's code (and team), or on to a new tournament."""

    DEFAULT_CSS = TOURNAMENT_DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, code: str = "") -> None:
        super().__init__()
        self.code = code
        """The tournament we were last in, offered again (Enter goes back to it)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="join-tournament"):
            yield Label(Text(words.JOIN_TITLE, style="bold"))
            with Horizontal(classes="row"):
                yield Label(_("Code"), classes="label")
                yield Input(self.code, placeholder="K7QX2P", id="code", compact=True, max_length=16)
            with Horizontal(classes="row"):
                yield Label(_("Team"), classes="label")
                yield Input(
                    placeholder=_("only if it has teams"),
                    id="team",
                    compact=True,
                    max_length=TEAM_NAME_MAX,
                )
            yield Static("", classes="error", id="problem")
            with Horizontal(classes="buttons"):
                yield Button(_("Join"), id="join", variant="primary", compact=True)
                yield Button(_("New tournament…"), id="create", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#code", Input).focus()

    @on(Button.Pressed, "#create")
    def _create(self) -> None:
        self.dismiss("create")

    @on(Input.Submitted)
    @on(Button.Pressed, "#join")
    def _join(self) -> None:
        code = code_of(self.query_one("#code", Input).value)
        team = " ".join(self.query_one("#team", Input).value.split())
        problem = self.query_one("#problem", Static)
        if not code:
            problem.update(words.CODE_MISSING)
            return
        if bad := words.team_problem(team):
            problem.update(bad)
            return
        self.dismiss(TournamentEntry(code=code, team=team))


class NewTournament(Form[TournamentEntry]):
    """The host's form: name, format, rounds, deals a round, teams (and the
    host's own), seating, bot level, and the minutes before bots may finish
    a round."""

    DEFAULT_CSS = TOURNAMENT_DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, default_name: str) -> None:
        super().__init__()
        self.default_name = default_name

    def compose(self) -> ComposeResult:
        defaults = TournamentSettings()
        formats = words.FORMAT_CHOICES
        seating = words.SEATING_CHOICES
        with Vertical(classes="dialog", id="new-tournament"):
            yield Label(Text(words.NEW, style="bold"))
            with Horizontal(classes="row"):
                yield Label(_("Name"), classes="label")
                yield Input(self.default_name, id="name", compact=True, max_length=words.NAME_MAX)
            with Horizontal(classes="row"):
                yield Label(_("Format"), classes="label")
                yield Select(
                    [(formats[f], f) for f in ("free", "duplicate")],
                    value="free",
                    allow_blank=False,
                    id="format",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Label(_("Rounds"), classes="label")
                yield Input(
                    str(defaults.rounds), id="rounds", compact=True, type="integer", max_length=2
                )
            with Horizontal(classes="row"):
                yield Label(_("Deals"), classes="label")
                yield Input(
                    str(defaults.deals), id="t-deals", compact=True, type="integer", max_length=2
                )
                yield Label(" " + _("each round, at every table"))
            with Horizontal(classes="row"):
                yield Label(_("Teams"), classes="label")
                yield Select(
                    [(words.teams(n), n) for n in TEAM_SIZES],
                    value=0,
                    allow_blank=False,
                    id="teams",
                    compact=True,
                )
                yield Input(
                    placeholder=_("your team"),
                    id="my-team",
                    compact=True,
                    max_length=TEAM_NAME_MAX,
                )
            with Horizontal(classes="row"):
                yield Label(_("Seating"), classes="label")
                yield Select(
                    [(seating[b], b) for b in (False, True)],
                    value=False,
                    allow_blank=False,
                    id="fill",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Label(_("Bots"), classes="label")
                yield bot_level_select()
            with Horizontal(classes="row"):
                yield Label(_("Time limit"), classes="label")
                minutes = f"{defaults.round_timeout / 60:.0f}"
                yield Input(minutes, id="minutes", compact=True, type="integer", max_length=4)
                yield Label(" " + _("minutes, then bots may finish the round"))
            yield Static("", classes="error", id="problem")
            with Horizontal(classes="buttons"):
                yield Button(_("Create"), id="create", variant="primary", compact=True)
                yield Button(_("Cancel"), id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    def entry(self) -> TournamentEntry | str:
        """The tournament the form asks for, or what is wrong with it."""
        try:
            rounds = int(self.query_one("#rounds", Input).value or "0")
            deals = int(self.query_one("#t-deals", Input).value or "0")
            minutes = int(self.query_one("#minutes", Input).value or "0")
        except ValueError:
            return str(words.WHOLE_NUMBERS)
        fmt = self.query_one("#format", Select).value
        teams = self.query_one("#teams", Select).value
        level = self.query_one("#bots", Select).value
        settings = TournamentSettings(
            name=" ".join(self.query_one("#name", Input).value.split()),
            rounds=rounds,
            deals=deals,
            format="duplicate" if fmt == "duplicate" else "free",
            team_size=teams if isinstance(teams, int) else 0,
            bot_level=level if level in BOT_LEVELS else "normal",
            bots_fill=self.query_one("#fill", Select).value is True,
            round_timeout=60.0 * minutes,
        )
        team = " ".join(self.query_one("#my-team", Input).value.split())
        problem = words.settings_problem(settings) or words.team_problem(team, settings.team_size)
        return problem or TournamentEntry(settings=settings, team=team)

    @on(Input.Submitted)
    @on(Button.Pressed, "#create")
    def _create(self) -> None:
        entry = self.entry()
        if isinstance(entry, str):
            self.query_one("#problem", Static).update(entry)
            return
        self.dismiss(entry)


class RemovePlayer(Translated, ModalScreen[str | None]):
    """The host picks a player to remove; answers their player id."""

    DEFAULT_CSS = TOURNAMENT_DIALOG_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, players: list[TournamentPlayer]) -> None:
        super().__init__()
        self.players = players

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="remove-player"):
            yield Static(Text(words.REMOVE_TITLE, style="bold"))
            yield OptionList(
                *[
                    Option(f"{p.name} · {p.team}" if p.team else p.name, id=p.player_id)
                    for p in self.players
                ]
            )
            yield Static(Text(_("Enter picks · Esc cancels"), style="dim"))

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
