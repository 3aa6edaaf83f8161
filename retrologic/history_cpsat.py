"""The history model for OR-Tools CP-SAT: the same IR, cardinalities as native linear
constraints. Fast search and witnesses; its INFEASIBLE is not a certificate (pysat certifies)."""

from __future__ import annotations

import time

from retrologic.history_cnf import Limits
from retrologic.history_model import Model


class CpSatBackend:
    """A CP-SAT model of the IR, solved under selector assumptions (one worker, deterministic)."""

    name = "cp-sat"

    def __init__(self, model: Model, limits: Limits | None = None) -> None:
        from ortools.sat.python import cp_model  # ~0.7 s: imported only here
        self._cp = cp_model
        self.model = model
        self.limits = limits or Limits()
        self.cp = cp_model.CpModel()
        self.vars = [None] + [self.cp.NewBoolVar(f"v{i}") for i in range(1, model.num_vars + 1)]
        for clause in model.clauses:
            self.cp.AddBoolOr([self.lit(l) for l in clause])
        for card in model.cards:
            terms = [self.lit(l) for l in card.lits]
            expr = sum(terms) if terms else 0
            if card.op == "<=":
                ct = self.cp.Add(expr <= card.bound)
            elif card.op == ">=":
                ct = self.cp.Add(expr >= card.bound)
            else:
                ct = self.cp.Add(expr == card.bound)
            if card.guard is not None:
                ct.OnlyEnforceIf(self.lit(card.guard))
        for lit in model.preferred():
            self.cp.AddHint(self.vars[abs(lit)], lit > 0)
        self.calls = 0
        self._values: list[bool] | None = None

    def lit(self, l: int):
        v = self.vars[abs(l)]
        return v if l > 0 else v.Not()

    def close(self) -> None:
        pass

    def solve(self, assumptions: list[int]) -> bool | None:
        """True (feasible), False (infeasible) or None (a limit was hit)."""
        self.calls += 1
        self.cp.ClearAssumptions()
        self.cp.AddAssumptions([self.lit(l) for l in assumptions])
        solver = self._cp.CpSolver()
        solver.parameters.num_workers = 1
        if self.limits.deadline is not None:
            left = self.limits.deadline - time.monotonic()
            if left <= 0:
                return None
            solver.parameters.max_time_in_seconds = left
        if self.limits.conflicts is not None:
            solver.parameters.max_number_of_conflicts = self.limits.conflicts
        status = solver.Solve(self.cp)
        if status in (self._cp.OPTIMAL, self._cp.FEASIBLE):
            self._values = [False] + [bool(solver.Value(v)) for v in self.vars[1:]]
            return True
        if status == self._cp.INFEASIBLE:
            return False
        return None

    def values(self) -> list[bool]:
        assert self._values is not None
        return self._values
