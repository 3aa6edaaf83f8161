"""The checker of "cage-sat-proof" certificates (the SAT cage engine, retrologic.cages.sat).

Rule: this module imports python-chess, retrologic.certformat, the encoding
retrologic.cages.sat_encode (the CNF is rebuilt from the certificate's board, zone, frozen
squares, castling rights, restrictions and model, never read from it), our RUP checker
retrologic.history.drup and, for a certificate made from a full position (`fen`), the
deduce-drup checker retrologic.history.checker for each embedded fact. It never imports the
engine or a solver: an accepted certificate rests on the encoding and our DRUP checker.

Accepted when: the invariant's lemmas are mode names of the encoding's units and the start
violates none of them; the DRUP proofs refute (1) "the invariant holds, one step, one lemma
fails" (it is inductive), (2) "a line of at most k retractions from the start fails" (base)
and (3) "k+1 distinct states of the invariant, the first k not failing, the last failing"
(step). Then no reachable state fails (k-induction; Sheeran, Singh & Stalmarck 2000): the
board is a cage. With `fen`, each restriction marked `fact` must be the claim of an embedded
deduce-drup certificate of that position without assumptions, accepted by its checker, and the
board must stand in the position: the position is then illegal.
"""

from __future__ import annotations

import re
from typing import Any

import chess

from retrologic.cages.sat_encode import MODELS, Encoding, Restriction, Spec, Unsupported
from retrologic.certformat import Rejected, Verdict, format_fault, shown, tick, verdict_of
from retrologic.history.drup import check_lines

TYPE = "cage-sat-proof"
MAX_K = 64
_RESTRICTION = re.compile(r'pawn_captures\((white|black|either)(?:, from_file="([a-h])")?'
                          r'(?:, to_file="([a-h])")?\) == 0')


def check_certificate(cert: dict[str, Any]) -> Verdict:
    """Check a cage-sat-proof (see the module docstring for what an accepted one proves)."""
    return verdict_of(TYPE, _check, cert)


def _squares(cert: dict[str, Any], key: str) -> int:
    names = cert.get(key, [])
    if not isinstance(names, list) or not all(isinstance(n, str) and n in chess.SQUARE_NAMES for n in names):
        raise Rejected(f"'{key}' must be a list of square names, not {shown(names)}")
    mask = 0
    for n in names:
        mask |= chess.BB_SQUARES[chess.parse_square(n)]
    return mask


def restriction_of(expr: Any) -> Restriction:
    """The restriction an expression states (Rejected unless it is written canonically)."""
    m = _RESTRICTION.fullmatch(expr) if isinstance(expr, str) else None
    if m is None:
        raise Rejected(f"restriction {shown(expr)} is not pawn_captures(side, from_file=, to_file=) == 0")
    r = Restriction(m.group(1), None if m.group(2) is None else "abcdefgh".index(m.group(2)),
                    None if m.group(3) is None else "abcdefgh".index(m.group(3)))
    if r.expr() != expr:
        raise Rejected(f"restriction {shown(expr)} is not written as {r.expr()!r}")
    return r


def _check(cert: dict[str, Any]) -> str:
    board = cert.get("board")
    try:
        placement = chess.BaseBoard(board) if isinstance(board, str) else None
    except ValueError:
        placement = None
    if placement is None:
        raise Rejected(f"'board' must be a board FEN, not {shown(board)}")
    zone, frozen, castling = (_squares(cert, k) for k in ("zone", "frozen", "castling"))
    model = cert.get("model")
    if model not in MODELS:
        raise Rejected(f"unknown model {shown(model)}")
    items = cert.get("restrictions", [])
    if not isinstance(items, list) or not all(isinstance(i, dict) and set(i) == {"expr", "fact"}
                                              and isinstance(i["fact"], bool) for i in items):
        raise Rejected("'restrictions' must be a list of {'expr': str, 'fact': bool}")
    restrictions = tuple(restriction_of(i["expr"]) for i in items)
    facts_used = _facts(cert, placement, [i["expr"] for i in items if i["fact"]])
    k = cert.get("k")
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= MAX_K:
        raise Rejected(f"'k' must be an integer 0..{MAX_K}, not {shown(k)}")
    try:
        enc = Encoding(Spec(placement.board_fen(), zone, frozen, castling, restrictions, model))
    except (ValueError, Unsupported) as e:
        raise Rejected(f"cannot build the encoding: {e}") from None
    inv = cert.get("invariant")
    if not isinstance(inv, list) or not all(isinstance(c, list) and c for c in inv):
        raise Rejected("'invariant' must be a list of non-empty lists of unit modes")
    try:
        lemmas = [tuple(enc.parse_mode(n) for n in c) for c in inv]
    except ValueError as e:
        raise Rejected(f"invariant: {e}") from None
    start = {(u, enc.index[u][(t, sq)]) for u, (_, t, sq) in enumerate(enc.units)}
    for c, lem in zip(inv, lemmas):
        if all(lit in start for lit in lem):
            raise Rejected(f"the start violates the invariant's lemma {shown(c)}")
    proofs = cert.get("proofs")
    if not isinstance(proofs, dict):
        raise Rejected("'proofs' must be an object")
    queries = [("base", k, "base", ()), ("step", k, "step", lemmas)]
    if lemmas:
        queries.insert(0, ("invariant", 1, "inv", lemmas))
    lemmas_checked = 0
    for name, depth, kind, lem in queries:
        lines = proofs.get(name)
        if not isinstance(lines, list) or not all(isinstance(s, str) for s in lines):
            raise Rejected(f"proofs.{name} must be a list of DRUP lines")
        clauses, nv, _ = enc.unroll(depth, kind, lem)
        res = check_lines(clauses, lines, nv, tick)
        if not res.ok:
            raise Rejected(f"proofs.{name}: {res.reason}")
        lemmas_checked += res.lemmas
    what = "" if facts_used is None else (
        f"the position {cert['fen']} is illegal: it contains this cage under {facts_used} "
        "restriction(s) proved by its history model; ")
    what += (f"cage ({k}-induction, invariant of {len(lemmas)} lemmas, {lemmas_checked} proof "
            f"lemmas checked by RUP): {placement.board_fen()}"
            + (f" frozen {','.join(cert['frozen'])}" if frozen else "")
            + (f" castling {','.join(cert['castling'])}" if castling else "")
            + f", zone of {chess.popcount(zone)} squares, model {model}")
    if restrictions:
        what += "; restrictions: " + "; ".join(r.expr() for r in restrictions)
    return what


def _facts(cert: dict[str, Any], placement: chess.BaseBoard, claimed: list[str]) -> int | None:
    """Check the embedded facts of a certificate made from a full position (None: no `fen`)."""
    if "fen" not in cert:
        if "facts" in cert or claimed:
            raise Rejected("facts without the position ('fen') they are about")
        return None
    from retrologic.history.checker import check_certificate as check_fact
    fen = cert["fen"]
    try:
        full = chess.Board(fen) if isinstance(fen, str) else None
    except ValueError:
        full = None
    if full is None:
        raise Rejected(f"'fen' must be a FEN, not {shown(fen)}")
    for sq, piece in placement.piece_map().items():
        if full.piece_at(sq) != piece:
            raise Rejected(f"the board's {piece.symbol()}{chess.square_name(sq)} is not in the position {fen}")
    facts = cert.get("facts")
    if not isinstance(facts, list) or not all(isinstance(f, dict) for f in facts):
        raise Rejected("'facts' must be a list of deduce-drup certificates")
    proved = set()
    for i, fact in enumerate(facts):
        if fact.get("type") != "deduce-drup" or fact.get("fen") != fen:
            raise Rejected(f"facts[{i}] is not a deduce-drup certificate of the position {fen}")
        fault = format_fault(fact)
        if fault:
            raise Rejected(f"facts[{i}]: {fault}")
        if fact.get("assumptions") != [] or fact.get("frozen") != []:
            raise Rejected(f"facts[{i}] relies on assumptions or frozen units")
        claim = fact.get("claim")
        if not isinstance(claim, dict) or not isinstance(claim.get("expr"), str):
            raise Rejected(f"facts[{i}] has no claim")
        proved.add(claim["expr"])
    missing = [c for c in claimed if c not in proved]
    if missing:
        raise Rejected(f"the restriction {shown(missing[0], 80)} is marked a fact but no fact proves it")
    for i, fact in enumerate(facts):             # the expensive part last
        verdict = check_fact(fact)
        if not verdict.ok:
            raise Rejected(f"facts[{i}] rejected: {verdict.reason}")
    return len(claimed)
