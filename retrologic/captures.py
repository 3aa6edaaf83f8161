"""Deductions about a game's history: claims proved (UNSAT, with a MUS and a DRUP proof) or
refuted (a witness history, re-checked in plain Python), over the history model.

The pieces: retrologic.history_model (the model as IR), history_cnf (pysat), history_cpsat
(OR-Tools), history_query (the predicate language), history_witness (witnesses), drup (the
proof checker). This module runs a query and makes and checks `deduce-drup` certificates.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess

from retrologic.constraints import Expr, parse_expr
from retrologic.errors import InputError
from retrologic.history_cnf import Limits, SatBackend, dimacs, drup_proof, to_cnf
from retrologic.history_model import UNIT_DOC, Model
from retrologic.history_query import check_compilable, compile_expr, evaluate, register_predicate
from retrologic.history_witness import History, check_history, decode, render
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


class Query:
    """A position's model with assumptions (named groups) and negated claims (selectors)."""

    def __init__(self, position: Position, assumptions: list[Constraint],
                 claims: list[Constraint]) -> None:
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

    def __init__(self, query: Query, engine: str, limits: Limits) -> None:
        if engine not in ENGINES:
            raise InputError(f"unknown engine (known: {', '.join(ENGINES)})", field="engine",
                             value=engine)
        self.engine = engine
        self.sat = SatBackend(query.model, limits)
        self.cp = None
        if engine != "sat":
            from retrologic.history_cpsat import CpSatBackend
            self.cp = CpSatBackend(query.model, limits)
        self.last: SatBackend | Any = self.sat

    def solve(self, assumptions: list[int]) -> bool | None:
        """SAT, UNSAT or None; an UNSAT from CP-SAT stands only when pysat agrees."""
        if self.cp is None:
            self.last = self.sat
            return self.sat.solve(assumptions)
        res = self.cp.solve(assumptions)
        self.last = self.cp
        if self.engine == "cp-sat" and res is not False:
            return res
        other = self.sat.solve(assumptions)
        if res is not None and other is not None and other != res:
            raise RuntimeError(f"CP-SAT says {res}, pysat says {other} under {assumptions}")
        return None if res is None or other is None else res

    def values(self) -> list[bool]:
        return self.last.values()

    def close(self) -> None:
        self.sat.close()


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "claim"


def deduce(position: Position, assumptions: list[Constraint], claims: list[Constraint], *,
           engine: str = "sat", timeout: float | None = None, conflicts: int | None = None,
           explain: bool = True, certificate_dir: str | None = None,
           progress: bool = False) -> Deduction:
    """Decide whether the position has a history (under the assumptions), then each claim."""
    t0 = time.perf_counter()

    def say(what: str) -> None:
        if progress:
            print(f"deduce: {what} ({time.perf_counter() - t0:.2f} s)", file=sys.stderr, flush=True)

    query = Query(position, assumptions, claims)
    limits = Limits(None if timeout is None else time.monotonic() + timeout, conflicts)
    eng = _Engine(query, engine, limits)
    sels = query.selectors
    out = Deduction(None, docs=dict(query.model.group_doc))
    try:
        res = eng.solve(sels)
        say(f"model of {query.model.num_vars} variables; position "
            f"{'has a history' if res else 'has no history' if res is False else 'undecided'}")
        if res is None:
            out.reason = _limit_reason(timeout, conflicts)
            out.claims = [ClaimResult(c.name, c.text, "unknown", reason=out.reason) for c in claims]
            return out
        if res is False:
            out.consistent = False
            core, out.reason = _core(query, eng, [], explain, timeout, conflicts)
            out.core = query.names_of(core) if explain else None
            if certificate_dir:
                out.certificates.append(_certify(query, core, None, certificate_dir))
            for c in claims:
                out.claims.append(ClaimResult(c.name, c.text, "proved", core=out.core,
                                              reason="the position has no history"))
            return out
        out.consistent = True
        out.witness = _witness(query, eng.values(), None)
        for c in claims:
            out.claims.append(_claim(query, eng, c, explain, certificate_dir, timeout, conflicts))
            say(f"claim {c.name}: {out.claims[-1].status}")
            if out.claims[-1].certificate:
                out.certificates.append(out.claims[-1].certificate)
        return out
    finally:
        out.stats = {"seconds": round(time.perf_counter() - t0, 4), "vars": query.model.num_vars,
                     "clauses": len(eng.sat.clauses), "calls": eng.sat.calls}
        eng.close()


def _limit_reason(timeout: float | None, conflicts: int | None) -> str:
    parts = []
    if timeout is not None:
        parts.append(f"time limit {timeout:g} s")
    if conflicts is not None:
        parts.append(f"node (conflict) limit {conflicts}")
    return "limit hit: " + " or ".join(parts) if parts else "solver gave no answer"


def _claim(query: Query, eng: _Engine, c: Constraint, explain: bool, certificate_dir: str | None,
           timeout: float | None, conflicts: int | None) -> ClaimResult:
    neg = query.negated[c.name]
    res = eng.solve(query.selectors + [neg])
    if res is None:
        return ClaimResult(c.name, c.text, "unknown", reason=_limit_reason(timeout, conflicts))
    if res is True:
        hist = _witness(query, eng.values(), c)
        truth = evaluate(hist, c.expr)
        if truth is None:
            return ClaimResult(c.name, c.text, "unknown", witness=hist,
                               reason="the history model cannot decide this claim on its witness")
        return ClaimResult(c.name, c.text, "refuted", witness=hist)
    out = ClaimResult(c.name, c.text, "proved")
    core, out.reason = _core(query, eng, [neg], explain, timeout, conflicts)
    out.core = query.names_of(core) if explain else None
    if certificate_dir:
        out.certificate = _certify(query, core, c, certificate_dir)
    return out


def _core(query: Query, eng: _Engine, fixed: list[int], explain: bool, timeout: float | None,
          conflicts: int | None) -> tuple[list[int], str | None]:
    """The core a proof reports (all facts when not explaining or when a limit stops the MUS)."""
    if not explain:
        return query.selectors, None
    core = _best_core(query, eng, fixed)
    if core is None:
        return query.selectors, "core not minimised: " + _limit_reason(timeout, conflicts)
    return core, None


def _best_core(query: Query, eng: _Engine, fixed: list[int]) -> list[int] | None:
    """The most readable of the MUSes found by deletion in each of the query's orders."""
    best = None
    for order in query.mus_orders():
        core = eng.sat.mus(fixed, order)
        if core is None:
            return None
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


def _certify(query: Query, core: list[int], claim: Constraint | None, directory: str) -> str:
    """Write the CNF (model + core facts + negated claim) and CaDiCaL's DRUP proof.

    The CNF is rebuilt from a query holding only this claim, as the checker will rebuild it."""
    from retrologic.certificate import write
    names = query.names_of(core)
    single = Query(query.position, query.assumptions, [] if claim is None else [claim])
    clauses, nv = _cert_cnf(single, [single.model.groups[n] for n in names], claim)
    proved = drup_proof(clauses, [])
    if proved is None:
        raise RuntimeError("the certificate CNF is satisfiable although the core was UNSAT")
    _, proof = proved
    pos = query.position
    cert = {
        "type": "deduce-drup",
        "fen": pos.fen(),
        "frozen": [chess.square_name(s) for s in chess.scan_forward(pos.frozen)],
        "assumptions": [{"name": a.name, "expr": a.text} for a in query.assumptions],
        "claim": None if claim is None else {"name": claim.name, "expr": claim.text},
        "core": names,
        "conclusion": (f"claim {claim.name!r} holds in every history of the model"
                       if claim is not None else "the position has no history in the model"),
        "cnf": dimacs(clauses, nv),
        "proof": proof,
    }
    name = "illegal" if claim is None else _slug(claim.name)
    path = Path(directory) / f"deduce-{name}.json"
    write(cert, path)
    return str(path)


def check_certificate(cert: dict[str, Any]):
    """Rebuild the CNF from the position, constraints and core, compare it with the one in the
    certificate, and check the DRUP proof with our own checker (retrologic.drup)."""
    from retrologic.certificate import Verdict
    from retrologic.drup import check, parse_dimacs, parse_proof
    T = "deduce-drup"
    try:
        pos = Position.from_fen(cert["fen"])
    except ValueError as e:
        return Verdict(T, False, f"bad fen: {e}")
    frozen = 0
    for name in cert.get("frozen", []):
        frozen |= chess.BB_SQUARES[chess.parse_square(name)]
    pos = Position(pos.placement, pos.turn, pos.castling, pos.ep_square, frozen, False)
    try:
        assumptions = [Constraint.parse(a["name"], a["expr"]) for a in cert["assumptions"]]
        claim = cert["claim"]
        claims = [] if claim is None else [Constraint.parse(claim["name"], claim["expr"])]
        query = Query(pos, assumptions, claims)
    except InputError as e:
        return Verdict(T, False, f"cannot rebuild the model: {e}")
    unknown = [n for n in cert["core"] if n not in query.model.groups]
    if unknown:
        return Verdict(T, False, f"core names facts the model does not have: {unknown}")
    core = [query.model.groups[n] for n in cert["core"]]
    clauses, _ = _cert_cnf(query, core, claims[0] if claims else None)
    try:
        _, given = parse_dimacs(cert["cnf"])
    except ValueError as e:
        return Verdict(T, False, f"bad cnf: {e}")
    if given != clauses:
        return Verdict(T, False, "the CNF is not the encoding of this position, core and claim")
    try:
        proof = parse_proof(cert["proof"])
    except ValueError as e:
        return Verdict(T, False, f"bad proof: {e}")
    res = check(clauses, proof)
    if not res.ok:
        return Verdict(T, False, res.reason)
    return Verdict(T, True, f"{res.lemmas} lemmas checked by RUP, {res.deletions} deletions")


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
