"""Tournaments among friends: rounds of tables of 3, 4 or 5, movements
between rounds, standings (docs/TOURNAMENTS.md).

- ``state``: the persisted tournament (``TournamentState``) and its rounds;
- ``rules``: what a host may ask for (settings' limits);
- ``seating``: table sizes and the movement between rounds (pure);
- ``standings``: the standings from the tables' results (pure);
- ``export``: the JSON and CSV exports, every table's deal records in the JSON (pure);
- ``core``: the tournament's decisions, a pure function of command and time;
- ``store``: where tournaments are kept (memory, Redis);
- ``service``: the front door's side: commands, tables opened, views sent;
- ``http``: ``GET /tournaments/CODE`` and its exports.
"""
