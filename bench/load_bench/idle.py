"""``--idle N``: the memory a fresh server takes per connected client, then
per idle table."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from bench.common.host import load_average
from bench.common.procfs import proc_rss
from bench.load_bench.server_run import Run


async def idle_memory(args: argparse.Namespace, run: Run, results: list[dict[str, Any]]) -> None:
    """RSS growth of a fresh server: per connected client, then per idle table."""
    n = args.idle
    await run.start(workers=1)
    await run.add_tables(4)  # warm every code path (imports, first table) first
    await asyncio.sleep(2)
    rss0 = proc_rss(run.pid)
    connected = await run.ask([{"cmd": "connect", "tables": n}], 60 + n)
    await asyncio.sleep(2)
    rss1 = proc_rss(run.pid)
    await run.ask([{"cmd": "seat"}], 60 + n)
    await asyncio.sleep(2)
    rss2 = proc_rss(run.pid)
    conns = 4 * connected[0]["connected"]
    r = {
        "target": run.label,
        "idle_tables": n,
        "connections": conns,
        "rss_before_mb": round(rss0 / 2**20, 1),
        "rss_connected_mb": round(rss1 / 2**20, 1),
        "rss_seated_mb": round(rss2 / 2**20, 1),
        "kb_per_connection": round((rss1 - rss0) / conns / 1024, 1),
        "kb_per_idle_table": round((rss2 - rss1) / n / 1024, 1),
        "kb_per_table_with_4_conns": round((rss2 - rss0) / n / 1024, 1),
        "load_avg": load_average(),
    }
    results.append(r)
    print(
        f"{run.label:<12} idle memory: {conns} clients -> {r['kb_per_connection']} KiB per "
        f"connection (in the lobby); seated in {n} started tables -> "
        f"{r['kb_per_idle_table']} KiB more per table; {r['kb_per_table_with_4_conns']} KiB "
        f"per table with its 4 connections (RSS {r['rss_before_mb']} -> {r['rss_connected_mb']}"
        f" -> {r['rss_seated_mb']} MB)  load {r['load_avg']}",
        flush=True,
    )
