"""The faster hinted-proof code of issue 22 item 3 (20-ply listings spent 60 % of the writer's
time in Python, not in the SAT solver): `check_lrat` setting the lemma's negation in its value
array instead of a set, `drop_top_level` in two passes, `_Checker` without the deletion index.

Oracles: a naive re-statement of each rule (sets of literals, unit propagation to a fixpoint by
rescanning every clause, each hint's clause asked afresh), run on random formulas and on
mutations of a real refutation; and a SAT solver: every lemma check_lrat accepts is implied by
the clauses (clauses + its negation are unsatisfiable). Never the code under test itself.
"""

from __future__ import annotations

import random

from pysat.solvers import Solver

from retrologic.history.drup import check_lrat, drop_top_level, parse_lrat
from retrologic.limits import Budget
from retrologic.spg.certify import hinted_refutation
from conftest import pigeonhole


def _units(clauses: list[list[int]]) -> set[int] | None:
    """Top-level unit consequences by rescanning every clause until nothing changes (None: a
    conflict)."""
    true: set[int] = set()
    changed = True
    while changed:
        changed = False
        for c in clauses:
            if any(lit in true for lit in c):
                continue
            open_ = [lit for lit in c if -lit not in true]
            if not open_:
                return None
            if len(open_) == 1:
                true.add(open_[0])
                changed = True
    return true


def _naive_check(clauses: list[list[int]], steps: list[tuple[list[int], list[int]]]) -> bool:
    """check_lrat's rule, stated with sets (docs/spg-certificates.md, step 4)."""
    db: list[list[int]] = [[]] + [list(dict.fromkeys(c)) for c in clauses]
    top = _units(db[1:])
    if top is None:
        return True
    for lits, hints in steps:
        lemma = list(dict.fromkeys(lits))
        if any(-lit in lemma for lit in lemma):
            return False
        if not any(lit in top for lit in lemma):
            true = top | {-lit for lit in lemma}
            done = False
            for h in hints:
                if not 0 < h < len(db):
                    return False
                unit, sat = 0, False
                for lit in db[h]:            # in order, as the checker reads a hint
                    if -lit in true:
                        continue
                    if lit in true:
                        sat = True
                        break
                    if unit:
                        return False          # two open literals: not unit
                    unit = lit
                if sat:
                    continue
                if not unit:
                    done = True
                    break
                true.add(unit)
            if not done:
                return False
        if not lemma:
            return True
        db.append(lemma)
        top = _units(db[1:])
        if top is None:
            return True
    return False


def _mutate(rng: random.Random, steps: list[tuple[list[int], list[int]]], n: int, nv: int
            ) -> list[tuple[list[int], list[int]]]:
    out = [(list(lits), list(hints)) for lits, hints in steps]
    k = rng.randrange(len(out))
    lits, hints = out[k]
    kind = rng.randrange(7)
    if kind == 0 and hints:
        hints.pop(rng.randrange(len(hints)))
    elif kind == 1 and len(hints) > 1:
        i, j = rng.sample(range(len(hints)), 2)
        hints[i], hints[j] = hints[j], hints[i]
    elif kind == 2 and hints:
        hints[rng.randrange(len(hints))] = rng.randrange(0, n + k + 3)
    elif kind == 3 and lits:
        lits.pop(rng.randrange(len(lits)))
    elif kind == 4:
        lits.append(rng.choice([-1, 1]) * rng.randrange(1, nv + 1))
    elif kind == 5 and lits:
        i = rng.randrange(len(lits))
        lits[i] = -lits[i]
    else:
        del out[k]
    return out


def test_check_lrat_mutations_agree_with_the_naive_rule_and_stay_sound() -> None:
    php = pigeonhole(4)
    clauses = php + [[1, 2, 3, 4], [-1]]          # a unit: the top level is not empty
    core, lines, _ = hinted_refutation(clauses, [], Budget(timeout=60))
    base = [clauses[i] for i in core]
    steps = parse_lrat(lines)
    assert check_lrat(base, steps).ok and _naive_check(base, steps)
    nv = max(abs(lit) for c in base for lit in c)
    rng = random.Random(22)
    accepted = rejected = 0
    with Solver(name="glucose4", bootstrap_with=base) as sat:
        for _ in range(400):
            bad = _mutate(rng, steps, len(base), nv)
            got = check_lrat(base, bad)
            assert got.ok == _naive_check(base, bad), bad
            if got.ok:
                accepted += 1
                for lits, _ in bad[:got.lemmas]:   # each accepted lemma is implied
                    assert not sat.solve(assumptions=[-lit for lit in lits]), lits
            else:
                rejected += 1
    assert accepted and rejected > 100               # both outcomes were exercised


def _naive_drop(clauses: list[list[int]], steps: list[tuple[list[int], list[int]]]
                ) -> list[tuple[list[int], list[int]]]:
    """drop_top_level's rule, each hint's clause asked afresh against the units so far."""
    db = [list(dict.fromkeys(c)) for c in clauses]
    n = len(clauses)
    body = {i + 1: c for i, c in enumerate(clauses)}
    new_id = {i: i for i in range(1, n + 1)}
    top = _units(db)
    out: list[tuple[list[int], list[int]]] = []
    for k, (lits, hints) in enumerate(steps, n + 1):
        if top is None:
            break
        if lits and any(lit in top for lit in lits):
            continue
        out.append((lits, [new_id[h] for h in hints if h in new_id
                           and not any(lit in top for lit in body[h])]))
        new_id[k] = n + len(out)
        body[k] = lits
        if not lits:
            break
        db.append(list(dict.fromkeys(lits)))
        top = _units(db)
    return out


def test_drop_top_level_agrees_with_the_naive_rule_on_random_input() -> None:
    rng = random.Random(5)
    dropped = 0
    for _ in range(400):
        nv = rng.randrange(3, 9)

        def clause(width: int) -> list[int]:
            vs = rng.sample(range(1, nv + 1), min(width, nv))
            return [v if rng.random() < 0.5 else -v for v in vs]
        clauses = [clause(rng.choice([1, 2, 2, 3, 3, 4])) for _ in range(rng.randrange(2, 12))]
        n = len(clauses)
        steps = [(clause(rng.choice([0, 1, 1, 1, 2, 3])) if rng.random() > 0.05 else [],
                  [rng.randrange(1, n + k + 1) for _ in range(rng.randrange(0, 8))])
                 for k in range(rng.randrange(1, 10))]
        got = drop_top_level(clauses, steps)
        assert got == _naive_drop(clauses, steps), (clauses, steps)
        kept = {k for k, (lits, _) in enumerate(steps) if any(lits == g for g, _ in got)}
        dropped += sum(len(h) for _, h in steps) > sum(len(h) for _, h in got) and bool(kept)
    assert dropped > 50                     # hints were dropped in many cases


def test_log_index_reads_the_log_as_the_dict_did() -> None:
    """`lratlog.LogIndex` (the log mapped, not copied) against a plain reading of the same
    lines: derived ids and bodies, deletions skipped, the first empty clause, and every input's
    position (the k-th id not derived is the k-th input); ids not ascending are an error."""
    import mmap
    import tempfile

    import pytest

    from retrologic.spg.lratlog import LogIndex
    log = (b"4 1 2 0 1 3 0\n4 d 1 0\n7 -1 0 4 5 0\n8 d 4 0\n10 0 7 6 9 0\n11 0 10 0\n")
    plain = {}
    for line in log.split(b"\n"):
        head, _, rest = line.partition(b" ")
        if head and not rest.startswith(b"d "):
            plain[int(head)] = rest
    with tempfile.TemporaryFile() as f:
        f.write(log)
        f.flush()
        for data in (log, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)):
            index = LogIndex(data)
            assert list(index.ids) == list(plain) == [4, 7, 10, 11]
            assert all(index.body(cid) == rest for cid, rest in plain.items())
            assert index.final == 10 and index.lemmas() == 4
            inputs = [i for i in range(1, 13) if i not in plain]     # 1 2 3 5 6 8 9 12
            assert [index.input_position(i) for i in inputs] == list(range(8))
    with pytest.raises(AssertionError, match="ascending"):
        LogIndex(b"5 1 0 1 0\n5 2 0 1 0\n")
