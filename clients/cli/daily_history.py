"""The daily games this computer finished, for the profile screen's statistics.

The protocol gives a player's leaderboard lines (position, mean percentage,
points or days) but no game statistics (games, deals, taker success, mean
score per deal), so the client keeps its own record: when ``daily_result``
arrives, the finished table's score sheet says who took each deal and
whether the contract was made. It covers the daily games played from this
computer only (an imported key brings no history), which the profile screen
says in so many words.

``daily.json`` in the config folder, keyed by server URL like the keys and
tokens; losing it loses statistics, nothing else, so a damaged file starts
afresh.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clients.cli.tokens import config_dir, normalize
from protocol.views import DailyResultView, TableView

HISTORY_FILE = "daily.json"
KEEP = 1000
"""Games kept per server (about 3 years of one a day)."""


@dataclass(frozen=True)
class Stats:
    games: int
    ranked: int
    deals: int
    taken: int
    """Deals we were the taker of (annulled deals have no taker)."""
    made: int
    """... and made the contract."""
    mean: float | None
    """Mean of our score per deal, None before any deal."""


def game_record(result: DailyResultView, view: TableView | None) -> dict[str, Any]:
    """One finished daily game as stored: each deal's score, and whether we took it and made it."""
    sheet = view.sheet if view is not None else []
    you = view.you if view is not None else None
    deals = []
    for i, d in enumerate(result.deals):
        line = sheet[i] if i < len(sheet) else None
        taker = line is not None and you is not None and line.taker == you
        made = bool(line.made) if taker and line is not None else None
        deals.append({"points": d.points, "taker": taker, "made": made})
    table_id = view.table_id if view is not None else ""
    return {"day": result.day, "ranked": result.ranked, "table": table_id, "deals": deals}


def stats(games: list[dict[str, Any]]) -> Stats:
    scores = [int(d["points"]) for g in games for d in g["deals"]]
    taken = [d for g in games for d in g["deals"] if d.get("taker")]
    return Stats(
        games=len(games),
        ranked=sum(1 for g in games if g.get("ranked")),
        deals=len(scores),
        taken=len(taken),
        made=sum(1 for d in taken if d.get("made")),
        mean=sum(scores) / len(scores) if scores else None,
    )


class FileHistory:
    def __init__(self, folder: Path | None = None) -> None:
        self.path = (folder or config_dir()) / HISTORY_FILE

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def games(self, url: str) -> list[dict[str, Any]]:
        games = self._load().get(normalize(url))
        if not isinstance(games, list):
            return []
        return [g for g in games if isinstance(g, dict) and isinstance(g.get("deals"), list)]

    def add(self, url: str, game: dict[str, Any]) -> None:
        data = self._load()
        games = self.games(url)
        if game["table"] and any(g.get("table") == game["table"] for g in games):
            return  # the same game's result heard twice (a reconnection)
        data[normalize(url)] = [*games, game][-KEEP:]
        with contextlib.suppress(OSError):  # statistics must never stop a game
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".daily.")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
