"""What ``atout play`` remembers of its game under way, for the resume offer.

The embedded server keeps the game itself (its file, which this client never
reads); this client keeps, beside its seat's token, what it last saw of that
game over the protocol: the table's name, the deal being played, the score.
The next ``atout play`` asks with it *before* sitting down again — no turn
timer runs and no bot plays while the player reads the question — then the
link resumes the seat and the server has the last word: a game it no longer
has makes way for a new one without a fuss (``app.py``).

Written only when one of those facts changes (once a deal), as a small JSON
file; a file that cannot be read or written just means no question.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from clients.cli import wording
from protocol.views import TableView

log = logging.getLogger("atout.client")


@dataclass(frozen=True)
class SavedGame:
    table_id: str
    name: str
    deal: int
    """The counted deal under way (annulled attempts do not count)."""
    deals: int
    score: int
    """Our total so far."""

    @classmethod
    def of(cls, view: TableView) -> SavedGame | None:
        """The game ``view`` shows, if it is one to resume (under way, and ours)."""
        you = view.you
        if view.status not in ("playing", "between_deals") or you is None:
            return None
        counted = sum(1 for line in view.sheet if line.annulled is None)
        score = sum(line.scores[you] for line in view.sheet)
        return cls(view.table_id, view.name, counted + 1, view.deals, score)

    def question(self) -> str:
        return wording.resume_question(self.name, self.deal, self.deals, self.score)


class SavedGameFile:
    """The one ``SavedGame`` of a play file, kept up to date by ``note``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._last: SavedGame | None = None

    def load(self) -> SavedGame | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            game = SavedGame(**data)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError):
            log.warning("the saved game's summary is unreadable; no resume offer", exc_info=True)
            return None
        self._last = game
        return game

    def note(self, view: TableView | None) -> None:
        """Keep what ``view`` shows of our game (or that there is none)."""
        game = SavedGame.of(view) if view is not None else None
        if game == self._last:
            return
        self._last = game
        try:
            if game is None:
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            part = self.path.with_name(self.path.name + ".part")
            part.write_text(json.dumps(asdict(game)), encoding="utf-8")
            os.replace(part, self.path)  # never half a file
        except OSError:
            log.warning("the saved game's summary is not kept", exc_info=True)

    def forget(self) -> None:
        self._last = None
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            log.warning("the saved game's summary is not removed", exc_info=True)
