"""Words for a person about player keys, the daily game and the leaderboards.

Every sentence the key commands, the daily result, the leaderboard and the
profile screens show is here, so that one place holds them when they move
to translation catalogs.
"""

from __future__ import annotations

from protocol.views import DailyDealLine, DailyResultView, LeaderboardLine

# -- atout key ----------------------------------------------------------------------

EXPORT_WARNING = (
    "This is your player key for {url}. It is a secret: whoever has it plays as you "
    "there. Paste it only into `atout key import` on a machine of your own."
)
NO_KEY = (
    "atout: no player key for {url} yet. Connect once (`atout connect {url}` or "
    "`atout daily {url}`) to make one, or import yours with `atout key import`."
)
IMPORTED = "Player key for {url} saved in {path}. Connect to play as its player."
SAME_KEY = "That key is already the one for {url}; nothing changed."
REPLACE_REFUSED = (
    "atout: {url} already has another player key here. Export it first if you may "
    "need it again (`atout key export {url}`), then import with --replace."
)
FORGOTTEN = "Player key for {url} forgotten; the next connection makes a new player."
NOTHING_TO_FORGET = "No player key for {url}; nothing to forget."
KEY_FILE_PROBLEM = "atout: cannot use the key file: {error}"


def key_hint(code: str, url: str) -> str:
    """What to do next when a server refuses our key (appended to its message)."""
    match code:
        case "name_taken":
            return " Choose another name with --name."
        case "unknown_key":
            return (
                f" Import your key for it (`atout key import {url} KEY`), or forget this one"
                f" to become a new player (`atout key forget {url}`)."
            )
        case "bad_key":
            return f" The key file is damaged; `atout key forget {url}` makes a new player."
    return ""


# -- the daily game -----------------------------------------------------------------

DAILY_STARTING = "Starting today's daily game…"
DAILY_GUEST = "The daily game needs a player key: run `atout daily` without --guest."
RESULT_TITLE = "Daily game {day}"
RESULT_PRACTICE = "Practice (your ranked game of the day is already played): not ranked."
RESULT_KEYS = "l leaderboard · Esc close"


def deal_line(d: DailyDealLine) -> str:
    """'Deal 2: +164 points, better than 73% of 41 players'."""
    points = f"Deal {d.deal}: {d.points:+d} points"
    if d.players <= 1:
        return f"{points}, the first result on this deal today"
    return f"{points}, better than {d.percent:.0f}% of {d.players} players"


def result_summary(r: DailyResultView) -> str:
    return f"Your day: {r.percent:.2f}% on average, {r.points:+d} points in all."


# -- leaderboards ---------------------------------------------------------------------

PERIODS = {"today": "Today", "yesterday": "Yesterday", "week": "7 days", "all": "All time"}
BOARD_TITLE = "Leaderboard"
BOARD_EMPTY = {
    "today": "Nobody has finished today's daily game yet: d in the lobby to be the first.",
    "yesterday": "Nobody played yesterday's daily game.",
    "week": "Nobody has played 3 days of the last 7 yet (3 days to be listed).",
    "all": "Nobody has played 3 days yet (3 days to be listed).",
}
BOARD_KEYS = "1-4 or ←/→ period · PgUp/PgDn page · u profile · Esc back"
BOARD_LOADING = "Asking the server…"
COLUMNS = ("#", "Player", "%", "Points")
COLUMNS_PERIOD = ("#", "Player", "%", "Days")


def board_page(page: int, pages: int, total: int) -> str:
    if pages <= 1:
        return f"{total} player{'s' if total != 1 else ''}"
    return f"page {page + 1} of {pages} · {total} players"


def board_days(first: str, last: str) -> str:
    if not last:
        return ""
    if not first:
        return f"every day to {last}"
    return last if first == last else f"{first} to {last}"


def own_line(line: LeaderboardLine | None, guest: bool, period: str) -> str:
    if guest:
        return "You play as a guest: guests enter no leaderboard."
    if line is None:
        if period in ("week", "all"):
            return "You are not listed yet (3 days of daily games to be listed)."
        if period == "yesterday":
            return "You did not finish yesterday's daily game."
        return "You are not on this board: d in the lobby plays today's game."
    second = f"{line.days} days" if period in ("week", "all") else f"{line.points:+d} points"
    return f"You: #{line.position}, {line.percent:.2f}%, {second}."


# -- the profile ------------------------------------------------------------------------

PROFILE_TITLE = "Profile"
PROFILE_GUEST = (
    "You play as a guest on this server: no name kept, no leaderboard. Connect "
    "without --guest to become a player."
)
PROFILE_KEYS = "l leaderboard · Esc back"
PROFILE_BOARDS = "On the server's leaderboards"
PROFILE_LOCAL = "Your daily games played from this computer"
PROFILE_NO_LOCAL = "No daily game finished from this computer yet."


def profile_board(period: str, line: LeaderboardLine | None) -> str:
    label = f"{PERIODS.get(period, period)}:"
    if line is None:
        return f"{label:<11}not listed"
    second = f"{line.days} days" if period in ("week", "all") else f"{line.points:+d} points"
    return f"{label:<11}#{line.position}, {line.percent:.2f}%, {second}"


def profile_stats(
    games: int, ranked: int, deals: int, taken: int, made: int, mean: float | None
) -> list[str]:
    rate = f"{100 * made / taken:.0f}% ({made} of {taken})" if taken else "never taker yet"
    return [
        f"Games:         {games} ({ranked} ranked)",
        f"Deals:         {deals}",
        f"Taker success: {rate}",
        "Mean score:    " + (f"{mean:+.1f} per deal" if mean is not None else "—"),
    ]
