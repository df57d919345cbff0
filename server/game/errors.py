"""The one error type of the rules engine.

Errors are split by blame (see DESIGN.md): a ``RuleError`` always means the
*command* broke a rule or was malformed — the caller (a client, a bot, a deal
record) is at fault, the engine state is unchanged, and the error carries a
stable ``code`` plus a ``message`` for a person. Anything else escaping the
engine is our own bug.

Stable codes (shared with ``atout-server replay`` and the wire protocol):
``wrong_phase``, ``not_your_turn``, ``bad_seat``, ``bad_bid``, ``bad_call``, ``bad_ecart``,
``bad_chelem``, ``bad_poignee``, ``card_not_in_hand``, ``illegal_card``,
``unknown_card``, ``malformed``, ``bad_deck``.
"""

from __future__ import annotations

from protocol.errors import ErrorCode


class RuleError(Exception):
    """A command that the rules refuse. The engine state did not change."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        seat: int | None = None,
        card: str | None = None,
        trick: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.seat = seat
        self.card = card
        self.trick = trick

    def as_dict(self) -> dict[str, object]:
        """The error as ``replay`` prints it: code, message and where it applies."""
        out: dict[str, object] = {"error": self.code, "message": self.message}
        if self.trick is not None:
            out["trick"] = self.trick
        if self.seat is not None:
            out["seat"] = self.seat
        if self.card is not None:
            out["card"] = self.card
        return out
