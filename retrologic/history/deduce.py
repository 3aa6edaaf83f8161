"""Deductions about a game's history: claims proved (UNSAT, with a MUS and a DRUP proof) or
refuted (a witness history, re-checked in plain Python), over the history model.

The pieces: retrologic.history.model (the model as IR), .clauses (its CNF), .cnf (pysat),
.cpsat (OR-Tools), .query (the predicate language and Query), .witness (witnesses), .checker
(the deduce-drup certificate checker) and .drup (its RUP checker). This module runs a query and
writes `deduce-drup` certificates.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import chess

from retrologic.certformat import Destination, as_destination
from retrologic.constraints import Negation
from retrologic.errors import InputError
from retrologic.history.checker import certificate_cnf, conclusion
from retrologic.history.clauses import dimacs
from retrologic.history.cnf import SatBackend, budget_scope, drup_proof
from retrologic.history.cpsat import CpSatBackend          # OR-Tools itself only when used
from retrologic.history.model import UNIT_DOC
from retrologic.history.query import Constraint, Query, evaluate, readings, register_predicate
from retrologic.history.witness import History, check_history, decode, render
from retrologic.limits import Budget, LimitHit, budget_for
from retrologic.position import Position
from retrologic.result import Verdict

__all__ = ["Constraint", "ClaimResult", "Deduction", "Query", "deduce",
           "register_predicate", "ENGINES"]

ENGINES = ("sat", "cp-sat", "both")


@dataclass
class ClaimResult:
    """The outcome of one claim: proved (core, certificate), refuted (witness) or unknown
    (reason); `status` is a result.Verdict, equal to its string."""

    name: str
    text: str
    status: Verdict
    core: list[str] | None = None
    witness: History | None = None
    reason: str | None = None
    certificate: str | None = None


@dataclass
class Deduction:
    """The answer to a deduce query: is the position consistent, and the fate of each claim."""

    consistent: bool | None
    core: list[str] | None = None           # when inconsistent: the facts that contradict
    witness: History | None = None          # when consistent: one history of the model
    claims: list[ClaimResult] = field(default_factory=list)
    reason: str | None = None
    certificates: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    docs: dict[str, str] = field(default_factory=dict)   # what each fact of a core says
    uncertified: str | None = None          # a limit stopped a requested certificate: why


class _Engine:
    """The backend(s) answering a query: pysat, CP-SAT, or both with a cross-check."""

    def __init__(self, query: Query, engine: str, budget: Budget) -> None:
        if engine not in ENGINES:
            raise InputError(f"unknown engine (known: {', '.join(ENGINES)})", field="engine",
                             value=engine)
        self.engine = engine
        self.sat = SatBackend(query.model, budget)
        self.cp = None
        if engine != "sat":
            try:
                self.cp = CpSatBackend(query.model, budget)
            except BaseException:
                self.sat.close()
                raise
        self.last: SatBackend | Any = self.sat

    def solve(self, assumptions: list[int]) -> bool:
        """SAT or UNSAT (LimitHit when the budget is spent); an UNSAT from CP-SAT stands only
        when pysat agrees."""
        if self.cp is None:
            self.last = self.sat
            return self.sat.solve(assumptions)
        res = self.cp.solve(assumptions)
        self.last = self.cp
        if self.engine == "cp-sat" and res is not False:
            return res
        other = self.sat.solve(assumptions)
        if other != res:
            raise RuntimeError(f"CP-SAT says {res}, pysat says {other} under {assumptions}")
        return res

    def values(self) -> list[bool]:
        return self.last.values()

    def close(self) -> None:
        self.sat.close()


def _unknown(claims: list[Constraint], reason: str) -> list[ClaimResult]:
    """Every claim left unknown, for `reason` (a limit hit before any was decided)."""
    return [ClaimResult(c.name, c.text, Verdict.UNKNOWN, reason=reason) for c in claims]


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "claim"


def _full_position(position: Position | str | chess.Board) -> Position:
    """A Position from a Position, a FEN or a python-chess Board (InputError otherwise)."""
    if isinstance(position, Position):
        return position
    try:
        if isinstance(position, str) and len(position.split()) >= 2:   # a board alone: no
            return Position.from_fen(position)                         # full position
        if isinstance(position, chess.Board):
            return Position.from_board(position)
    except ValueError as e:
        raise InputError(str(e), field="position", value=position) from None
    raise InputError("must be a full position: a Position, a FEN or a chess.Board",
                     field="position", value=position if isinstance(position, str)
                     else type(position).__name__)


def deduce(position: Position | str | chess.Board, assumptions: list[Constraint],
           claims: list[Constraint], *,
           engine: str = "sat", timeout: float | None = None, conflicts: int | None = None,
           explain: bool = True, certificate_dir: str | None = None,
           progress: bool = False, budget: Budget | None = None) -> Deduction:
    """Decide whether the position has a history (under the assumptions), then each claim.

    Limits: `budget` (the question's shared one) or one of `timeout` seconds and `conflicts`
    SAT conflicts over the whole query (the node limit, the same on a busy machine); every
    solver call, the DRUP proofs of certificates included, runs under it. A limit hit leaves
    the undecided claims unknown with the budget's reason ("time limit 5 s", "interrupted")."""
    t0 = time.perf_counter()

    def say(what: str) -> None:
        if progress:
            print(f"deduce: {what} ({time.perf_counter() - t0:.2f} s)", file=sys.stderr, flush=True)

    position = _full_position(position)
    budget = budget_for(timeout, conflicts, budget)
    try:
        query = Query(position, assumptions, claims, budget)
        eng = _Engine(query, engine, budget)
    except LimitHit as e:
        return Deduction(None, reason=e.reason, stats={"seconds": round(time.perf_counter() - t0, 4)},
                         claims=_unknown(claims, e.reason))
    sels = query.selectors
    out = Deduction(None, docs=dict(query.model.group_doc))
    try:
        with budget_scope(budget):
            try:
                res = eng.solve(sels)
            except LimitHit as e:
                out.reason = e.reason
                out.claims = _unknown(claims, e.reason)
                return out
            say(f"model of {query.model.num_vars} variables; position "
                f"{'has a history' if res else 'has no history'}")
            if res is False:
                out.consistent = False
                core, out.reason = _core(query, eng, [], explain)
                out.core = query.names_of(core) if explain else None
                if certificate_dir:
                    try:
                        out.certificates.append(_certify(query, core, None, certificate_dir))
                    except LimitHit as e:
                        out.uncertified = _uncertified(e.reason)
                for c in claims:
                    out.claims.append(ClaimResult(c.name, c.text, Verdict.PROVED, core=out.core,
                                                  reason="no history meets the assumptions"
                                                  if assumptions or position.frozen else
                                                  "the position has no history"))
                return out
            out.consistent = True
            out.witness = _witness(query, eng.values(), None)
            for c in claims:
                out.claims.append(_claim(query, eng, c, explain, certificate_dir, out))
                say(f"claim {c.name}: {out.claims[-1].status}")
                if out.claims[-1].certificate:
                    out.certificates.append(out.claims[-1].certificate)
            return out
    finally:
        out.stats = {"seconds": round(time.perf_counter() - t0, 4), "vars": query.model.num_vars,
                     "clauses": len(eng.sat.clauses), "calls": eng.sat.calls,
                     "conflicts": budget.spent}
        eng.close()


# What "refuted" means here, said with every refuted claim. The witness is a history of the
# counting model, not a game, so a claim that only tempo or blocking decides may hold in every
# legal game (a review of 2026-12-06 saw 7,894 of 12,470 claims true in real games refuted),
# unless no history of the model meets the claim: then no game does either.
NOT_ENTAILED = ("not entailed by the counting rules: a history they allow falsifies it, but no "
                "game is shown to, so it may still hold in every legal game")
DISPROVED = ("false in every history of the model, hence in every legal game (under the "
             "assumptions and frozen units, if any): its negation is proved")


def _false_everywhere(query: Query, eng: _Engine, c: Constraint) -> bool:
    """Whether no history of the model meets the claim (one more solver call); a limit hit
    leaves the weaker word."""
    try:
        return eng.solve(query.selectors + [query.literal[c.name]]) is False
    except LimitHit:
        return False


UNREADABLE = ("the history model cannot decide this claim: no history of it that falsifies the "
              "claim can be read (never_moved: whether an original unit on its home square "
              "left it and came back)")


def _readable_witness(query: Query, eng: _Engine, c: Constraint, neg: int,
                      first: History) -> tuple[History, str | None]:
    """A witness on which the evaluator decides the claim, or why there is none (with the
    `first` witness, which it could not read).

    Asked once per way the evaluator can read the claim as false (`query.readings`): when they
    are all the ways, the answer depends on the model alone, not on which witness a solver
    returned first."""
    ways, complete = readings(query.model, c.expr, query.sublits, False)
    for way in ways:
        try:
            if eng.solve(query.selectors + [neg] + way) is False:
                continue
        except LimitHit as e:
            return first, e.reason
        hist = _witness(query, eng.values(), c)
        if evaluate(hist, c.expr) is None:      # only a user function's `decisive` can do this
            raise InputError("a function's decisive literals left its evaluator undecided on "
                             "a witness (register_predicate(decisive=...))",
                             field=c.where or f"claim {c.name!r}", value=c.text)
        return hist, None
    return first, UNREADABLE if complete else \
        "the history model cannot decide this claim on its witness"


def _uncertified(reason: str) -> str:
    return f"{reason} (while writing a certificate: the proof found is not certified)"


def _claim(query: Query, eng: _Engine, c: Constraint, explain: bool, certificate_dir: str | None,
           out: Deduction) -> ClaimResult:
    neg = query.negated[c.name]
    try:
        res = eng.solve(query.selectors + [neg])
    except LimitHit as e:
        return ClaimResult(c.name, c.text, Verdict.UNKNOWN, reason=e.reason)
    if res is True:
        hist = _witness(query, eng.values(), c)
        why = None
        if evaluate(hist, c.expr) is None:
            hist, why = _readable_witness(query, eng, c, neg, hist)
        disproved = _false_everywhere(query, eng, c)
        if why is not None and not disproved:
            return ClaimResult(c.name, c.text, Verdict.UNKNOWN, witness=hist, reason=why)
        # false everywhere needs no witness: an unread one is not shown
        result = ClaimResult(c.name, c.text, Verdict.REFUTED, witness=None if why else hist,
                             reason=DISPROVED if disproved else NOT_ENTAILED)
        if disproved and certificate_dir:     # the proof of its negation, as a claim of its own
            name = f"not-{c.name}"
            while name in query.model.groups:      # an assumption's name (review)
                name = f"not-{name}"
            negation = Constraint(name, f"not ({c.text})", Negation(c.expr), c.where)
            core, _ = _core(query, eng, [query.literal[c.name]], explain)
            try:
                result.certificate = _certify(query, core, negation, certificate_dir,
                                              asked=[negation.text])
            except LimitHit as e:
                out.uncertified = out.uncertified or _uncertified(e.reason)
        return result
    result = ClaimResult(c.name, c.text, Verdict.PROVED)
    core, result.reason = _core(query, eng, [neg], explain)
    result.core = query.names_of(core) if explain else None
    if certificate_dir:
        try:
            result.certificate = _certify(query, core, c, certificate_dir)
        except LimitHit as e:
            out.uncertified = out.uncertified or _uncertified(e.reason)
    return result


def _core(query: Query, eng: _Engine, fixed: list[int], explain: bool) -> tuple[list[int], str | None]:
    """The core a proof reports (all facts when not explaining or when a limit stops the MUS)."""
    if not explain:
        return query.selectors, None
    try:
        return _best_core(query, eng, fixed), None
    except LimitHit as e:
        return query.selectors, f"core not minimised: {e.reason}"


def _best_core(query: Query, eng: _Engine, fixed: list[int]) -> list[int]:
    """The most readable of the MUSes found by deletion in each of the query's orders
    (LimitHit when the budget is spent)."""
    best = None
    for order in query.mus_orders():
        core = eng.sat.mus(fixed, order)
        if best is None or query.core_weight(core) < query.core_weight(best):
            best = core
    return best


def _witness(query: Query, values: list[bool], claim: Constraint | None) -> History:
    """Decode a model and re-check it independently; a failure is a bug in the encoding."""
    hist = decode(query.model, values)
    problems = check_history(hist)
    for a in query.assumptions:
        if evaluate(hist, a.expr) is False:
            problems.append(f"assumption {a.name!r} is false on the witness")
    if claim is not None and evaluate(hist, claim.expr) is True:
        problems.append(f"claim {claim.name!r} holds on its counterexample")
    if problems:
        raise RuntimeError("witness history rejected by the independent check: " + "; ".join(problems))
    return hist


# --- certificates -----------------------------------------------------------------------------

def _certify(query: Query, core: list[int], claim: Constraint | None, directory: Any,
             asked: list[str] | None = None) -> str:
    """Write the CNF (model + core facts + negated claim) and the SAT solver's (Glucose 4.1) DRUP proof.

    The CNF is rebuilt from a query holding only this claim, as the checker will rebuild it.
    `directory`: a directory (the file is named by a digest of the question and position) or a
    retrologic.certificate.Destination (a problem file's: named after the file). `asked`: the
    claims the certificate says were asked, if not the query's (a refuted claim's negation)."""
    names = query.names_of(core)
    single = Query(query.position, query.assumptions, [] if claim is None else [claim])
    clauses, nv = certificate_cnf(single, [single.model.groups[n] for n in names], claim)
    proved = drup_proof(clauses, [])
    if proved is None:
        raise RuntimeError("the certificate CNF is satisfiable although the core was UNSAT")
    _, proof = proved
    pos = query.position
    frozen = [chess.square_name(s) for s in chess.scan_forward(pos.frozen)]
    cert = {
        "type": "deduce-drup",
        "fen": pos.fen(),
        "frozen": frozen,
        "assumptions": [{"name": a.name, "expr": a.text} for a in query.assumptions],
        "claim": None if claim is None else {"name": claim.name, "expr": claim.text},
        "core": names,
        "conclusion": conclusion(claim.name if claim is not None else None),
        "cnf": dimacs(clauses, nv),
        "proof": proof,
    }
    name = "illegal" if claim is None else _slug(claim.name)
    question = {"kind": "deduce", "assume": [a.text for a in query.assumptions],
                "claim": [c.text for c in query.claims] if asked is None else asked}
    dest = as_destination(directory, question=question,
                          position={"fen": pos.fen(), "frozen": frozen})
    if isinstance(directory, Destination):  # a problem file's: its question as the query read it
        dest = dest.stating(question=question)
    return str(dest.write(cert, f"deduce-{name}"))


def explain_core(names: list[str], docs: dict[str, str]) -> list[str]:
    """Readable lines for the facts of a core: the units on the board, then each rule."""
    units = [n for n in names if docs.get(n) == UNIT_DOC]
    lines = []
    if units:
        lines.append("units on the board: " + ", ".join(units))
    for n in names:
        if n not in units:
            lines.append(f"{n}: {docs[n]}" if docs.get(n) else n)
    return lines


def render_deduction(d: Deduction, assumed: bool = False) -> list[str]:
    """Readable lines of a deduction (cores, witnesses, certificates); `assumed`: the query had
    assumptions or frozen units, so "no history" is illegality only if they hold."""
    lines = []
    if d.consistent is False:
        lines.append("no history of the position meets the assumptions: it is illegal if they "
                     "hold; the proof uses" if assumed else
                     "the position has no history: it is illegal; the proof uses")
        lines += ["  " + s for s in explain_core(d.core or [], d.docs)]
    for c in d.claims:
        lines.append(f"claim {c.name}: {c.text}: {c.status}" + (f" ({c.reason})" if c.reason else ""))
        if c.status == Verdict.PROVED and c.core == [] and d.consistent:
            lines.append("  the proof uses no fact of the model: the claim follows from the "
                         "position and the definitions alone")
        elif c.status == Verdict.PROVED and c.core is not None and d.consistent:
            lines.append("  the proof uses:")
            lines += ["    " + s for s in explain_core(c.core, d.docs)]
        if c.witness is not None:
            lines.append("  witness history (consistent with the counting rules; not "
                         "necessarily a playable game):")
            lines += ["    " + s for s in render(c.witness)]
    for p in d.certificates:
        lines.append(f"certificate: {p}")
    return lines
