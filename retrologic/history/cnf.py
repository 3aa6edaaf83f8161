"""The history model as CNF for python-sat: cardinalities as clauses (pysat.card), so a DRUP
proof covers them; decisions under selector assumptions, MUS over named groups, DRUP proofs.

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
from retrologic.history.model import Card, Model
from retrologic.limits import Budget, LimitHit

SOLVER = "glucose4"


def _card_clauses(card: Card, top: int) -> tuple[list[list[int]], int]:
    """Clauses of sum(lits) OP bound (without the guard) and the new top variable."""
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
        return _seqcounter(lits, k, top, True)
    if k <= 0:
        return [], top
    if k > n:
        return [[]], top
    if k == 1:
        return [lits], top
    if k == n:
        return [[l] for l in lits], top
    return _seqcounter(lits, k, top, False)


def _seqcounter(lits: list[int], k: int, top: int, atmost: bool) -> tuple[list[list[int]], int]:
    """pysat's sequential counter (the clauses of CardEnc.atmost/atleast, seqcounter), called
    as from a worker thread: in the main thread pysat swaps in a SIGINT handler of its own
    during the call, which longjmps out on Ctrl-C (an internal error instead of a soft stop) and
    stays installed. Falls back to CardEnc if pysat's extension is not the one we know."""
    from pysat.card import CardEnc, EncType
    top_id = max([abs(l) for l in lits] + [top])
    try:
        import pycard
        encode = pycard.encode_atmost if atmost else pycard.encode_atleast
        res = encode(lits, k, top_id, EncType.seqcounter, 0)
        clauses, nv = res if res else ([], 0)
    except (ImportError, AttributeError, TypeError):
        cnf = (CardEnc.atmost if atmost else CardEnc.atleast)(
            lits, bound=k, top_id=top, encoding=EncType.seqcounter)
        clauses, nv = cnf.clauses, cnf.nv
    return [list(c) for c in clauses], max(top, nv)


def to_cnf(model: Model, budget: Budget | None = None) -> tuple[list[list[int]], int]:
    """All clauses of the model (guards folded in) and the number of variables; with a
    `budget`, its deadline and Ctrl-C stop the encoding (LimitHit: large sums take seconds)."""
    clauses = [list(c) for c in model.clauses]
    top = model.num_vars
    for card in model.cards:
        if budget is not None:
            budget.check(every=8)
        cls, top = _card_clauses(card, top)
        guard = [] if card.guard is None else [-card.guard]
        clauses.extend(guard + c for c in cls)
    return clauses, top


def dimacs(clauses: list[list[int]], nv: int) -> str:
    lines = [f"p cnf {nv} {len(clauses)}"]
    lines += [" ".join(map(str, c)) + " 0" for c in clauses]
    return "\n".join(lines) + "\n"


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
    if budget.nodes is not None:
        left = budget.nodes - budget.spent
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
