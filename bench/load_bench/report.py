"""What the load bench prints for a window: its row under ``HEADER``, and
the notes below it."""

from __future__ import annotations

import sys
from typing import Any


def print_window_notes(r: dict[str, Any], slowest: int) -> None:
    """A window's errors, collector pauses and slowest moves, under its row."""
    if r["errors"]:
        print(f"#   errors: {r['errors']}", file=sys.stderr, flush=True)
    if "gc" in r:
        print(f"#   gc in the window: {r['gc']}", flush=True)
    for stall in r.get("stalls", []):
        print(f"#   stall at {stall['at']} s: {stall['ms']} ms in {stall['where']}", flush=True)
    print(
        "#   slowest moves (s into the window: ms [gc pause ending meanwhile]): "
        + ", ".join(
            f"{at:.1f}: {ms:.0f}" + (f" [gen{g[0]} {g[1]:.0f}ms]" if g else "")
            for at, ms, g in r["slowest"][:slowest]
        ),
        flush=True,
    )


HEADER = (
    f"{'target':<12} {'tables':>6} {'clients':>7} {'moves/s':>8} {'p50ms':>7} {'p99ms':>8} "
    f"{'maxms':>8} {'srvCPU%':>7} {'us/move':>8} {'RSS_MB':>7} {'B/move':>7} "
    f"{'cliCPU%':>7} {'errs':>5} {'disc':>5}  load"
)


def row_text(r: dict[str, Any]) -> str:
    return (
        f"{r['target']:<12} {r['tables']:>6} {r['clients']:>7} {r['moves_per_s']:>8.1f} "
        f"{r['p50_ms']:>7.1f} {r['p99_ms']:>8.1f} {r['max_ms']:>8.1f} "
        f"{r['server_cpu_pct']:>7.1f} {r['server_us_per_move']:>8.0f} {r['server_rss_mb']:>7.1f} "
        f"{r['bytes_per_move']:>7} {r['client_cpu_pct']:>7.1f} {r['error_count']:>5} "
        f"{r['disconnects']:>5}  {r['load_avg']}"
    )
