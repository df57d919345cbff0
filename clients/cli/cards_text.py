"""How a card looks on screen: its label (``K♠``, ``10♥``, ``T21``, ``EX``), its
style, and the order a hand is shown in.

Labels keep the rank letters of the card codes (K, Q, C for the Knight or
Cavalier, J), or the language's own (French R, D, C, V), so that what the
player reads is what the player types (the English letters work too). Colour
is never the only signal: every suit card carries its symbol, trumps their
``T`` and the Excuse its own name, so a colour-less terminal (NO_COLOR)
loses nothing.
"""

from __future__ import annotations

from rich.text import Text

from clients.cli.i18n import local_rank
from protocol.cards import CARD_OF, SUIT_SYMBOLS, SUITS

# Hearts and diamonds are red as on real cards; spades and clubs keep the
# terminal's own foreground (black on light themes, white on dark ones).
SUIT_STYLES = {"S": "", "H": "red", "D": "red", "C": ""}
TRUMP_STYLE = "cyan"
EXCUSE_STYLE = "magenta"

# Shown left to right: spades, hearts, clubs, diamonds alternate black and
# red so two suits of one colour never touch; trumps and the Excuse come last.
_SUIT_ORDER = {"S": 0, "H": 1, "C": 2, "D": 3}
_RANK_ORDER = {
    r: i
    for i, r in enumerate(("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"))
}

_colour = True


def set_colour(enabled: bool) -> None:
    """Colour the cards or not. Without colour (NO_COLOR) a red suit would turn
    grey and look like a card you may not play (those are dimmed), so every
    card keeps the terminal's own foreground instead."""
    global _colour
    _colour = enabled


GROUPS = ("S", "H", "C", "D", "T", "EX")
"""The groups a hand is shown in, in order: four suits, the trumps, the Excuse."""


def group_of(code: str) -> str:
    """``"S" "H" "D" "C"`` for a suit card, ``"T"`` for a trump, ``"EX"`` for the Excuse."""
    if code == "EX":
        return "EX"
    if code.startswith("T"):
        return "T"
    return code[-1]


def is_trump(code: str) -> bool:
    return code.startswith("T")


def trump_number(code: str) -> int:
    return int(code[1:])


def label(code: str) -> str:
    """The text of a card: ``K♠``, ``10♥``, ``T21``, ``EX``; the face letters
    are the language's (French ``R♠ D♥ C♣ V♦``), as the player may type them."""
    if code == "EX" or code.startswith("T"):
        return code
    return local_rank(code[:-1]) + SUIT_SYMBOLS[SUITS.index(code[-1])]


def style_of(code: str) -> str:
    if not _colour:
        return ""
    group = group_of(code)
    if group == "EX":
        return EXCUSE_STYLE
    if group == "T":
        return TRUMP_STYLE
    return SUIT_STYLES[group]


def card_text(code: str, extra: str = "") -> Text:
    """A card as styled text; ``extra`` adds attributes (``"reverse"``, ``"dim"``)."""
    style = " ".join(s for s in (style_of(code), extra) if s)
    return Text(label(code), style=style)


def cards_text(codes: list[str], sep: str = " ") -> Text:
    """Several cards in a row, each in its style."""
    out = Text()
    for i, code in enumerate(codes):
        if i:
            out.append(sep)
        out.append_text(card_text(code))
    return out


def hand_key(code: str) -> tuple[int, int]:
    """Display order: by suit (♠ ♥ ♣ ♦), high to low; trumps high to low; the Excuse last."""
    group = group_of(code)
    if group == "EX":
        return (5, 0)
    if group == "T":
        return (4, -trump_number(code))
    return (_SUIT_ORDER[group], -_RANK_ORDER[code[:-1]])


def sort_hand(codes: list[str]) -> list[str]:
    return sorted((c for c in codes if c in CARD_OF), key=hand_key)
