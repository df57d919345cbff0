"""The browser client on the server's own port: its files (``files``), the
HTTP answers for them (``answer``), the page's security policy (``policy``)
and the ``Origin`` check of WebSocket upgrades (``origin``).

Nothing here knows Tarot, nor asyncio: ``server.front.door`` asks, these answer.
"""
