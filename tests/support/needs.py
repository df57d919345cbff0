"""What a test needs, read from what it uses: the marks ``live``, ``redis``,
``browser`` and ``container`` (pyproject's ``markers``), applied at
collection by ``tests/conftest.py``.

``terminal`` (the Textual client run under its pilot) is ``live`` too: it is
the other slow half of the suite.

A test is never marked by hand for these: the marks follow from the
fixtures it asks for and the helpers its code names (a helper of the test
module or of ``tests/support``, followed through the helpers *it* names),
down to the few things that start something real — a server in-process or as
a process, a ``redis-server``, Chromium, a container engine. So a test
written tomorrow with ``running(...)`` or the ``redis_server`` fixture is
``live`` without anyone remembering to say so, and ``-m "not live"`` stays the
quick loop (pure code, the engine, the table core, views, codecs, docs).

What counts as starting something is the table ``STARTS`` below: a new kind of
real part gets one line there.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterable, Iterator
from typing import Any

LIVE = "live"
REDIS = "redis"
BROWSER = "browser"
CONTAINER = "container"
TERMINAL = "terminal"

STARTS: dict[str, frozenset[str]] = {
    # A real server, in this process or another.
    "server.process.app.Server": frozenset({LIVE}),
    "server.process.embedded": frozenset({LIVE}),
    "server.process.workers": frozenset({LIVE}),
    "tests.support.servers.running": frozenset({LIVE}),
    "tests.support.servers.tls_front": frozenset({LIVE}),
    "tests.support.processes.Proc": frozenset({LIVE}),
    "tests.support.processes.atout_server": frozenset({LIVE}),
    "tests.browser.ServerThread": frozenset({LIVE}),
    # Redis.
    "tests.support.redis.RedisServer": frozenset({LIVE, REDIS}),
    "tests.support.redis.kill_subscribers": frozenset({LIVE, REDIS}),
    # Another process: a server, a client, a command run to its end.
    "subprocess.Popen": frozenset({LIVE}),
    "asyncio.create_subprocess_exec": frozenset({LIVE}),
    "asyncio.subprocess.create_subprocess_exec": frozenset({LIVE}),
    # Sockets a test listens on itself.
    "asyncio.start_server": frozenset({LIVE}),
    "asyncio.base_events.BaseEventLoop.create_server": frozenset({LIVE}),
}
"""Things that start a real part, by ``module.qualname`` (or a module: all of it)."""

CALLS: dict[str, frozenset[str]] = {
    # Textual's pilot: the whole terminal client running, screen by screen.
    "run_test": frozenset({LIVE, TERMINAL}),
}
"""Methods that start a real part, by the name a test calls them by
(``app.run_test()``: the object is only known when the test runs)."""

FIXTURES: dict[str, frozenset[str]] = {
    "redis_server": frozenset({LIVE, REDIS}),
    "worker_redis": frozenset({LIVE, REDIS}),
    "browser": frozenset({LIVE, BROWSER}),
    "page": frozenset({LIVE, BROWSER}),
    "web_server": frozenset({LIVE}),
    "start_web_server": frozenset({LIVE}),
    "snap_compare": frozenset({LIVE, TERMINAL}),
}
"""Fixtures that give a test a real part, by name."""

_FOLLOWED = ("tests", "bench")
"""Whose helpers are read through: the tests' own and the benchmarks' (a
test may run a campaign of ``bench/``), not the product's code, which
reaches everything."""


def _name(obj: Any) -> str | None:
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    if not isinstance(module, str) or not isinstance(qualname, str):
        return None
    return f"{module}.{qualname}"


def _started(name: str) -> frozenset[str]:
    found: set[str] = set()
    for key, marks in STARTS.items():
        if name == key or name.startswith(key + "."):
            found |= marks
    return frozenset(found)


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _functions(obj: Any) -> Iterator[types.FunctionType]:
    """The plain functions behind ``obj`` (a function, a wrapped one, a
    Hypothesis test, a class's methods)."""
    inner = getattr(getattr(obj, "hypothesis", None), "inner_test", None)
    if inner is not None:
        obj = inner
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        for f in (obj.fget, obj.fset, obj.fdel):
            if f is not None:
                yield from _functions(f)
        return
    if inspect.isclass(obj):
        for member in vars(obj).values():
            yield from _functions(member)
        return
    seen = 0
    while seen < 10:  # functools.wraps chains (asynccontextmanager, fixtures)
        if isinstance(obj, types.FunctionType):
            yield obj
        wrapped = getattr(obj, "__wrapped__", None)
        if wrapped is None or wrapped is obj:
            return
        obj = wrapped
        seen += 1


class Needs:
    """Memoised ``marks(obj)``: what calling ``obj`` may start."""

    def __init__(self) -> None:
        self._memo: dict[int, frozenset[str]] = {}
        self._keep: list[Any] = []  # ids stay unique while memoised

    def marks(self, obj: Any, within: type | None = None) -> frozenset[str]:
        key = id(obj)
        if key in self._memo:
            return self._memo[key]
        name = _name(obj)
        direct = _started(name) if name else frozenset()
        if direct or name is None or not name.startswith(_FOLLOWED):
            self._memo[key] = direct
            self._keep.append(obj)
            return direct
        self._memo[key] = frozenset()  # a cycle reads as nothing more
        self._keep.append(obj)
        found: set[str] = set()
        for function in _functions(obj):
            found |= self._read(function, within)
        result = frozenset(found)
        self._memo[key] = result
        return result

    def _read(self, function: types.FunctionType, within: type | None) -> set[str]:
        names: set[str] = set()
        for code in _codes(function.__code__):
            names.update(code.co_names)
        found: set[str] = set()
        scope = function.__globals__
        modules = [v for v in scope.values() if isinstance(v, types.ModuleType)]
        for n in names:
            found |= CALLS.get(n, frozenset())
            for obj in self._lookups(n, scope, modules, within):
                found |= self.marks(obj)
        return found

    @staticmethod
    def _lookups(
        n: str, scope: dict[str, Any], modules: Iterable[types.ModuleType], within: type | None
    ) -> Iterator[Any]:
        if n in scope:
            value = scope[n]
            if isinstance(value, types.ModuleType):
                direct = _started(value.__name__)
                if direct:
                    yield value
            else:
                yield value
        for module in modules:
            attr = getattr(module, n, None)
            if attr is not None and not isinstance(attr, types.ModuleType):
                yield attr
        if within is not None and n in vars(within):
            yield vars(within)[n]


def marks_of(item: Any, needs: Needs) -> frozenset[str]:
    """The marks test ``item`` needs: from its fixtures (and theirs), and from
    its own code."""
    found: set[str] = set()
    info = getattr(item, "_fixtureinfo", None)
    for fixture in getattr(item, "fixturenames", ()):
        found |= FIXTURES.get(fixture, frozenset())
        for definition in info.name2fixturedefs.get(fixture, ()) if info else ():
            found |= needs.marks(definition.func)
    function = getattr(item, "function", None)
    if function is not None:
        found |= needs.marks(function, getattr(item, "cls", None))
    return frozenset(found)


__all__ = [
    "BROWSER",
    "CALLS",
    "CONTAINER",
    "FIXTURES",
    "LIVE",
    "REDIS",
    "STARTS",
    "TERMINAL",
    "Needs",
    "marks_of",
]
