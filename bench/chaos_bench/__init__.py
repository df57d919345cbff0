"""``python bench/chaos.py``: the crash campaign (docs/SECURITY.md). The
command's own text is bench/chaos.py's docstring.

- ``cli``: the command line; ``campaign``: the kills and what each cost;
- ``tables``: the scripted seats and the checks after a restart;
  ``progress``: what a view shows of a game;
- ``server``: the server process and the Redis persistence; ``figures``: the
  counts and the report.
"""
