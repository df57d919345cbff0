"""Kept for imports; the helpers live in tests/support/."""

from __future__ import annotations

from tests.support.members import Member, Wire, two_members
from tests.support.ports import free_port
from tests.support.processes import QUICK_GAME_FLAGS, ROOT, Proc

__all__ = ["QUICK_GAME_FLAGS", "ROOT", "Member", "Proc", "Wire", "free_port", "two_members"]
