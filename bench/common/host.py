"""What a bench prints about where it ran: the code measured and the machine's load."""

from __future__ import annotations

import platform
import subprocess
import sys
import sysconfig
from pathlib import Path

from server.base.compiled import COMPILED


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


def compiled_in(root: str) -> str:
    """How many of the compiled build's modules (server/base/compiled.py) are
    compiled under ``root``: a built extension beside the source (``.so``)."""
    built = sum(
        1
        for name in COMPILED
        if any(Path(root, *name.split(".")[:-1]).glob(name.rsplit(".", 1)[-1] + ".*.so"))
    )
    return f"{built}/{len(COMPILED)} modules compiled"


def interpreter() -> str:
    """The Python the server runs on (the bench's own) and what of its build
    matters here: the same code cost 9-18% more a move on pyenv's default
    build (libpython a shared library, no profile-guided or link-time
    optimization) than on Debian's (docs/LOAD.md, "Twelfth pass")."""
    try:
        with open("/proc/self/maps") as f:
            shared = any("/libpython" in line for line in f)
        linked = "libpython a shared library" if shared else "libpython linked in"
    except OSError:  # not Linux
        linked = "libpython: unknown"
    args = str(sysconfig.get_config_var("CONFIG_ARGS") or "")
    flags = [flag for flag in ("--enable-optimizations", "--with-lto") if flag in args]
    built = " ".join(flags) if flags else "configured without --enable-optimizations"
    return f"{sys.executable} ({platform.python_version()}, {linked}, {built})"


def load_average() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])
