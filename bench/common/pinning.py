"""Where a bench's processes run: pinned to cores, reniced, with enough file
descriptors for thousands of sockets, and dying with the bench."""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
from collections.abc import Callable


def raise_nofile() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def child_setup(cores: set[int], deathsig: int, nice: int = 0) -> Callable[[], None]:
    """A ``preexec_fn``: pin to ``cores``, raise the descriptor limit, die with
    us, and take the ``nice`` value (negative: ahead of the machine's other work)."""

    def setup() -> None:
        os.sched_setaffinity(0, cores)
        if nice:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
        raise_nofile()
        with contextlib.suppress(Exception):
            ctypes.CDLL(None).prctl(1, deathsig)  # PR_SET_PDEATHSIG

    return setup


def parse_cores(text: str) -> set[int]:
    cores: set[int] = set()
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            cores.update(range(int(a), int(b) + 1))
        elif part:
            cores.add(int(part))
    return cores
