"""Where the server's time goes: instructions counted by callgrind in each
window (``--callgrind``), and py-spy samples of the last step (``--profile``)
summed by component, function and file."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections import Counter
from pathlib import Path

from bench.common.pinning import child_setup
from bench.load_bench.server_run import Run


async def callgrind_control(pid: int, *flags: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        "callgrind_control", *flags, str(pid),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    await proc.wait()


async def callgrind_window(pid: int, out: Path) -> dict[str, int] | None:
    """Dump the events counted since ``--instr=on`` and stop counting: the
    window's totals by event (``Ir``, the instructions; with ``--cache-sim``
    also ``DLmr``/``DLmw``, the last level's data read and write misses),
    from the ``events:`` and ``summary:`` lines of the newest dump."""
    before = set(out.parent.glob(out.name + "*"))
    await callgrind_control(pid, "--dump=window")
    await callgrind_control(pid, "--zero")
    await callgrind_control(pid, "--instr=off")
    for dump in sorted(set(out.parent.glob(out.name + "*")) - before):
        events: list[str] = []
        for line in dump.read_text(errors="replace").splitlines():
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith(("summary:", "totals:")):
                return dict(zip(events or ["Ir"], map(int, line.split()[1:]), strict=False))
    return None


async def profile_window(run: Run, seconds: float, out: str) -> asyncio.subprocess.Process:
    """Start py-spy on the server for ``seconds``.

    Raw collapsed stacks (``hot_spots`` reads them) unless ``out`` ends in
    .svg (a flame graph) or .json (speedscope). ``--native --idle``: with
    uvloop much of the work is C code under ``Runner.run``, and only the
    native frames tell waiting in ``epoll_wait`` from writing to sockets.
    """
    pyspy = Path(sys.executable).parent / "py-spy"
    fmt = "raw" if not out.endswith((".svg", ".json")) else (
        "flamegraph" if out.endswith(".svg") else "speedscope"
    )  # fmt: skip
    return await asyncio.create_subprocess_exec(
        str(pyspy), "record", "--pid", str(run.pid), "--duration", str(int(seconds)),
        "--rate", "100", "--function", "--native", "--idle", "--format", fmt, "--output", out,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        preexec_fn=child_setup(run.args.client_cores, signal.SIGKILL),
    )  # fmt: skip


async def profile_done(profiler: asyncio.subprocess.Process) -> None:
    """Wait for py-spy to write its profile (it stops by itself after its
    window), 30 s at most: a profile is never worth a hung run."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(profiler.wait(), 30)


IDLE_LEAVES = ("epoll_wait", "epoll_pwait", "epoll_pwait2")

COMPONENTS = (
    # (name, frames that mark it); a sample goes to the first that matches.
    ("collector pauses", ("gc_collect_main",)),
    ("store save", ("Table._save",)),
    ("diff of views", ("diff (protocol/diff.py",)),
    ("building views", ("Fanout.view_for", "Fanout.public_parts")),
    ("encoding messages", ("send_to_all", "Conn.send (")),
    ("engine + state encode", ("apply_command", "Game.state", "TableCore._commit")),
    ("socket writes (Conn._write)", ("Conn._write",)),
    ("receiving frames", ("Front.handler", "data_received", "protocol_handler")),
    ("lobby", ("Lobby.",)),
)


def hot_spots(path: str, top: int = 25) -> str:
    """Where the server's busy samples go: by function (self and inclusive) and by file."""
    own: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    files: Counter[str] = Counter()
    parts: Counter[str] = Counter()
    total = busy = 0
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            n = int(count)
            frames = stack.split(";")
            total += n
            leaf = frames[-1]
            if leaf.split(" ", 1)[0] in IDLE_LEAVES:
                continue
            busy += n
            own[leaf] += n
            where = leaf.rpartition("(")[2].rstrip(")").split(":")[0]
            files[where] += n
            for fr in set(frames):
                incl[fr] += n
            part = next((name for name, keys in COMPONENTS if any(k in stack for k in keys)), None)
            parts[part or "other (event loop, tasks, timers)"] += n
    if not busy:
        return "no busy samples"
    pct = 100 / busy
    lines = [
        f"{total} samples, {busy} busy ({100 * busy / total:.0f}%; the rest wait in epoll)."
        " Shares below are of the busy samples.",
        "share  component",
    ]
    lines += [f"{n * pct:5.1f}  {name}" for name, n in parts.most_common()]
    lines += ["self%  function"]
    lines += [f"{n * pct:5.1f}  {fn}" for fn, n in own.most_common(top)]
    lines += ["self%  file"]
    lines += [f"{n * pct:5.1f}  {fn}" for fn, n in files.most_common(top)]
    lines += ["incl%  function (frames in nearly every sample left out)"]
    lines += [
        f"{n * pct:5.1f}  {fn}"
        for fn, n in incl.most_common()
        if n < 0.95 * busy
        and not fn.endswith((".c)", ".h)"))
        and ".c:" not in fn
        and ".h:" not in fn
    ][:top]
    return "\n".join(lines)
