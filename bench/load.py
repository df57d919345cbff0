"""Benchmark: how many players one core hosts, and at what latency.

The server runs in its own process pinned to one core (core 0 by default);
client processes pinned to the other cores drive many tables over real
WebSockets on loopback. Each table has four human clients (no bots): one
creates a private table (``turn_timer`` 0), three join it by invite code, the
creator starts, and the table then plays random legal moves at a fixed pace
(``--pace`` moves per second per table, each table's phase jittered; with
``--spread S`` the tables' first moves fall over S seconds, so that their
deals, ~80 moves each, do not all end in the same second). A
client keeps its view in step with the terminal client's synchroniser
(``clients/sync.py``: the seq, patch and snapshot rules), over the plain
msgpack document patched in place (plain dict and list operations, no typed
conversion: cheap enough for thousands of clients per process).

Latency is move-to-last-seat-update: from the moment a client sends a move to
the moment the fourth client of its table holds a view showing it. "Showing
it" is judged from the document, not from sequence numbers: a view's
progress (game, score-sheet length, phase, bids, cards played) is a tuple
that every move makes strictly greater.

The number of tables ramps up in ``--steps`` on one server: each step connects
and seats the new tables, lets everything play for ``--warmup`` seconds, then
measures for ``--measure`` seconds. Per step it prints clients, tables, moves
per second, latency p50/p99/max, the server's CPU (share of one core and CPU
microseconds per move, from /proc/<pid>/stat), its RSS, bytes per move (all
payload bytes the clients received / moves), the clients' own CPU (if it nears
100% of their cores, the clients and not the server are measured), errors
(``Error`` messages, sequence gaps, failed patches) and disconnects; below
each row, how long the server waited, runnable, for its core (schedstat: on a
shared machine, other work on that core shows here and in the tails) and the
slowest moves with any collector pause that ended while they waited.
``--gc-log`` runs the server through a tiny wrapper that logs every garbage
collection (``gc.callbacks``) and reports the pauses per step;
``--gc-threshold`` and ``--gc-freeze-every`` are experiments on top of the
server's own ``tune_gc`` (thresholds; a periodic ``gc.freeze()``), to measure
a change before making it; ``--stall-log MS`` writes the server's stack
whenever its event loop ran nothing for MS milliseconds, and lists the
window's stalls under its row. ``--nice -10`` (root) keeps the machine's other
work off the measured cores; ``--server-root`` runs the server from another
copy of the code (say a ``git archive`` export), so a tree being edited does
not change under a long run.

``--target bare`` drives ``bench/bare_server.py`` instead (a ``websockets``
fan-out with no game: each move is one tiny frame broadcast to the four
clients of its group); ``--target both`` runs ours then bare at the same pace
and prints the ratio of server CPU per move; ``--rounds N`` repeats the
ramps, ours and bare interleaved, and prints the spread of that ratio (the
cost of the same work drifts over minutes on a virtual machine, so a ratio is
only fair between neighbouring runs). ``--idle N`` measures memory:
the RSS growth of a fresh server for 4N connected clients, then for N idle
tables (seated, game started). ``--abuse IDLE,STALLED`` measures memory
and latency under abuse (see ``abuse``). ``--profile FILE`` runs py-spy on the server
during the measurement of the last step and prints the hot spots.

    python bench/load.py --steps 20,50 --measure 10                # small, quick
    python bench/load.py --store both --target both --idle 250 \\
        --steps 50,100,200,500,1000 --measure 20 --json /tmp/load.json
    python bench/load.py --store redis --target both --steps 500,1000 --rounds 3
    python bench/load.py --steps 500 --profile /tmp/atout-profile.txt
    python bench/load.py --steps 1000 --gc-freeze-every 0.5       # an experiment
    python bench/load.py --store redis --steps 4000 --spread 80 --warmup 240 \\
        --measure 60 --workers 3 --nice -10 --gc-log --stall-log 30  # goal 3

Every run is bounded (``--max-time``), loopback only, and kills its children.
``--worker`` is the client process's entry point, not for people.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Runnable as a plain script: the project and its tests folder from the root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load_bench.cli import main

if __name__ == "__main__":
    main(__doc__ or "")
