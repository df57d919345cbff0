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


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port something else already listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield int(s.getsockname()[1])


__all__ = ["free_port", "taken_port"]
