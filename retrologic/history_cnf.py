"""The history model as CNF for python-sat: cardinalities as clauses (pysat.card), so a DRUP
proof covers them; decisions under selector assumptions, MUS over named groups, DRUP proofs."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from retrologic.history_model import Card, Model

SOLVER = "cadical195"


def _card_clauses(card: Card, top: int) -> tuple[list[list[int]], int]:
    """Clauses of sum(lits) OP bound (without the guard) and the new top variable."""
    from pysat.card import CardEnc, EncType
    lits, k, n = list(card.lits), card.bound, len(card.lits)
    if card.op == "==":
        a, top = _card_clauses(Card(card.lits, "<=", k), top)
        b, top = _card_clauses(Card(card.lits, ">=", k), top)
        return a + b, top
    if card.op == "<=":
        if k >= n:
            return [], top
        if k < 0:
            return [[]], top
        if k == 0:
            return [[-l] for l in lits], top
        if k == 1 and n <= 6:
            return [[-a, -b] for i, a in enumerate(lits) for b in lits[i + 1:]], top
        cnf = CardEnc.atmost(lits, bound=k, top_id=top, encoding=EncType.seqcounter)
    else:
        if k <= 0:
            return [], top
        if k > n:
            return [[]], top
        if k == 1:
            return [lits], top
        if k == n:
            return [[l] for l in lits], top
        cnf = CardEnc.atleast(lits, bound=k, top_id=top, encoding=EncType.seqcounter)
    return [list(c) for c in cnf.clauses], max(top, cnf.nv)


def to_cnf(model: Model) -> tuple[list[list[int]], int]:
    """All clauses of the model (guards folded in) and the number of variables."""
    clauses = [list(c) for c in model.clauses]
    top = model.num_vars
    for card in model.cards:
        cls, top = _card_clauses(card, top)
        guard = [] if card.guard is None else [-card.guard]
        clauses.extend(guard + c for c in cls)
    return clauses, top


def dimacs(clauses: list[list[int]], nv: int) -> str:
    lines = [f"p cnf {nv} {len(clauses)}"]
    lines += [" ".join(map(str, c)) + " 0" for c in clauses]
    return "\n".join(lines) + "\n"


@dataclass
class Limits:
    """Resource limits shared by all solver calls of one query."""

    deadline: float | None = None     # time.monotonic() after which calls give up
    conflicts: int | None = None      # conflict budget per solver call


class SatBackend:
    """An incremental pysat solver over the model's CNF; answers under selector assumptions."""

    name = "sat"

    def __init__(self, model: Model, limits: Limits | None = None) -> None:
        from pysat.solvers import Solver
        self.model = model
        self.limits = limits or Limits()
        self.clauses, self.nv = to_cnf(model)
        self.solver = Solver(name=SOLVER, bootstrap_with=self.clauses)
        self.solver.set_phases(model.preferred())
        self.calls = 0

    def close(self) -> None:
        self.solver.delete()

    def solve(self, assumptions: list[int]) -> bool | None:
        """True (SAT), False (UNSAT) or None (a limit was hit)."""
        self.calls += 1
        s = self.solver
        if self.limits.deadline is None and self.limits.conflicts is None:
            return s.solve(assumptions=assumptions)
        if self.limits.conflicts is not None:
            s.conf_budget(self.limits.conflicts)
        timer = None
        if self.limits.deadline is not None:
            left = self.limits.deadline - time.monotonic()
            if left <= 0:
                return None
            timer = threading.Timer(left, s.interrupt)
            timer.start()
        try:
            res = s.solve_limited(assumptions=assumptions, expect_interrupt=timer is not None)
        finally:
            if timer is not None:
                timer.cancel()
                s.clear_interrupt()
        return res

    def values(self) -> list[bool]:
        """Truth of each model variable (index 0 unused) in the last SAT answer."""
        m = self.solver.get_model()
        val = [False] * (self.nv + 1)
        for lit in m:
            if abs(lit) <= self.nv:
                val[abs(lit)] = lit > 0
        return val

    def mus(self, fixed: list[int], candidates: list[int]) -> list[int] | None:
        """A minimal subset of `candidates` that with `fixed` is UNSAT (plain deletion, so the
        earlier a candidate, the likelier it is left out); None if a limit was hit."""
        keep = list(candidates)
        i = 0
        while i < len(keep):
            trial = keep[:i] + keep[i + 1:]
            res = self.solve(fixed + trial)
            if res is None:
                return None
            if res is False:
                keep = trial
            else:
                i += 1
        return keep


def drup_proof(clauses: list[list[int]], units: list[int]) -> tuple[list[list[int]], list[str]] | None:
    """The CNF with `units` added, and CaDiCaL's DRUP proof that it is UNSAT (None if SAT)."""
    from pysat.solvers import Solver
    cnf = clauses + [[u] for u in units]
    with Solver(name=SOLVER, bootstrap_with=cnf, with_proof=True) as s:
        if s.solve():
            return None
        return cnf, list(s.get_proof())
