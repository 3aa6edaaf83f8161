"""The deduce-drup certificate checker: rebuilds the CNF of the stated claim and checks the
DRUP proof that refutes it with our own RUP checker.

Rule: this module imports the flat core (retrologic.position, .certformat,
.errors, and .constraints through the query) and, to rebuild the CNF from the certificate's
position, assumptions, core and claim, the solver-free parts of the history model:
retrologic.history.model (the encoding), .query (the predicate language and Query) and
.clauses (the CNF and DIMACS text; pysat.card's sequential counter encodes the cardinalities,
no solver runs). It never imports the solver backends (retrologic.history.cnf, .cpsat,
pysat.solvers, OR-Tools) nor the engine retrologic.history.deduce: the proof is checked by
retrologic.history.drup, written for this project (tests/test_deduce_drup.py holds it against
CaDiCaL's proofs and brute force). So an accepted certificate rests on the encoding and our RUP
checker, never on a solver's word (tests/test_deduce.py holds the module to that rule). The writer (history.deduce) builds its CNF with
`certificate_cnf` and states its conclusion with `conclusion`, both defined here so the two
sides agree.
"""

from __future__ import annotations

import re
from typing import Any

from retrologic.certformat import (Rejected, Verdict, frozen_mask, same_stated_position,
                                   square_names, stated_position, tick, verdict_of,
                                   whole_or_counted)
from retrologic.errors import InputError
from retrologic.history.clauses import dimacs, to_cnf
from retrologic.history.drup import check_lines
from retrologic.history.query import Constraint, Query
from retrologic.position import Position

LABEL = re.compile(r"[A-Za-z0-9_.-]{1,60}")   # a claim's name shown on the accepted line


def certificate_cnf(query: Query, core: list[int], claim: Constraint | None
                    ) -> tuple[list[list[int]], int]:
    """The certified CNF: the model's clauses, the core's selectors as units and, for a claim,
    its negation's selector; and the number of variables."""
    clauses, nv = to_cnf(query.model)
    units = [[s] for s in core] + ([[query.negated[claim.name]]] if claim is not None else [])
    return clauses + units, nv


def conclusion(claim_name: str | None) -> str:
    """What a deduce-drup certificate concludes (its `conclusion` field)."""
    return (f"claim {claim_name!r} holds in every history of the model" if claim_name is not None
            else "the position has no history in the model")


# The last few rebuilt CNFs (clauses, variables, DIMACS) by what they encode: a certificate
# checked again (or mutated in one field, as the forgery tests do) is not encoded again.
_REBUILT: dict[tuple, tuple[list[list[int]], int, str]] = {}


def _named(item: Any, what: str) -> tuple[str, str]:
    """(name, expr) of a certificate's {'name': str, 'expr': str} item."""
    if not isinstance(item, dict) or set(item) != {"name", "expr"} or \
            not isinstance(item["name"], str) or not isinstance(item["expr"], str):
        raise Rejected(f"{what}: expected {{'name': str, 'expr': str}}")
    return item["name"], item["expr"]


def check_certificate(cert: dict[str, Any]) -> Verdict:
    """Check a deduce-drup certificate: rebuild the CNF from the position, frozen units,
    assumptions, core and claim, compare it with the one in the certificate, and check the DRUP
    proof with our own checker (retrologic.history.drup).

    The claim accepted, repeated by the verdict: in every history of the history model of the
    position `fen` (its placement, side to move, castling rights and e.p. square) in which the
    units on `frozen` never moved and every assumption holds, the claim holds; with no claim,
    no such history exists (the position is illegal under those assumptions). It relies on the
    history model's encoding (retrologic.history.model, .query and .clauses), rebuilt here from
    those fields rather than read from the certificate; assumptions outside the core are not
    used."""
    return verdict_of("deduce-drup", _check_drup, cert)


def _same_question(question: Any, assumed: list[tuple[str, str]],
                   claimed: tuple[str, str] | None) -> None:
    """A stated question (its `claim` and `assume` expressions, as the writer states them) must
    be the one the certificate answers: its claim among the question's, and no assumption the
    question does not make (review of 2026-11-30: `question.assume = []` on a certificate that
    assumes was accepted, looking like an answer without assumptions)."""
    if not isinstance(question, dict):
        return
    asked, assume = question.get("claim", []), question.get("assume", [])
    if not isinstance(asked, list) or not isinstance(assume, list):
        raise Rejected("the question's claim and assume must be lists")
    if claimed is not None and claimed[1] not in asked:
        raise Rejected(f"the question does not ask the claim {claimed[1][:60]!r}")
    extra = [e for _, e in assumed if e not in assume]
    if extra:
        raise Rejected(f"the certificate assumes {extra[0][:60]!r}, which the question does not")


def _check_drup(cert: dict[str, Any]) -> str:
    pos = stated_position(cert)
    try:
        frozen = frozen_mask(cert.get("frozen", []), pos.placement)
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
    expected = conclusion(claimed[0] if claimed else None)
    if cert.get("conclusion", expected) != expected:
        raise Rejected(f"the conclusion does not match the claim (expected {expected!r})")
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
        clauses, nv = certificate_cnf(query, sels, claims[0] if claims else None)
        if len(_REBUILT) >= 4:
            _REBUILT.pop(next(iter(_REBUILT)))
        _REBUILT[key] = (clauses, nv, dimacs(clauses, nv))
    clauses, nv, text = _REBUILT[key]
    if cnf != text:
        raise Rejected("the CNF is not the encoding of this position, core and claim")
    # the history model does not read the side to move: a problem's "?" is the same claim
    same_stated_position(cert.get("position"), pos, side_to_move=False)
    _same_question(cert.get("question"), assumed, claimed)
    res = check_lines(clauses, proof_lines, nv, tick)
    if not res.ok:
        raise Rejected(res.reason)
    where = f"{pos.fen()}" + (f" frozen {square_names(frozen)}" if frozen else "")
    # the assumptions first, then the claim, each whole or by count and name (a line cut in
    # the middle of an expression would read as another claim: `certformat.whole_or_counted`)
    given = "assuming " + whole_or_counted([f"{n}: {e}" if LABEL.fullmatch(n) else e
                                            for n, e in assumed], 100, "assumption") + ": " \
        if assumed else ""
    # the claim's name is the certificate's free text, never checked: shown only when it is a
    # plain label and beside its expression (review of 2026-12-05: a name `captures(black) ==
    # 3` on a longer expression proving `captures(black) == 0` read as the claim accepted)
    expression = whole_or_counted([claimed[1]], 100, "expression") if claimed else ""
    name = repr(claimed[0]) if claimed and LABEL.fullmatch(claimed[0]) else ""
    if claimed and expression != claimed[1]:
        name, expression = "", f"{expression}; its name is not shown"
    what = (f"claim {name}{' ' if name else ''}({expression}) holds in every history of the "
            "model" if claimed else "the position has no history in the model "
            "(illegal" + (" if the assumptions hold)" if assumed or frozen else ")"))
    return f"{given}{what}: {where} ({res.lemmas} lemmas checked by RUP)"


