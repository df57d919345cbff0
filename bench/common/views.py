"""A table view as the benches' scripted clients keep it: patched in place,
and a random écart chosen from what it says is legal."""

from __future__ import annotations

import random
from typing import Any


def apply_patch(doc: Any, patch: list[Any]) -> Any:
    """Apply ``[path, op, value]`` ops (protocol/diff.py) to ``doc`` in place.

    No checks beyond what Python does anyway: a bad step raises and the
    caller asks for a snapshot. Values come fresh from the decoder, so they
    can be put in the document without copying.
    """
    for path, op, value in patch:
        if not path:
            if op == "set":
                doc = value
            else:  # append to the root array (views are maps: never happens)
                doc.extend(value)
            continue
        node = doc
        for step in path[:-1]:
            node = node[step]
        last = path[-1]
        if op == "set":
            node[last] = value
        elif op == "append":
            node[last].extend(value)
        elif op == "del":
            del node[last]
        else:
            raise ValueError(f"unknown op {op!r}")
    return doc


def random_ecart(legal: Any, rng: random.Random) -> list[str]:
    """The cards a random player lays aside, from a view's ``legal``: when
    trumps must go (``ecart_trumps``), every allowed card that is not a trump
    and that many trumps; otherwise six of the allowed cards that are not."""
    trumps = [c for c in legal["ecart"] if c[0] == "T"]
    suits = [c for c in legal["ecart"] if c[0] != "T"]
    need = legal["ecart_trumps"]
    return suits + rng.sample(trumps, need) if need else rng.sample(suits, 6)
