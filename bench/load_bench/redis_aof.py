"""``--redis-aof``: the Redis's append-only file in a window — its fsyncs
counted by ``perf``, its growth per move, delayed fsyncs, rewrites, saves."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Any

from bench.load_bench.server_run import Run


async def aof_window_start(run: Run) -> dict[str, str] | None:
    """With --redis-aof: the Redis's persistence figures, and ``perf stat``
    counting its fsync calls (every thread: ``everysec`` syncs from a
    background one) until ``aof_window_stop``."""
    if run.redis is None or not run.aof:
        return None
    from tests.support.redis import info

    with contextlib.suppress(OSError):
        run.fsyncs = await asyncio.create_subprocess_exec(
            "perf", "stat", "-x", ",", "-p", str(run.redis._proc.pid),
            "-e", "syscalls:sys_enter_fsync,syscalls:sys_enter_fdatasync",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
    return info(run.redis.port, "persistence")


async def aof_window_stop(
    run: Run, before: dict[str, str] | None, wall_s: float
) -> dict[str, Any] | None:
    if before is None:
        return None
    from tests.support.redis import info

    after = info(run.redis.port, "persistence")
    fsyncs: int | None = None
    if (perf := run.fsyncs) is not None:
        run.fsyncs = None
        perf.send_signal(signal.SIGINT)
        _, err = await asyncio.wait_for(perf.communicate(), 10)
        # "-x ,": count,unit,event,...; "<not supported>" if tracepoints are shut.
        counts = [line.split(",") for line in err.decode(errors="replace").splitlines()]
        found = [int(c[0]) for c in counts if len(c) > 2 and c[0].isdigit()]
        fsyncs = sum(found) if found else None

    def delta(field: str) -> int:
        return int(after.get(field, 0)) - int(before.get(field, 0))

    # A rewrite starts the file afresh: its growth is then unknown.
    grew = delta("aof_current_size")
    return {
        "appendfsync": run.aof,
        "fsyncs": fsyncs,
        "fsyncs_per_s": round(fsyncs / wall_s) if fsyncs is not None else None,
        "bytes": grew if delta("aof_rewrites") == 0 else None,
        "delayed_fsyncs": delta("aof_delayed_fsync"),
        "rewrites": delta("aof_rewrites"),
        "rdb_saves": delta("rdb_saves"),
    }
