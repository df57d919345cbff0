"""The compiled build: which modules it compiles, and whether this process runs them.

An install with ``ATOUT_COMPILE=1`` compiles the modules of ``COMPILED`` with
mypyc (``setup.py`` reads this list from this file, without importing the
package): the same sources, as C extensions beside them, a fifth or more
fewer instructions a move for the whole server and a deal played in a third
of the time by the engine (docs/LOAD.md, "The compiled build (mypyc)" and
the ninth pass's sections). Without it the package is pure Python, as it
always was; nothing else differs.

This module imports nothing but the standard library: the build reads it
before any dependency is installed.

A module is in the list when compiling it measurably pays on the hot paths
(a move through the table, a deal played by the engine) and it compiles and
behaves the same. Left out, and why:

* ``server.game.results``, ``server.game.variant``: they define msgspec
  Structs that are hashed (dict keys, ``lru_cache`` arguments) or have
  ``msgspec.field`` defaults; mypyc turns a Struct subclass into a class that
  msgspec's metaclass does not build as it expects ("unhashable type"). The
  score's arithmetic (``server.game.scoring``, once a played deal) is kept
  apart from its Structs (``results``), and compiled.
* ``server.game.game_state``, ``server.table.state``: msgspec Structs that are
  decoded (a saved game, a saved table). A Struct defined in a compiled module
  has its fields' annotations bare (``list``, not ``list[tuple[str, int,
  Any]]``), so msgspec would decode other types (lists for tuples); and
  ``state`` has ``msgspec.field`` defaults, as above. ``GameState`` is apart
  from ``server.game.game`` (compiled) for this reason.
* ``protocol.diff``: it subclasses ``list``; not measured compiled (the diff
  runs on moves other than a card).
* A ``StateWriter`` of its own, compiled: measured, no gain (``bench/fanout.py``,
  +170 instructions a move): its work is msgspec's.
* the rest: run once a connection, a table or a request, or wait on I/O.

A stale build is a trap: Python imports a module's ``.so`` before its
``.py``, so after editing a compiled module its old compiled code still runs
until it is built again (``ATOUT_COMPILE=1 pip install -e .``), or the
compiled files are removed to run the Python again (``find protocol server
-name '*.so' -delete``; not ``git clean -X`` with a pattern, which takes
``.venv`` with it). ``status`` tells which modules run
compiled and which are older than their source; the server logs it when it
starts.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Final

COMPILED: Final = (
    # The engine: every card played, and thousands of deals per bot decision.
    "protocol.cards",
    "server.game.calling",
    "server.game.contracts",
    "server.game.deal",
    "server.game.dealing",
    "server.game.ecart",
    "server.game.errors",
    "server.game.following",
    "server.game.held",
    "server.game.game",
    "server.game.commands",
    "server.game.outcome",
    "server.game.poignee",
    "server.game.scoring",
    # A move through the table: the core decides, the fan-out writes each
    # seat's patch, the version 2 encoding, the connection's writes, the store.
    "protocol.positional",
    "server.link.conn",
    "server.store.memory",
    "server.table.core",
    "server.table.fanout",
    "server.table.last",
    "server.table.own_ops",
    "server.table.seat_view",
    "server.table.stream",
    "server.table.timers",
    "server.table.pace",
    # Every frame in and out: the front's checks and rate limit, the codec's
    # encoding and decoding. Each pair measured alone ~3% of a move's
    # instructions (docs/LOAD.md).
    "protocol.codec",
    "protocol.msgpack_arrays",
    "server.front.door",
    "server.link.guard",
    # The tenth pass (docs/LOAD.md): the lean reader of a move's frame, the
    # table's actor and inbox, and the counters and latency histogram they
    # add to per move. Compiled, a class's methods call each other directly
    # (a test changes what websockets holds, not the reader's methods), and
    # the actor names a look-alike connection with a protocol, not ``Conn``.
    "server.link.reader",
    "server.table.actor",
    "server.table.inbox",
    "server.base.metrics",
    # The server's keepalive (a ping per connection every 20 s) and the moves
    # of a deal that are not a card (a bid, the écart...): measured with the
    # rest of the ninth pass (docs/LOAD.md).
    "server.link.keepalive",
    "server.table.deal_moves",
)
"""The modules a compiled build compiles (dotted names, from the project root)."""

SHARED: Final = "server.native"
"""mypyc's group: its shared library, that holds the code of every compiled
module, is the module ``server.native__mypyc``."""


def sources(root: Path) -> list[Path]:
    """The source files of ``COMPILED`` under ``root`` (what ``setup.py`` compiles)."""
    return [root.joinpath(*name.split(".")).with_suffix(".py") for name in COMPILED]


def status() -> tuple[list[str], list[str], list[str]]:
    """The modules of ``COMPILED`` that this process imports compiled, those it
    imports as Python, and the compiled ones whose source is newer than their
    compiled file (edited since the last build: the edit does not run).

    Read from where the import system finds each module, without importing it.
    """
    compiled: list[str] = []
    pure: list[str] = []
    stale: list[str] = []
    for name in COMPILED:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        if origin is None or origin.endswith(".py"):
            pure.append(name)
            continue
        compiled.append(name)
        built = Path(origin)
        source = built.parent / (name.rsplit(".", 1)[-1] + ".py")
        if source.exists() and source.stat().st_mtime > _built_at(built, name.count(".")):
            stale.append(name)
    return compiled, pure, stale


def _built_at(built: Path, depth: int) -> float:
    """When a module's compiled code was last built: its own file is a small
    stub that a build leaves as it was when only the code changed; the code
    is in mypyc's shared library (``SHARED``)."""
    package, name = SHARED.rsplit(".", 1)
    folder = built.parents[depth].joinpath(*package.split("."))
    shared = [os.stat(lib).st_mtime for lib in folder.glob(f"{name}__mypyc.*")]
    return max([built.stat().st_mtime, *shared])
