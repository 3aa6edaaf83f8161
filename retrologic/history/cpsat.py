"""The history model for OR-Tools CP-SAT: the same IR, cardinalities as native linear
constraints. Fast search and witnesses; its INFEASIBLE is not a certificate (pysat certifies).
Written against the snake_case API of OR-Tools >= 9.8."""

from __future__ import annotations

from retrologic import limits
from retrologic.cpsat_limits import bound_work, charge_work, run_solver
from retrologic.history.model import Model
from retrologic.limits import Budget, LimitHit


class CpSatBackend:
    """A CP-SAT model of the IR, solved under selector assumptions (one worker, deterministic)."""

    name = "cp-sat"

    def __init__(self, model: Model, budget: Budget | None = None) -> None:
        from ortools.sat.python import cp_model  # ~0.7 s: imported only here
        self._cp = cp_model
        self.model = model
        self.budget = budget if budget is not None else Budget()
        self.cp = cp_model.CpModel()
        self.vars = [None] + [self.cp.new_bool_var(f"v{i}") for i in range(1, model.num_vars + 1)]
        for clause in model.clauses:
            self.cp.add_bool_or([self.lit(l) for l in clause])
        for card in model.cards:
            terms = [self.lit(l) for l in card.lits]
            expr = sum(terms) if terms else 0
            if card.op == "<=":
                ct = self.cp.add(expr <= card.bound)
            elif card.op == ">=":
                ct = self.cp.add(expr >= card.bound)
            else:
                ct = self.cp.add(expr == card.bound)
            if card.guard is not None:
                ct.only_enforce_if(self.lit(card.guard))
        for lit in model.preferred():
            self.cp.add_hint(self.vars[abs(lit)], lit > 0)
        self.calls = 0
        self._values: list[bool] | None = None

    def lit(self, l: int):
        v = self.vars[abs(l)]
        return v if l > 0 else v.negated()

    def close(self) -> None:
        pass

    def solve(self, assumptions: list[int]) -> bool:
        """True (feasible) or False (infeasible); LimitHit when the budget is spent (its
        deadline, Ctrl-C through stop_search, or its node limit as a conflict budget)."""
        self.calls += 1
        budget = self.budget
        budget.check_now()
        self.cp.clear_assumptions()
        self.cp.add_assumptions([self.lit(l) for l in assumptions])
        solver = self._cp.CpSolver()
        solver.parameters.num_workers = 1
        left = budget.left()
        if left is not None:
            solver.parameters.max_time_in_seconds = left
        if budget.nodes_used_up() or not bound_work(solver, budget):
            raise LimitHit(budget.node_reason())
        # CP-SAT's own SIGINT handler off (run_solver): Ctrl-C must reach ours (limits), which
        # stops the solve through stop_search; caught by CP-SAT it read as the time limit
        status = run_solver(solver, self.cp)
        if status is None:
            raise LimitHit(limits.INTERRUPTED)
        charge_work(solver, budget)
        if status in (self._cp.OPTIMAL, self._cp.FEASIBLE):
            self._values = [False] + [bool(solver.value(v)) for v in self.vars[1:]]
            return True
        if status == self._cp.INFEASIBLE:
            return False
        raise budget.stopped(f"CP-SAT ({solver.status_name(status)})")

    def values(self) -> list[bool]:
        assert self._values is not None
        return self._values
