"""Words for a person: contract names, annulment reasons, why a connection
closed, what a server ``Error`` means, and the client's longer texts.

The server's ``Error.message`` is already written for people, in English;
here we only add context where a code alone says more than the message (a
lost seat, a refused connection), translate the codes the client knows, and
keep the stable ``code`` visible so a report of a problem names it exactly.

Every text is an English msgid of the gettext catalogs (``i18n``). A
constant below is only *marked* (``N_``) and translated each time it is
read (``wording.SHEET``, through the module's ``__getattr__``), so the
language may change after import.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from clients.cli.i18n import N_, _, deep, ngettext, pgettext
from clients.cli.table_names import table_name

MULTIPLIERS = {"prise": 1, "garde": 2, "garde_sans": 4, "garde_contre": 6}
POIGNEE_KINDS = ("simple", "double", "triple")
"""The poignées from the smallest: ``legal.poignee_sizes`` lists the sizes a
hand may show from the smallest, so the i-th is of the i-th kind."""
POIGNEE_BONUS = {"simple": 20, "double": 30, "triple": 40}
TARGETS = (56, 51, 41, 36)
"""Points the taker needs with 0, 1, 2 or 3 bouts."""

_MARKED: dict[str, Any] = {}
"""The translatable constants by name, as English msgids (read through ``__getattr__``)."""


def __getattr__(name: str) -> Any:
    # PEP 562: ``wording.NAME`` for a marked constant is its translation now.
    if name in _MARKED:
        return deep(_MARKED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_MARKED["CONTRACTS"] = {
    "pass": N_("Pass"),
    "prise": N_("Prise"),
    "garde": N_("Garde"),
    "garde_sans": N_("Garde sans"),
    "garde_contre": N_("Garde contre"),
}
CONTRACT_ORDER = ("pass", "prise", "garde", "garde_sans", "garde_contre")

_MARKED["BID_HELP"] = {
    "pass": N_("no contract"),
    "prise": N_("×1, you take the chien"),
    "garde": N_("×2, you take the chien"),
    "garde_sans": N_("×4, chien unseen, counts for you"),
    "garde_contre": N_("×6, chien unseen, counts against you"),
}

_MARKED["ANNULMENTS"] = {
    "all_pass": N_("everyone passed"),
    "petit_sec": N_("petit sec (the Petit alone)"),
}

_MARKED["CHELEMS"] = {
    "declared_made": N_("chelem declared and made"),
    "undeclared_made": N_("chelem made (undeclared)"),
    "declared_failed": N_("chelem declared, failed"),
    "defense": N_("the defense took every trick"),
}

_MARKED["POIGNEE_NAMES"] = {
    "simple": N_("simple"),
    "double": N_("double"),
    "triple": N_("triple"),
}


_MARKED["BOT_LEVELS"] = {
    "random": N_("random"),
    "easy": N_("easy"),
    "normal": N_("normal"),
    "strong": N_("strong"),
}


def bot_level(level: str | None) -> str:
    """A bot level's name (``--bots`` keeps the English word)."""
    return str(__getattr__("BOT_LEVELS").get(level or "", level or ""))


def contract(code: str | None) -> str:
    if code is None:
        return ""
    return str(__getattr__("CONTRACTS").get(code, code))


def _annulled_why(reason: str | None, who: str | None, you: bool) -> str:
    if reason == "petit_sec" and (who or you):
        return about("petit_sec", who or "", you)
    return str(__getattr__("ANNULMENTS").get(reason or "", reason or ""))


def annulment(reason: str | None, who: str | None = None, you: bool = False) -> str:
    text = _annulled_why(reason, who, you)
    return _("Deal annulled: {reason}; the next dealer deals.").format(reason=text)


def annulled_continue(reason: str | None, who: str | None = None, you: bool = False) -> str:
    """The annulment and the key that goes on, as the prompt after a played deal says it."""
    text = _annulled_why(reason, who, you)
    return _("Deal annulled: {reason}. Continue (Enter).").format(reason=text)


# WebSocket close codes (docs/PROTOCOL.md) -> (what happened, reconnect?).
CLOSE_CODES: dict[int, tuple[str, bool]] = {
    1000: (N_("the server closed the connection"), True),
    1001: (N_("the server is going away"), True),
    1006: (N_("the connection was lost"), True),
    1011: (N_("the server hit an error"), True),
    1012: (N_("the server is restarting"), True),
    1013: (N_("the server is full; trying again"), True),
    4001: (N_("your seat was taken back from another window"), False),
    4002: (N_("the connection was too slow to keep up"), True),
    4003: (N_("this client is too old for the server: please update Atout"), False),
    # Our hello is always first: a 4004 means it did not arrive in time (a
    # slow line), which another try may mend.
    4004: (N_("the server did not get our hello in time"), True),
    # Sent on and on: a bug or a script, not a person; another try would flood again.
    4005: (N_("this client sent too many messages too fast, so the server closed it"), False),
    # Idle in the lobby (lobby_idle, 30 min by default): coming back by
    # itself would keep an abandoned window connected for ever.
    4006: (
        N_("you were idle in the lobby for a long time, so the server closed the connection"),
        False,
    ),
}


def closed(code: int | None) -> tuple[str, bool]:
    """What a close code means for a person, and whether to reconnect."""
    if code is None:
        return (_("the connection was lost"), True)
    if code in CLOSE_CODES:
        text, again = CLOSE_CODES[code]
        return (_(text), again)
    return (_("the connection closed (code {code})").format(code=code), True)


# Why we left a table, as the server says it (``Left.reason``, English): the
# reasons the server gives today, as sentences, so that they translate.
LEFT_REASONS = (
    N_("You stopped watching."),
    N_("You left the table."),
    N_("The table closed."),
    # A tournament's table (server/tournament/mode.py, server/tournament/service.py).
    N_("Your tournament seat waits for you: a bot plays it until you are back."),
    N_("The host had bots finish the round."),
)


def left(reason: str) -> str:
    sentence = reason[:1].upper() + reason[1:] + "."
    return _(sentence) if sentence in LEFT_REASONS else sentence


# Server error codes (docs/PROTOCOL.md §6.1) the client has its own words for.
# The server's message is English; in another language these codes read in
# the player's language, and any other code shows the server's message as is.
ERROR_CODES = {
    "incompatible_version": CLOSE_CODES[4003][0],
    "hello_first": N_("the server expected a hello first (a client bug)"),
    "rate_limited": N_("too fast: wait a moment and try again"),
    "not_your_turn": N_("it is not your turn"),
    "illegal_card": N_("that card cannot be played now"),
    "spectator": N_("you are watching"),
    "no_such_table": N_("no open table has that id or code"),
    "table_full": N_("that table has no free seat"),
    "seat_taken": N_("someone sits there already"),
    "wait_for_deal_end": N_("a bot plays that seat until the end of the deal"),
    "table_closed": N_("that table is closed"),
    "bad_token": N_("your seat is gone (the table closed or was given up)"),
    "too_many_tables": N_("the server has too many tables; try later"),
    "not_creator": N_("only the player who opened the table can start it"),
    "bad_chat": N_("a chat line is 1 to 200 characters"),
    "no_hints": N_("hints are for casual tables only"),
    "bad_call": N_("that card may not be called"),
    "bad_players": N_("a table has 3, 4 or 5 players"),
    # tournaments (tournament_flow.py), in the browser client's words (words.js)
    "guest": N_("guests cannot do that: connect without --guest to play as yourself"),
    "bad_tournament": N_("those tournament settings are not allowed"),
    "no_such_tournament": N_("no tournament has that code"),
    "tournament_started": N_("that tournament has started"),
    "tournament_finished": N_("that tournament is over"),
    "already_joined": N_("you are in that tournament already"),
    "not_joined": N_("that player is not in the tournament"),
    "not_host": N_("only the tournament's host may do that"),
    "team_full": N_("that team is full"),
    "too_few_players": N_("not enough players to seat"),
    "too_early": N_("the round's time is not up yet"),
    "tournament_table": N_("that table belongs to a tournament round"),
}


def error(code: str, message: str) -> str:
    """One line for an ``Error`` event: the message, then its code."""
    from clients.cli import i18n

    if i18n.current != i18n.DEFAULT and code in ERROR_CODES:
        message = _(ERROR_CODES[code])
    message = message.strip() or _("the server refused that")
    return f"{message[0].upper()}{message[1:]} [{code}]"


def unreachable(exc: BaseException) -> str:
    """Why a connection attempt failed, in a few words, without a traceback."""
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status == 503:
        # The server answers but takes no one: it is stopping (a restart) or full.
        return _("server restarting or full")
    if status == 429:
        # Per-address limits (server/link/guard.py): too many connections at once
        # from this address (other windows, or everyone behind one router),
        # or too many new ones in a short time.
        return _("too many connections from your address")
    if status is not None:
        return _("refused with HTTP {status}").format(status=status)
    if isinstance(exc, TimeoutError):
        return _("no answer")
    if isinstance(exc, ConnectionRefusedError):
        return _("connection refused")
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()  # the system's words, in the system's language
    return str(exc) or type(exc).__name__


# -- counted words -------------------------------------------------------------------


def deals(n: int) -> str:
    """``1 deal``, ``8 deals``."""
    return ngettext("{n} deal", "{n} deals", n).format(n=n)


# -- the score sheet ----------------------------------------------------------------

_MARKED.update(
    SHEET=N_("Score sheet"),
    SHEET_HEAD_DEAL=N_("Deal"),
    SHEET_HEAD_CONTRACT=N_("Contract"),
    SHEET_TOTAL=N_("Total"),
    SHEET_EMPTY=N_("no deal finished yet"),
    SHEET_FOOT=N_("★ taker · ↑ ↓ PgUp PgDn scroll · Esc to close"),
)
SHEET_ANNULLED = {"all_pass": N_("annulled: all passed"), "petit_sec": N_("annulled: petit sec")}


def sheet_title(table: str, played: int, total: int) -> Text:
    """``Score sheet — Alice's table · 1 of 8 deals played``."""
    rest = ngettext(
        "{table} · {played} of {n} deal played", "{table} · {played} of {n} deals played", total
    ).format(table=table_name(table), played=played, n=total)
    return Text.assemble((_("Score sheet"), "bold"), f" — {rest}")


def sheet_contract(code: str | None, made: bool | None) -> str:
    if made:
        return _("{contract} made").format(contract=contract(code))
    return _("{contract} down").format(contract=contract(code))


def sheet_annulled(reason: str) -> str:
    if reason in SHEET_ANNULLED:
        return _(SHEET_ANNULLED[reason])
    return _("annulled: {reason}").format(reason=reason)


# -- leaving and quitting -----------------------------------------------------------

_MARKED.update(
    LEAVE=N_("Leave"),
    STAY=N_("Stay"),
    QUIT=N_("Quit"),
    LEAVE_QUESTION=N_("Leave this table?"),
    LEAVE_MID_GAME=N_("A bot takes your seat until the end of the game."),
    LEAVE_LAST=N_("You are the last person at this table: it closes, and the game ends."),
    QUIT_QUESTION=N_("Quit Atout in the middle of the game?"),
    QUIT_PLAY_SAVED=N_("Your game is saved: run atout play again to resume it where it is."),
    QUIT_SEAT_KEPT=N_(
        "Your seat is kept (a bot plays your turns meanwhile): run the same command "
        "again to take it back."
    ),
    RESUME=N_("Resume"),
    NEW_GAME=N_("New game"),
)


def resume_question(table: str, deal: int, total: int, score: int) -> str:
    points = f"{score:+d}".replace("-", "−") if score else "0"
    return _(
        "You have an unfinished game: {table}, deal {deal} of {deals}, "
        "your score {score}.\nResume it where you left it?"
    ).format(table=table, deal=deal, deals=total, score=points)


# -- the command line ----------------------------------------------------------------

_MARKED.update(
    CLI_DESCRIPTION=N_(
        "French Tarot for 3, 4 or 5 players, in a terminal.\n\n"
        "atout alone is atout play: a game against bots on a local server,\n"
        "kept in a file so that it can be resumed. atout connect URL joins friends\n"
        "on a server (atout-server, or docker-compose: see docs/DEPLOY.md)."
    ),
    PLAY_DESCRIPTION=N_(
        "Play now against bots, at a table of 3, 4 or 5 (--players) on a server of "
        "your own started for the game. The game is kept in a file: quit at any "
        "moment, and atout play again resumes it."
    ),
    CLI_EPILOG=N_(
        "examples:\n"
        "  atout                                  play now against three bots\n"
        "  atout play --bots strong --timer 30\n"
        "  atout connect ws://host:8765 --name Alice\n"
        "  atout connect http://host:8765 --profile bob   (http:// becomes ws://)\n"
        "  atout --lang fr                        play in French (en, fr, zh, ko)"
    ),
    BAD_PROFILE=N_("--profile needs a name"),
    BAD_DEALS=N_("--deals is 1 to 40"),
    BAD_TIMER=N_("--timer is 0 (none) to 600 seconds"),
    NO_TERMINAL=N_(
        "needs a terminal to draw the table; run it in a terminal window "
        "(a program can play through the protocol: docs/PROTOCOL.md)"
    ),
    CANNOT_REACH_HINT=N_(
        "Is atout-server running there? Start it, or check the address. r: retry now"
    ),
    CANNOT_REACH=N_("cannot reach the server"),
)


def bad_url(url: str) -> str:
    return _("{url} is not a server address (ws://host:port, wss://host, or host:port)").format(
        url=repr(url)
    )


def bad_name(most: int) -> str:
    return _("--name needs 1 to {most} characters").format(most=most)


# -- sentences about a player: one template for "you", one for anyone else ----------------
#
# Each entry is (for you, for another player). ``{who}`` is the other
# player's name; the other fields are filled by ``about``. A test renders
# every template both ways, in every language, so "You takes" cannot come back.

_MARKED["ABOUT"] = {
    "deals": (N_("Deal {deal}: you deal."), N_("Deal {deal}: {who} deals.")),
    "takes_trick": (N_("You take trick {trick}."), N_("{who} takes trick {trick}.")),
    "takes_last_trick": (
        N_("You take the last trick ({trick})."),
        N_("{who} takes the last trick ({trick})."),
    ),
    "takes_contract": (
        N_("You take the contract: {contract}."),
        N_("{who} takes the contract: {contract}."),
    ),
    "shows_poignee": (
        N_("You show a {size}-card poignée: {cards}"),
        N_("{who} shows a {size}-card poignée: {cards}"),
    ),
    "declares_chelem": (N_("You declare a chelem!"), N_("{who} declares a chelem!")),
    "petit_sec": (
        N_("you hold the Petit alone (petit sec)"),
        N_("{who} holds the Petit alone (petit sec)"),
    ),
    "bidding": (N_("You are bidding…"), N_("{who} is bidding…")),
    "ecart_wait": (
        N_("You take the chien and discard {n}…"),
        N_("{who} takes the chien and discards {n}…"),
    ),
    "call_wait": (N_("You call a card…"), N_("{who} calls a card…")),
    "calls": (N_("You call {card}."), N_("{who} calls {card}.")),
    "is_partner": (N_("You are the partner: {card}"), N_("{who} is the partner: {card}")),
    "was_partner": (N_("You were the partner: {card}"), N_("{who} was the partner: {card}")),
    "plays_alone": (
        N_("You play alone ({card} called)"),
        N_("{who} plays alone ({card} called)"),
    ),
    "chelem_wait": (N_("You decide on a chelem…"), N_("{who} decides on a chelem…")),
    "to_play": (N_("Your turn…"), N_("{who} to play…")),
    "away_to_play": (
        N_("You are away: a bot plays for you soon…"),
        N_("{who} is away: a bot plays for them soon…"),
    ),
    "waits_for_start": (
        N_("Start when your friends are seated; empty seats get bots."),
        N_("Waiting for {who} to start the game."),
    ),
}


def about(key: str, who: str, you: bool, **fields: object) -> str:
    """The sentence ``key`` about ``who`` (or about you), fields filled in."""
    mine, theirs = _MARKED["ABOUT"][key]
    return _(mine if you else theirs).format(who=who, **fields)


# -- prompts and rules -------------------------------------------------------------------

_MARKED.update(
    ECART_RULE=N_("no King, no bout; trumps only if you must, shown face up"),
    ECART_REFUSAL=N_("never a King or a bout; trumps only when you have no other card"),
    CONNECTED_AGAIN=N_("Connected again."),
)


def ecart_prompt(forced: int, size: int) -> str:
    """The whole écart rule in one line (80 columns): ``size`` cards (as many
    as the chien: 6, or 3 at five players)."""
    if forced:
        return ngettext(
            "Discard {size} (no King, no bout): {n} trump forced, shown face up.",
            "Discard {size} (no King, no bout): {n} trumps forced, shown face up.",
            forced,
        ).format(n=forced, size=size)
    return _("Discard {size} cards ({rule}).").format(size=size, rule=_(_MARKED["ECART_RULE"]))


def typed(code: str, complete: bool) -> str:
    """Under the hand while a card code is typed."""
    if complete:
        return _("typed: {code} · Enter to choose it").format(code=code)
    return _("typed: {code}…").format(code=code)


# -- the waiting table ----------------------------------------------------------------------

_MARKED.update(
    WAITING_TITLE=N_("Waiting to start"),
    INVITE_CODE=N_("Invite code: "),
    INVITE_FRIENDS=N_("Friends run:"),
)


def invite_then(code: str) -> str:
    return _("then i, and type {code}").format(code=code)


# -- the trump tracker ----------------------------------------------------------------------

_MARKED.update(TRACKER_TITLE=N_("Trumps "), TRACKER_LEGEND=N_("n* yours · gone"))


# -- past deals (the h key) -------------------------------------------------------------------

_MARKED.update(
    HISTORY_TITLE=N_("Past deals"),
    HISTORY_EMPTY=N_("No deal has finished at this table yet."),
    HISTORY_UNREADABLE=N_("this record could not be replayed"),
    HISTORY_FOOT=N_("↑ ↓ choose · Enter replay · Esc close"),
    REPLAY_FOOT=N_("← → trick by trick · Home/End · Esc back"),
    HISTORY_LOADING=N_("Asking the server for this table's past deals…"),
)


def history_head(index: int, number: int) -> str:
    return _("#{index} deal {number}").format(index=index, number=number)


def history_outcome(code: str | None, taker: str, made: bool | None, margin: int) -> str:
    if made:
        text = _("{contract} by {taker}, made by {margin}")
    else:
        text = _("{contract} by {taker}, down by {margin}")
    return text.format(contract=contract(code), taker=taker, margin=margin)


def replay_trick_title(n: int, total: int) -> str:
    return _("Trick {n} of {total}").format(n=n, total=total)


def replay_led(who: str) -> str:
    return _("{who} led").format(who=who)


def replay_took(who: str, you: bool) -> str:
    return _("you took it") if you else _("{who} took it").format(who=who)


def player_name(name: str) -> str:
    """A seat's name as shown: a bot's ("Bot Denis", the server's English
    word) in this language's word for a bot, as its level is ("robot
    normal" beside "Robot Denis", not "Bot Denis"). No person's name starts
    with "Bot " (the server refuses it), so nobody else is renamed."""
    own = name.removeprefix("Bot ")
    if own and own != name:
        # TRANSLATORS: a bot's name at the table, as "bot {level}" says a bot.
        return pgettext("a bot's name", "Bot {name}").format(name=own)
    return name


def labelled(label: str, text: str) -> str:
    """``Bob: garde`` as this language writes a label and its text (French
    puts a space before the colon, Chinese a full-width colon)."""
    # TRANSLATORS: a label, then what it says: "Bob: garde", "Last deal: ...".
    return _("{label}: {text}").format(label=label, text=text)


def decimal(value: object) -> str:
    """A card-point count (40.5) with this language's decimal separator."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    # TRANSLATORS: the decimal separator, "." or "," as your language writes 73.25.
    return str(value).replace(".", pgettext("decimal separator", "."))


def replay_bids(bids: list[tuple[str, str]]) -> str:
    listed = " · ".join(labelled(who, contract(b).lower()) for who, b in bids)
    return _("Bids: {bids}").format(bids=listed)


def seat_word(n: int) -> str:
    """``Seat 3``: a seat with nobody named in it."""
    return pgettext("a place at the table", "Seat {n}").format(n=n)


# -- results that wait for the players ------------------------------------------------

_MARKED.update(
    CONTINUE=N_("Continue"),
    CONTINUE_HELP=N_("you have read the result: Enter or space"),
    READ_RESULT=N_("Deal over: read the result, then Continue (Enter)."),
    OTHERS_READING=N_("Deal over: waiting for the others to read the result."),
    WATCH_RESULT=N_("Deal over: the next deal comes when the players have read the result."),
    LAST_DEAL=N_("Last deal"),
)


def still_reading(names: list[str]) -> str:
    """Who has not pressed Continue yet ("" when nobody)."""
    return _("Still reading: {names}").format(names=", ".join(names)) if names else ""


def gathering(seconds: int) -> str:
    """A quick-play table waiting for people (PROTOCOL.md ``gather_until``)."""
    return _("Waiting for players · bots fill the seats in {n} s").format(n=seconds)


def next_deal_in(seconds: int) -> str:
    return _("next deal in {seconds}s").format(seconds=seconds)
