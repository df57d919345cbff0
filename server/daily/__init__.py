"""The daily game: the same deals for every player each UTC day, ranked
duplicate-style (``ranking``), with leaderboards (``board``).

- ``deals``: the day's game (seed, human seat) from the server secret and the date;
- ``ranking``: the pure ranking math;
- ``board``: the ``DailyBoard`` contract and its memory implementation;
- ``redis_board``: the same contract in Redis;
- ``service``: identity, the ``daily`` command, recording a finished game.

The rules of a daily table itself (private until finished, leave keeps the
seat, no ``again``, the end after the day's deals) are in
``mode`` (``DailyMode``, a ``TableMode`` the pure table core consults);
``service`` hears their end (``GameOver``, server/table/ending.py).
"""
