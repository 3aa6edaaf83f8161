"""Deductions about a game's history: claims proved (UNSAT, with a MUS and a DRUP proof) or
refuted (a witness history, re-checked in plain Python), over the history model.

The pieces: retrologic.history.model (the model as IR), history_cnf (pysat), history_cpsat
(OR-Tools), history_query (the predicate language), history_witness (witnesses), drup (the
proof checker). This module runs a query and makes and checks `deduce-drup` certificates.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import chess

from retrologic.certificate import Rejected, verdict_of
from retrologic.constraints import Expr, parse_expr
from retrologic.errors import InputError
from retrologic.history.cnf import SatBackend, budget_scope, dimacs, drup_proof, to_cnf
from retrologic.history.model import UNIT_DOC, Model
from retrologic.history.query import check_compilable, compile_expr, evaluate, register_predicate
from retrologic.history.witness import History, check_history, decode, render
from retrologic.limits import Budget, LimitHit, budget_for
from retrologic.position import Position

__all__ = ["Constraint", "ClaimResult", "Deduction", "Query", "deduce", "check_certificate",
           "register_predicate", "ENGINES"]

ENGINES = ("sat", "cp-sat", "both")


@dataclass(frozen=True)
class Constraint:
    """A named expression of the predicate language (an assumption or a claim)."""

    name: str
    text: str
    expr: Expr
    where: str | None = None       # the field it came from, for error messages

    @classmethod
    def parse(cls, name: str, text: str, where: str | None = None) -> "Constraint":
        try:
            return cls(name, text, parse_expr(text), where)
        except InputError as e:
            raise e.located(None, where) from None


@dataclass
class ClaimResult:
    """The outcome of one claim: proved (core, certificate), refuted (witness) or unknown."""

    name: str
    text: str
    status: str
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


class Query:
    """A position's model with assumptions (named groups) and negated claims (selectors)."""

    def __init__(self, position: Position, assumptions: list[Constraint],
                 claims: list[Constraint], budget: Budget | None = None) -> None:
        self.position = position
        self.assumptions = assumptions
        self.claims = claims
        self.model = m = Model(position)
        names = set()
        for c in assumptions + claims:
            if c.name in names or c.name in m.groups:
                raise InputError("constraint names must be unique and differ from the model's "
                                 "fact names", field=c.where or "name", value=c.name)
            names.add(c.name)
        lits = {}
        for c in assumptions + claims:
            if budget is not None:
                budget.check(every=4)       # LimitHit: a long list of claims takes seconds
            try:
                check_compilable(c.expr)
                lits[c.name] = compile_expr(m, c.expr)
            except InputError as e:
                raise e.located(None, c.where or f"constraint {c.name!r}") from None
        for c in assumptions:
            m.add_clause([-m.group(c.name, f"assumption: {c.text}"), lits[c.name]])
        self.negated: dict[str, int] = {}
        for c in claims:
            sel = self.negated[c.name] = m.new_var(f"not {c.name}")
            m.add_clause([-sel, -lits[c.name]])

    @property
    def selectors(self) -> list[int]:
        return list(self.model.groups.values())

    SUBTLE = ("frozen-units-block-pawns", "capture-colours", "en-passant", "castling-rights",
              "kings-never-captured", "bishops-keep-colour")
    BASIC = ("file-changes-are-captures", "captures-remove-units")

    def _subtle(self, name: str) -> bool:
        return name in self.SUBTLE or name.startswith(("cage: ", "frozen "))

    def mus_orders(self) -> list[list[int]]:
        """Orders in which a MUS tries to drop the selectors (the earlier, the likelier left
        out): the subtler facts first (cages, colours, castling), then assumptions, then the
        units of one side, then the other's, the basic counting rules last."""
        g = self.model.groups
        subtle = [n for n in g if n.startswith(("cage: ", "frozen "))] + \
                 [n for n in self.SUBTLE if n in g]
        assumed = [a.name for a in self.assumptions]
        units = [n for n in g if n not in subtle and n not in self.BASIC and n not in assumed]
        white = [n for n in units if n.startswith("white ")]
        black = [n for n in units if n not in white]
        basic = [n for n in self.BASIC if n in g]
        return [[g[n] for n in subtle + assumed + a + b + basic] for a, b in ((white, black), (black, white))]

    def core_weight(self, core: list[int]) -> tuple[int, int]:
        """Readability of a core: subtle facts weigh 2, the others 1."""
        names = self.names_of(core)
        return sum(2 if self._subtle(n) else 1 for n in names), len(names)

    def names_of(self, sels: list[int]) -> list[str]:
        back = {v: k for k, v in self.model.groups.items()}
        return [back[s] for s in sels]


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
            from retrologic.history.cpsat import CpSatBackend
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


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "claim"


def deduce(position: Position, assumptions: list[Constraint], claims: list[Constraint], *,
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

    budget = budget_for(timeout, conflicts, budget)
    try:
        query = Query(position, assumptions, claims, budget)
        eng = _Engine(query, engine, budget)
    except LimitHit as e:
        return Deduction(None, reason=e.reason, stats={"seconds": round(time.perf_counter() - t0, 4)},
                         claims=[ClaimResult(c.name, c.text, "unknown", reason=e.reason) for c in claims])
    sels = query.selectors
    out = Deduction(None, docs=dict(query.model.group_doc))
    try:
        with budget_scope(budget):
            try:
                res = eng.solve(sels)
            except LimitHit as e:
                out.reason = e.reason
                out.claims = [ClaimResult(c.name, c.text, "unknown", reason=e.reason) for c in claims]
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
                    out.claims.append(ClaimResult(c.name, c.text, "proved", core=out.core,
                                                  reason="the position has no history"))
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


def _uncertified(reason: str) -> str:
    return f"{reason} (while writing a certificate: the proof found is not certified)"


def _claim(query: Query, eng: _Engine, c: Constraint, explain: bool, certificate_dir: str | None,
           out: Deduction) -> ClaimResult:
    neg = query.negated[c.name]
    try:
        res = eng.solve(query.selectors + [neg])
    except LimitHit as e:
        return ClaimResult(c.name, c.text, "unknown", reason=e.reason)
    if res is True:
        hist = _witness(query, eng.values(), c)
        truth = evaluate(hist, c.expr)
        if truth is None:
            return ClaimResult(c.name, c.text, "unknown", witness=hist,
                               reason="the history model cannot decide this claim on its witness")
        return ClaimResult(c.name, c.text, "refuted", witness=hist)
    result = ClaimResult(c.name, c.text, "proved")
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

def _cert_cnf(query: Query, core: list[int], claim: Constraint | None) -> tuple[list[list[int]], int]:
    clauses, nv = to_cnf(query.model)
    units = [[s] for s in core] + ([[query.negated[claim.name]]] if claim is not None else [])
    return clauses + units, nv


def _certify(query: Query, core: list[int], claim: Constraint | None, directory: Any) -> str:
    """Write the CNF (model + core facts + negated claim) and the SAT solver's (Glucose 4.1) DRUP proof.

    The CNF is rebuilt from a query holding only this claim, as the checker will rebuild it.
    `directory`: a directory (the file is named by a digest of the question and position) or a
    retrologic.certificate.Destination (a problem file's: named after the file)."""
    from retrologic.certificate import as_destination
    names = query.names_of(core)
    single = Query(query.position, query.assumptions, [] if claim is None else [claim])
    clauses, nv = _cert_cnf(single, [single.model.groups[n] for n in names], claim)
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
        "conclusion": _conclusion(claim.name if claim is not None else None),
        "cnf": dimacs(clauses, nv),
        "proof": proof,
    }
    name = "illegal" if claim is None else _slug(claim.name)
    dest = as_destination(directory, question={
        "kind": "deduce", "assume": [a.text for a in query.assumptions],
        "claim": [c.text for c in query.claims]}, position={"fen": pos.fen(), "frozen": frozen})
    return str(dest.write(cert, f"deduce-{name}"))


def _conclusion(claim_name: str | None) -> str:
    return (f"claim {claim_name!r} holds in every history of the model" if claim_name is not None
            else "the position has no history in the model")


_REBUILT: dict[tuple, tuple[list[list[int]], int, str]] = {}   # the last few rebuilt CNFs


def _named(item: Any, what: str) -> tuple[str, str]:
    if not isinstance(item, dict) or set(item) != {"name", "expr"} or \
            not isinstance(item["name"], str) or not isinstance(item["expr"], str):
        raise Rejected(f"{what}: expected {{'name': str, 'expr': str}}")
    return item["name"], item["expr"]


def check_certificate(cert: dict[str, Any]):
    """Check a deduce-drup certificate: rebuild the CNF from the position, frozen units,
    assumptions, core and claim, compare it with the one in the certificate, and check the DRUP
    proof with our own checker (retrologic.history.drup).

    The claim accepted, repeated by the verdict: in every history of the history model of the
    position `fen` (its placement, side to move, castling rights and e.p. square) in which the
    units on `frozen` never moved and every assumption holds, the claim holds; with no claim,
    no such history exists (the position is illegal under those assumptions). It relies on the
    history model's encoding (retrologic.history.model, history_cnf), rebuilt here from those
    fields rather than read from the certificate; assumptions outside the core are not used."""
    return verdict_of("deduce-drup", _check_drup, cert)


def _check_drup(cert: dict[str, Any]) -> str:
    from retrologic.history.drup import check, parse_proof
    fen = cert.get("fen")
    if not isinstance(fen, str):
        raise Rejected("'fen' must be a FEN string")
    try:
        pos = Position.from_fen(fen)
    except ValueError as e:
        raise Rejected(f"bad fen: {str(e)[:80]}") from None
    from retrologic.certificate import frozen_mask
    try:
        frozen = frozen_mask(cert.get("frozen", []), pos.placement.occupied)
    except ValueError as e:
        raise Rejected(str(e)) from None
    pos = Position(pos.placement, pos.turn, pos.castling, pos.ep_square, frozen, False)
    raw = cert.get("assumptions")
    if not isinstance(raw, list):
        raise Rejected("'assumptions' must be a list")
    assumed = [_named(a, f"assumptions[{i}]") for i, a in enumerate(raw)]
    claimed = None if cert.get("claim") is None else _named(cert["claim"], "claim")
    core = cert.get("core")
    if not isinstance(core, list) or not all(isinstance(n, str) for n in core) or \
            len(set(core)) != len(core):
        raise Rejected("'core' must be a list of distinct fact names")
    conclusion = _conclusion(claimed[0] if claimed else None)
    if cert.get("conclusion", conclusion) != conclusion:
        raise Rejected(f"the conclusion does not match the claim (expected {conclusion!r})")
    cnf, proof_lines = cert.get("cnf"), cert.get("proof")
    if not isinstance(cnf, str) or not isinstance(proof_lines, list) or \
            not all(isinstance(x, str) for x in proof_lines):
        raise Rejected("'cnf' must be a DIMACS string and 'proof' a list of DRUP lines")
    key = (pos, tuple(assumed), claimed, tuple(core))
    if key not in _REBUILT:
        try:
            assumptions = [Constraint.parse(n, e) for n, e in assumed]
            claims = [] if claimed is None else [Constraint.parse(*claimed)]
            query = Query(pos, assumptions, claims)
        except InputError as e:
            raise Rejected(f"cannot rebuild the model: {e}") from None
        unknown = [n for n in core if n not in query.model.groups]
        if unknown:
            raise Rejected(f"core names facts the model does not have: {unknown[:3]}")
        sels = [query.model.groups[n] for n in core]
        clauses, nv = _cert_cnf(query, sels, claims[0] if claims else None)
        if len(_REBUILT) >= 4:
            _REBUILT.pop(next(iter(_REBUILT)))
        _REBUILT[key] = (clauses, nv, dimacs(clauses, nv))
    clauses, nv, text = _REBUILT[key]
    if cnf != text:
        raise Rejected("the CNF is not the encoding of this position, core and claim")
    _stated_position(cert, pos)
    try:
        proof = parse_proof(proof_lines)
    except ValueError as e:
        raise Rejected(f"bad proof: {str(e)[:80]}") from None
    for step, (_, lits) in enumerate(proof, 1):
        if any(abs(lit) > nv for lit in lits):
            raise Rejected(f"proof step {step}: a literal beyond the CNF's {nv} variables")
    res = check(clauses, proof, nv)
    if not res.ok:
        raise Rejected(res.reason)
    names = [chess.square_name(sq) for sq in chess.scan_forward(frozen)]
    where = f"{pos.fen()}" + (f" frozen {','.join(names)}" if names else "")
    if assumed:
        where += "; assuming " + "; ".join(f"{n}: {e}" for n, e in assumed)
    what = (f"claim {claimed[0]!r} ({claimed[1]}) holds in every history of the model"
            if claimed else "the position has no history in the model (illegal)")
    return f"{what}: {where} ({res.lemmas} lemmas checked by RUP)"


def _stated_position(cert: dict[str, Any], pos: Position) -> None:
    """The problem's position (when stated) must be the certificate's own."""
    from retrologic.position import parse
    stated = cert.get("position")
    if not isinstance(stated, dict) or not stated:
        return
    try:
        other = parse(fen=stated.get("fen"), board=stated.get("board"), frozen=stated.get("frozen"))
    except (ValueError, TypeError) as e:
        raise Rejected(f"the stated position is malformed: {str(e)[:80]}") from None
    if (other.placement, other.turn, other.castling, other.ep_square, other.frozen) != \
            (pos.placement, pos.turn, pos.castling, pos.ep_square, pos.frozen):
        raise Rejected(f"the stated position {other.fen()} is not the certificate's {pos.fen()}")


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


def render_deduction(d: Deduction) -> list[str]:
    """Readable lines of a deduction (cores, witnesses, certificates)."""
    lines = []
    if d.consistent is False:
        lines.append("the position has no history: it is illegal; the proof uses")
        lines += ["  " + s for s in explain_core(d.core or [], d.docs)]
    for c in d.claims:
        lines.append(f"claim {c.name}: {c.text}: {c.status}" + (f" ({c.reason})" if c.reason else ""))
        if c.status == "proved" and c.core is not None and d.consistent:
            lines.append("  the proof uses:")
            lines += ["    " + s for s in explain_core(c.core, d.docs)]
        if c.witness is not None:
            lines.append("  witness history (consistent with the counting rules; not "
                         "necessarily a playable game):")
            lines += ["    " + s for s in render(c.witness)]
    for p in d.certificates:
        lines.append(f"certificate: {p}")
    return lines
