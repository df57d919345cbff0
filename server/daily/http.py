"""``GET /leaderboard?period=today&page=0``: a leaderboard page as JSON, for
a web page or a chat bot (the same ``LeaderboardView`` a client gets, without
an own line: HTTP carries no player key)."""

from __future__ import annotations

from http import HTTPStatus
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

import msgspec
from websockets.datastructures import Headers
from websockets.http11 import Response

from server.daily.board import PERIODS
from server.store.base import StoreError

if TYPE_CHECKING:
    from server.daily.service import DailyService


def json_response(status: HTTPStatus, body: object) -> Response:
    data = msgspec.json.encode(body)
    headers = Headers(
        [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(data))),
            ("Access-Control-Allow-Origin", "*"),  # public data, for any web page
            ("Connection", "close"),
        ]
    )
    return Response(status.value, status.phrase, headers, data)


async def leaderboard_response(daily: DailyService, target: str) -> Response:
    query = parse_qs(urlsplit(target).query)
    period = query.get("period", ["today"])[0]
    page = query.get("page", ["0"])[0]
    if period not in PERIODS or not page.isdigit():
        return json_response(
            HTTPStatus.BAD_REQUEST,
            {"code": "bad_period", "message": "period: today, yesterday, week or all; page >= 0"},
        )
    try:
        view = await daily.leaderboard(period, int(page))
    except StoreError:
        return json_response(
            HTTPStatus.SERVICE_UNAVAILABLE,
            {"code": "unavailable", "message": "the store is not answering"},
        )
    return json_response(HTTPStatus.OK, view)
