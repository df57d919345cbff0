"""``python bench/scale.py``: many server processes on one Redis against one,
and failover (docs/LOAD.md); built on load.py's clients and figures
(``bench.load_bench``). The command's own text is bench/scale.py's docstring.

- ``cli``: the command line; ``compare``: owner and spread, N processes
  against one; ``failover``: kills and takeovers;
- ``server_group``: the processes on one Redis; ``failover_clients``: clients
  that resume elsewhere;
- ``measure``: one window's figures; ``profiles``: py-spy samples side by side.
"""
