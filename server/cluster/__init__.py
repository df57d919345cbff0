"""Many ``atout-server`` processes on one Redis, one service (docs/CLUSTER.md).

* ``lease``      who owns a table: leases with a time to live, owner epochs (Lua);
* ``bus``        the process's pub/sub: typed messages between processes;
* ``membership`` heartbeats in, "process gone" out (no I/O, the injected clock);
* ``codes``      invite codes and listings in Redis;
* ``ownership``  claims and takeovers, the lease renewer, the orphan scan, the drain;
* ``relay``      connections on one process at tables served by another, relocation;
* ``remote``     ``RemoteTable`` (a table owned elsewhere, as the front sees it)
                 and ``RemotePeer`` (a connection held elsewhere, as a table sees it);
* ``node``       this process in the service: the ``Directory`` of its tables
                 (server/lobby/directory.py), wiring the parts above and the bus.

With the memory store none of this runs: one process is the whole service.
"""
