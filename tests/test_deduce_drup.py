"""Our DRUP checker (retrologic.history.drup) against CaDiCaL's proofs and brute force."""

from __future__ import annotations

import itertools
import random

import pytest
from pysat.solvers import Solver

from retrologic.history.drup import _Checker, check, check_text, parse_dimacs, parse_proof


def pigeonhole(n: int, m: int) -> list[list[int]]:
    """n pigeons in m holes, each pigeon somewhere, no hole shared: UNSAT for n > m."""
    v = lambda i, j: i * m + j + 1  # noqa: E731
    cls = [[v(i, j) for j in range(m)] for i in range(n)]
    for j in range(m):
        cls += [[-v(a, j), -v(b, j)] for a, b in itertools.combinations(range(n), 2)]
    return cls


def cadical_proof(clauses: list[list[int]]) -> list[str] | None:
    with Solver(name="cadical195", bootstrap_with=clauses, with_proof=True) as s:
        return None if s.solve() else list(s.get_proof())


def random_cnf(rng: random.Random, nv: int, nc: int, k: int = 3) -> list[list[int]]:
    return [[rng.choice([-1, 1]) * v for v in rng.sample(range(1, nv + 1), k)] for _ in range(nc)]


def satisfies(clauses, assignment) -> bool:
    return all(any((l > 0) == assignment[abs(l) - 1] for l in c) for c in clauses)


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_cadical_pigeonhole_proofs_check(n):
    cls = pigeonhole(n, n - 1)
    proof = cadical_proof(cls)
    res = check(cls, parse_proof(proof))
    assert res.ok, res.reason
    assert res.lemmas > 0


def test_cadical_random_unsat_proofs_check_and_need_their_clauses():
    rng = random.Random(7)
    checked = 0
    while checked < 25:
        cls = random_cnf(rng, 30, 150)
        proof = cadical_proof(cls)
        if proof is None:
            continue
        assert check(cls, parse_proof(proof)).ok
        checked += 1
    # a proof of PHP(6,5) is no proof once a pigeon may stay out of the holes
    cls = pigeonhole(6, 5)
    proof = parse_proof(cadical_proof(cls))
    assert not check(cls[1:], proof).ok


def test_rup_accepts_only_implied_clauses():
    """Brute force: whatever the checker accepts as RUP is implied by the clauses."""
    rng = random.Random(11)
    accepted = 0
    for _ in range(400):
        nv = rng.randint(3, 7)
        cls = random_cnf(rng, nv, rng.randint(3, 14), k=rng.randint(1, 3))
        lemma = [rng.choice([-1, 1]) * v for v in rng.sample(range(1, nv + 1), rng.randint(0, 3))]
        chk = _Checker(nv)
        for c in cls:
            chk.add(c)
        if chk.rup(lemma):
            accepted += 1
            for bits in itertools.product([False, True], repeat=nv):
                if satisfies(cls, bits):
                    assert satisfies([lemma], bits), (cls, lemma)
    assert accepted > 50


def test_deletions_are_honoured():
    cls = [[1, 2], [1, -2], [-1, 2], [-1, -2]]
    assert check(cls, [(False, [1]), (False, [])]).ok
    res = check(cls, [(True, [1, 2]), (False, [1]), (False, [])])
    assert not res.ok and "not RUP" in res.reason
    # deleting a clause that is not there is counted, not fatal
    res = check(cls, [(True, [3, 4]), (False, [1]), (False, [])])
    assert res.ok and res.missing_deletions == 1


def test_proof_must_reach_the_empty_clause():
    cls = pigeonhole(5, 4)
    proof = parse_proof(cadical_proof(cls))
    res = check(cls, proof[: len(proof) // 3])
    assert not res.ok and "empty clause" in res.reason


def test_text_formats():
    cnf = "c comment\np cnf 2 4\n1 2 0\n1 -2 0 -1 2 0\n-1 -2 0\n"
    nv, cls = parse_dimacs(cnf)
    assert nv == 2 and cls == [[1, 2], [1, -2], [-1, 2], [-1, -2]]
    assert check_text(cnf, ["1 0", "0"]).ok
    with pytest.raises(ValueError):
        parse_dimacs("1 2 0\n")
    with pytest.raises(ValueError):
        parse_proof(["1 2"])
