"""Fuzz campaigns: hostile frames against the front door, random command
sequences against a table.

Two campaigns, each against a real server started in this process (the
memory store) and spoken to over real WebSockets on loopback, so every input
takes the server's own path: ``Front._serve`` (rate limit, decoder, error
answer) then its route (lobby, table inbox, table actor):

``frames``
    Each input is a byte string. A ``Draw`` reads choices from it (which
    codec, raw bytes or a structured command, which fields, which mutation,
    first frame of a connection or not), so an input replays exactly from its
    bytes. The frame is checked twice: by the real decoder alone (it raises
    ``DecodeError`` and nothing else) and through the server (every ``error``
    carries a code documented in docs/PROTOCOL.md §6.1 other than ``internal``,
    the connection stays open or closes with a documented code for a
    documented reason, the server logs no bug). A ``ping`` sent after each
    frame marks the end of its answers.

``tables``
    Episodes of one private table, four seated clients and two spectators
    (msgpack and JSON mixed) playing a seeded game with random commands:
    legal ones, illegal ones, out of turn, stale (commands accepted earlier,
    sent again), chat, snapshots, history, start/again, resumes from a new
    connection with the view held (current, older, or none) and forged
    tokens, the deal timer firing. After every step: the 78 cards are all
    there once, every client's document (patches applied to its last
    snapshot) equals a fresh view built by the table, no document holds a
    card its recipient may not see, and a refused command changed nothing
    (state and every stream's sequence number as before, nothing sent but the
    error). Each step is one input.

``core``
    The ``tables`` episodes, command mix and checks (``CoreEpisode`` is an
    ``Episode``) against ``TableCore.handle`` alone, with no server or
    socket: a driver stands in for the front (codec, ``already_seated``) and
    the actor (sends through the codec, keyed records, history).

Engines: ``--engine atheris`` (coverage-guided libFuzzer through atheris, when
installed: ``pip install atheris``) or ``--engine random`` (seeded random
inputs, no dependency: what CI runs). ``tables`` is driven by a seeded random
generator only: its inputs are sequences, not bytes.

    python bench/fuzz.py frames --runs 1000000 --engine atheris
    python bench/fuzz.py frames --runs 10000 --engine random --seed 1
    python bench/fuzz.py tables --runs 1000000 --seed 1 --json /tmp/tables.json
    python bench/fuzz.py core --runs 500000 --seed 1 --max-time 4800

A failure prints the input (hex for frames, seed and step for tables) and is
counted; ``--stop-on-failure`` stops at the first. A frame nested ~1,000
levels deep once crashed the decoder (RecursionError, closed 1011); the codec
now answers it ``malformed`` at any depth, so a RecursionError, a 1011 close or
a ``connection_error`` log is a failure like any other
(tests/test_fuzz.py holds the regression test).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # runs from a checkout, installed or not

from bench.fuzz_bench.cli import main  # noqa: E402

if __name__ == "__main__":
    main(__doc__ or "")
