"""``--engine atheris``: the frames campaign coverage-guided by libFuzzer,
with only the server's and the protocol's Python code instrumented."""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any

from bench.fuzz_bench.frames import FrameCampaign
from bench.fuzz_bench.tally import Tally


def instrument_our_code(atheris: Any) -> int:
    """Coverage for the server's and the protocol's Python code only.

    ``atheris.instrument_all()`` also instruments websockets and asyncio: it
    took 100 s to start and slowed every input; the decoder itself is C
    (msgspec), which atheris cannot see anyway. ``instrument_func`` patches a
    function's code in place, so every reference to it is covered.
    """
    import inspect
    import types

    done = 0
    seen: set[int] = set()

    def patch(fn: Any) -> None:
        nonlocal done
        if isinstance(fn, types.FunctionType) and id(fn) not in seen:
            seen.add(id(fn))
            atheris.instrument_func(fn)
            done += 1

    for name, module in list(sys.modules.items()):
        if not name.startswith(("protocol", "server")) or module is None:
            continue
        for obj in vars(module).values():
            if getattr(obj, "__module__", None) != name:
                continue
            if inspect.isclass(obj):
                for member in vars(obj).values():
                    patch(getattr(member, "__func__", member))
            else:
                patch(obj)
    return done


def seed_corpus(count: int = 512) -> str:
    """A starting corpus for libFuzzer: inputs of the random engine, which
    cover every command tag; coverage guidance takes it from there."""
    import tempfile

    folder = tempfile.mkdtemp(prefix="atout-fuzz-corpus-")
    rng = random.Random(0)
    for i in range(count):
        data = bytes([rng.randrange(256) & ~0x1E | 0x02]) + rng.randbytes(rng.randint(8, 200))
        Path(folder, f"seed{i}").write_bytes(data)
    return folder


def run_frames_atheris(runs: int, json_out: str | None, extra: list[str]) -> None:
    import atheris  # type: ignore[import-untyped]

    tally = Tally()
    campaign = FrameCampaign(tally)
    loop = asyncio.new_event_loop()
    instrumented = instrument_our_code(atheris)
    print(f"atheris: {instrumented} functions of protocol/ and server/ instrumented", flush=True)
    corpus = seed_corpus()

    def write() -> None:
        report = tally.report() | {"engine": "atheris"}
        if json_out:
            Path(json_out).write_text(json.dumps(report, indent=1))
        print(json.dumps(report), file=sys.stderr, flush=True)

    def test_one_input(data: bytes) -> None:
        before = tally.outcomes["FAILURE"]
        loop.run_until_complete(campaign.one(data))
        if tally.inputs % 20_000 == 0:
            write()
        if tally.inputs >= runs:
            write()
        if tally.outcomes["FAILURE"] > before:
            write()
            raise AssertionError(tally.failures[-1] if tally.failures else "failure")

    argv = [sys.argv[0], f"-runs={runs}", "-max_len=512", *extra, corpus]
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()
