"""CPU time spent by process trees over a phase of a benchmark, read from /proc (Linux).

A rate alone does not say what a piece of work costs when every process shares two cores; the
CPU time per item of each process (the system, PostgreSQL, NATS, a receiver, the benchmark
itself) does, and it adds up to what the machine spent. A process that starts and ends within a
phase (a connection's backend, say) is not counted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

_PROC = Path("/proc")


def _processes() -> dict[int, tuple[int, float]]:
    """pid → (parent pid, CPU seconds so far) of every process that can be read."""
    ticks = os.sysconf("SC_CLK_TCK")
    found: dict[int, tuple[int, float]] = {}
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        # The command name may hold spaces and parentheses: the fields follow the last ')'.
        fields = stat.rsplit(")", 1)[1].split()
        found[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / ticks)
    return found


class CpuMeter:
    """CPU seconds of named process trees: a root pid and its descendants, short of another
    root's tree (the benchmark's tree does not hold the servers it started)."""

    def __init__(self, roots: Mapping[str, int]) -> None:
        self._roots = dict(roots)

    @staticmethod
    def available() -> bool:
        return (_PROC / "self" / "stat").exists()

    def sample(self) -> dict[str, float]:
        processes = _processes()
        children: dict[int, list[int]] = {}
        for pid, (parent, _) in processes.items():
            children.setdefault(parent, []).append(pid)
        roots = set(self._roots.values())
        totals: dict[str, float] = {}
        for name, root in self._roots.items():
            total, stack = 0.0, [root]
            while stack:
                pid = stack.pop()
                if pid in processes:
                    total += processes[pid][1]
                stack += [child for child in children.get(pid, []) if child not in roots]
            totals[name] = total
        return totals


def per_item_us(
    before: Mapping[str, float], after: Mapping[str, float], items: int
) -> dict[str, float]:
    """Microseconds of CPU per item for each tree between two samples."""
    return {name: (after[name] - before[name]) / items * 1e6 for name in before}
