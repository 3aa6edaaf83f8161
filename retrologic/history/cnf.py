"""The history model solved with python-sat: its CNF (retrologic.history.clauses, cardinalities
as clauses, so a DRUP proof covers them) decided under selector assumptions, MUS over named
groups, DRUP proofs.

Every solver call runs under the question's `retrologic.limits.Budget`: Glucose 4.1 is used
because it gives DRUP proofs *and* can be stopped from another thread (`interrupt()`, with
the GIL released by `solve_limited(expect_interrupt=True)`), so the deadline (a timer) and
Ctrl-C (limits.on_interrupt) stop a call at once; a node limit is a conflict budget
(`conf_budget`), counted over all calls of the question, so it gives the same verdict on a
busy machine. CaDiCaL (pysat's cadical195) has no interrupt(), and in the main thread it
catches SIGINT itself with a longjmp that leaves its own handler installed, so a second
Ctrl-C crashes the process (measured: Glucose is as fast on problems/deduce, see bench/deduce.py).
"""

from __future__ import annotations

import contextvars
import threading
from contextlib import contextmanager
from typing import Any, Iterator

from retrologic import limits
from retrologic.history.clauses import to_cnf
from retrologic.history.model import Model
from retrologic.limits import Budget, LimitHit

__all__ = ["SOLVER", "SatBackend", "budget_scope", "current_budget", "drup_proof", "solve_limited"]


SOLVER = "glucose4"


_BUDGET: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("history_budget",
                                                                      default=None)


@contextmanager
def budget_scope(budget: Budget) -> Iterator[None]:
    """Make `budget` the default of solver calls made without one inside the block (e.g. the
    DRUP proof a certificate writer asks for in the middle of a question)."""
    token = _BUDGET.set(budget)
    try:
        yield
    finally:
        _BUDGET.reset(token)


def current_budget() -> Budget:
    """The budget of the enclosing budget_scope, or an unlimited one (Ctrl-C still stops it)."""
    return _BUDGET.get() or Budget()


class Alarm:
    """Interrupts a pysat solver when a budget's deadline passes: one timer thread for all the
    calls of the solver (a thread per call costs a third of a MUS's time). Firing between two
    calls is harmless: the next call finds the deadline passed before it starts."""

    def __init__(self, solver: Any, budget: Budget) -> None:
        self.timer: threading.Timer | None = None
        wait = budget.left()
        if wait is not None:
            self.timer = threading.Timer(min(wait, threading.TIMEOUT_MAX), solver.interrupt)
            self.timer.daemon = True
            self.timer.start()

    def close(self) -> None:
        """Stop the timer (before the solver is deleted: it must not fire on a dead solver)."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer.join()


def solve_limited(solver: Any, assumptions: list[int], budget: Budget) -> bool:
    """One call of a pysat solver under `budget` (its deadline is an Alarm on the solver):
    True (SAT) or False (UNSAT); LimitHit (with the budget's reason) when the deadline passes,
    Ctrl-C arrives or the conflicts charged to the budget would exceed its node limit."""
    budget.check_now()
    left = budget.nodes_left()
    if left is not None:
        if left <= 0:
            raise LimitHit(budget.node_reason())
        solver.conf_budget(left)
    before = solver.accum_stats().get("conflicts", 0)
    try:
        with limits.on_interrupt(solver.interrupt):
            res = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    finally:
        solver.clear_interrupt()
    used = solver.accum_stats().get("conflicts", 0) - before
    budget.spent += used
    if res is not None:
        return res
    raise budget.stopped("the SAT solver")


class SatBackend:
    """An incremental pysat solver over the model's CNF; answers under selector assumptions."""

    name = "sat"

    def __init__(self, model: Model, budget: Budget | None = None) -> None:
        from pysat.solvers import Solver
        self.model = model
        self.budget = budget if budget is not None else Budget()
        self.clauses, self.nv = to_cnf(model, self.budget)
        self.solver = Solver(name=SOLVER, bootstrap_with=self.clauses)
        self.solver.set_phases(model.preferred())
        self.alarm = Alarm(self.solver, self.budget)
        self.calls = 0

    def close(self) -> None:
        self.alarm.close()
        self.solver.delete()

    def solve(self, assumptions: list[int]) -> bool:
        """True (SAT) or False (UNSAT); LimitHit when the budget is spent."""
        self.calls += 1
        return solve_limited(self.solver, assumptions, self.budget)

    def values(self) -> list[bool]:
        """Truth of each model variable (index 0 unused) in the last SAT answer."""
        m = self.solver.get_model()
        val = [False] * (self.nv + 1)
        for lit in m:
            if abs(lit) <= self.nv:
                val[abs(lit)] = lit > 0
        return val

    def mus(self, fixed: list[int], candidates: list[int]) -> list[int]:
        """A minimal subset of `candidates` that with `fixed` is UNSAT (plain deletion, so the
        earlier a candidate, the likelier it is left out); LimitHit if the budget is spent."""
        keep = list(candidates)
        i = 0
        while i < len(keep):
            trial = keep[:i] + keep[i + 1:]
            res = self.solve(fixed + trial)
            if res is False:
                keep = trial
            else:
                i += 1
        return keep


def drup_proof(clauses: list[list[int]], units: list[int], budget: Budget | None = None
               ) -> tuple[list[list[int]], list[str]] | None:
    """The CNF with `units` added, and the solver's DRUP proof that it is UNSAT (None if SAT);
    under `budget` (default: the enclosing budget_scope's), LimitHit when it is spent."""
    from pysat.solvers import Solver
    budget = budget if budget is not None else current_budget()
    cnf = clauses + [[u] for u in units]
    with Solver(name=SOLVER, bootstrap_with=cnf, with_proof=True) as s:
        alarm = Alarm(s, budget)
        try:
            if solve_limited(s, [], budget):
                return None
        finally:
            alarm.close()
        return cnf, list(s.get_proof())
