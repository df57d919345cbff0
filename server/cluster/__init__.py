"""Many ``atout-server`` processes on one Redis, one service (docs/CLUSTER.md).

* ``lease``  who owns a table: leases with a time to live, owner epochs (Lua);
* ``bus``    the process's pub/sub: typed messages between processes;
* ``remote`` ``RemoteTable`` (a table owned elsewhere, as the front sees it)
             and ``RemotePeer`` (a connection held elsewhere, as a table sees it);
* ``node``   this process in the service: renews its leases, claims orphans,
             hands its tables over on drain, wires the bus to the lobby.

With the memory store none of this runs: one process is the whole service.
"""
