"""What one hostile address can do against the default limits (server/link/guard.py).

A real server in this process with the shipped defaults (only the port
changes), real WebSocket clients, all from 127.0.0.1:

* connections: open connections as fast as possible for ``--seconds``:
  how many the server accepted, how many it refused with HTTP 429;
* resume guessing: from every connection the address may hold
  (``max_per_ip``), send ``resume`` with random tokens as fast as the
  per-connection rate allows, for ``--seconds``: how many tokens the server
  actually looked at (answered ``bad_token``) per second, and how many
  attempts it refused unread (``rate_limited``).

    python bench/hostile.py --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import structlog  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402

from bench.common.json_report import print_json  # noqa: E402
from server.base.config import Settings  # noqa: E402
from server.process.app import Server  # noqa: E402

TOKEN_BITS = 18 * 8  # secrets.token_urlsafe(18) in server/table/inbox.py


async def _open(port: int) -> ClientConnection:
    return await connect(f"ws://127.0.0.1:{port}", subprotocols=["atout.v1.json"])  # type: ignore[list-item]


async def connections(port: int, seconds: float) -> dict[str, Any]:
    accepted = refused = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            ws = await _open(port)
        except InvalidStatus as e:
            assert e.response.status_code == 429
            refused += 1
            await asyncio.sleep(0.005)
            continue
        accepted += 1
        await ws.close()  # close at once: the per-second limit, not the cap, is measured
    return {
        "seconds": seconds,
        "accepted": accepted,
        "refused_429": refused,
        "accepted_per_s": round(accepted / seconds, 2),
    }


async def guessing(port: int, seconds: float, cap: int) -> dict[str, Any]:
    conns: list[ClientConnection] = []
    while len(conns) < cap:
        try:
            conns.append(await _open(port))
        except InvalidStatus:
            await asyncio.sleep(0.1)
    for i, ws in enumerate(conns):
        await ws.send(json.dumps({"t": "hello", "version": 1, "name": f"G{i}"}))
    counts = {"bad_token": 0, "rate_limited": 0, "other": 0}
    end = time.monotonic() + seconds

    async def hammer(ws: ClientConnection) -> None:
        rid = 0

        async def read() -> None:
            while True:
                msg = json.loads(await ws.recv())
                if msg["t"] == "error":
                    code = msg["code"]
                    counts[code if code in counts else "other"] += 1

        reader = asyncio.get_running_loop().create_task(read())
        try:
            while time.monotonic() < end:
                rid += 1
                token = f"{secrets.token_hex(4)}.{secrets.token_urlsafe(18)}"
                await ws.send(json.dumps({"t": "resume", "rid": rid, "token": token}))
                await asyncio.sleep(0.05)  # 20 a second: the per-connection rate
        except ConnectionClosed:
            pass
        await asyncio.sleep(0.5)
        reader.cancel()

    await asyncio.gather(*(hammer(ws) for ws in conns))
    for ws in conns:
        await ws.close()
    checked = counts["bad_token"]
    # Half the token space on average, for one given seat.
    years = 2 ** (TOKEN_BITS - 1) / max(checked / seconds, 1e-9) / 31_557_600
    return {
        "seconds": seconds,
        "connections": len(conns),
        "attempts": sum(counts.values()),
        "tokens_checked": checked,
        "refused_unread": counts["rate_limited"],
        "tokens_checked_per_s": round(checked / seconds, 2),
        "token_bits": TOKEN_BITS,
        "expected_years_to_guess_one_seat_at_that_rate": f"{years:.1e}",
    }


async def main(seconds: float) -> dict[str, Any]:
    structlog.configure(processors=[_drop])
    settings = replace(Settings(), port=0)
    server = Server(settings)
    await server.start()
    try:
        conn = await connections(server.port, seconds)
        await asyncio.sleep(12)  # let the address's connection bucket fill again
        guess = await guessing(server.port, seconds, settings.max_per_ip)
    finally:
        await server.stop()
    return {
        "defaults": {
            k: getattr(settings, k)
            for k in ("max_per_ip", "connect_rate", "guess_rate", "rate", "burst")
        },
        "connections": conn,
        "resume_guessing": guess,
    }


def _drop(*_: Any) -> Any:
    raise structlog.DropEvent


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--json")
    args = parser.parse_args()
    report = asyncio.run(main(args.seconds))
    print_json(report, args.json)
