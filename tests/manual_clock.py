"""Kept for imports; the helpers live in tests/support/."""

from __future__ import annotations

from tests.support.clock import START, ManualClock
from tests.support.waits import eventually as until

__all__ = ["START", "ManualClock", "until"]
