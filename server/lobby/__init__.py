"""The lobby and the tables: ``lobby`` (its commands, the listings of every
open table, the live list), ``tables`` (the tables this process serves, the
one way to open one, where each connection's commands go), ``directory``
(what goes beyond this process: ``OneProcess``, or the cluster's node)."""
