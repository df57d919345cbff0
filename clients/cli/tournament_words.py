"""Words for a person about tournaments: the tournament screen, its dialogs,
the line a finished table shows while its round goes on, and the checks of
a host's settings (the same sentences for ``atout tournament create`` and
the lobby's form).

As in ``wording.py``, a constant is an English msgid read through
``__getattr__`` and so translated when it is used, never at import; counted
texts go through ``ngettext``.
"""

from __future__ import annotations

import math
import time
from typing import Any

from clients import server_clock
from clients.cli.daily_words import number, percent
from clients.cli.i18n import N_, _, deep, ngettext
from protocol.limits import TABLE_NAME_MAX
from protocol.tournaments import (
    MAX_ROUND_DEALS,
    MAX_ROUND_TIMEOUT,
    MAX_ROUNDS,
    TEAM_NAME_MAX,
    TEAM_SIZES,
    TournamentSettings,
    TournamentView,
)

NAME_MAX = TABLE_NAME_MAX
"""Characters in a tournament's name: as a table's (the server's rule)."""
MIN_ROUND_TIMEOUT = 60.0
"""Seconds, at least, before a host may have bots finish a round (the
server's rule, docs/TOURNAMENTS.md §2)."""

_MARKED: dict[str, Any] = {}
"""The translatable constants by name, as English msgids (read through ``__getattr__``)."""


def __getattr__(name: str) -> Any:
    # PEP 562: ``tournament_words.NAME`` for a marked constant is its translation now.
    if name in _MARKED:
        return deep(_MARKED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_MARKED.update(
    TITLE=N_("Tournament"),
    FORMATS={"free": N_("Free"), "duplicate": N_("Duplicate")},
    FORMAT_CHOICES={
        "free": N_("free: points, each table its own deals"),
        "duplicate": N_("duplicate: the same deals at every table"),
    },
    SEATING_CHOICES={
        False: N_("tables of 3, 4 or 5"),
        True: N_("tables of 4, bots filling"),
    },
    CREATING=N_("Creating the tournament…"),
    NOTHING=N_("No tournament here: Esc for the lobby, where t creates or joins one."),
    NOT_IN_ONE=N_("You are in no tournament: t in the lobby creates or joins one."),
    NO_STANDINGS=N_("No standings yet: they count from the first deals played."),
    GUEST=N_("Guests cannot enter a tournament: connect without --guest to play as yourself."),
    # The screen's panels and buttons.
    STANDINGS=N_("Standings"),
    FINAL_STANDINGS=N_("Final standings"),
    TEAMS=N_("Teams"),
    HOST=N_("host"),
    REMOVED=N_("removed"),
    START=N_("Start"),
    REMOVE=N_("Remove a player"),
    FINISH=N_("Finish with bots"),
    YOUR_TABLE=N_("Your table"),
    LEAVE=N_("Leave tournament"),
    # The host's questions.
    FINISH_QUESTION=N_(
        "Have bots play the deals still unplayed at every table of this round? "
        "The round then ends at once."
    ),
    LEAVE_QUESTION=N_("Leave this tournament before it starts?"),
    REMOVE_TITLE=N_("Remove which player? They get no seat from the next round on."),
    REMOVE_NOBODY=N_("Nobody to remove."),
    # The forms.
    NEW=N_("New tournament"),
    JOIN_TITLE=N_("Tournament: join one by its code, or create one"),
    CODE_MISSING=N_("Type the code the host sees on the tournament screen."),
    WHOLE_NUMBERS=N_("Rounds, deals and minutes are whole numbers."),
)

COLUMNS = {
    # TRANSLATORS: the standings' column heads: position, player (or team),
    # score (points, or the mean percentage in duplicate), deals played.
    # Keep them short: the columns are 3, 16, 8 and 5 cells wide.
    "position": N_("#"),
    "name": N_("Player"),
    "team": N_("Team"),
    "score": N_("Score"),
    "deals": N_("Deals"),
}


def column(key: str) -> str:
    return _(COLUMNS[key])


# -- settings: what they say, and whether they are allowed ----------------------------


def rounds(n: int) -> str:
    return ngettext("{n} round", "{n} rounds", n).format(n=n)


def deals_a_round(n: int) -> str:
    return ngettext("{n} deal a round", "{n} deals a round", n).format(n=n)


def teams(size: int) -> str:
    if size <= 0:
        return _("no teams")
    return _("teams of {n}").format(n=size)


def settings_line(s: TournamentSettings) -> str:
    """``Free · 3 rounds · 4 deals a round · teams of 2 · tables of 3, 4 or 5``."""
    parts = [
        str(__getattr__("FORMATS").get(s.format, s.format)),
        rounds(s.rounds),
        deals_a_round(s.deals),
        teams(s.team_size),
        str(__getattr__("SEATING_CHOICES")[bool(s.bots_fill)]),
    ]
    return " · ".join(parts)


def settings_problem(s: TournamentSettings) -> str | None:
    """What is wrong with a host's settings, for a person; None when the
    limits of ``protocol/tournaments.py`` allow them (the server checks again)."""
    if not 1 <= s.rounds <= MAX_ROUNDS:
        return _("A tournament has 1 to {n} rounds.").format(n=MAX_ROUNDS)
    if not 1 <= s.deals <= MAX_ROUND_DEALS:
        return _("A round has 1 to {n} deals.").format(n=MAX_ROUND_DEALS)
    if s.team_size not in TEAM_SIZES:
        return _("Teams are of 2 or 4 players (0: no teams).")
    if not MIN_ROUND_TIMEOUT <= s.round_timeout <= MAX_ROUND_TIMEOUT:
        return _(
            "A round's time limit is {least} to {most} seconds (a minute to {hours} hours)."
        ).format(
            least=f"{MIN_ROUND_TIMEOUT:.0f}",
            most=f"{MAX_ROUND_TIMEOUT:.0f}",
            hours=f"{MAX_ROUND_TIMEOUT / 3600:.0f}",
        )
    if len(s.name) > NAME_MAX:
        return _("A tournament's name is at most {n} characters.").format(n=NAME_MAX)
    return None


def team_problem(team: str, team_size: int | None = None) -> str | None:
    """What is wrong with a player's team; ``team_size``: the tournament's,
    when known (a joiner does not know it: the server says)."""
    if team_size == 0 and team:
        return _("This tournament has no teams: leave the team empty.")
    if team_size and not team:
        return _("A tournament of teams: name yours.")
    if len(team) > TEAM_NAME_MAX:
        return _("A team's name is at most {n} characters.").format(n=TEAM_NAME_MAX)
    return None


def default_name(player: str) -> str:
    return _("{name}'s tournament").format(name=player)


# -- the tournament as it stands -------------------------------------------------------


FOUR = 4
"""The table size tournament points are scaled to (server/tournament/standings.py)."""


def title(view: TournamentView) -> str:
    return view.settings.name or _("Tournament {code}").format(code=view.code)


def share(code: str, url: str) -> str:
    """The whole command a friend types, the code and this server's address
    (beside the big code, it needs no words: an 80-column line has no room)."""
    return f"atout tournament join {code} {url}"


def scaling_note(view: TournamentView) -> str:
    """Why the standings differ from a table's scores: in a free tournament
    with a table of 3 or 5, points are scaled to a table of four."""
    sizes = sorted({t.players for t in view.tables if t.players != FOUR})
    if view.settings.format != "free" or not sizes:
        return ""
    scales = ", ".join(f"×3/{n - 1} " + _("at {n}").format(n=n) for n in sizes)
    # TRANSLATORS: {scales} reads "×3/4 at 5" (or "×3/2 at 3, ×3/4 at 5").
    return _("Standings: points scaled to a table of four ({scales}).").format(scales=scales)


def recalled(view: TournamentView) -> str:
    """A tournament we joined, found again at start: where to see it."""
    return _("You are in the tournament {name}: t in the lobby shows it.").format(name=title(view))


def joining(code: str) -> str:
    return _("Joining tournament {code}…").format(code=code)


def status_line(view: TournamentView) -> str:
    """Where the tournament stands, in one sentence."""
    total = view.settings.rounds
    if view.status == "gathering":
        n = sum(1 for p in view.players if not p.removed)
        if view.you_host:
            return ngettext(
                "Gathering: {n} player so far; start when everyone is here.",
                "Gathering: {n} players so far; start when everyone is here.",
                n,
            ).format(n=n)
        return ngettext(
            "Gathering: {n} player so far; {host} starts the tournament.",
            "Gathering: {n} players so far; {host} starts the tournament.",
            n,
        ).format(n=n, host=view.host_name or _("the host"))
    if view.status == "finished":
        return ngettext(
            "Finished after {n} round: the final standings.",
            "Finished after {n} rounds: the final standings.",
            total,
        ).format(n=total)
    if view.waiting_for <= 0:
        return _("Round {round} of {rounds} is over: the next round is being seated…").format(
            round=view.round, rounds=total
        )
    return ngettext(
        "Round {round} of {rounds}: {n} table still playing.",
        "Round {round} of {rounds}: {n} tables still playing.",
        view.waiting_for,
    ).format(round=view.round, rounds=total, n=view.waiting_for)


def table_line(view: TournamentView) -> str:
    """What a finished table of ``view``'s round says while the others play
    (the table screen's prompt); the key opens the tournament screen."""
    total = view.settings.rounds
    if view.status == "finished":
        return _("The tournament is over — o: the final standings.")
    if view.waiting_for <= 0:
        return _("Round {round} of {rounds} is over: the next round is being seated…").format(
            round=view.round, rounds=total
        )
    return ngettext(
        "Round {round} of {rounds}: waiting for {n} table — o: standings",
        "Round {round} of {rounds}: waiting for {n} tables — o: standings",
        view.waiting_for,
    ).format(round=view.round, rounds=total, n=view.waiting_for)


ROUND_OVER_TOP = 3
"""The leaders a round's end names (then our own line, if further down)."""


def round_over(round_: int, view: TournamentView) -> str:
    """A round of ours ended (said as the next one seats us): the standings
    by name, the leaders and our own line, and the key to all of them."""
    fmt = view.settings.format
    lines = view.standings[:ROUND_OVER_TOP]
    lines += [x for x in view.standings[ROUND_OVER_TOP:] if x.you]
    board = " · ".join(f"{x.position}. {x.name} {score(x.score, fmt)}" for x in lines)
    return _("Round {round} is over: {standings} — o: standings").format(
        round=round_, standings=board
    )


def going_to(round_: int, table: int) -> str:
    return _("Round {round}: to your seat at table {table}…").format(round=round_, table=table)


def table_title(number_: int, played: int, deals: int, finished: bool) -> str:
    """``Table 2 · 3 of 4 deals``, or ``Table 2 · done``."""
    if finished:
        return _("Table {n} · done").format(n=number_)
    return _("Table {n} · {played} of {deals} deals").format(n=number_, played=played, deals=deals)


def rounds_title(round_: int, rounds_: int) -> str:
    return _("Round {round} of {rounds}").format(round=round_, rounds=rounds_)


def players_title(n: int) -> str:
    return _("Players ({n})").format(n=n)


def score(value: float, fmt: str) -> str:
    """The standings' score: points (free; whole when they are) or a mean percentage."""
    if fmt == "duplicate":
        return percent(value)
    return number(value, 0 if float(value).is_integer() else 2)


def finish_note(finish_at: float | None, now: float | None = None) -> str:
    """When the host may have bots finish the round: a time and a countdown, or now."""
    if finish_at is None:
        return ""
    now = server_clock.now() if now is None else now
    if finish_at <= now:
        return _("Bots may finish this round's unplayed deals now.")
    minutes = max(1, math.ceil((finish_at - now) / 60))
    at = time.strftime("%H:%M", time.localtime(server_clock.local(finish_at)))
    return ngettext(
        "Finish with bots from {time} (in {n} minute).",
        "Finish with bots from {time} (in {n} minutes).",
        minutes,
    ).format(time=at, n=minutes)


def start_question(n: int) -> str:
    return ngettext(
        "Start the tournament with {n} player? Nobody can join once it has started.",
        "Start the tournament with {n} players? Nobody can join once it has started.",
        n,
    ).format(n=n)


def remove_question(name: str) -> str:
    return _(
        "Remove {name} from the tournament? Their results so far still count; "
        "they get no seat from the next round on."
    ).format(name=name)
