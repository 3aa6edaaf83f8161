"""The checker of "cage-sat-proof" certificates (the SAT cage engine, retrologic.cages.sat).

Rule: this module imports python-chess, retrologic.certformat, cages.question (a question's
restrictions, read with the constraint language), the encoding
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
board is a cage. With `fen`, the board must stand in the position and the cage may assume
nothing the position does not show: every restriction must be marked `fact` and be the claim of
an embedded deduce-drup certificate of that position without assumptions, accepted by its
checker; every frozen unit must be one the position shows never moved and every castling right
one it states (`unshown`): the position is then illegal. (A frozen knight on g1 or a
restriction merely assumed would make a legal position "illegal": found in review, 2026-11-30.)
"""

from __future__ import annotations

import re
from typing import Any

import chess

from retrologic.cages import question
from retrologic.cages.sat_encode import MODELS, Encoding, Restriction, Spec, Unsupported
from retrologic.certformat import (Rejected, Verdict, format_fault, shown, square_names, tick,
                                   verdict_of, whole_or_counted)
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
    _metadata(cert, placement, frozen, zone, model)
    home = chess.BaseBoard()
    away = [sq for sq in chess.scan_forward(frozen) if home.piece_at(sq) != placement.piece_at(sq)]
    if away:        # a unit that never moved stands on its home square (review of 2026-11-30)
        raise Rejected(f"the frozen unit on {chess.square_name(away[0])} stands where no unit of "
                       "its type and colour starts the game")
    if "fen" not in cert:       # a board's cage: it may assume no more than its question
        _asked(cert, frozen, castling, restrictions)
    facts_used = _facts(cert, placement, [i["expr"] for i in items if i["fact"]])
    if facts_used is not None:
        _nothing_assumed(cert, frozen, castling, items)
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
    # what the cage assumes first (a claim cut to its length must not lose it: the
    # restrictions whole or by count, `certformat.whole_or_counted`; the squares from their
    # masks, once each: a certificate's list may repeat a name), then the proof
    what += (f"cage: {placement.board_fen()}"
             + (f" frozen {square_names(frozen)}" if frozen else "")
             + (f" castling {square_names(castling)}" if castling else "")
             + ("; restrictions: " + whole_or_counted([r.expr() for r in restrictions], 240,
                                                      "restriction") if restrictions else "")
             + f" (zone of {chess.popcount(zone)} squares, model {model}; {k}-induction, invariant"
             f" of {len(lemmas)} lemmas, {lemmas_checked} proof lemmas checked by RUP)")
    return what


def _metadata(cert: dict[str, Any], placement: chess.BaseBoard, frozen: int, zone: int,
              model: str) -> None:
    """The problem's position and question, when stated, must be the certificate's own: the
    board, frozen units among the certificate's, the model, the zone unless "auto" and the
    full position (`with_position`) the certificate's `fen`."""
    pos, q = cert.get("position"), cert.get("question")
    pos = pos if isinstance(pos, dict) else {}
    q = q if isinstance(q, dict) else {}
    try:
        stated = [chess.BaseBoard(pos["board"].strip())] if "board" in pos else []
        stated += [chess.Board(pos["fen"].strip())] if "fen" in pos else []
        asked = {"frozen": _names(pos.get("frozen")) | _names(q.get("frozen"))}
        if q.get("zone", "auto") != "auto":
            asked["zone"] = _names(q["zone"])
        full = chess.Board(q["with_position"].strip()) if q.get("with_position") else None
    except (ValueError, TypeError, AttributeError):
        raise Rejected("the stated position or question is malformed") from None
    if any(b.board_fen() != placement.board_fen() for b in stated):
        raise Rejected("the stated position is not the certificate's board "
                       f"{placement.board_fen()}")
    if asked["frozen"] & ~frozen:
        raise Rejected("the stated frozen units are not all frozen in the certificate")
    if "zone" in asked and asked["zone"] != zone:
        raise Rejected("the question's zone is not the certificate's")
    if "model" in q and q["model"] != model:
        raise Rejected(f"the question asks for model {shown(q['model'])}, the certificate is "
                       f"{model!r}")
    if full is not None and (not isinstance(cert.get("fen"), str) or
                             chess.Board(cert["fen"]).epd() != full.epd()):
        raise Rejected("the question's position (with_position) is not the certificate's 'fen'")


def _asked(cert: dict[str, Any], frozen: int, castling: int,
           restrictions: tuple[Restriction, ...]) -> None:
    """A stated question (its `restrict` texts, none when absent; its and its position's frozen
    squares; a castling right only from a stated FEN) must make every assumption the proof
    makes, else the certificate answers an easier question (review of 2026-11-30: a SAT proof
    under a restriction was accepted with `question.restrict` emptied)."""
    pos, q = cert.get("position"), cert.get("question")
    if q is None:
        return
    if not isinstance(q, dict):
        raise Rejected("the stated question is not an object")
    pos = pos if isinstance(pos, dict) else {}
    try:
        asked, never = question.stated(q.get("restrict", []))
        stated = _names(pos.get("frozen")) | _names(q.get("frozen")) | never
        rights = chess.Board(pos["fen"]).clean_castling_rights() \
            if isinstance(pos.get("fen"), str) else 0       # a right with its king and rook home
    except (ValueError, TypeError, AttributeError) as e:
        raise Rejected(f"the stated question is malformed: {shown(str(e), 80)}") from None
    if castling & ~rights:
        raise Rejected("the certificate assumes castling rights that no stated position gives")
    needs = [(r.side, None if r.from_file is None else chess.FILE_NAMES[r.from_file],
              None if r.to_file is None else chess.FILE_NAMES[r.to_file]) for r in restrictions]
    fault = question.proof_fault(frozen, needs, stated, asked)
    if fault:
        raise Rejected(fault)


def _names(value: Any) -> int:
    """The squares of a stated list (or comma-separated text) of square names, as a mask."""
    names = value.replace(",", " ").split() if isinstance(value, str) else list(value or [])
    mask = 0
    for name in names:              # as problem files write them: any case, spaces around
        mask |= chess.BB_SQUARES[chess.parse_square(str(name).strip().lower())]
    return mask


def never_moved(full: chess.Board) -> tuple[int, int]:
    """(units, castling rights) a full position shows never moved, in any game reaching it:
    pawns on their home rank, and the king and rook of each castling right it states (cleaned
    by python-chess: the king and the rook at home)."""
    rights = full.clean_castling_rights()
    units = full.pawns & ((full.occupied_co[chess.WHITE] & chess.BB_RANK_2)
                          | (full.occupied_co[chess.BLACK] & chess.BB_RANK_7))
    for rook in chess.scan_forward(rights):
        units |= chess.BB_SQUARES[rook]
        units |= chess.BB_E1 if rook < chess.A2 else chess.BB_E8
    return units, rights


def unshown(fen: str, frozen: int, castling: int) -> tuple[str, int] | None:
    """The first frozen unit ("frozen", square) or castling right ("castling", rook square) a
    cage assumes that the full position `fen` does not show (`never_moved`); None when it shows
    them all. The one rule of the checker and of the engine (cages.sat_facts), which refuses to
    call a position illegal on any other."""
    units, rights = never_moved(chess.Board(fen))
    for what, extra in (("frozen", frozen & ~units), ("castling", castling & ~rights)):
        if extra:
            return what, chess.lsb(extra)
    return None


def _nothing_assumed(cert: dict[str, Any], frozen: int, castling: int,
                     items: list[dict[str, Any]]) -> None:
    """With `fen`: the cage's frozen units, castling rights and restrictions must all be facts
    of the position (`unshown`, embedded proofs), or its illegality does not follow."""
    extra = unshown(cert["fen"], frozen, castling)
    if extra is not None:
        name = chess.square_name(extra[1])
        raise Rejected(f"frozen {name} is assumed: the position {cert['fen']} does not show that "
                       "unit never moved" if extra[0] == "frozen" else
                       f"the castling right of {name} is assumed: the position {cert['fen']} "
                       "does not state it")
    for item in items:
        if not item["fact"]:
            raise Rejected(f"the restriction {item['expr']} is assumed, not proved for the "
                           f"position {cert['fen']}")


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
