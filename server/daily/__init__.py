"""The daily game: the same deals for every player each UTC day, ranked
duplicate-style (``ranking``), with leaderboards (``board``).

- ``deals``: the day's game (seed, human seat) from the server secret and the date;
- ``ranking``: the pure ranking math;
- ``board``: the ``DailyBoard`` contract and its memory implementation;
- ``redis_board``: the same contract in Redis.
"""
