"""What the campaigns count, and what counts as a failure: the documented
error codes, the ones that are bugs of ours, the server's bug logs (kept by
a structlog processor that drops every other log)."""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any, get_args

import structlog

from protocol.errors import ErrorCode


def documented_error_codes() -> set[str]:
    """The ``error.code`` values: ``protocol.errors.ErrorCode``, which
    tests/test_error_codes.py holds equal to docs/PROTOCOL.md §6.1 and §11.5."""
    return set(get_args(ErrorCode))


ERROR_CODES = documented_error_codes()
BUG_CODES = {"internal"}
"""Documented, but each one is a bug of ours: the campaign counts it as a failure."""
BUG_LOGS = {"connection_error", "table_error", "bot_error", "lobby_error"}
"""Log events the server writes with a traceback for its own bugs."""
FIRST_FRAME_ERRORS = {
    "hello_first",
    "incompatible_version",
    "bad_name",
    # a hello whose player key is not one, or not known here (then closed, 4004)
    "bad_key",
    "unknown_key",
    "name_taken",
    "malformed",
    "unknown_message",
    "invalid_message",
}


class BugLog:
    """A structlog processor that keeps the server's bug reports and drops all logs."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def __call__(self, logger: Any, method: str, event: MutableMapping[str, Any]) -> Any:
        name = str(event.get("event"))
        if name in BUG_LOGS:
            exc = event.get("exc_info")
            detail = ""
            if exc:
                info = sys.exc_info() if exc is True else exc
                if isinstance(info, tuple) and info[1] is not None:
                    detail = f": {type(info[1]).__name__}: {info[1]}"[:300]
            self.events.append(name + detail)
        raise structlog.DropEvent

    def take(self) -> list[str]:
        out, self.events = self.events, []
        return out


def quiet_logs() -> BugLog:
    bugs = BugLog()
    structlog.configure(processors=[bugs], cache_logger_on_first_use=False)
    return bugs


@dataclass
class Tally:
    inputs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    failures: list[dict[str, Any]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def fail(self, what: str, **detail: Any) -> None:
        self.outcomes["FAILURE"] += 1
        if len(self.failures) < 50:
            self.failures.append({"what": what, **detail})
        print(f"FAILURE {what} {detail}", file=sys.stderr, flush=True)

    def report(self) -> dict[str, Any]:
        elapsed = time.monotonic() - self.started
        return {
            "inputs": self.inputs,
            "seconds": round(elapsed, 1),
            "inputs_per_s": round(self.inputs / elapsed, 1) if elapsed else 0,
            "failures": self.outcomes["FAILURE"],
            "outcomes": dict(self.outcomes.most_common()),
            "error_codes": dict(self.errors.most_common()),
            "failure_examples": self.failures[:10],
        }
