"""``--gc-log``: the server run through a tiny wrapper that logs every
collection's pause (``gc.callbacks``), and the pauses of a window read back;
``--gc-threshold`` and ``--gc-freeze-every`` are experiments on top of the
server's own ``tune_gc``; ``--stall-log MS`` writes the server's stack
whenever its event loop has run nothing for MS milliseconds."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

GC_WRAPPER = """
import gc, sys, time
log = open(sys.argv[1], "a", buffering=1)
started = [0.0]
def watch(phase, info):
    if phase == "start":
        started[0] = time.perf_counter()
    else:
        pause = time.perf_counter() - started[0]
        gen, collected = info["generation"], info["collected"]
        log.write(f"{time.perf_counter():.4f} {gen} {pause * 1e3:.3f} {collected}\\n")
gc.callbacks.append(watch)
experiment = {}
while len(sys.argv) > 3 and sys.argv[2].startswith("--gc-"):
    experiment[sys.argv[2]] = sys.argv[3]
    del sys.argv[2:4]
if experiment:
    # Experiments, not the server's settings: tune_gc as shipped, then these.
    import server.process.app
    import threading
    shipped = server.process.app.tune_gc
    def tune_gc():
        shipped()
        if "--gc-threshold" in experiment:
            gc.set_threshold(*[int(x) for x in experiment["--gc-threshold"].split(",")])
        if "--gc-freeze-every" in experiment:
            every = float(experiment["--gc-freeze-every"])
            def freezer():
                while True:
                    time.sleep(every)
                    gc.freeze()
            threading.Thread(target=freezer, daemon=True).start()
    server.process.app.tune_gc = tune_gc
    if "--gc-stall-ms" in experiment:
        # A stall: the server's event loop ran no callback for this long. A
        # heartbeat every 10 ms on the loop, and a thread that, while it is
        # late, writes what the loop's thread is doing (its Python stack;
        # compiled functions show as their callers) to the log + ".stalls".
        import asyncio
        limit = float(experiment["--gc-stall-ms"]) / 1e3
        stalls = open(sys.argv[1] + ".stalls", "a", buffering=1)
        beat = [time.perf_counter()]
        loop_thread = [0]  # its ident, once the loop runs (not "main": taken below)
        def watchdog():
            while True:
                time.sleep(limit / 4)
                late = time.perf_counter() - beat[0]
                if late > limit:
                    frame, where = sys._current_frames().get(loop_thread[0]), []
                    while frame is not None and len(where) < 40:
                        code, line = frame.f_code, frame.f_lineno
                        file = code.co_filename.rsplit("/", 1)[-1]
                        where.append(f"{code.co_name}({file}:{line})")
                        frame = frame.f_back
                    now, stack = time.perf_counter(), " < ".join(where)
                    stalls.write(f"{now:.4f} {beat[0]:.4f} {late * 1e3:.0f} {stack}\\n")
        threading.Thread(target=watchdog, daemon=True).start()
        surviving = server.process.app.freeze_survivors
        async def freeze_survivors(*a, **k):
            loop = asyncio.get_running_loop()
            loop_thread[0] = threading.get_ident()
            def tick():
                beat[0] = time.perf_counter()
                loop.call_later(0.01, tick)
            tick()
            await surviving(*a, **k)
        server.process.app.freeze_survivors = freeze_survivors
sys.argv = ["atout-server", *sys.argv[2:]]
from server.__main__ import main
main()
"""
"""``--gc-log``: run ``atout-server`` with every collection's pause logged (no other change;
``--gc-threshold`` also overrides the collector thresholds that ``tune_gc`` sets)."""


def gc_pauses(path: Path, start: float, end: float) -> dict[str, Any]:
    """Collections logged between two ``perf_counter`` times (CLOCK_MONOTONIC, the
    same in every process): count, total and max pause by generation, and the
    pauses themselves as [end time, generation, ms]."""
    out: dict[str, Any] = {}
    with contextlib.suppress(FileNotFoundError), open(path) as f:
        for line in f:
            at, gen, ms, _ = line.split()
            if start <= float(at) <= end:
                out.setdefault("pauses", []).append([float(at), int(gen), float(ms)])
                g = out.setdefault(f"gen{gen}", {"count": 0, "total_ms": 0.0, "max_ms": 0.0})
                g["count"] += 1
                g["total_ms"] = round(g["total_ms"] + float(ms), 2)
                g["max_ms"] = max(g["max_ms"], float(ms))
    return out


def stalls_in(path: Path, start: float, end: float) -> list[dict[str, Any]]:
    """The stalls ``--stall-log`` wrote between two ``perf_counter`` times:
    each one's start (s into the window), length in ms (as last seen), and
    the innermost frames of its samples, most seen first."""
    stalls: dict[str, dict[str, Any]] = {}
    with contextlib.suppress(FileNotFoundError), open(path) as f:
        for line in f:
            at, beat, ms, *stack = line.split(" ", 3)
            if not start <= float(at) <= end:
                continue
            stall = stalls.setdefault(beat, {"at": round(float(beat) - start, 2), "where": {}})
            stall["ms"] = int(ms)
            where = " < ".join(stack[0].strip().split(" < ")[:4]) if stack else "?"
            stall["where"][where] = stall["where"].get(where, 0) + 1
    for stall in stalls.values():
        stall["where"] = sorted(stall["where"], key=stall["where"].get, reverse=True)[:3]
    return list(stalls.values())
