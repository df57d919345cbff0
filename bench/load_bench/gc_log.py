"""``--gc-log``: the server run through a tiny wrapper that logs every
collection's pause (``gc.callbacks``), and the pauses of a window read back;
``--gc-threshold`` and ``--gc-freeze-every`` are experiments on top of the
server's own ``tune_gc``."""

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
