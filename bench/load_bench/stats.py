"""A measurement window's figures: the latencies of every client process
merged into percentiles, the server's CPU per move, bytes per move, errors,
and the slowest moves with the collector pauses that ended while they waited."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from typing import Any

from bench.common.host import load_average
from bench.common.procfs import proc_rss
from bench.load_bench.server_run import Run


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return math.nan
    k = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[k]


def summarize(
    run: Run, tables: int, replies: list[dict[str, Any]], cpu_s: float, redis_cpu_s: float,
    wall_s: float,
) -> dict[str, Any]:  # fmt: skip
    lat = sorted(x for r in replies for x in r["latencies_ms"])
    moves = len(lat)
    seconds = statistics.mean(r["seconds"] for r in replies)
    errors: Counter[str] = Counter()
    for r in replies:
        errors.update(r["errors"])
    client_cpu = sum(r["client_cpu_s"] for r in replies)
    bytes_in = sum(r["bytes_in"] for r in replies)
    return {
        "target": run.label,
        "tables": tables,
        "tables_playing": sum(r["tables"] for r in replies),
        "clients": sum(r["open_conns"] for r in replies),
        "seconds": round(seconds, 2),
        "moves": moves,
        "moves_per_s": round(moves / seconds, 1),
        "moves_sent": sum(r["moves_sent"] for r in replies),
        "p50_ms": round(percentile(lat, 0.50), 2),
        "p99_ms": round(percentile(lat, 0.99), 2),
        "max_ms": round(lat[-1], 2) if lat else math.nan,
        "server_cpu_pct": round(100 * cpu_s / wall_s, 1),
        "server_us_per_move": round(1e6 * cpu_s / moves, 1) if moves else math.nan,
        "server_rss_mb": round(proc_rss(run.pid) / 2**20, 1),
        "redis_cpu_pct": round(100 * redis_cpu_s / wall_s, 1) if run.redis else None,
        "bytes_per_move": round(bytes_in / moves) if moves else math.nan,
        "msgs_per_move": round(sum(r["msgs_in"] for r in replies) / moves, 2) if moves else 0,
        "client_cpu_pct": round(100 * client_cpu / wall_s, 1),
        "client_cores": len(run.args.client_cores),
        "unfinished": sum(r["unfinished"] for r in replies),
        "late_ticks": sum(r["late_ticks"] for r in replies),
        "refused": sum(r["refused"] for r in replies),
        "errors": dict(errors),
        "error_count": sum(v for k, v in errors.items()),
        "disconnects": sum(r["disconnects"] for r in replies),
        "load_avg": load_average(),
    }


def slowest_moves(
    replies: list[dict[str, Any]], t0: float, pauses: list[list[float]], top: int = 30
) -> list[tuple[float, float, tuple[int, float] | None]]:
    """The slowest moves: when (s into the window), how long (ms), and the
    longest collector pause that ended while each waited, if any."""
    moves = sorted((m for r in replies for m in r["slowest"]), key=lambda m: m[1], reverse=True)[
        :top
    ]
    out = []
    for sent, ms in moves:
        during = [(int(g), p) for at, g, p in pauses if sent <= at <= sent + ms / 1e3]
        out.append((round(sent - t0, 2), ms, max(during, key=lambda x: x[1]) if during else None))
    return out
