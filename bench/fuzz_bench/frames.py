"""The frames campaign: each input one frame, checked by the real decoder
alone and through the server (every answer, close code and log)."""

from __future__ import annotations

import contextlib
import json
import random
import sys
import time
from typing import Any

from websockets.exceptions import ConnectionClosed

from bench.fuzz_bench.inputs import Frame, Pools, make_frame
from bench.fuzz_bench.settings import fuzz_settings
from bench.fuzz_bench.tally import BUG_CODES, ERROR_CODES, FIRST_FRAME_ERRORS, Tally, quiet_logs
from bench.fuzz_bench.wire import Wire, subprotocol_for, version_for
from protocol.messages import Command
from server.process.app import Server


class FrameCampaign:
    """One in-process server; one long-lived connection per codec."""

    RESTART_EVERY = 5000  # inputs: bounds the tables fuzzed creates leave behind

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        self.pools = Pools()
        self.bugs = quiet_logs()
        self.server: Server | None = None
        self.wires: dict[str, Wire] = {}
        self.since_restart = 0
        self.rid = 1

    async def start(self) -> None:
        self.server = Server(fuzz_settings())
        await self.server.start()
        self.since_restart = 0
        self.wires = {}
        self.pools = Pools()

    async def stop(self) -> None:
        for w in self.wires.values():
            with contextlib.suppress(Exception):
                await w.ws.close()
        if self.server is not None:
            await self.server.stop()
            self.server = None

    async def wire(self, kind: str) -> Wire:
        w = self.wires.get(kind)
        if w is not None and w.close_code() is None:
            return w
        assert self.server is not None
        w = await Wire.open(self.server.port, kind)
        await w.send({"t": "hello", "version": version_for(kind), "name": f"fuzz-{kind}"})
        while (await w.recv(5))["t"] != "lobby":
            pass
        self.wires[kind] = w
        return w

    async def one(self, data: bytes) -> None:
        """Check one input; count its outcome (a failure is counted, not raised)."""
        if self.server is None or self.since_restart >= self.RESTART_EVERY:
            await self.stop()
            await self.start()
        self.since_restart += 1
        self.tally.inputs += 1
        frame = make_frame(data, self.pools)
        self.check_decoder(frame, data)
        if frame.first:
            await self.first_frame(frame, data)
        else:
            await self.later_frame(frame, data)
        for bug in self.bugs.take():
            self.tally.fail("server logged a bug", log=bug, input=data.hex(), mode=frame.mode)

    def check_decoder(self, frame: Frame, data: bytes) -> None:
        from protocol.codec import DecodeError, codec_for

        codec = codec_for(subprotocol_for(frame.kind), Command)
        try:
            codec.decode(frame.data)
        except DecodeError as e:
            if e.code not in ERROR_CODES:
                self.tally.fail("undocumented decode code", code=e.code, input=data.hex())
        except Exception as e:  # RecursionError included: the codec must answer it
            self.tally.fail("decoder raised", exc=repr(e)[:200], input=data.hex())

    def check_error(self, msg: Any, data: bytes, frame: Frame) -> None:
        code = msg.get("code")
        self.tally.errors[str(code)] += 1
        if code not in ERROR_CODES or code in BUG_CODES:
            self.tally.fail("bad error code", code=code, input=data.hex(), mode=frame.mode)

    async def later_frame(self, frame: Frame, data: bytes) -> None:
        w = await self.wire(frame.kind)
        self.rid += 1
        rid = self.rid
        try:
            await w.ws.send(frame.data)
            await w.send({"t": "ping", "rid": rid})
            errors = 0
            while True:
                msg = await w.recv(10)
                self.pools.note(msg)
                t = msg.get("t") if isinstance(msg, dict) else None
                if t == "pong" and msg.get("rid") == rid:
                    break
                if t == "error":
                    errors += 1
                    self.check_error(msg, data, frame)
            self.tally.outcomes["refused" if errors else "accepted"] += 1
        except ConnectionClosed:
            self.closed(w, frame, data, allowed={1009, 4001})
        except TimeoutError:
            self.tally.fail("no answer within 10 s", input=data.hex(), mode=frame.mode)
            with contextlib.suppress(Exception):
                await w.ws.close()

    def closed(self, w: Wire, frame: Frame, data: bytes, allowed: set[int]) -> None:
        code = w.close_code()
        if code in allowed:
            self.tally.outcomes[f"closed_{code}"] += 1
        else:
            self.tally.fail("closed", code=code, input=data.hex(), mode=frame.mode)

    async def first_frame(self, frame: Frame, data: bytes) -> None:
        assert self.server is not None
        w = await Wire.open(self.server.port, frame.kind)
        try:
            await w.ws.send(frame.data)
            msg = await w.recv(10)
            if msg.get("t") == "welcome":
                self.tally.outcomes["hello_accepted"] += 1
                return
            if msg.get("t") == "error":
                self.check_error(msg, data, frame)
                if msg.get("code") not in FIRST_FRAME_ERRORS:
                    self.tally.fail("first frame error", code=msg.get("code"), input=data.hex())
            with contextlib.suppress(TimeoutError):
                await w.recv(10)
            self.tally.fail("first frame refused but not closed", input=data.hex())
        except ConnectionClosed:
            self.closed(w, frame, data, allowed={4003, 4004, 1009})
        except TimeoutError:
            self.tally.fail("no answer to a first frame within 10 s", input=data.hex())
        finally:
            with contextlib.suppress(Exception):
                await w.ws.close()


def random_inputs(rng: random.Random) -> bytes:
    n = rng.choice([1, 2, 4, 8, 16, 32, 64, 128, 256])
    return rng.randbytes(rng.randint(1, n))


async def run_frames_random(runs: int, seed: int, max_time: float, stop_on_failure: bool) -> Tally:
    tally = Tally()
    campaign = FrameCampaign(tally)
    rng = random.Random(seed)
    deadline = time.monotonic() + max_time
    try:
        for i in range(runs):
            await campaign.one(random_inputs(rng))
            if stop_on_failure and tally.outcomes["FAILURE"]:
                break
            if i % 1000 == 999 and time.monotonic() > deadline:
                break
            if i % 50_000 == 49_999:
                print(json.dumps(tally.report()), file=sys.stderr, flush=True)
    finally:
        await campaign.stop()
    return tally
