"""A game at a table: N counted deals, the deal passing round, scores adding up.

Annulled deals (every seat passed, petit sec) do not count towards N, but the deal
still passes to the next dealer. Each deal's cards come from an RNG seeded by
the game's seed and the deal's attempt number, so a game is reproducible from
``GameState`` alone: the seed, the results so far and the current deal's log.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from typing import Any

import msgspec

from server.game.deal import Action, Deal
from server.game.errors import RuleError
from server.game.game_state import GameState
from server.game.results import AnnulledDeal, DealResult, ScoredDeal
from server.game.variant import FOUR, Variant, variant_for

dealing: Callable[[random.Random, int, Variant], Deal] = Deal.deal
"""How a game deals its cards (``Deal.deal``): a variable, so that a test can
deal the cards it chooses by replacing it, compiled or not (compiled code
calls a class's method without looking it up; it reads a module's variable)."""

DEFAULT_DEALS = FOUR.default_deals
"""A four-player game's counted deals unless told; ``Variant.default_deals`` for others."""


def _result_from(data: dict[str, Any]) -> DealResult:
    if "annulled" in data:
        return msgspec.convert(data, AnnulledDeal)
    return msgspec.convert(data, ScoredDeal)


class _Tally:
    """What ``Game`` derives from its results, computed once per new result."""

    __slots__ = ("counted", "documents", "length", "totals")

    def __init__(self, results: list[DealResult], variant: Variant) -> None:
        self.length = len(results)
        self.counted = sum(1 for r in results if isinstance(r, ScoredDeal))
        self.totals = variant.no_scores()
        for result in results:
            for seat, points in enumerate(result.scores):
                self.totals[seat] += points
        self.documents: list[Any] = [msgspec.to_builtins(r) for r in results]


class Game:
    """A game of ``deals`` counted deals. ``deal`` is the deal being played.

    Usage contract: play ``deal`` through its methods; when it is over
    (``deal_over``), call ``next_deal`` to record it and deal the next one,
    until ``finished``.
    """

    def __new__(cls, *args: object, **kwargs: object) -> Game:
        # For ``restore``, a game without ``__init__``: compiled (server/base/compiled.py),
        # a class's ``__new__`` runs ``__init__`` unless the class has its own.
        return object.__new__(cls)

    def __init__(
        self,
        deals: int | None = None,
        seed: str | None = None,
        first_dealer: int | None = None,
        variant: Variant = FOUR,
    ) -> None:
        if deals is None:
            deals = variant.default_deals  # each seat deals twice
        if deals < 1:
            raise RuleError("malformed", "a game has at least one deal")
        self.variant = variant
        self.seed = seed if seed is not None else secrets.token_hex(8)
        self.deals = deals
        if first_dealer is None:
            # The first dealer is drawn at random (from the seed, so a seeded
            # game is reproducible).
            first_dealer = random.Random(f"{self.seed}/dealer").randrange(variant.players)
        self.first_dealer = first_dealer
        self.attempt = 0
        self.results: list[DealResult] = []
        self._tally_cache: _Tally | None = None
        self.deal = self._new_deal()

    @property
    def dealer(self) -> int:
        return self.variant.after(self.first_dealer, self.attempt)

    def _new_deal(self) -> Deal:
        return dealing(random.Random(f"{self.seed}/{self.attempt}"), self.dealer, self.variant)

    def _tally(self) -> _Tally:
        # ``results`` only ever grows (record_deal), so what is derived from
        # it is kept until its length changes: a table asks for these after
        # every move, and a long game has many results.
        tally = self._tally_cache
        if tally is None or tally.length != len(self.results):
            tally = self._tally_cache = _Tally(self.results, self.variant)
        return tally

    @property
    def counted(self) -> int:
        """Deals that count (not annulled) among those finished."""
        return self._tally().counted

    @property
    def deal_over(self) -> bool:
        return self.deal.phase in ("done", "annulled")

    @property
    def finished(self) -> bool:
        return self.counted >= self.deals

    @property
    def recorded(self) -> bool:
        """The current deal is over and its result is in ``results``."""
        return len(self.results) > self.attempt

    def record_deal(self) -> DealResult:
        """Add the finished deal's result to the score sheet (once).

        The table shows the finished deal, already scored, for a moment
        before ``next_deal``; the game is ``finished`` as soon as the last
        counted deal is recorded.
        """
        result = self.deal.result()
        if result is None:
            raise RuleError("wrong_phase", "the deal is not over yet")
        if not self.recorded:
            self.results.append(result)
        return result

    def next_deal(self) -> DealResult:
        """Record the finished deal (if not yet) and deal the next one."""
        if self.finished:
            raise RuleError("wrong_phase", "the game is over")
        result = self.record_deal()
        if not self.finished:
            self.attempt += 1
            self.deal = self._new_deal()
        return result

    def totals(self) -> list[int]:
        """Each seat's total score (the same list until a deal is recorded: do not mutate)."""
        return self._tally().totals

    def ranking(self) -> list[int]:
        """Seats from first to last by total score (ties: the lower seat first)."""
        totals = self.totals()
        return sorted(self.variant.seats, key=lambda seat: (-totals[seat], seat))

    def state(self) -> GameState:
        """The game as it is now, to encode or restore from at once: its log is
        the deal's own list, not a copy (the next command appends to it). A
        copy a move was ~70 references taken and dropped on the deal's
        entries, which lie all over the heap: ~60 cache misses a move in
        callgrind's cache simulation (docs/LOAD.md, fourteenth pass)."""
        # (by position: a Struct's keywords are matched by name, once a move)
        return GameState(
            self.seed,
            self.deals,
            self.first_dealer,
            self.attempt,
            self._tally().documents,
            self.deal.log,
            self.variant.players,
        )

    @classmethod
    def restore(cls, state: GameState) -> Game:
        """Rebuild a game from its state: re-deal the current deal, replay its log."""
        # (``Game.__new__``, not ``cls.__new__(cls)``: mypyc fails on the latter)
        game = Game.__new__(Game)
        game.variant = variant_for(state.players)
        game.seed = state.seed
        game.deals = state.deals
        game.first_dealer = state.first_dealer
        game.attempt = state.attempt
        game.results = [_result_from(r) for r in state.results]
        game._tally_cache = None
        game.deal = game._new_deal()
        log: list[Action] = [(kind, seat, value) for kind, seat, value in state.log]
        for action in log:
            game.deal.apply(action)
        return game
