"""The history model's IR as plain CNF: cardinality constraints as clauses, and DIMACS text.

Solver-free: what both the pysat backend (retrologic.history.cnf) and the certificate checker
(retrologic.history.checker) need to turn a Model into the CNF a DRUP proof refutes. The
cardinalities use pysat's sequential counter (pysat.card, an encoder: no solver is involved), so
a certificate's CNF is rebuilt clause for clause.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retrologic.history.model import Card, Model

if TYPE_CHECKING:
    from retrologic.limits import Budget


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
        return seqcounter_clauses(lits, k, top, True)
    if k <= 0:
        return [], top
    if k > n:
        return [[]], top
    if k == 1:
        return [lits], top
    if k == n:
        return [[l] for l in lits], top
    return seqcounter_clauses(lits, k, top, False)


def seqcounter_clauses(lits: list[int], k: int, top: int, atmost: bool
                       ) -> tuple[list[list[int]], int]:
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
    """The CNF as DIMACS text (the form a deduce-drup certificate carries and is compared in)."""
    lines = [f"p cnf {nv} {len(clauses)}"]
    lines += [" ".join(map(str, c)) + " 0" for c in clauses]
    return "\n".join(lines) + "\n"
