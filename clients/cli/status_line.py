"""The table screen's message line, as data: what it shows and whether it is
an error.

One sentence at a time, starting with a capital (the server's and the
rules' texts often start in lower case); never the same sentence as the
prompt just above it (an annulled deal used to read twice); an error stays
until the game moves on (``moved_on``), so a refusal does not outlive the
next move nor the end of the game. Pure: the screen draws ``text``.
"""

from __future__ import annotations

from dataclasses import dataclass


def sentence(text: str) -> str:
    """``text`` with a capital first letter (a no-op in Chinese and Korean)."""
    text = text.strip()
    return text[:1].upper() + text[1:]


@dataclass
class StatusLine:
    text: str = ""
    error: bool = False

    def put(self, text: str, error: bool, prompt: str = "") -> bool:
        """Show ``text``; False when the line would not change (nothing to draw)."""
        text = sentence(text)
        if not error and text == sentence(prompt):
            text = ""  # the prompt says it already, one line up
        if (text, error and bool(text)) == (self.text, self.error):
            return False
        self.text, self.error = text, error and bool(text)
        return True

    def moved_on(self) -> bool:
        """The game moved on: an error shown is stale. True when it was cleared."""
        return self.error and self.put("", False)
