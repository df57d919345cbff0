"""The front door: ``door`` (the WebSocket handshake, hello, limits, and
``COMMANDS``: command -> handler), ``rules_view`` (the rules of each table
size, as told at welcome)."""
