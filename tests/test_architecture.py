"""The layout holds: a pure table core, no import cycles, a sweeper that survives."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from server.base.config import Settings
from server.lobby.lobby import SWEEP_EVERY, Lobby
from server.store.memory import MemoryStore
from tests.support.clock import ManualClock
from tests.support.waits import eventually

ROOT = Path(__file__).resolve().parent.parent

PURE = [
    "server/table/core.py",
    "server/table/mode.py",
    "server/table/modes.py",
    "server/table/fanout.py",
    "server/table/seats.py",
    "server/table/state.py",
    "server/table/inbox.py",
    "server/table/effects.py",
    "server/table/ending.py",
    "server/daily/mode.py",
    "server/tournament/mode.py",
    "server/tournament/core.py",
    "server/tournament/rules.py",
    "server/tournament/seating.py",
    "server/tournament/standings.py",
    "server/tournament/export.py",
    "server/tournament/state.py",
    "server/tournament/views.py",
    "server/game/commands.py",
    "server/base/text.py",
]
IMPURE = (
    "asyncio",
    "time",
    "websockets",
    "asyncio_redis",
    "structlog",
    "server.store",
    "server.link.conn",
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


def _module_path(name: str) -> str | None:
    """The file of one of our modules or packages, or None for anything else."""
    if name.split(".")[0] not in ("server", "protocol"):
        return None
    base = name.replace(".", "/")
    for candidate in (f"{base}.py", f"{base}/__init__.py"):
        if (ROOT / candidate).is_file():
            return candidate
    return None


def _loaded_by(name: str) -> list[str]:
    """The files Python runs to import ``name`` (or ``name``'s attribute):
    every enclosing package's ``__init__`` first, then the module itself."""
    parts = name.split(".")
    files = [_module_path(".".join(parts[:i])) for i in range(1, len(parts) + 1)]
    return [f for f in files if f is not None]


def _top_level_imports(path: str) -> set[str]:
    """What a module imports when it is imported: its module-level statements
    (not under ``TYPE_CHECKING``; an import inside a function runs only when
    that function is called). ``from a import b`` names ``a.b`` too, in case
    ``b`` is a module."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
                names.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
                visit(node.orelse)
            elif isinstance(node, ast.If | ast.Try):
                visit(node.body)
                visit(node.orelse)

    visit(tree.body)
    return names


def _reached(path: str) -> dict[str, str]:
    """Every module that importing ``path`` imports, through our own modules
    and packages, each with the file of ours that imports it."""
    seen: dict[str, str] = {}
    todo = [path, *_loaded_by(path.removesuffix(".py").replace("/", "."))[:-1]]
    done: set[str] = set()
    while todo:
        here = todo.pop()
        if here in done:
            continue
        done.add(here)
        for name in _top_level_imports(here):
            seen.setdefault(name, here)
            todo.extend(_loaded_by(name))
    return seen


@pytest.mark.parametrize("path", PURE)
def test_the_table_core_does_no_io(path: str) -> None:
    # Transitively: a pure module that imports a helper that imports the
    # store would do I/O all the same.
    found = _reached(path)
    bad = {
        f"{n} (from {by})"
        for n, by in found.items()
        if any(n == i or n.startswith(i + ".") for i in IMPURE)
    }
    assert not bad, f"{path} reaches {sorted(bad)}"


CLIENT_MAY_IMPORT = ("server.game", "server.process.embedded")
"""All of the server a client may use: the pure rules, and the one entry point
that starts an embedded server (``atout play``). Everything else it learns
over the protocol."""


def test_clients_import_from_the_server_only_the_rules_and_the_embedded_entry_point() -> None:
    # Every import, at any depth (in functions, under TYPE_CHECKING too).
    files = sorted((ROOT / "clients").rglob("*.py"))
    assert files
    bad = {
        f"{name} (in {path.relative_to(ROOT)})"
        for path in files
        for name in _imports(str(path.relative_to(ROOT)))
        if (name == "server" or name.startswith("server."))
        and not any(name == ok or name.startswith(ok + ".") for ok in CLIENT_MAY_IMPORT)
    }
    assert not bad, sorted(bad)


def _registers_a_mode(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "server.table.modes"
        and any(a.name == "register" for a in node.names)
        for node in ast.walk(tree)
    )


def _mode_packages() -> set[str]:
    """The server's packages that bring a game mode: each registers its
    table's rules (a ``TableMode``) with ``server.table.modes``."""
    return {
        f"server.{package.name}"
        for package in (ROOT / "server").iterdir()
        if (package / "__init__.py").is_file() and package.name != "table"
        if any(_registers_a_mode(p) for p in package.rglob("*.py"))
    }


def test_the_table_imports_no_game_mode() -> None:
    # A mode uses the table (its TableMode, its GameEnds: server/table/ending.py),
    # never the other way: every import of server/table/, at any depth and
    # under TYPE_CHECKING too, stays out of the modes' packages.
    modes = _mode_packages()
    assert {"server.daily", "server.tournament"} <= modes
    files = sorted((ROOT / "server" / "table").rglob("*.py"))
    assert files
    bad = {
        f"{name} (in {path.relative_to(ROOT)})"
        for path in files
        for name in _imports(str(path.relative_to(ROOT)))
        if any(name == m or name.startswith(m + ".") for m in modes)
    }
    assert not bad, sorted(bad)


def test_no_import_cycle_between_conn_and_table_nor_app_and_net() -> None:
    assert not {n for n in _imports("server/link/conn.py") if n.startswith("server.table")}
    assert "server.process.app" not in _imports("server/front/door.py")


async def test_the_sweeper_survives_an_exception_and_logs_it() -> None:
    clock = ManualClock()
    lobby = Lobby(MemoryStore(), Settings(), clock)
    calls = []

    async def sweep() -> None:
        calls.append(clock.time())
        if len(calls) == 1:
            raise RuntimeError("a bug in a sweep")

    lobby.sweep = sweep  # type: ignore[method-assign]  # a sweep that fails once
    lobby.start()
    try:
        with capture_logs() as logs:
            await eventually(lambda: bool(clock._timers))  # the sweeper sleeps
            clock.advance(SWEEP_EVERY)
            await eventually(lambda: len(calls) == 1 and bool(clock._timers))
            clock.advance(SWEEP_EVERY)
            await eventually(lambda: len(calls) == 2)
        assert [e["event"] for e in logs] == ["sweep_error"]
        assert logs[0]["log_level"] == "error" and logs[0]["exc_info"]
    finally:
        await lobby.stop()
