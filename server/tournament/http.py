"""``GET /tournaments/CODE``: a tournament as JSON (the view its players get,
without anyone's own lines: HTTP carries no player key), and its exports:
``/tournaments/CODE.csv`` (the standings), ``CODE.deals.csv`` (every deal of
every player), ``CODE.teams.csv`` (the teams' standings) and
``/tournaments/CODE.json`` (everything, with every table's deal records)."""

from __future__ import annotations

from http import HTTPStatus
from typing import Protocol

from websockets.datastructures import Headers
from websockets.http11 import Response

from server.daily.http import json_response
from server.store.base import StoreError

TOURNAMENTS_PATH = "/tournaments/"
KINDS = ("view", "csv", "deals.csv", "teams.csv", "json")
"""What follows the code: nothing (the view), or the file's ending."""


class Exports(Protocol):
    """What the HTTP side asks of the tournaments (server/tournament/service.py)."""

    async def export(self, code: str, kind: str) -> tuple[str, bytes] | None:
        """``kind`` (one of ``KINDS``) of tournament ``code``: its content
        type and body; None: no such tournament."""
        ...


async def tournament_response(tournaments: Exports, path: str) -> Response:
    name = path[len(TOURNAMENTS_PATH) :]
    code, _, kind = name.partition(".")
    kind = kind or "view"
    if kind not in KINDS or not code.isalnum():
        return json_response(
            HTTPStatus.NOT_FOUND,
            {
                "code": "no_such_tournament",
                "message": "/tournaments/CODE[.csv|.deals.csv|.teams.csv|.json]",
            },
        )
    try:
        found = await tournaments.export(code.upper(), kind)
    except StoreError:
        return json_response(
            HTTPStatus.SERVICE_UNAVAILABLE,
            {"code": "unavailable", "message": "the store is not answering"},
        )
    if found is None:
        return json_response(
            HTTPStatus.NOT_FOUND,
            {"code": "no_such_tournament", "message": "no tournament has this code"},
        )
    content_type, body = found
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Access-Control-Allow-Origin", "*"),  # public data, for any web page
            ("Connection", "close"),
        ]
    )
    if kind != "view":
        # tournament-CODE.csv, tournament-CODE-deals.csv, tournament-CODE.json
        filename = f"tournament-{code.upper()}{'-' if kind.count('.') else '.'}{kind}"
        headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return Response(HTTPStatus.OK.value, HTTPStatus.OK.phrase, headers, body)
