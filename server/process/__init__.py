"""One server process: ``app`` wires the store, the lobby and the front
together and runs them (``Server``); ``workers`` runs N of them on one port
(``--workers``); ``embedded`` is the server a client brings along (``atout
play``); ``logs`` sets up structlog."""
