"""What every layer of the server stands on (imported from the table core
up, importing none of them): ``clock`` (the injectable time), ``config``
(``Settings``), ``metrics`` (Prometheus), ``players`` (who a player is:
key, digest, id, name), ``text`` (typed text made safe to show)."""
