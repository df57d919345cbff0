"""A process's figures as Linux keeps them in /proc: CPU time, time spent
waiting for a core, resident memory, context switches."""

from __future__ import annotations

import os

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_times(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def proc_cpu(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far."""
    return sum(proc_times(pid))


def proc_wait(pid: int) -> float:
    """Seconds ``pid``'s main thread has waited, runnable, for a CPU (schedstat).

    The machine is shared: if this grows, other processes took the core and
    the latency figures measure them too.
    """
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def proc_rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def proc_counts(pid: int) -> tuple[float, float, int, int]:
    """User and system CPU seconds, voluntary and involuntary context switches."""
    user, system = proc_times(pid)
    switches = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if "ctxt_switches" in line:
                name, _, value = line.partition(":")
                switches[name] = int(value)
    return (
        user,
        system,
        switches.get("voluntary_ctxt_switches", 0),
        switches.get("nonvoluntary_ctxt_switches", 0),
    )
