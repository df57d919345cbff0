"""The server under test as a child process: started without the per-address
limits, pinned, and waited for until it listens."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from typing import IO, Any

from bench.common.pinning import child_setup

NO_LIMITS = {"ATOUT_MAX_PER_IP": "0", "ATOUT_CONNECT_RATE": "0", "ATOUT_CREATE_RATE": "0"}
"""Thousands of clients from one address: lift the per-address limits
(server/link/guard.py). Variables, not flags: an older --server-root ignores them."""


async def spawn_server(
    cmd: list[str], cwd: str, log: IO[Any], cores: set[int], nice: int = 0
) -> asyncio.subprocess.Process:
    """Start ``cmd`` (a server) on ``cores``; it gets SIGTERM when the bench dies."""
    return await asyncio.create_subprocess_exec(
        *cmd,
        cwd=cwd,
        env={**os.environ, **NO_LIMITS},
        stdout=log,
        stderr=log,
        preexec_fn=child_setup(cores, signal.SIGTERM, nice),
    )


async def wait_listening(
    proc: asyncio.subprocess.Process, port: int, what: str, log_name: str
) -> None:
    """Until ``port`` accepts a connection; ``RuntimeError`` if ``proc`` exits
    or 30 s pass (``what`` names the server, ``log_name`` its log)."""
    deadline = time.monotonic() + 30
    while True:
        if proc.returncode is not None:
            raise RuntimeError(f"{what} exited; see {log_name}")
        try:
            _, w = await asyncio.open_connection("127.0.0.1", port)
            w.close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not listen; see {log_name}") from None
            await asyncio.sleep(0.1)
