"""The layout holds: a pure table core, no import cycles, a sweeper that survives."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from server.config import Settings
from server.lobby import SWEEP_EVERY, Lobby
from server.store.memory import MemoryStore
from tests.manual_clock import ManualClock, until

ROOT = Path(__file__).resolve().parent.parent

PURE = [
    "server/table/core.py",
    "server/table/daily.py",
    "server/table/fanout.py",
    "server/table/seats.py",
    "server/table/state.py",
    "server/table/inbox.py",
    "server/table/effects.py",
    "server/game/commands.py",
    "server/text.py",
]
IMPURE = (
    "asyncio",
    "time",
    "websockets",
    "asyncio_redis",
    "structlog",
    "server.store",
    "server.conn",
)


def _imports(path: str, *, typing_too: bool = True) -> set[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    if not typing_too:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
                names -= _names_in(node.body)
    return names


def _names_in(body: list[ast.stmt]) -> set[str]:
    out: set[str] = set()
    for node in body:
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


@pytest.mark.parametrize("path", PURE)
def test_the_table_core_does_no_io(path: str) -> None:
    found = _imports(path, typing_too=False)
    bad = {n for n in found if any(n == i or n.startswith(i + ".") for i in IMPURE)}
    assert not bad, f"{path} imports {bad}"


def test_no_import_cycle_between_conn_and_table_nor_app_and_net() -> None:
    assert not {n for n in _imports("server/conn.py") if n.startswith("server.table")}
    assert "server.app" not in _imports("server/net.py")


async def test_the_sweeper_survives_an_exception_and_logs_it() -> None:
    clock = ManualClock()
    lobby = Lobby(MemoryStore(), Settings(), clock)
    calls = []

    def sweep() -> None:
        calls.append(clock.time())
        if len(calls) == 1:
            raise RuntimeError("a bug in a sweep")

    lobby.sweep = sweep  # type: ignore[method-assign]  # a sweep that fails once
    lobby.start()
    try:
        with capture_logs() as logs:
            await until(lambda: bool(clock._timers))  # the sweeper sleeps
            clock.advance(SWEEP_EVERY)
            await until(lambda: len(calls) == 1 and bool(clock._timers))
            clock.advance(SWEEP_EVERY)
            await until(lambda: len(calls) == 2)
        assert [e["event"] for e in logs] == ["sweep_error"]
        assert logs[0]["log_level"] == "error" and logs[0]["exc_info"]
    finally:
        await lobby.stop()
