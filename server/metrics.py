"""Prometheus metrics served at ``GET /metrics`` (prometheus_client: a
well-kept library for the exposition format and histograms)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

REGISTRY = CollectorRegistry()

TABLES = Gauge("atout_tables", "Tables open", registry=REGISTRY)
CONNECTIONS = Gauge("atout_connections", "WebSocket connections open", registry=REGISTRY)
MESSAGES_IN = Counter("atout_messages_in", "Messages received from clients", registry=REGISTRY)
MESSAGES_OUT = Counter("atout_messages_out", "Messages sent to clients", registry=REGISTRY)
ERRORS = Counter("atout_errors", "Errors by kind", ["kind"], registry=REGISTRY)
ACTION_LATENCY = Histogram(
    "atout_action_seconds",
    "From a command taken off a table's inbox to its patches queued to every seat",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0),
    registry=REGISTRY,
)


def exposition() -> bytes:
    return generate_latest(REGISTRY)
