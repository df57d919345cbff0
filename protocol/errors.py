"""Every code an ``error`` or a ``bye`` can carry (docs/PROTOCOL.md §6.1, §6.2).

The server types each code it sends with these, so mypy refuses a code
nobody documented; ``tests/test_error_codes.py`` checks the document lists
exactly these; a client can match on them.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

ErrorCode: TypeAlias = Literal[
    # decoding a frame
    "malformed",
    "unknown_message",
    "invalid_message",
    # the connection
    "hello_first",
    "incompatible_version",
    "bad_name",
    "already_hello",
    "rate_limited",
    # the lobby
    "already_seated",
    "not_at_table",
    "bad_table",
    "too_many_tables",
    "bad_players",
    "no_such_table",
    "bad_token",
    "table_closed",
    # seats
    "bad_seat",
    "seat_taken",
    "wait_for_deal_end",
    "table_full",
    # the table
    "spectator",
    "already_started",
    "not_creator",
    "not_finished",
    "not_between_deals",
    "bad_chat",
    "no_hints",
    "unexpected",
    "internal",
    # the rules (RuleError)
    "wrong_phase",
    "not_your_turn",
    "bad_bid",
    "bad_call",
    "bad_ecart",
    "bad_chelem",
    "bad_poignee",
    "card_not_in_hand",
    "illegal_card",
    "unknown_card",
    "bad_deck",
    # players, the daily game, leaderboards (§11)
    "bad_key",
    "unknown_key",
    "name_taken",
    "guest",
    "daily_private",
    "daily_again",
    "bad_period",
    "unavailable",
    # tournaments (§12)
    "bad_tournament",
    "no_such_tournament",
    "tournament_started",
    "tournament_finished",
    "already_joined",
    "not_joined",
    "not_host",
    "team_full",
    "too_few_players",
    "too_early",
    "tournament_table",
]

ByeCode: TypeAlias = Literal["no_hello", "flooding", "replaced", "restarting", "idle"]
