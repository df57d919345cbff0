"""What the campaign counts, and the report it prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Figures:
    kills: int = 0
    redis_kills: int = 0
    acked_moves_lost: int = 0
    loss_events: list[dict[str, Any]] = field(default_factory=list)
    resume_failures: int = 0
    resumes: int = 0
    games_finished: int = 0
    games_matching_records: int = 0
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    mismatches_redis_outage: int = 0
    restart_to_playing_s: list[float] = field(default_factory=list)
    tables_not_playing_again: int = 0
    moves_seen: int = 0
    redis_tables_checked: int = 0
    redis_writes_lost: int = 0
    redis_recovery_s: list[float] = field(default_factory=list)
    redis_outage_unsaved_max: int = 0


def summary(f: Figures, elapsed: float) -> dict[str, Any]:
    times = sorted(f.restart_to_playing_s)

    def pct(q: float) -> float | None:
        return times[min(len(times) - 1, int(q * len(times)))] if times else None

    return {
        "server_kills": f.kills,
        "acknowledged_moves_lost": f.acked_moves_lost,
        "loss_events": f.loss_events[:20],
        "moves_seen": f.moves_seen,
        "resumes": f.resumes,
        "resume_failures": f.resume_failures,
        "games_finished": f.games_finished,
        "games_with_scores_equal_to_records": f.games_matching_records,
        "games_not_equal_during_a_redis_outage": f.mismatches_redis_outage,
        "games_not_equal_otherwise": len(f.mismatches) - f.mismatches_redis_outage,
        "mismatches": f.mismatches[:20],
        "restart_to_every_table_playing_s": {
            "median": pct(0.5),
            "p90": pct(0.9),
            "max": times[-1] if times else None,
        },
        "tables_not_playing_again_within_30s": f.tables_not_playing_again,
        "redis_kills": f.redis_kills,
        "redis_tables_checked": f.redis_tables_checked,
        "redis_acknowledged_writes_lost": f.redis_writes_lost,
        "redis_outage_max_unsaved_tables": f.redis_outage_unsaved_max,
        "redis_restart_to_healthz_ok_s": f.redis_recovery_s,
        "seconds": round(elapsed, 1),
    }
