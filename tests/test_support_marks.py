"""The marks a test gets from what it uses (``tests/support/needs.py``):
``-m "not live"`` must leave out every test that starts a real part, without
anyone marking it by hand."""

from __future__ import annotations

import pytest

from server.game import Deal
from tests.support import servers
from tests.support.needs import BROWSER, LIVE, REDIS, TERMINAL, Needs
from tests.support.redis import RedisServer
from tests.support.servers import running


async def _plays_on_a_server() -> None:
    async with running():
        pass


def _through_a_helper() -> None:
    _starts_redis()


def _starts_redis() -> None:
    RedisServer().close()


async def _through_the_module() -> None:
    async with servers.running():
        pass


async def _pilots_the_client(app: object) -> None:
    async with app.run_test():  # type: ignore[attr-defined]
        pass


def _pure() -> None:
    assert Deal is not None


class _Helpers:
    def method(self) -> None:
        _through_a_helper()


@pytest.mark.parametrize(
    ("function", "marks"),
    [
        (_plays_on_a_server, {LIVE}),
        (_through_a_helper, {LIVE, REDIS}),
        (_through_the_module, {LIVE}),
        (_pilots_the_client, {LIVE, TERMINAL}),
        (_Helpers, {LIVE, REDIS}),
        (_pure, set()),
    ],
)
def test_a_function_needs_what_it_and_its_helpers_start(function: object, marks: set[str]) -> None:
    assert Needs().marks(function) == marks


def test_the_collected_tests_are_marked_by_their_fixtures_and_code(
    request: pytest.FixtureRequest,
) -> None:
    items = {item.name: item for item in request.session.items}
    me = items["test_the_collected_tests_are_marked_by_their_fixtures_and_code"]
    assert me.get_closest_marker(LIVE) is None  # pure: this test starts nothing
    for name, item in items.items():
        fixtures = set(getattr(item, "fixturenames", ()))
        if {"redis_server", "page"} & fixtures:
            assert item.get_closest_marker(LIVE) is not None, name
        if "page" in fixtures:
            assert item.get_closest_marker(BROWSER) is not None, name
