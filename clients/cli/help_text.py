"""The help dialog's text (the ? key): the keys, how to read the table, the
rules in brief, laid out for the dialog's width.

Each entry is a whole sentence or a key and what it does, never a line cut
in advance: a translation is as long as it needs to be, and ``layout`` wraps
it for the width at hand, a key's meaning beside its key, each continuation
indented under the text it continues. A continuation line is never a lone
word (``orphan``): the text is then wrapped a little narrower, so the last
line takes more of it.
"""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from clients.cli.i18n import N_, _

Entry = tuple[str, str]
"""(keys, what they do); no keys: a paragraph."""

SECTIONS: list[tuple[str, list[Entry]]] = [
    (
        N_("Playing a card"),
        [
            ("← →", N_("move between the cards you may play (others are dimmed)")),
            (N_("Enter, Space"), N_("play the card (or pick it for the écart); a click too")),
            (
                "KS 10H T21 EX",
                N_("type a card's code, then Enter (C is the Knight: CD, the Knight of ♦)"),
            ),
        ],
    ),
    (
        N_("Bidding"),
        [
            (
                "← → Enter",
                N_(
                    "the bids you may make are buttons under your hand: choose one with "
                    "← →, then Enter (or click it); the other buttons work the same way"
                ),
            ),
            ("", N_("Each player speaks once, in turn; a bid must beat the bids before.")),
            (
                "",
                N_(
                    "Prise ×1 and Garde ×2: the taker takes the chien (6 cards, 3 at five "
                    "players) and discards as many. Garde sans ×4: the chien is not seen and "
                    "counts for the taker. Garde contre ×6: it is not seen and counts for the "
                    "defense."
                ),
            ),
            ("", N_("If everyone passes, the deal is annulled and the next dealer deals.")),
        ],
    ),
    (
        N_("At the table"),
        [
            ("l", N_("Last trick")),
            ("b", N_("Scores")),
            ("h", N_("Past deals")),
            ("m", N_("Chat")),
            ("p", N_("Poignée")),
            ("r", N_("Reconnect")),
            ("o", N_("Tournament")),
            ("Esc", N_("Leave")),
            ("^q", N_("Quit")),
        ],
    ),
    (
        N_("In the lobby"),
        [
            ("d", N_("Daily")),
            ("l", N_("Leaderboard")),
            ("u", N_("Profile")),
            ("p", N_("Quick play")),
            ("n", N_("New table")),
            ("i", N_("Invite code")),
            ("w", N_("Watch")),
            ("t", N_("Tournament")),
            ("Enter", N_("Join")),
        ],
    ),
    (
        N_("In a tournament"),
        [
            ("t", N_("Your table")),
            ("s", N_("Start")),
            ("x", N_("Remove a player")),
            ("f", N_("Finish with bots")),
            ("r", N_("Refresh")),
            ("Esc", N_("Back")),
        ],
    ),
    (
        N_("Reading the screen"),
        [
            ("▶", N_("whose turn")),
            ("D", N_("the dealer")),
            ("★", N_("the taker")),
            ("☆", N_("the taker's partner at five, once the called card is played")),
            ("21*", N_("your trump (also in reverse video)")),
            ("·", N_("a trump played or discarded")),
            ("", N_("Under the trumps: how many you have not seen yet (other hands, chien).")),
        ],
    ),
    (
        N_("Winning a deal"),
        [
            (
                "",
                N_(
                    "The taker plays against all the others (at five, with a called partner) "
                    "and needs 56, 51, 41 or 36 card points with 0, 1, 2 or 3 bouts (the 21, "
                    "the Petit T1 and the Excuse)."
                ),
            ),
        ],
    ),
    (
        N_("Écart"),
        [
            (
                "",
                N_(
                    "After a prise or a garde the taker discards as many cards as the chien "
                    "held, face down: never a King or a bout; trumps only when there is no "
                    "other card to discard, and then they are shown face up to everyone."
                ),
            ),
        ],
    ),
    (
        N_("Poignée"),
        [
            (
                "",
                N_(
                    "Before your first card you may show 10, 13 or 15 trumps (simple, double, "
                    "triple: +20, +30, +40 for the side that wins the deal); at three 13, 15 "
                    "or 18, at five 8, 10 or 13. The Excuse may stand for a trump only if you "
                    "show every trump."
                ),
            ),
        ],
    ),
    (
        N_("Chelem"),
        [
            (
                "",
                N_(
                    "Taking every trick (18; 24 at three, 15 at five). The taker may declare "
                    "it before the first card: +400 if made, −200 if not; made without "
                    "declaring: +200."
                ),
            ),
            (
                "",
                N_(
                    "Petit au bout: the Petit in the last trick: 10 × the contract's "
                    "multiplier for the side that takes that trick."
                ),
            ),
        ],
    ),
    (
        N_("Three or five players"),
        [
            (
                "",
                N_(
                    "At three: 24 cards each and a chien of 6; the taker plays against two, "
                    "and wins or loses twice what each of them loses or wins."
                ),
            ),
            (
                "",
                N_(
                    "At five: 15 cards each and a chien of 3. After the bidding the taker "
                    "calls a King, of any suit (a Queen only when holding all four Kings, "
                    "then a Knight, then a Jack). Its holder is the taker's partner, a "
                    "secret until that card is played; a called card in the chien or in "
                    "the taker's own hand means playing alone against four."
                ),
            ),
            (
                "",
                N_(
                    "The first card of the deal may not be of the called suit, unless it is "
                    "the called card. With a partner the taker wins or loses twice what each "
                    "defender does, the partner once; alone, four times."
                ),
            ),
        ],
    ),
]
KEYS = N_("Esc to close · ↑ ↓ PgUp PgDn to scroll")
INDENT = 2
"""An entry's first line starts here; its continuations further right."""

_CONSOLE = Console(file=io.StringIO(), width=200, color_system=None)


def orphan(line: str) -> bool:
    """A continuation line too short to stand alone: one word, or a few cells."""
    s = line.strip()
    spaced = all(ord(c) < 0x2E80 for c in s)  # Chinese and Korean wrap anywhere
    return cell_len(s) < 10 or (spaced and " " not in s)


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, the last one no orphan."""
    best: list[str] = []
    for w in range(width, max(8, width * 2 // 3) - 1, -1):
        lines = [line.plain.rstrip() for line in Text(text).wrap(_CONSOLE, w)]
        if not best:
            best = lines
        if len(lines) == 1 or not any(orphan(line) for line in lines[1:]):
            return lines
    return best


def _entry(keys: str, text: str, key_width: int, width: int) -> list[str]:
    if not keys:
        lines = wrap(text, width - INDENT - 2)
        return [" " * INDENT + lines[0]] + [" " * (INDENT + 2) + line for line in lines[1:]]
    lead = " " * INDENT + keys + " " * (key_width - cell_len(keys))
    lines = wrap(text, width - cell_len(lead))
    return [lead + lines[0]] + [" " * cell_len(lead) + line for line in lines[1:]]


def _section(entries: list[Entry], width: int) -> list[str]:
    keyed = [(keys, _(text)) for keys, text in entries if keys]
    key_width = max((cell_len(_(k)) for k, _t in keyed), default=0) + 2
    half = (width - INDENT) // 2
    cells = [" " * INDENT + _(k) + " " * (key_width - cell_len(_(k))) + t for k, t in keyed]
    if keyed and len(keyed) == len(entries) and all(cell_len(c) < half for c in cells):
        # Short keys side by side, two to a line.
        pairs = [cells[i : i + 2] for i in range(0, len(cells), 2)]
        return [p[0] + " " * (half - cell_len(p[0])) + "".join(p[1:]) for p in pairs]
    out: list[str] = []
    for keys, text in entries:
        out += _entry(_(keys) if keys else "", _(text), key_width, width)
    return out


def help_text(width: int) -> Text:
    """The whole help for a dialog ``width`` cells wide (its keys line apart)."""
    t = Text()
    for title, entries in SECTIONS:
        t.append(("\n" if t else "") + _(title) + "\n", style="bold")
        t.append("\n".join(_section(entries, width)))
    return t


def help_keys() -> str:
    return _(KEYS)
