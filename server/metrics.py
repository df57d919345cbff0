"""Prometheus metrics served at ``GET /metrics`` (prometheus_client: a
well-kept library for the exposition format and histograms)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector

REGISTRY = CollectorRegistry()

TABLES = Gauge("atout_tables", "Tables open", registry=REGISTRY)
CONNECTIONS = Gauge("atout_connections", "WebSocket connections open", registry=REGISTRY)


class Tally:
    """A counter for the hot path: a plain integer, read only when scraped.

    ``prometheus_client.Counter.inc`` takes a lock on every call (about 3 µs,
    several times per move); these counts change thousands of times a second
    and are only read by a scrape, so the server adds to plain integers and
    a collector turns them into counters at scrape time.
    """

    __slots__ = ("count", "help", "name")

    def __init__(self, name: str, help: str) -> None:
        self.name = name
        self.help = help
        self.count = 0


MESSAGES_IN = Tally("atout_messages_in", "Messages received from clients")
MESSAGES_OUT = Tally("atout_messages_out", "Messages sent to clients")


class _Tallies(Collector):
    def collect(self) -> Iterator[Metric]:
        for tally in (MESSAGES_IN, MESSAGES_OUT):
            yield CounterMetricFamily(tally.name, tally.help, value=tally.count)


REGISTRY.register(_Tallies())
ERRORS = Counter("atout_errors", "Errors by kind", ["kind"], registry=REGISTRY)
ACTION_LATENCY = Histogram(
    "atout_action_seconds",
    "From a command taken off a table's inbox to its patches queued to every seat",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0),
    registry=REGISTRY,
)


def exposition() -> bytes:
    return generate_latest(REGISTRY)
