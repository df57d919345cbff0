"""Benchmark: many server processes on one Redis (issue 16) against one.

Every configuration runs ``atout-server`` processes on their own ports, on a
fresh Redis, driven by bench/load.py's client processes and measured the same
way (its clients, its latency of move-to-last-seat-update, its summary):

``--mode owner`` (a): each table's four clients connect to the process where
the table was created, which owns it: no Redis round trip beyond the save.
Client process i talks to server i mod N.

``--mode spread`` (b): each table's four clients connect to different
processes (client k of table t to server (t + k) mod N): every move crosses
the bus. Needs the cluster core (server/cluster/); without it the bench
stops at once, saying so, after one probe.

Both compare ``--processes N`` with one process, in the same run, at the same
number of tables (``--tables``, default 1,000) and pace: server CPU per move
summed over the processes, and the ratio to one process; p50/p99 latency.

``--mode failover``: ``--tables`` busy tables (clients spread) on
``--processes`` processes (3); ``--kills K`` times, kill -9 one process (in
turn) and start it again at once; for each table whose lease changed hands
(``atout:lease:{table}`` in Redis, before the kill and after
``--settle`` seconds), the time from the kill to the first move its clients
saw after it (median, max), and the acknowledged moves lost (a client's view
that went back). Clients of the killed process reconnect to the next
process and resume with their tokens. The servers run with ``--grace 0``
(a seat whose client is away is played by a bot at once) so the figure is
the takeover, not the reconnection; ``--server-args`` may say otherwise.

    python bench/scale.py --mode owner --processes 3 --tables 300 --measure 20
    python bench/scale.py --mode spread --processes 3 --tables 1000
    python bench/scale.py --mode failover --processes 3 --tables 300 --kills 10

``--profile PATH`` (owner and spread) py-spy-records the first server process
of each run for the measured window (bench/load.py's ``profile_window``):
``PATH`` with ``-Nproc`` / ``-1proc`` before its suffix. Raw stacks (a .txt)
are compared side by side: that process's CPU per move it served, split as
its busy samples are (per component, per task the loop ran, per function);
.svg or .json are written for a viewer. The profiled runs' CPU figures carry
py-spy's own cost (it stops the process 100 times a second): compare them
with each other only.

Loopback only, bounded (``--max-time``), every child killed at the end.
``--client`` is the client process's entry point, not for people.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scale_bench.cli import main

if __name__ == "__main__":
    main(__doc__ or "")
