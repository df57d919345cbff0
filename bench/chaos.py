"""Crash campaign: tables play on Redis while the server is killed with SIGKILL
at random moments and restarted, and while Redis itself is killed and restarted.

A real ``redis-server`` (tests/support/redis.py) with the persistence of
deploy/redis.conf (append-only file, ``appendfsync always``), the real
server as a child process (``python -m server serve --redis ...``), scripted
clients over real WebSockets. Each table: two humans (seats 0 and 1, random
legal moves, a few ms apart) and two bots (``random`` level), a game of
``--deals`` deals; a finished table is checked and its creator opens a new one.

Server kills (``--kills``): after a random pause (0.2-3 s; one time in four
0.05-0.5 s after the restart, in the resume storm) SIGKILL, then start a new
process at once. Clients reconnect every 50 ms and ``resume`` with their
token (``last_seq`` -1). Counted:

* acknowledged moves lost: a move is acknowledged once any client received a
  view showing it. The moves of the current deal (bids and cards played, in
  order) and the score sheet's length that any client had seen when the kill
  came are compared with the first snapshot after the restart: the restored
  deal must start with every acknowledged move;
* resume failures: a ``resume`` not answered by ``seated``;
* games finished, and how many have final scores equal to the sum of their
  deal records (``history``, each record scored again by ``replay_record``);
* time from starting the new process to every table playing again (a client
  of each table sees a move past what was acknowledged at the kill).

Redis kills (``--redis-kills``): read every table's stored version, SIGKILL
Redis, keep it down 0.2-2 s while the tables play on from memory, restart
it (it reloads its append-only file), read the versions again at once:
tables whose stored version went back are writes Redis had acknowledged and
lost. Then the time until ``/healthz`` says ``ok`` again (the server has
written every table back).

    python bench/chaos.py --tables 8 --kills 100 --redis-kills 5 --json /tmp/chaos.json
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # runs from a checkout, installed or not

from bench.chaos_bench.cli import main  # noqa: E402

if __name__ == "__main__":
    main(__doc__ or "")
