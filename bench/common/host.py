"""What a bench prints about where it ran: the code measured and the machine's load."""

from __future__ import annotations

import subprocess
from pathlib import Path


def code_version(root: str) -> str:
    """The commit of ``root`` and whether server/ or protocol/ differ from it."""
    try:
        rev = subprocess.run(
            ["git", "-C", root, "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "-C", root, "status", "--porcelain", "--", "server", "protocol"],
            capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        marker = Path(root) / "COMMIT"
        return marker.read_text().strip() if marker.exists() else "unknown"
    return rev + (" + uncommitted changes in server/ or protocol/" if dirty else "")


def load_average() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])
