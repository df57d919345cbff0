"""``python bench/fuzz.py``: the fuzz campaigns (docs/SECURITY.md). The
command's own text is bench/fuzz.py's docstring.

- ``cli``: the command line; ``tally``: what is counted, what is a failure;
- frames: ``inputs`` (a frame from bytes), ``wire`` (a connection per codec),
  ``frames`` (the campaign), ``atheris_engine`` (coverage-guided);
- tables: ``players`` (scripted clients), ``table_checks`` (the invariants),
  ``tables`` (the episodes, over WebSockets), ``core`` (the same against
  ``TableCore`` alone); ``settings``: the server's.
"""
