"""Limits the server enforces on what a client asks for, shared with clients.

A client checks a form against these before sending it, so a person hears of
a mistake at once; the server checks again (``bad_table``) since any client
may send anything.
"""

from __future__ import annotations

from typing import Final

MAX_DEALS: Final = 40
"""Deals in one game (``CreateTable.deals`` is 1 to this)."""
MAX_TURN_TIMER: Final = 600.0
"""Seconds of the turn timer (``CreateTable.turn_timer`` is 0, off, to this)."""
MAX_RESULT_WAIT: Final = 600.0
"""Seconds a deal's result may wait for the players (``CreateTable.result_wait``)."""
NAME_MAX: Final = 24
"""Characters in a display name (a guest's longer name is cut; a player's refused)."""
TABLE_NAME_MAX: Final = 40
"""Characters in a table's name."""
SEED_MAX: Final = 64
"""Characters in a game's seed."""
TABLE_SIZES: Final = (3, 4, 5)
"""Players at a table (``CreateTable.players``, ``QuickPlay.players``); else ``bad_players``."""
