"""What a refused table command is told: the table's own refusals, in
words for a person (the engine's refusals carry their own message, as do a
mode's)."""

from __future__ import annotations

from protocol.errors import ErrorCode
from server.table.chat import CHAT_MAX

REFUSALS: dict[ErrorCode, str] = {
    "not_at_table": "you are not at this table",
    "spectator": "spectators watch; sit down to play",
    "already_started": "the game has already started",
    "not_creator": "only the table's creator starts the game",
    "not_finished": "the game is not over yet",
    "not_between_deals": "no deal result is waiting for you",
    "wrong_phase": "no deal is being played",
    "bad_chat": f"chat lines are 1 to {CHAT_MAX} characters",
    "rate_limited": "you are chatting too fast",
}
"""What a refused table command is told, by code (the engine's refusals
carry their own message, as do the mode's)."""
NO_CALL = "nobody calls a card at a table of {}: only at five players"
"""A ``call`` at a table whose camps are not formed by a called card."""
