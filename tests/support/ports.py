"""Free local ports, and one something already listens on."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest


def free_port() -> int:
    """A port nothing listens on now. Asking the kernel for port 0 and letting
    it go is racy (another process may take it first): a user that binds it
    later retries with another on failure where that matters (``RedisServer``)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HeldPort:
    """A port nothing listens on, held (bound, not listening: a connection to
    it is refused) so that no other process takes it until ``release()`` —
    for a test of an unreachable server that later comes up there. With
    ``free_port`` a test beside it (CI runs several suites at once) once
    took the port, and the client met that test's server restarting."""

    def __init__(self) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self.port = int(self._socket.getsockname()[1])

    def release(self) -> None:
        self._socket.close()


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port something else already listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield int(s.getsockname()[1])


__all__ = ["HeldPort", "free_port", "taken_port"]
