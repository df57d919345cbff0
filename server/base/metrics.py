"""Prometheus metrics served at ``GET /metrics`` (prometheus_client: a
well-kept library for the exposition format and histograms)."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
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


MESSAGES_IN: Final = Tally("atout_messages_in", "Messages received from clients")
MESSAGES_OUT: Final = Tally("atout_messages_out", "Messages sent to clients")


class Spread:
    """A histogram for the hot path: plain integers per bucket, read only when
    scraped (``prometheus_client.Histogram.observe`` takes a lock and costs
    several µs; this is one bisect and two additions, once per move)."""

    __slots__ = ("bounds", "counts", "help", "name", "sum")

    def __init__(self, name: str, help: str, bounds: tuple[float, ...]) -> None:
        self.name = name
        self.help = help
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last: above every bound (+Inf)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.sum += value

    @property
    def count(self) -> int:
        return sum(self.counts)

    def metric(self) -> HistogramMetricFamily:
        buckets: list[tuple[str, float]] = []
        running = 0
        for bound, count in zip((*self.bounds, float("inf")), self.counts, strict=True):
            running += count
            buckets.append(("+Inf" if bound == float("inf") else repr(bound), running))
        return HistogramMetricFamily(self.name, self.help, buckets=buckets, sum_value=self.sum)


ACTION_LATENCY: Final = Spread(
    "atout_action_seconds",
    "From a command taken off a table's inbox to its patches queued to every seat",
    (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0),
)


class _Tallies(Collector):
    def collect(self) -> Iterator[Metric]:
        for tally in (MESSAGES_IN, MESSAGES_OUT):
            yield CounterMetricFamily(tally.name, tally.help, value=tally.count)
        yield ACTION_LATENCY.metric()


REGISTRY.register(_Tallies())
ERRORS = Counter("atout_errors", "Errors by kind", ["kind"], registry=REGISTRY)


def exposition() -> bytes:
    return generate_latest(REGISTRY)
