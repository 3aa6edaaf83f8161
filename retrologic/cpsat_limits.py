"""OR-Tools CP-SAT under a `limits.Budget`: Ctrl-C, the time limit and the node limit.

A node limit bounds CP-SAT by two counts: its conflicts, and its deterministic time (CP-SAT's
own measure of work, the same on every machine for one worker), of which `DTIME_PER_NODE` is
one node. Conflicts alone left presolve unbounded: it counts none, and a 53,722-variable
schedule model spent 17 s in four solves of 380 conflicts each under `--nodes 2000`.
"""

from __future__ import annotations

import math
from typing import Any

from retrologic import limits
from retrologic.limits import Budget

# CP-SAT deterministic time charged as one node: about half a millisecond of one core here
# (2.2 units per second on the schedule model's presolve), a few of the proof-game search's
# nodes; a strategy model's solve (well under 0.01 units) costs at most a handful
DTIME_PER_NODE = 1e-3


def run_solver(solver: Any, model: Any) -> Any:
    """`solver.solve(model)` with Ctrl-C wired to CP-SAT's stop_search (limits.on_interrupt)
    and CP-SAT's own SIGINT handler off, so the signal reaches ours; None when a stop was
    requested before the solve (the caller reads that as 'unknown')."""
    solver.parameters.catch_sigint_signal = False
    if limits.interrupted():
        return None
    with limits.on_interrupt(solver.stop_search):
        return solver.solve(model)


def bound_work(solver: Any, budget: Budget | None) -> bool:
    """Give `solver` what is left of `budget`'s node limit, as conflicts and as deterministic
    time, so that `--nodes` bounds CP-SAT, presolve included; False past the limit. With none
    left a solve may still run without a conflict (as a search may reach its limit exactly):
    the same figure as a run without a limit spent then decides the question."""
    left = None if budget is None else budget.nodes_left()
    if left is None:
        return True
    if left < 0:
        return False
    solver.parameters.max_number_of_conflicts = left
    # one node more than is left: a solve charged k nodes (`work_done` rounds down) took less
    # than k + 1 nodes' time, so a figure that covered it unlimited lets it finish again
    solver.parameters.max_deterministic_time = (left + 1) * DTIME_PER_NODE
    return True


def work_done(solver: Any) -> int:
    """The nodes a finished solve cost: its conflicts or its deterministic time, the larger;
    a solve that reached the deterministic time `bound_work` gave it costs all of it (so the
    budget reads as spent, whatever the rounding of the two figures)."""
    dtime = solver.response_proto.deterministic_time
    nodes = math.floor(dtime / DTIME_PER_NODE)
    cap = solver.parameters.max_deterministic_time
    if math.isfinite(cap) and dtime >= cap * (1 - 1e-9):
        nodes = max(nodes, round(cap / DTIME_PER_NODE))
    return max(solver.num_conflicts, nodes)


def charge_work(solver: Any, budget: Budget | None) -> None:
    """Charge a finished solve's work (`work_done`) to `budget`'s node count."""
    if budget is not None:
        budget.spent += work_done(solver)
