"""The SAT cage engine (issue #21 item 3): cage verification as a k-induction query with pysat.

The zone's retraction system is a transition relation in CNF (cages.sat_encode); the claim is
Hwa's (cages.search): no state reachable from the start has every unit home or none left.
The engine finds an invariant by Houdini (Flanagan & Leino 2001): candidate lemmas "unit u
never stands in mode m" for every mode but the start's, then pairs "u in m and v in m' never
together"; a lemma violated after one step from a state satisfying all of them is dropped,
until the rest is inductive. With that invariant as a strengthening it runs k-induction with
simple-path constraints (Sheeran, Singh & Stalmarck 2000) for k = 0, 1, ...: base case "no
line of at most k retractions from the start fails", step case "no k+1 distinct states of the
invariant, the first k not failing, end in a failure". The certificate is the invariant and
three DRUP proofs (glucose, `with_proof=True`): the invariant is inductive, base, step; the
checker (cages.sat_checker) rebuilds each CNF and checks them with our RUP checker
(history.drup).

Never a wrong verdict: the encoding over-approximates the explicit engine's transitions, so a
satisfiable base case is only a candidate line, replayed with the explicit engine's own rules
(retract.py, cages.rules.prune_rule): refuted when it replays (a cage-counterexample that the
existing checker accepts), unknown ("spurious line") when not. No k up to `max_k`: unknown.

`with_position` (a full FEN containing the board): restrictions on pawn captures that a
capture template of the encoding would need are asked of the history model
(cages.sat_facts); each proved one enters the CNF and its deduce-drup certificate is embedded,
so the certificate proves the full position illegal in one query (Hwa's Figures 6 -> 7).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Iterable

from retrologic.cages.rules import NoPawnCaptures, prune_rule, retraction_key, squares_of
from retrologic.cages.sat_encode import Encoding, Lemma, Restriction, Spec, Unsupported, bmc, board_of
from retrologic.cages.search import CageResult, setup
from retrologic.cages.checker import Escape
from retrologic.history.cnf import SOLVER, Alarm, solve_limited
from retrologic.limits import Budget, LimitHit, active, budget_for
from retrologic.position import Position, all_home
from retrologic.result import Result, Verdict
from retrologic.retract import apply, retractions

MAX_K = 30            # induction depth tried before answering unknown
MAX_PAIR_MODES = 400  # pair lemmas only when the unit invariant leaves at most this many modes
# depths at which bounded model checking asks for a failing line: every k up to 10, then two
# jumps (stuttering steps embed every shorter line): the UNSAT queries just below a long escape
# are the expensive ones (unrestricted Figure 7: k = 13 took 16 s, k = 16 over 100 s, while
# k = 32 is satisfiable in about 3 s), so they are skipped
BMC_DEPTHS = (*range(11), 32, 48)

__all__ = ["verify_sat", "SatCageResult", "MAX_K", "BMC_DEPTHS", "restriction_of"]


@dataclass
class SatCageResult:
    """The SAT engine's answer: `certificate()` is a cage-sat-proof (proved) or the explicit
    engine's cage-counterexample (refuted, `explicit` holds it)."""

    verdict: Verdict
    start: Position
    zone: int
    model: str
    restrictions: tuple[Restriction, ...]
    reason: str | None = None
    k: int | None = None
    invariant: list[list[str]] = field(default_factory=list)
    proofs: dict[str, list[str]] = field(default_factory=dict)
    facts: list[dict[str, Any]] = field(default_factory=list)   # deduce-drup certificates
    fen: str | None = None
    explicit: CageResult | None = None
    invariant_modes: list[tuple[int, tuple[int, int]]] = field(default_factory=list)
    elapsed: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def proved(self) -> bool:
        return self.verdict == Verdict.PROVED

    @property
    def states(self) -> int:
        return self.explicit.states if self.explicit is not None else 0

    @property
    def lemmas(self) -> list:
        """Known cages used: none (the SAT engine takes no library)."""
        return []

    @property
    def closed(self) -> dict:
        """Positions closed by a known cage: none (as `lemmas`)."""
        return {}

    def certificate(self) -> dict[str, Any]:
        if self.verdict == Verdict.REFUTED and self.explicit is not None:
            return self.explicit.certificate()
        if self.verdict != Verdict.PROVED:
            raise ValueError("an unknown verdict has no certificate")
        from retrologic.certformat import FORMAT
        from retrologic.version import __version__
        proved = {f["claim"]["expr"] for f in self.facts}
        cert: dict[str, Any] = {
            "type": "cage-sat-proof", "format": FORMAT, "retrologic": __version__,
            "board": self.start.placement.board_fen(), "zone": squares_of(self.zone),
            "frozen": squares_of(self.start.frozen), "castling": squares_of(self.start.castling),
            "model": self.model,
            "restrictions": [{"expr": r.expr(), "fact": r.expr() in proved} for r in self.restrictions],
            "k": self.k, "invariant": self.invariant, "proofs": self.proofs}
        if self.fen is not None:
            cert["fen"] = self.fen
            cert["facts"] = self.facts
        return cert

    def to_result(self) -> Result:
        if self.verdict == Verdict.REFUTED and self.explicit is not None:
            out = self.explicit.to_result()
            out.facts["engine"] = "sat"
            out.lines.append("found by the SAT engine (bounded model checking), replayed with the explicit rules")
            return out
        facts: dict[str, Any] = {"cage": self.proved if self.verdict != Verdict.UNKNOWN else None,
                                 "model": self.model, "zone": squares_of(self.zone), "engine": "sat",
                                 "k": self.k, "lemmas_used": []}
        lines = [f"start {self.start.placement.board_fen()}"
                 + (f", frozen {' '.join(squares_of(self.start.frozen))}" if self.start.frozen else ""),
                 f"zone {' '.join(squares_of(self.zone))}", f"model {self.model}, engine sat"
                 + ("" if not self.restrictions else
                    "; restrictions: " + "; ".join(r.expr() for r in self.restrictions))]
        answer = None
        if self.proved:
            answer = "cage"
            lines.append(f"cage verified by {self.k}-induction with an invariant of "
                         f"{len(self.invariant)} lemmas ({self.elapsed * 1000:.1f} ms)")
            if self.fen is not None:
                lines.append(f"the position {self.fen} is illegal: it contains this cage, and its "
                             f"history model proves the {len(self.facts)} restriction(s) used")
        else:
            lines.append(f"unknown: {self.reason}")
        details = {"elapsed_ms": round(self.elapsed * 1000, 3), **self.stats}
        return Result("cage", self.verdict, answer, self.reason, facts, details, lines,
                      unordered=frozenset({"zone", "lemmas_used"}))


def restriction_of(r: NoPawnCaptures) -> Restriction:
    return Restriction(r.side, r.from_file, r.to_file)


def spec_of(start: Position, zone: int, restrictions: Iterable[Restriction], model: str) -> Spec:
    return Spec(start.placement.board_fen(), zone, start.frozen, start.castling,
                tuple(restrictions), model)


def verify_sat(position: Position | str, zone: Any = None, restrictions: Iterable[Any] = (), *,
               model: str = "lines", frozen: Any = None, with_position: str | None = None,
               max_k: int = MAX_K, timeout: float | None = None,
               budget: Budget | None = None,
               bmc_depths: Iterable[int] | None = None, progress: bool = False) -> SatCageResult:
    """Verify a cage with the SAT engine (same arguments as cages.search.verify, less the
    library); `with_position`: a full FEN containing the board, whose history model supplies
    pawn-capture restrictions (proved, with their certificates embedded). `max_k`: the
    k-induction depths tried; `bmc_depths`: where bounded model checking asks for a failing
    line (default BMC_DEPTHS); `progress`: a counter of the solver's conflicts on stderr."""
    from retrologic.progress import node_bar
    t0 = time.perf_counter()
    budget = budget_for(timeout, None, budget)
    start, rules, zmask = setup(position, zone, restrictions, frozen)
    rs = [restriction_of(r) for r in rules]
    res = SatCageResult(Verdict.UNKNOWN, start, zmask, model, tuple(rs))
    try:
        with active(budget), node_bar("cage (SAT)", progress, budget.nodes, unit="conflict"):
            # the encoding polls the budget while it builds
            if with_position is None:
                _Run(Encoding(spec_of(start, zmask, rs, model)), res, max_k, budget,
                     bmc_depths).run()
            else:
                _with_position(res, with_position, rs, max_k, budget, bmc_depths)
    except Unsupported as e:
        res.verdict, res.reason = Verdict.UNKNOWN, f"not encoded: {e}"
    except LimitHit as e:
        res.verdict, res.reason = Verdict.UNKNOWN, str(e)
        res.proofs, res.invariant = {}, []
    res.elapsed = time.perf_counter() - t0
    return res


def _with_position(res: SatCageResult, fen: str, given: list[Restriction], max_k: int,
                   budget: Budget, bmc_depths: Iterable[int] | None = None) -> None:
    """Verify with the facts the history model of `fen` proves: first all of them, then only
    those that forbid a retraction from a mode the invariant leaves possible (each costs a
    certificate of the whole history model); the facts used are certified and embedded. The
    cage may assume nothing else (`sat_facts.nothing_assumed`): its proof calls `fen` illegal."""
    from retrologic.cages import sat_facts
    pos = sat_facts.position_of(fen, res.start)
    res.fen = pos.fen()
    sat_facts.nothing_assumed(res.start, res.fen, given)
    found = sat_facts.screen(pos, sat_facts.candidates(res.start, res.zone, res.model), budget)
    rs = list(found)
    res.restrictions = tuple(rs)
    run = _Run(Encoding(spec_of(res.start, res.zone, rs, res.model)), res, max_k, budget, bmc_depths)
    run.run()
    if res.proved and found:
        enc = run.enc
        possible = set(res.invariant_modes)
        plain = Encoding(spec_of(res.start, res.zone, (), res.model))
        fixed = 0                       # squares of units with one possible mode
        for u in range(len(enc.units)):
            ms = [m for w, m in possible if w == u]
            if len(ms) == 1 and ms[0][1] >= 0:
                fixed |= 1 << ms[0][1]
        needed = [r for r in found if any(
            t.capture and t.prev_type == 1 and r.forbids(enc.units[t.unit][0], t.prev_sq, t.cur[1])
            and (t.unit, t.cur) in possible and not t.need & fixed for t in plain.templates)]
        if needed != found:
            trial = SatCageResult(Verdict.UNKNOWN, res.start, res.zone, res.model, tuple(needed),
                                  fen=res.fen)
            _Run(Encoding(spec_of(res.start, res.zone, needed, res.model)), trial, max_k,
                 budget, bmc_depths).run()
            if trial.proved:
                res.restrictions, res.k, res.invariant, res.proofs = \
                    trial.restrictions, trial.k, trial.invariant, trial.proofs
                found = needed
    if res.proved:
        res.facts = [sat_facts.certify(pos, r, budget) for r in found]
        res.stats["facts"] = [r.expr() for r in found]


class _Run:
    def __init__(self, enc: Encoding, res: SatCageResult, max_k: int, budget: Budget,
                 bmc_depths: Iterable[int] | None = None) -> None:
        self.enc, self.res, self.max_k, self.budget = enc, res, max_k, budget
        self.bmc_depths = tuple(BMC_DEPTHS if bmc_depths is None else bmc_depths)
        self.calls = 0

    def solve(self, clauses: list[list[int]], proof: bool = False) -> tuple[bool, Any]:
        """(satisfiable, model or DRUP proof lines)."""
        from pysat.solvers import Solver
        self.calls += 1
        with Solver(name=SOLVER, bootstrap_with=clauses, with_proof=proof) as s:
            alarm = Alarm(s, self.budget)
            try:
                sat = solve_limited(s, [], self.budget)
            finally:
                alarm.close()
            if sat:
                return True, set(lit for lit in s.get_model() if lit > 0)
            return False, list(s.get_proof()) if proof else None

    def run(self) -> None:
        """Invariant by Houdini (units, then pairs), 0-induction; else a failing line by
        bounded model checking at the depths `bmc_depths`; else k-induction for k = 1..max_k."""
        enc, res = self.enc, self.res
        res.stats["templates"] = len(enc.templates)
        res.stats["modes"] = sum(len(m) for m in enc.modes)
        t0 = time.perf_counter()
        lemmas = self.unit_invariant()
        res.stats["invariant_s"] = round(time.perf_counter() - t0, 3)
        if not self.proves(0, lemmas):
            t1 = time.perf_counter()
            found = self.search_line({lem[0] for lem in lemmas})
            res.stats["bmc_s"] = round(time.perf_counter() - t1, 3)
            if not found:
                lemmas = lemmas + self.pair_invariant(lemmas)
                for k in range(0, self.max_k + 1):
                    if self.proves(k, lemmas):
                        break
                else:
                    res.reason = f"no proof by k-induction up to k = {self.max_k} (induction depth limit)"
        res.stats["lemmas"] = len(lemmas)
        res.stats["calls"] = self.calls

    def proves(self, k: int, lemmas: list[Lemma]) -> bool:
        """k-induction with the invariant `lemmas`: on success, record the certificate."""
        enc, res = self.enc, self.res
        self.budget.check_now()
        step, _, _ = enc.unroll(k, "step", lemmas)
        self.budget.check_now()
        sat, _ = self.solve(step)
        if sat:
            return False
        base, _, _ = enc.unroll(k, "base")
        inv, _, _ = enc.unroll(1, "inv", lemmas)
        proofs = {}
        for name, cnf in (("invariant", inv), ("base", base), ("step", step)):
            sat, proof = self.solve(cnf, proof=True)
            if sat:                     # base case SAT: a line shorter than the BMC depth tried
                return False
            proofs[name] = proof
        res.k, res.proofs, res.verdict = k, proofs, Verdict.PROVED
        res.invariant = [[enc.mode_name(u, j) for u, j in lem] for lem in lemmas]
        excluded = {lem[0] for lem in lemmas if len(lem) == 1}
        res.invariant_modes = [(u, m) for u, ms in enumerate(enc.modes) for j, m in enumerate(ms)
                               if (u, j) not in excluded]
        return True

    def search_line(self, excluded: set[tuple[int, int]]) -> bool:
        """Bounded model checking from the start up to max_k; a line found is replayed (refuted
        or unknown). False when there is none that short."""
        from pysat.solvers import Solver
        with Solver(name=SOLVER) as s:
            alarm = Alarm(s, self.budget)
            try:
                def solve(clauses: list[list[int]], assume: list[int]) -> set[int] | None:
                    s.append_formula(clauses)
                    self.calls += 1
                    if solve_limited(s, assume, self.budget):
                        return set(lit for lit in s.get_model() if lit > 0)
                    return None
                found = bmc(self.enc, max(self.bmc_depths), solve, excluded, self.bmc_depths)
            finally:
                alarm.close()
        if found is None:
            return False
        self.res.stats["bmc_k"] = found[0]
        self.replay(found[1])
        return True

    def _init(self) -> set[tuple[int, int]]:
        enc = self.enc
        return {(u, enc.index[u][(t, sq)]) for u, (_, t, sq) in enumerate(enc.units)}

    def unit_invariant(self) -> list[Lemma]:
        """Houdini over the lemmas 'unit u never stands in mode m' (m not its start mode)."""
        enc, init = self.enc, self._init()
        return self.houdini([((u, j),) for u in range(len(enc.units))
                             for j in range(len(enc.modes[u])) if (u, j) not in init])

    def pair_invariant(self, alive: list[Lemma]) -> list[Lemma]:
        """Houdini over the lemmas 'u in m and v in m' never together', for the modes the unit
        invariant `alive` leaves (at most MAX_PAIR_MODES of them)."""
        enc, init = self.enc, self._init()
        excluded = {lem[0] for lem in alive}
        modes = [(u, j) for u in range(len(enc.units)) for j in range(len(enc.modes[u]))
                 if (u, j) not in excluded]
        if len(modes) > MAX_PAIR_MODES:
            return alive
        pairs = [(a, b) for a, b in combinations(modes, 2)
                 if a[0] != b[0] and not (a in init and b in init)]
        return self.houdini(pairs, alive)

    def houdini(self, lemmas: list[Lemma], fixed: list[Lemma] = ()) -> list[Lemma]:
        """The largest subset of `lemmas` that, with `fixed` (already inductive), is inductive."""
        from pysat.solvers import Solver
        if not lemmas:
            return []
        self.budget.check_now()
        clauses, nv, x = self.enc.unroll(1, "trans")
        self.budget.check_now()
        alive = set(range(len(lemmas)))
        with Solver(name=SOLVER, bootstrap_with=clauses) as s:
            alarm = Alarm(s, self.budget)
            try:
                for lem in fixed:
                    s.add_clause([-x[0][u][j] for u, j in lem])
                    s.add_clause([-x[1][u][j] for u, j in lem])
                act = []
                for i, lem in enumerate(lemmas):
                    nv += 1
                    act.append(nv)
                    s.add_clause([-nv] + [-x[0][u][j] for u, j in lem])
                while alive:
                    nv += 1
                    b = nv
                    viol = []
                    for i in sorted(alive):
                        lem = lemmas[i]
                        if len(lem) == 1:
                            viol.append(x[1][lem[0][0]][lem[0][1]])
                        else:
                            nv += 1
                            for u, j in lem:
                                s.add_clause([-nv, x[1][u][j]])
                            viol.append(nv)
                    s.add_clause([-b] + viol)
                    self.calls += 1
                    if not solve_limited(s, [act[i] for i in sorted(alive)] + [b], self.budget):
                        break
                    model = set(lit for lit in s.get_model() if lit > 0)
                    gone = {i for i in alive if all(x[1][u][j] in model for u, j in lemmas[i])}
                    assert gone
                    alive -= gone
                    s.add_clause([-b])
            finally:
                alarm.close()
        return [lemmas[i] for i in sorted(alive)]

    def replay(self, states: list[list[tuple[int, int]]]) -> None:
        """A candidate failing line of the encoding, replayed with the explicit engine's rules:
        refuted with its cage-counterexample when every step is a retraction of the model,
        unknown otherwise."""
        enc, res = self.enc, self.res
        boards = []
        for st in states:
            b = board_of(enc, st)
            if not boards or boards[-1] != b:
                boards.append(b)
        pos = res.start
        rules = tuple(NoPawnCaptures(r.side, r.from_file, r.to_file) for r in res.restrictions)
        line: list[tuple[str, Position]] = []
        for target in boards[1:]:
            for r in retractions(pos, uncaptures="open"):
                q = apply(pos, r)
                if prune_rule(pos, r, q.placement, res.model, rules) is not None:
                    continue
                gone = q.placement.occupied & ~res.zone
                child = Position(q.placement.without(gone), None, q.castling, None, q.frozen & ~gone, True)
                if child.placement.board_fen() == target:
                    line.append((retraction_key(r), child))
                    pos = child
                    break
            else:
                res.verdict = Verdict.UNKNOWN
                res.reason = (f"the SAT engine's line to a failing position does not replay with the "
                              f"explicit rules at {pos.placement.board_fen()} -> {target} (spurious)")
                return
        if not all_home(pos.placement):
            res.verdict, res.reason = Verdict.UNKNOWN, "internal: the line's end is not failing"
            return
        line = _without_loops(res.start, line)
        explicit = CageResult(Verdict.REFUTED, res.start, res.zone, res.model, rules,
                              states=len(line) + 1)
        explicit.line = line
        explicit.escape = Escape.EMPTY if not pos.placement.occupied else Escape.ALL_HOME
        res.explicit = explicit
        res.verdict = Verdict.REFUTED



def _without_loops(start: Position, line: list[tuple[str, Position]]) -> list[tuple[str, Position]]:
    """The replayed line with every loop cut out (a position met again continues from its first
    visit, so the rest stays a line of the model): deep BMC queries may wander."""
    out: list[tuple[str, Position]] = []
    seen = {start: 0}
    for step in line:
        if step[1] in seen:
            del out[seen[step[1]]:]
            seen = {start: 0, **{p: i + 1 for i, (_, p) in enumerate(out)}}
        else:
            out.append(step)
            seen[step[1]] = len(out)
    return out
