"""The rules engine: pure, deterministic, no asyncio, no I/O.

``Deal`` plays one deal, ``Game`` a game of N deals, ``replay_record`` checks
and scores a deal record. Every refused command raises ``RuleError``.
The rules it plays, and which module enforces each, are in ``docs/RULES.md``.
"""

from server.game.contracts import BID_NAMES, BID_OF, MULTIPLIER
from server.game.deal import COMMANDS, Action, Deal, Phase
from server.game.errors import RuleError
from server.game.game import Game
from server.game.game_state import GameState
from server.game.replay import replay_record
from server.game.results import AnnulledDeal, DealResult, ScoredDeal

__all__ = [
    "BID_NAMES",
    "BID_OF",
    "COMMANDS",
    "MULTIPLIER",
    "Action",
    "AnnulledDeal",
    "Deal",
    "DealResult",
    "Game",
    "GameState",
    "Phase",
    "RuleError",
    "ScoredDeal",
    "replay_record",
]
