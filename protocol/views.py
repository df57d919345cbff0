"""What one seat may see: ``TableView`` for a table, ``LobbyView`` for the lobby.

A view holds exactly what its recipient may know and nothing more: its own
hand, the legal actions it may take now, and the public history of the deal.
Other seats' hands, the hidden écart and an unseen chien (garde sans, garde
contre) never appear in a view, even for spectators. The server builds one
view per recipient after every change and sends a diff (see ``diff.py``).

New fields always get defaults, so a newer server may add fields and older
clients keep decoding (msgspec schema evolution); clients ignore fields they
do not know. Cards are card codes.

Every view is a tree (no value in it refers back to a view), so the view
types are ``gc=False``: the cyclic collector neither tracks nor unlinks them
(a tracked object's death writes to two neighbours in the collector's list,
cold at 4,000 tables: docs/LOAD.md, fourteenth pass).
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

import msgspec

SeatKind = Literal["empty", "human", "bot"]
TableStatus = Literal["waiting", "playing", "between_deals", "finished", "closed"]
DealPhase = Literal["bidding", "call", "ecart", "chelem", "play", "done", "annulled"]
BotLevel = Literal["random", "easy", "normal", "strong"]

# What a view says of a table's size when it does not say: a table of four,
# the one size older servers played. The server always says (its game's
# variant); these are the defaults, for a message that predates the fields.
FOUR_PLAYERS: Final = 4
FOUR_PLAYER_HAND: Final = 18
FOUR_PLAYER_ECART: Final = 6


CardCode = Annotated[str, msgspec.Meta(extra={"card": True})]
"""A card code (``"KS"``, ``"T21"``, ``"EX"``). Protocol version 2 sends a
card as its number instead (protocol/positional.py): mark every card field
with this type, and a new one is compact there too."""


def _no_scores() -> list[int]:
    return [0] * FOUR_PLAYERS


class SeatView(msgspec.Struct, kw_only=True, gc=False):
    """One of the table's seats as everyone sees it."""

    seat: int
    kind: SeatKind = "empty"
    name: str | None = None
    connected: bool = False
    away: bool = False
    """A human's seat whose player is disconnected: a bot plays its turns."""
    bot_level: BotLevel | None = None
    cards: int = 0
    """How many cards the seat holds (never which)."""


class BidView(msgspec.Struct, kw_only=True, gc=False):
    seat: int
    bid: str


class PoigneeView(msgspec.Struct, kw_only=True, gc=False):
    seat: int
    size: Literal["simple", "double", "triple"]
    cards: list[CardCode]


class TrickView(msgspec.Struct, kw_only=True, gc=False):
    """A trick: its leader and the cards in the order played."""

    leader: int
    cards: list[CardCode] = msgspec.field(default_factory=list)
    winner: int | None = None


class Legal(msgspec.Struct, kw_only=True, gc=False):
    """What the recipient may do now. Empty lists: nothing of that kind."""

    bids: list[str] = msgspec.field(default_factory=list)
    cards: list[CardCode] = msgspec.field(default_factory=list)
    ecart: list[CardCode] = msgspec.field(default_factory=list)
    """Écart candidates (the taker discards ``ecart_size`` of them)."""
    ecart_size: int = FOUR_PLAYER_ECART
    """How many cards the écart is (as many as the chien holds)."""
    ecart_trumps: int = 0
    """How many trumps the écart must hold (then every candidate suit card goes too)."""
    chelem: bool = False
    """The taker may now declare a chelem (or not)."""
    calls: list[CardCode] = msgspec.field(default_factory=list)
    """5 players, phase ``call``: the cards the taker may call."""
    poignee_sizes: list[int] = msgspec.field(default_factory=list)
    poignee_cards: list[CardCode] = msgspec.field(default_factory=list)
    """The cards a poignée may be made of (trumps, and the Excuse)."""


class DealView(msgspec.Struct, kw_only=True, gc=False):
    """The public state of the deal being played (or just finished)."""

    number: int
    """1-based number of the deal among the counted deals of the game."""
    dealer: int
    phase: DealPhase
    turn: int | None = None
    bids: list[BidView] = msgspec.field(default_factory=list)
    taker: int | None = None
    contract: str | None = None
    called: CardCode | None = None
    """5 players: the card the taker called, public once called."""
    partner: int | None = None
    """5 players: the taker's partner, the seat that held the called card; set
    for everyone only once that card has been played (before, None for every
    seat, the partner included: it knows from its hand). None after it too
    when the taker played it (alone); a called card in the chien is never
    played, so ``result.partner`` tells at the end."""
    chien: list[CardCode] = msgspec.field(default_factory=list)
    """The chien, once shown (prise, garde); never for garde sans or contre."""
    ecart_trumps: list[CardCode] = msgspec.field(default_factory=list)
    """Trumps the taker had to discard, shown to all."""
    chelem_declared: bool = False
    poignees: list[PoigneeView] = msgspec.field(default_factory=list)
    tricks: list[TrickView] = msgspec.field(default_factory=list)
    """Completed tricks, in order (the last one is the "last trick")."""
    trick: TrickView | None = None
    """The trick being played."""
    tricks_won: list[int] = msgspec.field(default_factory=lambda: [0, 0])
    """Tricks won so far by [the taker, the defense]."""
    annulled: str | None = None
    annulled_seat: int | None = None
    result: dict[str, Any] | None = None
    """When the deal is over: the result as ``atout-server replay`` prints it."""
    players: int = FOUR_PLAYERS
    """Seats dealt to: seat ``leader + i`` (modulo ``players``) plays a trick's i-th card."""
    hand_size: int = FOUR_PLAYER_HAND
    """Cards dealt to each seat: also the tricks of the deal."""
    taker_bouts: list[str] = msgspec.field(default_factory=list)
    """The bouts the taker's camp holds in the tricks it has won so far, as
    every seat may know it: the Excuse with the camp of the seat that played
    it (before the last trick), a hidden partner's tricks with the defense
    until the partner is known. Once the deal is over: the bouts the result
    counts (a garde sans's chien included), so the target they give is the
    result's ``target``. The taker adds the bouts in its own hand."""


class DealLine(msgspec.Struct, kw_only=True, gc=False):
    """One line of the score sheet."""

    number: int
    dealer: int
    taker: int | None = None
    contract: str | None = None
    made: bool | None = None
    partner: int | None = None
    """5 players: the taker's partner in that deal (None: alone, or no taker)."""
    annulled: str | None = None
    scores: list[int] = msgspec.field(default_factory=_no_scores)


class ChatLine(msgspec.Struct, kw_only=True, gc=False):
    seat: int | None
    name: str
    text: str
    at: float


class TableView(msgspec.Struct, kw_only=True, gc=False):
    """Everything one recipient may see of a table."""

    table_id: str
    name: str
    status: TableStatus = "waiting"
    you: int | None = None
    """The recipient's seat; ``None`` for a spectator."""
    invite_code: str | None = None
    """Shown to seated players only (to invite friends)."""
    private: bool = False
    creator: int | None = None
    bot_level: BotLevel = "normal"
    turn_timer: float = 0.0
    seats: list[SeatView] = msgspec.field(default_factory=list)
    hand: list[CardCode] = msgspec.field(default_factory=list)
    """The recipient's own cards (empty for a spectator)."""
    ecart: list[CardCode] = msgspec.field(default_factory=list)
    """The recipient's own écart, when it is the taker."""
    legal: Legal = msgspec.field(default_factory=Legal)
    deals: int = 8
    scores: list[int] = msgspec.field(default_factory=_no_scores)
    sheet: list[DealLine] = msgspec.field(default_factory=list)
    deal: DealView | None = None
    deadline: float | None = None
    """When the seat to act runs out of time (Unix time), if a timer runs."""
    next_deal_at: float | None = None
    """Between deals: when the next deal is dealt (Unix time): when the wait
    for the players runs out, or sooner once all are ready."""
    gather_until: float | None = None
    """A quick-play table while it waits for people: when bots fill its free
    seats and the game starts (Unix time). Every seated player may start it
    sooner (``start``); it starts at once when every seat has a human."""
    ready: list[int] = msgspec.field(default_factory=list)
    """Between deals: the seats ready for the next deal (bots always are;
    a human once it sent ``ready``). Empty at any other time."""
    result_wait: float = 0.0
    """The table's wait for the players between deals (s); 0: none."""
    ranking: list[int] | None = None
    """Seats from first to last, once the game is over."""
    spectators: int = 0
    chat: list[ChatLine] = msgspec.field(default_factory=list)


class TableSummary(msgspec.Struct, kw_only=True, gc=False):
    """A table as the lobby lists it."""

    table_id: str
    name: str
    status: TableStatus
    humans: int
    bots: int
    free: int
    deals: int
    bot_level: BotLevel
    spectators: int = 0
    players: int = FOUR_PLAYERS
    """The table's size (seats): 3, 4 or 5."""


class PoigneeRule(msgspec.Struct, kw_only=True, gc=False):
    """One poignée of a table size: its name, the cards shown, its bonus."""

    size: Literal["simple", "double", "triple"]
    cards: int
    """Trumps shown (the Excuse may stand in for the last one)."""
    bonus: int
    """Points to the camp that wins the deal."""


class SizeRules(msgspec.Struct, kw_only=True, gc=False):
    """What the rules say for a table of ``players`` (docs/RULES.md): sent
    in ``welcome`` so that clients read these values rather than copy them."""

    players: int
    hand_size: int
    """Cards dealt to each seat: also the tricks of a deal."""
    chien_size: int
    """Cards in the chien; the écart is as many."""
    deals: int
    """A new table's counted deals unless its creator says: each seat deals twice."""
    poignees: list[PoigneeRule] = msgspec.field(default_factory=list)
    """Simple, double, triple."""
    targets: list[int] = msgspec.field(default_factory=list)
    """Card points the taker needs with 0, 1, 2 and 3 bouts."""


class LobbyView(msgspec.Struct, kw_only=True, gc=False):
    """The open public tables."""

    tables: list[TableSummary] = msgspec.field(default_factory=list)
    players_online: int = 0


# -- the daily game and its leaderboards -------------------------------------------

LeaderboardPeriod = Literal["today", "yesterday", "week", "all"]
PAGE_SIZE = 20
"""Lines on a leaderboard page."""


class LeaderboardLine(msgspec.Struct, kw_only=True, gc=False):
    """One player on a leaderboard."""

    position: int
    """1 for the best; players level on percent and the second column share one."""
    name: str
    percent: float
    """The mean, to 0.01, of the percentages of other results beaten (ties half)."""
    points: int = 0
    """``today``/``yesterday``: the day's points total (the second column)."""
    days: int = 1
    """``week``/``all``: days played (the second column)."""
    you: bool = False


class LeaderboardView(msgspec.Struct, kw_only=True, gc=False):
    period: LeaderboardPeriod
    page: int = 0
    pages: int = 0
    total: int = 0
    """Players listed on this board (all pages)."""
    lines: list[LeaderboardLine] = msgspec.field(default_factory=list)
    own: LeaderboardLine | None = None
    """Your own line, wherever it is (``None``: a guest, or not listed)."""
    first_day: str = ""
    last_day: str = ""
    """The UTC days the board covers (ISO dates)."""


class DailyDealLine(msgspec.Struct, kw_only=True, gc=False):
    deal: int
    """1 for the first deal of the day."""
    points: int
    """Your seat's score on the deal."""
    percent: float
    """Percentage of the other results on this deal you beat (ties half)."""
    players: int
    """Results on this deal so far, yours included."""
    others: int = 0
    """The other results yours is compared with: ``players - 1`` in a ranked
    game; a practice game is compared with every ranked result."""
    beaten: int = 0
    """How many of ``others`` scored less than you."""
    tied: int = 0
    """How many of ``others`` scored exactly as you (``percent`` counts them half)."""


class DailyResultView(msgspec.Struct, kw_only=True, gc=False):
    day: str
    ranked: bool
    """False for a practice game (after the day's ranked attempt)."""
    deals: list[DailyDealLine] = msgspec.field(default_factory=list)
    percent: float = 0.0
    """The mean of the deals' percentages."""
    points: int = 0
