"""Words for a person: contract names, annulment reasons, why a connection
closed, and what a server ``Error`` means.

The server's ``Error.message`` is already written for people; here we only
add context where a code alone says more than the message (a lost seat, a
refused connection) and keep the stable ``code`` visible so a report of a
problem names it exactly.
"""

from __future__ import annotations

from rich.text import Text

CONTRACTS = {
    "pass": "Pass",
    "prise": "Prise",
    "garde": "Garde",
    "garde_sans": "Garde sans",
    "garde_contre": "Garde contre",
}
MULTIPLIERS = {"prise": 1, "garde": 2, "garde_sans": 4, "garde_contre": 6}

BID_HELP = {
    "pass": "no contract",
    "prise": "×1, you take the chien",
    "garde": "×2, you take the chien",
    "garde_sans": "×4, chien unseen, counts for you",
    "garde_contre": "×6, chien unseen, counts against you",
}

ANNULMENTS = {
    "all_pass": "everyone passed",
    "petit_sec": "petit sec (the Petit alone)",
}

CHELEMS = {
    "declared_made": "chelem declared and made",
    "undeclared_made": "chelem made (undeclared)",
    "declared_failed": "chelem declared, failed",
    "defense": "the defense took every trick",
}

POIGNEE_NAMES = {10: "simple", 13: "double", 15: "triple"}
POIGNEE_BONUS = {10: 20, 13: 30, 15: 40}

TARGETS = (56, 51, 41, 36)
"""Points the taker needs with 0, 1, 2 or 3 bouts."""


def contract(code: str | None) -> str:
    if code is None:
        return ""
    return CONTRACTS.get(code, code)


def annulment(reason: str | None, who: str | None = None, you: bool = False) -> str:
    text = ANNULMENTS.get(reason or "", reason or "")
    if reason == "petit_sec" and (who or you):
        text = about("petit_sec", who or "", you)
    return f"Deal annulled: {text}; the next dealer deals."


# WebSocket close codes (docs/PROTOCOL.md) -> (what happened, reconnect?).
CLOSE_CODES: dict[int, tuple[str, bool]] = {
    1000: ("the server closed the connection", True),
    1001: ("the server is going away", True),
    1006: ("the connection was lost", True),
    1011: ("the server hit an error", True),
    1012: ("the server is restarting", True),
    1013: ("the server is full; trying again", True),
    4001: ("your seat was taken back from another window", False),
    4002: ("the connection was too slow to keep up", True),
    4003: ("this client is too old for the server: please update Atout", False),
    4004: ("the server expected a hello first (a client bug)", False),
    4005: ("too many messages were sent (flooding)", False),
}


def closed(code: int | None) -> tuple[str, bool]:
    """What a close code means for a person, and whether to reconnect."""
    if code is None:
        return ("the connection was lost", True)
    return CLOSE_CODES.get(code, (f"the connection closed (code {code})", True))


def error(code: str, message: str) -> str:
    """One line for an ``Error`` event: the message, then its code."""
    message = message.strip() or "the server refused that"
    return f"{message[0].upper()}{message[1:]} [{code}]"


def unreachable(exc: BaseException) -> str:
    """Why a connection attempt failed, in a few words, without a traceback."""
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status == 503:
        # The server answers but takes no one: it is stopping (a restart) or full.
        return "server restarting or full"
    if status is not None:
        return f"refused with HTTP {status}"
    if isinstance(exc, TimeoutError):
        return "no answer"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


# -- plurals -------------------------------------------------------------------------


def plural(n: int, one: str, many: str | None = None) -> str:
    """``1 deal``, ``2 deals``: the count and the word that goes with it."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


# -- the score sheet ----------------------------------------------------------------

SHEET = "Score sheet"
SHEET_HEAD_DEAL = "Deal"
SHEET_HEAD_CONTRACT = "Contract"
SHEET_TOTAL = "Total"
SHEET_EMPTY = "no deal finished yet"
SHEET_FOOT = "★ taker · Esc to close"
SHEET_ANNULLED = {"all_pass": "annulled: all passed", "petit_sec": "annulled: petit sec"}


def sheet_title(table: str, played: int, deals: int) -> Text:
    """``Score sheet — Alice's table · 1 of 8 deals played``."""
    return Text.assemble(
        (SHEET, "bold"), f" — {table} · {played} of {plural(deals, 'deal')} played"
    )


def sheet_contract(code: str | None, made: bool | None) -> str:
    return f"{contract(code)} {'made' if made else 'down'}"


def sheet_annulled(reason: str) -> str:
    return SHEET_ANNULLED.get(reason, f"annulled: {reason}")


# -- leaving and quitting -----------------------------------------------------------

LEAVE = "Leave"
STAY = "Stay"
QUIT = "Quit"
LEAVE_QUESTION = "Leave this table?"
LEAVE_MID_GAME = "A bot takes your seat until the end of the game."
QUIT_QUESTION = "Quit Atout in the middle of the game?"
QUIT_PLAY_SAVED = "Your game is saved: run atout play again to resume it where it is."
QUIT_SEAT_KEPT = (
    "Your seat is kept (a bot plays your turns meanwhile): run the same command "
    "again to take it back."
)
RESUME = "Resume"
NEW_GAME = "New game"


def resume_question(table: str, deal: int, deals: int, score: int) -> str:
    points = f"{score:+d}".replace("-", "−") if score else "0"
    return (
        f"You have an unfinished game: {table}, deal {deal} of {deals}, "
        f"your score {points}.\nResume it where you left it?"
    )


# -- the command line ----------------------------------------------------------------

CLI_DESCRIPTION = (
    "French Tarot for four, in a terminal.\n\n"
    "atout alone is atout play: a game against three bots on a local server,\n"
    "kept in a file so that it can be resumed. atout connect URL joins friends\n"
    "on a server (atout-server, or docker-compose: see docs/DEPLOY.md)."
)
CLI_EPILOG = (
    "examples:\n"
    "  atout                                  play now against three bots\n"
    "  atout play --bots strong --timer 30\n"
    "  atout connect ws://host:8765 --name Alice\n"
    "  atout connect http://host:8765 --profile bob   (http:// becomes ws://)"
)
BAD_PROFILE = "--profile needs a name"
BAD_DEALS = "--deals is 1 to 40"
BAD_TIMER = "--timer is 0 (none) to 600 seconds"
NO_TERMINAL = (
    "needs a terminal to draw the table; run it in a terminal window "
    "(a program can play through the protocol: docs/PROTOCOL.md)"
)


def bad_url(url: str) -> str:
    return f"{url!r} is not a server address (ws://host:port, wss://host, or host:port)"


def bad_name(most: int) -> str:
    return f"--name needs 1 to {most} characters"


CANNOT_REACH_HINT = "Is atout-server running there? Start it, or check the address. r: retry now"
CANNOT_REACH = "cannot reach the server"


# -- sentences about a player: one template for "you", one for anyone else ----------------
#
# Each entry is (for you, for another player). ``{who}`` is the other
# player's name; the other fields are filled by ``about``. A test renders
# every template both ways, so "You takes" cannot come back.

ABOUT: dict[str, tuple[str, str]] = {
    "deals": ("Deal {deal}: you deal.", "Deal {deal}: {who} deals."),
    "takes_trick": ("You take trick {trick}.", "{who} takes trick {trick}."),
    "takes_last_trick": (
        "You take the last trick ({trick}).",
        "{who} takes the last trick ({trick}).",
    ),
    "takes_contract": (
        "You take the contract: {contract}.",
        "{who} takes the contract: {contract}.",
    ),
    "shows_poignee": (
        "You show a {size}-card poignée: {cards}",
        "{who} shows a {size}-card poignée: {cards}",
    ),
    "declares_chelem": ("You declare a chelem!", "{who} declares a chelem!"),
    "petit_sec": (
        "you hold the Petit alone (petit sec)",
        "{who} holds the Petit alone (petit sec)",
    ),
    "bidding": ("You are bidding…", "{who} is bidding…"),
    "ecart_wait": ("You take the chien and discard 6…", "{who} takes the chien and discards 6…"),
    "chelem_wait": ("You decide on a chelem…", "{who} decides on a chelem…"),
    "to_play": ("Your turn…", "{who} to play…"),
    "away_to_play": (
        "You are away: a bot plays for you soon…",
        "{who} is away: a bot plays for them soon…",
    ),
    "waits_for_start": (
        "Start when your friends are seated; empty seats get bots.",
        "Waiting for {who} to start the game.",
    ),
}


def about(key: str, who: str, you: bool, **fields: object) -> str:
    """The sentence ``key`` about ``who`` (or about you), fields filled in."""
    mine, theirs = ABOUT[key]
    return (mine if you else theirs).format(who=who, **fields)


# -- prompts and rules -------------------------------------------------------------------

ECART_RULE = "no King, no bout; trumps only if you must, shown face up"
ECART_REFUSAL = "never a King or a bout; trumps only when you have no other card"


def ecart_prompt(forced: int) -> str:
    """The whole écart rule in one line (80 columns)."""
    if forced:
        return f"Discard 6 (no King, no bout): {plural(forced, 'trump')} forced, shown face up."
    return f"Discard 6 cards ({ECART_RULE})."


CONNECTED_AGAIN = "Connected again."


def typed(code: str, complete: bool) -> str:
    """Under the hand while a card code is typed."""
    return f"typed: {code} · Enter to choose it" if complete else f"typed: {code}…"


# -- the waiting table ----------------------------------------------------------------------

WAITING_TITLE = "Waiting to start"
INVITE_CODE = "Invite code: "
INVITE_FRIENDS = "Friends run:"


def invite_then(code: str) -> str:
    return f"then i, and type {code}"


# -- help (the ? key) -------------------------------------------------------------------------

HELP: list[tuple[str, list[str]]] = [
    (
        "Playing",
        [
            "← →  move between the cards you may play (others are dimmed)",
            "Enter, Space or a click  play the card (or pick it for the écart)",
            "type a code, then Enter: KS  10H  CD (Knight ♦)  T21  EX",
        ],
    ),
    (
        "At the table",
        [
            "l last trick   b score sheet   h past deals   m chat",
            "p poignée (when offered)   r reconnect now   Esc leave   ^q quit",
        ],
    ),
    (
        "Reading the screen",
        [
            "▶ whose turn   D dealer   ★ taker",
            "trumps: 21* is yours (also in reverse video), · is gone",
        ],
    ),
    (
        "Bidding",
        [
            "Each player speaks once, in turn; a bid must beat the bids before.",
            "Prise ×1, Garde ×2: the taker takes the chien (6 cards), discards 6.",
            "Garde sans ×4: the chien is not seen and counts for the taker;",
            "Garde contre ×6: it is not seen and counts for the defense.",
            "If all four pass, the deal is annulled and the next dealer deals.",
        ],
    ),
    (
        "Winning a deal",
        [
            "The taker plays alone against the other three. The taker needs",
            "56 / 51 / 41 / 36 card points with 0 / 1 / 2 / 3 bouts",
            "(the bouts: the 21, the Petit T1 and the Excuse).",
        ],
    ),
    (
        "Écart",
        [
            "After a prise or a garde the taker discards 6 cards face down:",
            "never a King or a bout; trumps only when there is no other card",
            "to discard, and then they are shown face up to everyone.",
        ],
    ),
    (
        "Poignée",
        [
            "Before your first card you may show 10, 13 or 15 trumps",
            "(simple, double, triple: +20, +30, +40 for the side that wins the deal).",
            "The Excuse may stand for a trump only if you show every trump.",
        ],
    ),
    (
        "Chelem",
        [
            "Taking all 18 tricks. The taker may declare it before the first card:",
            "+400 if made, −200 if not; made without declaring: +200.",
            "Petit au bout: the Petit in the last trick: 10 × the contract's multiplier",
            "for the side that takes that trick.",
        ],
    ),
]
HELP_FOOT = "↑ ↓ to scroll · Esc to close"


# -- the trump tracker ----------------------------------------------------------------------

TRACKER_TITLE = "Trumps "
TRACKER_LEGEND = "n* yours · gone"


# -- past deals (the h key) -------------------------------------------------------------------

HISTORY_TITLE = "Past deals"
HISTORY_EMPTY = "No deal has finished at this table yet."
HISTORY_UNREADABLE = "this record could not be replayed"
HISTORY_FOOT = "↑ ↓ choose · Enter replay · Esc close"
REPLAY_FOOT = "← → trick by trick · Home/End · Esc back"
HISTORY_LOADING = "Asking the server for this table's past deals…"


def history_head(index: int, number: int) -> str:
    return f"#{index} deal {number}"


def history_outcome(code: str | None, taker: str, made: bool | None, margin: int) -> str:
    how = f"made by {margin}" if made else f"down by {margin}"
    return f"{contract(code)} by {taker}, {how}"


def replay_trick_title(n: int, total: int) -> str:
    return f"Trick {n} of {total}"


def replay_led(who: str) -> str:
    return f"{who} led"


def replay_took(who: str, you: bool) -> str:
    return "you took it" if you else f"{who} took it"


def replay_bids(bids: list[tuple[str, str]]) -> str:
    return "Bids: " + " · ".join(f"{who}: {contract(b).lower()}" for who, b in bids)


# -- results that wait for the players (issue 14, item 1) ----------------------------
# Every user-visible string of the deal's end and its Continue is here, in one
# block, for the move of client strings into catalogs.

CONTINUE = "Continue"
CONTINUE_HELP = "you have read the result: Enter or space"
READ_RESULT = "Deal over: read the result, then Continue (Enter)."
OTHERS_READING = "Deal over: waiting for the others to read the result."
WATCH_RESULT = "Deal over: the next deal comes when the players have read the result."
LAST_DEAL = "Last deal"


def still_reading(names: list[str]) -> str:
    """Who has not pressed Continue yet ("" when nobody)."""
    return ("Still reading: " + ", ".join(names)) if names else ""


def next_deal_in(seconds: int) -> str:
    return f"next deal in {seconds}s"
