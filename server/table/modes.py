"""The registry of table modes: a mode's stored name to its policy.

A table's persisted state names its mode (``TableState.mode``) and keeps its
terms (``TableState.terms``); ``policy_of`` makes the mode's policy (a
``TableMode``, ``server.table.mode``) from them, when a table is made or
restored. A new kind of table is a policy with the ``TableMode`` methods
and a ``restore(terms)`` that makes it from its stored terms, which its own
package registers when imported (``server/daily/mode.py``,
``server/tournament/mode.py``): the table imports no mode, and the core
does not change. Its end is heard by the mode's ``GameEnds``
(``server.table.ending``).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from server.table.mode import NormalMode, TableMode
from server.table.state import TableState

Restore = Callable[[object], TableMode]
"""Makes a mode's policy again from the terms its table's state keeps."""

MODES: dict[str, Restore] = {}


def register(name: str, restore: Restore) -> None:
    """Tables whose state names mode ``name`` follow the policy ``restore`` makes."""
    if MODES.get(name, restore) != restore:
        raise ValueError(f"table mode {name!r} is registered already")
    MODES[name] = restore


def policy_of(state: TableState) -> TableMode:
    """The policy of the table whose state is ``state``."""
    restore = MODES.get(state.mode)
    if restore is None:
        # A state from a newer server, with a mode this one does not know.
        raise ValueError(f"table {state.table_id}: unknown table mode {state.mode!r}")
    return restore(state.terms)


def assign(state: TableState, mode: TableMode) -> None:
    """Make the new table of ``state`` follow ``mode`` (before its core is made)."""
    if mode.name not in MODES:
        raise ValueError(f"table mode {mode.name!r} is not registered")
    state.mode = mode.name
    state.terms = msgspec.to_builtins(mode.terms)


register(NormalMode.name, NormalMode.restore)
