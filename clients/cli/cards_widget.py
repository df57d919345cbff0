"""The hand widget: your cards in groups (♠ ♥ ♣ ♦, trumps, the Excuse), and
the one place where a card is chosen — by arrow keys, by mouse, or by typing
its code (``KS``, ``10H``, ``T21``, ``EX``) and Enter.

Only the cards the screen marks *choosable* (the legal ones) can be reached
or chosen: the cursor skips the others, a click or a typed code on one of
them is refused with a reason, and nothing is posted. Two modes:

* ``play``: choosing a card posts ``Chosen`` (the screen sends ``Play``);
* ``pick``: choosing toggles the card in a set of at most ``limit`` cards
  and posts ``Picked`` (the écart and the poignée are built this way).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

from clients.cli import i18n, wording
from clients.cli.cards_text import card_text, group_of, label, sort_hand
from clients.cli.i18n import _

Mode = Literal["view", "play", "pick"]

CODE_CHARS = set("0123456789KQCJTEXSHD")
CODE_STARTS = set("123456789KQCJTE")
"""What a card code starts with (a rank, T of a trump, E of EX), in English
letters: a suit letter (S, H, D) or X comes only after one."""


@dataclass(frozen=True)
class Span:
    """Where a card was drawn: line ``y``, columns ``x0`` to ``x1`` (excluded)."""

    card: str
    y: int
    x0: int
    x1: int


def layout(cards: list[str], width: int) -> list[list[Span]]:
    """Place the cards on lines of ``width`` columns: one space between cards,
    two between groups, and a group wraps as a whole when it can."""
    width = max(width, 8)
    lines: list[list[Span]] = [[]]
    x = 0
    groups: list[list[str]] = []
    for card in cards:
        if groups and group_of(groups[-1][0]) == group_of(card):
            groups[-1].append(card)
        else:
            groups.append([card])
    for group in groups:
        group_width = sum(len(label(c)) for c in group) + len(group) - 1
        gap = 2 if x else 0
        if x and x + gap + group_width > width and group_width <= width:
            lines.append([])
            x, gap = 0, 0
        x += gap
        for card in group:
            w = len(label(card))
            if x and x + w > width:
                lines.append([])
                x = 0
            lines[-1].append(Span(card, len(lines) - 1, x, x + w))
            x += w + 1
    return lines


class HandWidget(Widget, can_focus=True):
    DEFAULT_CSS = """
    HandWidget {
        height: auto;
        min-height: 1;
        padding: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "Previous card", show=False),
        Binding("right", "move(1)", "Next card", show=False),
        Binding("home", "move_to(0)", show=False),
        Binding("end", "move_to(-1)", show=False),
        Binding("enter", "choose", "Choose", show=False),
        Binding("space", "choose", show=False),
    ]

    class Chosen(Message):
        """A choosable card was chosen in ``play`` mode."""

        def __init__(self, card: str) -> None:
            super().__init__()
            self.card = card

    class Picked(Message):
        """The picked set changed in ``pick`` mode."""

        def __init__(self, picked: list[str]) -> None:
            super().__init__()
            self.picked = picked

    class Refused(Message):
        """A card could not be chosen; ``why`` says so to a person."""

        def __init__(self, why: str) -> None:
            super().__init__()
            self.why = why

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cards: list[str] = []
        self.choosable: set[str] = set()
        self.mode: Mode = "view"
        self.picked: list[str] = []
        self.limit = 0
        self.cursor: str | None = None
        self._typed = ""
        self.refusal = _("it is not your turn")
        self._lines: list[list[Span]] = []

    @property
    def typed(self) -> str:
        """The card code being typed, shown under the hand until it names a card."""
        return self._typed

    @typed.setter
    def typed(self, value: str) -> None:
        self._typed = value
        shown = i18n.local_code(value)
        self.border_subtitle = wording.typed(shown, value in self.cards) if value else ""

    # -- what the screen sets ------------------------------------------------------

    def show(
        self,
        cards: list[str],
        choosable: Iterable[str] = (),
        mode: Mode = "view",
        *,
        picked: list[str] | None = None,
        limit: int = 0,
        refusal: str = "",
    ) -> None:
        """Show ``cards``; in ``play``/``pick`` mode only ``choosable`` ones can be chosen."""
        before = (self.cards, self.choosable, self.mode)
        self.cards = sort_hand(cards)
        self.choosable = set(choosable) & set(self.cards) if mode != "view" else set()
        if mode != self.mode or picked is not None:
            self.picked = [c for c in (picked or []) if c in self.choosable]
        self.mode = mode
        self.limit = limit
        self.refusal = refusal or (
            _("it is not your turn") if mode == "view" else _("that card cannot be chosen now")
        )
        if self.cursor not in self.choosable:
            self.cursor = self._first_choosable()
        if (self.cards, self.choosable, self.mode) != before:
            self.typed = ""  # a half-typed code survives a chat line, not a new choice
        # The height follows the cards alone (``get_content_height``): the
        # screen is laid out again only when they change, not at every move.
        self.refresh(layout=self.cards != before[0])

    def _first_choosable(self) -> str | None:
        return next((c for c in self.cards if c in self.choosable), None)

    # -- drawing -----------------------------------------------------------------------

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(layout(self.cards, width)))

    def render(self) -> Text:
        self._lines = layout(self.cards, self.content_region.width or self.size.width)
        out = Text(no_wrap=True, overflow="crop")
        if not self.cards:
            out.append(_("no cards"), style="dim")
            return out
        for y, line in enumerate(self._lines):
            if y:
                out.append("\n")
            x = 0
            for span in line:
                out.append(" " * (span.x0 - x))
                out.append_text(card_text(span.card, self._attrs(span.card)))
                x = span.x1
        return out

    def _attrs(self, card: str) -> str:
        attrs = []
        if self.mode != "view" and card not in self.choosable:
            attrs.append("dim")
        if card in self.picked:
            attrs.append("bold underline")
        if card == self.cursor and self.has_focus:
            attrs.append("reverse")
        elif card == self.cursor and self.mode != "view":
            attrs.append("underline")
        return " ".join(attrs)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # -- choosing -----------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        options = [c for c in self.cards if c in self.choosable]
        if not options:
            return
        if self.cursor not in options:
            self.cursor = options[0 if step > 0 else -1]
        else:
            self.cursor = options[(options.index(self.cursor) + step) % len(options)]
        self.typed = ""
        self.refresh()

    def action_move_to(self, index: int) -> None:
        options = [c for c in self.cards if c in self.choosable]
        if options:
            self.cursor = options[index]
            self.refresh()

    def action_choose(self) -> None:
        if self.typed:
            typed, self.typed = self.typed, ""
            if typed in self.cards:
                self.choose(typed)
                return
            matches = [label(c) for c in self.cards if c.startswith(typed)]
            which = _("{typed}: which one? {cards}").format(
                typed=i18n.local_code(typed), cards=_(" or ").join(matches)
            )
            self.post_message(self.Refused(which))
            return
        if self.cursor is not None:
            self.choose(self.cursor)
        elif self.mode == "view":
            self.post_message(self.Refused(self.refusal))

    def choose(self, card: str) -> bool:
        """Choose ``card`` as the player would; False (and a ``Refused``) if it may not be."""
        if card not in self.cards:
            self.post_message(
                self.Refused(_("{card} is not in your hand").format(card=i18n.local_code(card)))
            )
            return False
        if self.mode == "view" or card not in self.choosable:
            self.post_message(self.Refused(f"{label(card)}: {self.refusal}"))
            return False
        self.cursor = card
        if self.mode == "play":
            self.post_message(self.Chosen(card))
        else:
            if card in self.picked:
                self.picked.remove(card)
            elif self.limit and len(self.picked) >= self.limit:
                full = _("already {n} chosen: remove one first").format(n=self.limit)
                self.post_message(self.Refused(full))
                return False
            else:
                self.picked.append(card)
            self.post_message(self.Picked(list(self.picked)))
        self.refresh()
        return True

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and self.typed:
            self.typed = ""
            self.refresh()
            event.stop()
            return
        char = (event.character or "").upper()
        if len(char) != 1 or char not in CODE_CHARS | set(i18n.rank_letters()):
            return
        if not self.typed and i18n.code_rank(char) not in CODE_STARTS:
            # No code starts with a suit letter: with nothing typed, it is the
            # table's key (h: past deals), not a card refused (issue 37).
            return
        # A card code: keep it from reaching the screen's key bindings.
        event.stop()
        event.prevent_default()
        self._type(char)

    def _type(self, char: str) -> None:
        # A code starts with its rank, in the language's letters or in English
        # (French R, D, C, V or K, Q, C, J); the suit letter after it is S, H, D, C.
        first = i18n.code_rank(char)
        buf = self.typed + char if self.typed else first
        if not any(c.startswith(buf) for c in self.cards):
            if not any(c.startswith(first) for c in self.cards):
                self.typed = ""
                shown = i18n.local_code(buf)
                self.post_message(self.Refused(_("no card {code} in your hand").format(code=shown)))
                self.refresh()
                return
            buf = first  # a new code starts here
        matches = [c for c in self.cards if c.startswith(buf)]
        # Even a complete code waits for Enter: typing never plays or picks a
        # card by itself, so the Enter that follows has no second effect.
        self.typed = buf
        reachable = [c for c in matches if c in self.choosable]
        if reachable:
            self.cursor = buf if buf in reachable else reachable[0]
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for span in self._lines[offset.y] if 0 <= offset.y < len(self._lines) else []:
            if span.x0 <= offset.x < span.x1:
                self.focus()
                self.choose(span.card)
                return
