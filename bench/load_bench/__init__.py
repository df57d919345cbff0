"""``python bench/load.py``: how many players one core hosts, and at what
latency (docs/LOAD.md). The command's own text is bench/load.py's docstring.

- ``cli``: the command line; ``coordinator``: the plan of a run and the ratios;
- ``ramp``, ``idle``, ``abuse``: the three kinds of measurement;
- ``server_run``: the server under test and its client processes;
- ``worker``: a client process; ``table_clients``: one table's four clients;
  ``views``: what a client reads of its table view;
- ``stats`` and ``report``: a window's figures and how they print;
- ``gc_log``, ``profiling``, ``redis_aof``: the collector's pauses, callgrind and
  py-spy, Redis's append-only file.
"""
