"""Keys that behave the same on every screen of the terminal client.

``ButtonArrows`` is mixed into every screen and dialog that has buttons:
←/→ move the focus along a row of buttons (↑/↓ along a column of them),
and ↑/↓ leave a row for the widget above or below it (the hand above the
table's action bar, the last field above a form's buttons). The arrows stop
at the ends rather than wrap, so "← ← Enter" always presses the first
button. When the focus is not on a button, the arrows belong to the widget
that has it (the hand, an input, a list).

``fit_footer`` keeps the footer on one line at the terminal's width: the
screen names its bindings that may be left out, least needed first, and
they come back when the terminal is wide enough (every key stays in Help).

``KeysFooter`` is the footer every screen shows: Textual's, rebuilt only when
the keys it would show change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Footer


def _row_of(button: Button) -> tuple[list[Button], bool]:
    """The buttons beside ``button`` (its container's), and whether they are stacked."""
    parent = button.parent
    if not isinstance(parent, Widget):
        return [button], False
    row = [w for w in parent.children if isinstance(w, Button) and w.focusable]
    stacked = parent.styles.layout is not None and parent.styles.layout.name == "vertical"
    return row, stacked


class ButtonArrows(Screen[Any]):
    """Mixed in before a Textual screen class: arrows move between buttons."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "button_step(-1, 0)", show=False),
        Binding("right", "button_step(1, 0)", show=False),
        Binding("up", "button_step(-1, 1)", show=False),
        Binding("down", "button_step(1, 1)", show=False),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Off a button, the arrow goes on to whoever else wants it.
        if action == "button_step":
            return isinstance(self.focused, Button)
        return super().check_action(action, parameters)

    def action_button_step(self, step: int, vertical: int) -> None:
        focused = self.focused
        if not isinstance(focused, Button):
            return
        row, stacked = _row_of(focused)
        if bool(vertical) == stacked:
            i = row.index(focused) + step
            if 0 <= i < len(row):
                row[i].focus()
            return
        if not vertical:
            return  # ←/→ in a column of buttons: nothing beside it
        # ↑/↓ out of a row: the nearest focusable widget before or after it.
        chain = self.focus_chain
        positions = [chain.index(b) for b in row if b in chain]
        if not positions:
            return
        if step < 0:
            before = [w for w in chain[: min(positions)] if w not in row]
            if before:
                before[-1].focus()
        else:
            after = [w for w in chain[max(positions) + 1 :] if w not in row]
            if after:
                after[0].focus()


class KeysFooter(Footer):
    """Textual's footer, rebuilt only when what it shows changes.

    Textual's rebuilds itself (removes and mounts every key, each then styled
    three times) whenever the screen's bindings may have changed: every
    focus move, every dialog, every ``refresh_bindings``. At a table that was
    about a tenth of the client's CPU through a deal, for a footer that
    showed the same keys; on a phone over SSH that is battery."""

    _drawn: tuple[Any, ...] | None = None
    """What the keys were built from (``_keys``), once built."""

    def _keys(self) -> tuple[Any, ...]:
        # All the footer's compose reads: each shown binding with its
        # state and key display, and the footer's own settings.
        app = self.app
        shown = tuple(
            (binding, enabled, tooltip, app.get_key_display(binding))
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show or binding.key == app.COMMAND_PALETTE_BINDING
        )
        settings = (self.compact, self.show_command_palette, app.ENABLE_COMMAND_PALETTE)
        return shown, settings

    def compose(self) -> ComposeResult:
        self._drawn = self._keys() if self._bindings_ready else None
        yield from super().compose()

    async def recompose(self) -> None:
        if self._drawn is not None and self.is_attached and self._keys() == self._drawn:
            return
        await super().recompose()


def footer_width(screen: Screen[Any]) -> int:
    """The cells the footer needs for the bindings it shows now."""
    width = 0
    for active in screen.active_bindings.values():
        binding = active.binding
        if binding.show:
            key = screen.app.get_key_display(binding)
            # " k Description " : a cell each side, and one between.
            width += 1 + cell_len(key) + 1 + cell_len(binding.description) + 1
    return width


def fit_footer(screen: Screen[Any], optional: Sequence[str]) -> None:
    """Show every binding, then leave out the ``optional`` actions, first ones
    first, until the footer fits the screen's width."""
    bindings = screen._bindings.key_to_bindings
    hidden: dict[str, list[Binding]] = getattr(screen, "_footer_hidden", {})
    for key, items in hidden.items():
        bindings[key] = items
    hidden = {}
    width = screen.app.size.width
    for action in optional:
        if footer_width(screen) <= width:
            break
        for key, items in bindings.items():
            if any(b.action == action and b.show for b in items):
                hidden[key] = items
                bindings[key] = [dataclasses.replace(b, show=False) for b in items]
    screen._footer_hidden = hidden  # type: ignore[attr-defined]
    screen.refresh_bindings()


def offer_key(screen: Screen[Any], action: str, shown: bool, optional: Sequence[str]) -> None:
    """Show ``action``'s key in the footer or not (it works either way), then
    fit the footer again (``fit_footer``) if that changed anything."""
    bindings = screen._bindings.key_to_bindings
    changed = False
    for key, items in bindings.items():
        if any(b.action == action and b.show != shown for b in items):
            bindings[key] = [dataclasses.replace(b, show=shown) for b in items]
            changed = True
    if changed:
        fit_footer(screen, optional)
