"""The table's chat: a line said at a seat, or why it is refused (a pure
function of the state; the core commits or refuses)."""

from __future__ import annotations

from typing import Literal

from protocol.views import ChatLine
from server.base.text import clean_text
from server.table.state import TableState

CHAT_KEEP = 50
CHAT_MAX = 200


def say(
    st: TableState,
    next_at: dict[int, float],
    seat: int,
    name: str,
    text: str,
    now: float,
    rate: float,
) -> Literal["bad_chat", "rate_limited"] | None:
    """Add ``name``'s line at ``seat`` to the chat; or the refusal's code.
    ``next_at``: when each seat may chat again (at most ``rate`` lines a second)."""
    text = clean_text(text)  # no terminal escapes or bidi tricks (server/link/guard.py)
    if not text or len(text) > CHAT_MAX:
        return "bad_chat"
    if now < next_at.get(seat, 0.0):
        return "rate_limited"
    next_at[seat] = now + 1.0 / rate
    st.chat.append(ChatLine(seat=seat, name=name, text=text, at=now))
    del st.chat[:-CHAT_KEEP]
    return None
