"""The schedule model as CNF under CaDiCaL (issue #22, reach): a measurement, not an engine.

    python bench/spg-schedule-cnf.py FILE [--conflicts 1000000]

For one problem file whose `meta.notes` holds the published game after "published:": the
schedule model of the stipulated length (`spg.schedule`, the strategy layer's still units
frozen and its constraint groups fixed) is translated clause for clause from its CP-SAT proto:
an enforced `bool_and`/`bool_or` as clauses with the enforcement negated, `exactly_one` and
`at_most_one` by a sequential counter, a `linear` sum by a sequential counter over its terms
(a coefficient k as k copies of the literal, an integer variable in order encoding, a domain
of several intervals by one selector per interval). Then CaDiCaL 1.9.5 (python-sat) answers
two questions: with the published game's step literals assumed (must be satisfiable: the
translation keeps the game), and with that game forbidden (what the listing's last solve must
refute), under `--conflicts`. Prints the CNF's size and each answer with its CPU and conflicts.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess
from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from retrologic import problem  # noqa: E402
from retrologic.limits import Budget  # noqa: E402
from retrologic.spg import solver as spg  # noqa: E402
from retrologic.spg.schedule import ScheduleModel  # noqa: E402
from retrologic.spg.strategy import StrategyModel, analyse  # noqa: E402

INFINITE = 2 ** 62  # CP-SAT's domain ends beyond this are unbounded


class Cnf:
    """Clauses over CP-SAT's Boolean variables (index i is variable i + 1) and fresh ones."""

    def __init__(self, variables: int) -> None:
        self.top = variables
        self.clauses: list[list[int]] = []

    def fresh(self) -> int:
        self.top += 1
        return self.top

    def counter(self, terms: list[int], bound: int, at_least: bool, guard: list[int]) -> None:
        """sum(terms) <= bound (or >= bound), only when every guard literal is false."""
        if at_least:
            enc = CardEnc.atleast(terms, bound, top_id=self.top, encoding=EncType.seqcounter)
        else:
            enc = CardEnc.atmost(terms, bound, top_id=self.top, encoding=EncType.seqcounter)
        self.top = max(self.top, enc.nv)
        self.clauses.extend(guard + c for c in enc.clauses)

    def within(self, terms: list[int], low: int | None, high: int | None,
               guard: list[int]) -> None:
        """low <= sum(terms) <= high (None: unbounded), under `guard`."""
        if (high is not None and high < 0) or (low is not None and low > len(terms)):
            self.clauses.append(list(guard))
            return
        if high is not None and high < len(terms):
            if high == 0:
                self.clauses.extend(guard + [-x] for x in terms)
            else:
                self.counter(terms, high, False, guard)
        if low is not None and low > 0:
            if low == len(terms):
                self.clauses.extend(guard + [x] for x in terms)
            elif low == 1:
                self.clauses.append(guard + terms)
            else:
                self.counter(terms, low, True, guard)


def literal(ref: int) -> int:
    """A CP-SAT literal reference as a DIMACS literal."""
    return ref + 1 if ref >= 0 else ref


def translate(proto) -> Cnf:
    """The CP-SAT model `proto` as CNF, its assumptions as unit clauses (see the docstring)."""
    cnf = Cnf(len(proto.variables))
    order: dict[int, list[int]] = {}  # integer variable -> its literals "x >= k", k = 1..max
    for i, var in enumerate(proto.variables):
        domain = list(var.domain)
        if domain in ([0, 1], [0, 0], [1, 1]):
            if domain != [0, 1]:
                cnf.clauses.append([i + 1 if domain == [1, 1] else -(i + 1)])
            continue
        if len(domain) != 2 or domain[0] != 0:
            raise ValueError(f"variable {var.name}: domain {domain} not translated")
        order[i] = [cnf.fresh() for _ in range(domain[1])]
        cnf.clauses.extend([-b, a] for a, b in zip(order[i], order[i][1:]))
    for ct in proto.constraints:
        guard = [-literal(e) for e in ct.enforcement_literal]
        if ct.has_bool_or():
            cnf.clauses.append(guard + [literal(x) for x in ct.bool_or.literals])
        elif ct.has_bool_and():
            cnf.clauses.extend(guard + [literal(x)] for x in ct.bool_and.literals)
        elif ct.has_exactly_one() or ct.has_at_most_one():
            one = ct.exactly_one if ct.has_exactly_one() else ct.at_most_one
            lits = [literal(x) for x in one.literals]
            cnf.within(lits, 1 if ct.has_exactly_one() else None, 1, guard)
        elif ct.has_linear():
            offset, terms = 0, []
            for var, coeff in zip(ct.linear.vars, ct.linear.coeffs):
                for x in order.get(var, [var + 1]):
                    if coeff > 0:
                        terms += [x] * coeff
                    else:  # coeff * x = coeff + |coeff| * (not x)
                        offset += coeff
                        terms += [-x] * -coeff
            domain = list(ct.linear.domain)
            spans = list(zip(domain[0::2], domain[1::2]))
            selectors = [cnf.fresh() for _ in spans] if len(spans) > 1 else [None]
            if len(spans) > 1:
                cnf.clauses.append(guard + selectors)
            for sel, (low, high) in zip(selectors, spans):
                cnf.within(terms, low - offset if low > -INFINITE else None,
                           high - offset if high < INFINITE else None,
                           guard + ([-sel] if sel else []))
        else:
            raise ValueError(f"constraint {ct.name!r}: kind not translated")
    cnf.clauses.extend([literal(a)] for a in proto.assumptions)
    return cnf


GERMAN = str.maketrans("SLTD", "NBRQ")  # Springer, Läufer, Turm, Dame: the letters of some notes


def published_game(notes: str) -> list[chess.Move]:
    """The moves after "published:" in a file's notes, read as SAN (German piece letters too)
    until the first non-move."""
    text = notes.split("published:", 1)[1]
    board, moves = chess.Board(), []
    for token in text.split():
        token = token.strip(",;").split(".")[-1].translate(GERMAN)
        if not token:
            continue
        try:
            move = board.parse_san(token)
        except ValueError:
            break
        moves.append(move)
        board.push(move)
    return moves


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--conflicts", type=int, default=1_000_000,
                    help="CaDiCaL's conflict budget for the refutation")
    args = ap.parse_args()
    prob = problem.load(args.file)
    plies = spg.parse_moves(prob.question["moves"])
    target = spg.parse_target(prob.position_table["fen"], plies)
    game = published_game(prob.meta.get("notes", ""))
    if len(game) != plies:
        print(f"{args.file}: the published game read has {len(game)} plies, not {plies}")
        return 2
    cpu = time.process_time()
    budget = Budget(None)
    _, analysis = analyse(target, plies, enumerate_strategies=False, budget=budget)
    model = ScheduleModel(StrategyModel(analysis, plies, node_budget=budget), budget=budget)
    model.strategy.fix_groups()
    built = time.process_time() - cpu
    cpu = time.process_time()
    cnf = translate(model.model.proto)
    print(f"{Path(args.file).stem}: {plies} plies, {model.size()} CP-SAT variables "
          f"({built:.1f} s), CNF {cnf.top} variables, {len(cnf.clauses)} clauses "
          f"({time.process_time() - cpu:.1f} s)", flush=True)
    steps = [x.index + 1 for x in model.literals_of(game)]
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as sat:
        cpu = time.process_time()
        kept = sat.solve(assumptions=steps)
        print(f"  the published game assumed: {'satisfiable' if kept else 'UNSATISFIABLE'} "
              f"({time.process_time() - cpu:.1f} s)", flush=True)
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as sat:
        sat.add_clause([-x for x in steps])
        sat.conf_budget(args.conflicts)
        cpu = time.process_time()
        answer = sat.solve_limited()
        said = {None: "unknown", True: "another solution", False: "refuted"}[answer]
        print(f"  the published game forbidden: {said}, {sat.accum_stats()['conflicts']} "
              f"conflicts, {time.process_time() - cpu:.1f} s", flush=True)
    return 0 if kept else 1


if __name__ == "__main__":
    sys.exit(main())
