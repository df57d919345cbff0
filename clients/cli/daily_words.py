"""Words for a person about the daily game and the leaderboards.

Every sentence the daily result, the leaderboard and the profile screens
show is here (the key commands' are in ``key_words.py``), in English msgids
marked for the catalogs (docs/TRANSLATING.md). As in ``wording.py``, a constant is read through
``__getattr__`` and so translated when it is used, never at import; counted
texts go through ``ngettext`` so that each language chooses its plural form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len

from clients.cli.i18n import N_, _, deep, ngettext, pgettext
from protocol.views import DailyDealLine, DailyResultView, LeaderboardLine

_MARKED: dict[str, Any] = {}
"""The translatable constants by name, as English msgids (read through ``__getattr__``)."""


def __getattr__(name: str) -> Any:
    # PEP 562: ``daily_words.NAME`` for a marked constant is its translation now.
    if name in _MARKED:
        return deep(_MARKED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- counted pieces --------------------------------------------------------------------


def points(n: int) -> str:
    """``+164 points``, ``−1 point``: always signed (a score against the others),
    with a real minus sign, as the table's scores are."""
    signed = f"{n:+d}".replace("-", "\N{MINUS SIGN}")
    return ngettext("{points} point", "{points} points", abs(n)).format(points=signed)


def days(n: int) -> str:
    """``5 days``: days of daily games played."""
    return ngettext("{n} day", "{n} days", n).format(n=n)


def number(value: float, decimals: int, sign: bool = False) -> str:
    """``73.25``, ``+1.5``, ``−12.5`` with this language's decimal separator
    (French ``73,25``) and a real minus sign."""
    # TRANSLATORS: the decimal separator, "." or "," as your language writes 73.25.
    separator = pgettext("decimal separator", ".")
    text = f"{value:{'+' if sign else ''}.{decimals}f}".replace(".", separator)
    return text.replace("-", "\N{MINUS SIGN}")


def percent(value: float, decimals: int = 2) -> str:
    """``73.25%`` as this language writes a percentage (French ``73,25 %``)."""
    # TRANSLATORS: a percentage; {value} is a number such as 73 or 73.25.
    return _("{value}%").format(value=number(value, decimals))


# -- the daily game -----------------------------------------------------------------

_MARKED.update(
    DAILY_STARTING=N_("Starting today's daily game…"),
    RESULT_PRACTICE=N_("Practice (your ranked game of the day is already played): not ranked."),
    RESULT_KEYS=N_("l leaderboard · Esc close"),
    PRACTICE_QUESTION=N_(
        "You have played today's daily game. Play a practice game on the same deals? "
        "It is not ranked."
    ),
    PRACTICE_YES=N_("Practice"),
    PRACTICE_LEFT=N_("You left the practice game."),
    DAILY_LEFT=N_("Your daily game waits for you: d in the lobby takes you back to it."),
)


def result_title(day: str) -> str:
    return _("Daily game {day}").format(day=day)


@dataclass(frozen=True)
class Comparison:
    """A deal's result against the *other* results on it."""

    others: int
    beaten: int | None
    """How many of them it beats; None when the message does not tell exactly."""
    tied: int | None


def comparison(d: DailyDealLine) -> Comparison:
    """How many other results ``d`` beats and ties.

    The server sends them (``others``, ``beaten``, ``tied``; docs/PROTOCOL.md).
    A server from before those fields leaves ``others`` at 0 with ``players``
    above 1: then only ``players`` (ours included) and ``percent`` =
    100 × (beaten + tied / 2) / others are known, one equation with two
    unknowns, exact only with one other (lost, tied, beaten), at 0% and at
    100%; otherwise the counts stay unknown (None) and the percentage is said.
    """
    if d.others > 0 or d.players <= 1:
        return Comparison(d.others, d.beaten, d.tied)
    others = d.players - 1
    halves = round(2 * d.percent * others / 100)  # 2 × (beaten + tied / 2)
    if others == 1:
        return Comparison(1, halves // 2, halves % 2)
    if halves <= 0:
        return Comparison(others, 0, 0)
    if halves >= 2 * others:
        return Comparison(others, others, 0)
    return Comparison(others, None, None)


def _compared(d: DailyDealLine) -> str:
    c = comparison(d)
    n = c.others
    if n == 0:
        return _("the first result on this deal today")
    if c.beaten is None or c.tied is None:
        # TRANSLATORS: the exact counts are not known; a tie counts as half a result beaten.
        return ngettext(
            "better than {percent} of {others} other (ties half)",
            "better than {percent} of {others} others (ties half)",
            n,
        ).format(percent=percent(d.percent, 0), others=n)
    if c.tied == 0 and c.beaten == 0:
        return ngettext(
            "behind the {others} other player", "behind all {others} other players", n
        ).format(others=n)
    if c.tied == 0:
        return ngettext(
            "better than {beaten} of {others} other player",
            "better than {beaten} of {others} other players",
            n,
        ).format(beaten=c.beaten, others=n)
    if c.tied == n:
        return ngettext(
            "tied with the {others} other player",
            "tied with all {others} other players",
            n,
        ).format(others=n)
    return ngettext(
        "better than {beaten} of {others} other, tied with {tied}",
        "better than {beaten} of {others} others, tied with {tied}",
        n,
    ).format(beaten=c.beaten, others=n, tied=c.tied)


def deal_line(d: DailyDealLine, annulled: bool = False) -> str:
    """'Deal 2: +164 points, better than 30 of 40 other players'; an annulled
    deal says so instead of "+0 points" (it still counts, at 0)."""
    # TRANSLATORS: {result} is "+164 points" or "annulled"; {comparison} is
    # "better than 3 of 4 other players", "tied with the 1 other player"...
    return _("Deal {deal}: {result}, {comparison}").format(
        deal=d.deal,
        result=pgettext("a deal's result", "annulled") if annulled else points(d.points),
        comparison=_compared(d),
    )


def result_summary(r: DailyResultView) -> str:
    if r.deals and all(comparison(d).others == 0 for d in r.deals):
        # Nobody to be compared with: an average of 50% would mean nothing.
        return _("Your day: first to play today, {points} in all.").format(points=points(r.points))
    return _("Your day: {percent} on average, {points} in all.").format(
        percent=percent(r.percent), points=points(r.points)
    )


# -- leaderboards ---------------------------------------------------------------------

_MARKED.update(
    PERIODS={
        "today": N_("Today"),
        "yesterday": N_("Yesterday"),
        "week": N_("7 days"),
        "all": N_("All time"),
    },
    BOARD_TITLE=N_("Leaderboard"),
    BOARD_EMPTY={
        "today": N_("Nobody has finished today's daily game yet: d in the lobby to be the first."),
        "yesterday": N_("Nobody played yesterday's daily game."),
        "week": N_("Nobody has played 3 days of the last 7 yet (3 days to be listed)."),
        "all": N_("Nobody has played 3 days yet (3 days to be listed)."),
    },
    BOARD_KEYS=N_("1-4 or ←/→ period · PgUp/PgDn page · u profile · Esc back"),
    BOARD_LOADING=N_("Asking the server…"),
    COLUMNS={
        # TRANSLATORS: the leaderboard's column heads: position, name, mean percentage,
        # points (today, yesterday) or days played (7 days, all time). Keep them short:
        # the columns are 4, 28, 7 and 7 cells wide.
        "position": N_("#"),
        "name": N_("Player"),
        "percent": N_("%"),
        "points": N_("Points"),
        "days": N_("Days"),
    },
)


def board_page(page: int, pages: int, total: int) -> str:
    if pages <= 1:
        return ngettext("{n} player", "{n} players", total).format(n=total)
    return ngettext(
        "page {page} of {pages} · {n} player", "page {page} of {pages} · {n} players", total
    ).format(page=page + 1, pages=pages, n=total)


def board_days(first: str, last: str) -> str:
    if not last:
        return ""
    if not first:
        return _("every day to {last}").format(last=last)
    return last if first == last else _("{first} to {last}").format(first=first, last=last)


def _second(line: LeaderboardLine, period: str) -> str:
    """Days played on the long boards, points on a day's board."""
    return days(line.days) if period in ("week", "all") else points(line.points)


def own_line(line: LeaderboardLine | None, guest: bool, period: str) -> str:
    if guest:
        return _("You play as a guest: guests enter no leaderboard.")
    if line is None:
        if period in ("week", "all"):
            return _("You are not listed yet (3 days of daily games to be listed).")
        if period == "yesterday":
            return _("You did not finish yesterday's daily game.")
        return _("You are not on this board: d in the lobby plays today's game.")
    return _("You: #{position}, {percent}, {second}.").format(
        position=line.position, percent=percent(line.percent), second=_second(line, period)
    )


# -- the profile ------------------------------------------------------------------------

_MARKED.update(
    PROFILE_TITLE=N_("Profile"),
    PROFILE_GUEST=N_(
        "You play as a guest on this server: no name kept, no leaderboard. Connect "
        "without --guest to become a player."
    ),
    PROFILE_BOARDS=N_("On the server's leaderboards"),
    PROFILE_LOCAL=N_("Your daily games played from this computer"),
    PROFILE_NO_LOCAL=N_("No daily game finished from this computer yet."),
)


def labelled(pairs: list[tuple[str, str]]) -> list[str]:
    """``label value`` lines, the values aligned one cell after the widest label
    (measured in cells: a Chinese or Korean character takes two)."""
    width = max((cell_len(label) for label, _value in pairs), default=0) + 1
    return [label + " " * (width - cell_len(label)) + value for label, value in pairs]


def period_label(period: str) -> str:
    # TRANSLATORS: a leaderboard's period as a label: "Today:", "7 days:".
    return _("{period}:").format(period=__getattr__("PERIODS").get(period, period))


def profile_boards(lines: dict[str, LeaderboardLine | None], periods: tuple[str, ...]) -> list[str]:
    """Our line on each board, or that it is not listed, or that it is still asked for."""
    pairs = []
    for period in periods:
        if period not in lines:
            value = _("Asking the server…")
        elif (line := lines[period]) is None:
            value = _("not listed")
        else:
            value = _("#{position}, {percent}, {second}").format(
                position=line.position, percent=percent(line.percent), second=_second(line, period)
            )
        pairs.append((period_label(period), value))
    return labelled(pairs)


def profile_stats(
    games: int, ranked: int, deals: int, taken: int, made: int, mean: float | None
) -> list[str]:
    rate = (
        _("{percent} ({made} of {taken})").format(
            percent=percent(100 * made / taken, 0), made=made, taken=taken
        )
        if taken
        else _("never taker yet")
    )
    return labelled(
        [
            (
                _("Games:"),
                # TRANSLATORS: games played, of which {ranked} were ranked ("3 (2 ranked)").
                ngettext("{games} ({ranked} ranked)", "{games} ({ranked} ranked)", ranked).format(
                    games=games, ranked=ranked
                ),
            ),
            (_("Deals:"), str(deals)),
            (_("Taker success:"), rate),
            (
                _("Mean score:"),
                _("{mean} per deal").format(mean=number(mean, 1, sign=True))
                if mean is not None
                else "—",
            ),
        ]
    )
