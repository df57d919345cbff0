"""``--profile``: the first server's py-spy samples of an N-process run and
of the one-process run, side by side in µs of CPU per move served."""

from __future__ import annotations

from pathlib import Path

from bench.load_bench.profiling import COMPONENTS, IDLE_LEAVES


def profile_path(path: str, processes: int) -> str:
    """``/tmp/p.txt`` -> ``/tmp/p-3proc.txt``: one file per run."""
    p = Path(path)
    return str(p.with_name(f"{p.stem}-{processes}proc{p.suffix}"))


def profile_sums(path: str) -> tuple[int, dict[str, dict[str, int]]]:
    """A raw py-spy file (profile_window's): busy samples, and busy samples
    per component (COMPONENTS), per task or callback the loop ran (the
    first Python frame under it) and per function (inclusive)."""
    busy = 0
    sums: dict[str, dict[str, int]] = {"component": {}, "entry": {}, "function": {}}
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            frames = stack.split(";")
            if not stack or frames[-1].split(" ", 1)[0] in IDLE_LEAVES:
                continue
            n = int(count)
            busy += n
            part = next(
                (name for name, keys in COMPONENTS if any(k in stack for k in keys)),
                "other (event loop, tasks, timers)",
            )
            below = next((i for i, fr in enumerate(frames) if fr.startswith("Runner.run")), 0)
            entry = next(
                (fr.split(" (")[0] for fr in frames[below + 1 :] if ".py:" in fr),
                "(C: the loop, the kernel) " + frames[-1].split(" (")[0],
            )
            keys = [("component", part), ("entry", entry)] + [
                ("function", fr)
                for fr in set(frames)
                if ".c:" not in fr and ".h:" not in fr and not fr.startswith("0x")
            ]
            for kind, key in keys:
                sums[kind][key] = sums[kind].get(key, 0) + n
    return busy, sums


def compare_profiles(
    many: tuple[str, int, float], one: tuple[str, int, float], top: int = 30
) -> str:
    """Side by side, in µs of CPU per move served: each profiled process's CPU
    in the window, split as its busy samples are. py-spy samples wall time: a
    process waiting for a core is sampled where it was preempted, so on a
    loaded machine it has far more busy samples than CPU time; shares of the
    samples are what it tells."""
    (path_n, moves_n, cpu_n), (path_1, moves_1, cpu_1) = many, one
    busy_n, sums_n = profile_sums(path_n)
    busy_1, sums_1 = profile_sums(path_1)
    us_n = 1e6 * cpu_n / max(moves_n, 1) / max(busy_n, 1)
    us_1 = 1e6 * cpu_1 / max(moves_1, 1) / max(busy_1, 1)
    lines = [
        f"# profile, us of CPU per move served: N processes (the first: {moves_n} moves,"
        f" {cpu_n:.2f} s, {busy_n} busy samples) vs 1 process ({moves_1} moves,"
        f" {cpu_1:.2f} s, {busy_1} busy samples), then the difference",
        f"{busy_n * us_n:8.0f} {busy_1 * us_1:8.0f} {busy_n * us_n - busy_1 * us_1:+8.0f}  all",
    ]
    for kind in ("component", "entry", "function"):
        lines.append(f"# by {kind}, largest difference first")
        a_of, b_of = sums_n[kind], sums_1[kind]
        names = sorted(
            set(a_of) | set(b_of), key=lambda k: -abs(a_of.get(k, 0) * us_n - b_of.get(k, 0) * us_1)
        )
        if kind == "function":  # not the frames under everything (main, Runner.run...)
            names = [k for k in names if a_of.get(k, 0) < 0.95 * busy_n]
        for name in names[: top if kind == "function" else 12]:
            a, b = a_of.get(name, 0) * us_n, b_of.get(name, 0) * us_1
            lines.append(f"{a:8.0f} {b:8.0f} {a - b:+8.0f}  {name}")
    return "\n".join(lines)
