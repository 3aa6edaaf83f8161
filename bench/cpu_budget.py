"""A `Budget` whose deadline is in CPU seconds of this process (time.process_time), for the
legal-game benchmarks (issue #19: "10 s on one core"; the shared machine's load would otherwise
count against the finder). It subclasses whichever `retrologic.limits` comes first on the
path: this tree's for bench/legal.py, the baseline checkout's in its `--baseline-tree` worker.
"""

from __future__ import annotations

import time

from retrologic.limits import Budget, LimitHit


class CpuBudget(Budget):
    """`Budget` with its time limit read from the CPU clock."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.cpu_deadline = time.process_time() + (self.timeout or 0.0)

    def expired(self) -> str | None:
        if time.process_time() >= self.cpu_deadline:
            return self.time_reason()
        return None

    def check(self, nodes: int = 0, *, every: int = 64) -> None:
        self.spent += nodes
        if self.nodes is not None and self.spent > self.nodes:     # a turn's share of nodes
            raise LimitHit(self.node_reason())
        self._calls += 1
        if self._calls >= every:
            self._calls = 0
            if time.process_time() >= self.cpu_deadline:
                raise LimitHit(self.time_reason())

    def share(self, fraction: float = 1.0, *, seconds: float | None = None,
              nodes: int | None = None) -> Budget:
        """A child ending at `fraction` of the CPU time left (or after `seconds` of CPU)."""
        child = super().share(fraction, seconds=seconds, nodes=nodes)
        now = time.process_time()
        cpu = CpuBudget(None, child.nodes)
        cpu.timeout, cpu.nodes_figure = self.timeout, child.nodes_figure
        cpu.cpu_deadline = now + max(self.cpu_deadline - now, 0.0) * fraction
        if seconds is not None:
            cpu.cpu_deadline = min(cpu.cpu_deadline, now + seconds)
        cpu.deadline = child.deadline
        return cpu

    def left(self) -> float | None:
        return max(self.cpu_deadline - time.process_time(), 0.0)


def position_budget(timeout: float, nodes: int | None) -> Budget:
    """One position's limit: `nodes` positions and no deadline (`--nodes`: what `legal
    --nodes` does, the finders' and the proof-game route's turns then counted in nodes, so
    every machine expands the same), else `timeout` CPU seconds."""
    return Budget(nodes=nodes) if nodes else CpuBudget(timeout)
