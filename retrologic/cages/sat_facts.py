"""Global facts for the SAT cage engine from the history model (issue #21 item 3).

`retrologic cage BOARD --with-position FEN`: the board is part of the full position FEN. Each
pawn capture that some capture retraction of the cage encoding would un-make (side, from file,
to file) is asked of the history model of FEN (retrologic.history: Query, its CNF and a DRUP
proof, as `retrologic deduce` does) as the claim `pawn_captures(side, from_file, to_file) == 0`.
A claim proved holds in every history of the model, so in every game reaching FEN; it enters
the cage CNF as a restriction and its deduce-drup certificate is embedded in the cage
certificate (checked by retrologic.history.checker). Hwa's Figure 6 -> Figure 7 in one query:
problems/cages/fig6-to-fig7-one-query.toml.
"""

from __future__ import annotations

from typing import Any

import chess

from retrologic.cages.sat_encode import Encoding, Restriction, Spec
from retrologic.errors import InputError
from retrologic.limits import Budget
from retrologic.position import Position, parse


def candidates(start: Position, zone: int, model: str) -> list[Restriction]:
    """Pawn captures (one side, one pair of files) that a capture retraction of the encoding
    without restrictions would un-make."""
    enc = Encoding(Spec(start.placement.board_fen(), zone, start.frozen, start.castling, (), model))
    seen = set()
    for t in enc.templates:
        if t.capture and t.prev_type == chess.PAWN:
            color = enc.units[t.unit][0]
            seen.add(Restriction("white" if color else "black", chess.square_file(t.prev_sq),
                                 chess.square_file(t.cur[1])))
    return sorted(seen, key=lambda r: (r.side, r.from_file, r.to_file))


def position_of(fen: str, start: Position) -> Position:
    """The full position (InputError unless `fen` is a FEN holding every unit of the board)."""
    try:
        pos = parse(fen=fen)
    except (ValueError, TypeError) as e:
        raise InputError(str(e), field="--with-position", value=fen) from None
    for sq in chess.scan_forward(start.placement.occupied):
        if start.placement.piece_at(sq) != pos.placement.piece_at(sq):
            raise InputError(f"the board's unit on {chess.square_name(sq)} is not in the position",
                             field="--with-position", value=fen)
    return pos


def nothing_assumed(start: Position, fen: str, given: list[Restriction]) -> None:
    """InputError unless the cage assumes only what the full position `fen` shows: no
    restriction given (each one used must be proved from the position), frozen units and
    castling rights only where the position shows them (`sat_checker.unshown`, the rule its
    checker applies); else a legal position could be called illegal."""
    from retrologic.cages.sat_checker import unshown
    if given:
        raise InputError("a restriction is assumed; with a position, the restrictions used are "
                         "proved from it (give none)", field="restrictions", value=given[0].expr())
    extra = unshown(fen, start.frozen, start.castling)
    if extra is not None:
        raise InputError("the position does not show this unit never moved (only pawns at home "
                         "and units of a castling right it states)" if extra[0] == "frozen" else
                         "a castling right the position does not state", field=extra[0],
                         value=chess.square_name(extra[1]))


def _claim(r: Restriction) -> Any:
    from retrologic.history.query import Constraint
    return Constraint.parse(f"no-{r.side}-pawn-capture-{chess.FILE_NAMES[r.from_file]}-"
                            f"{chess.FILE_NAMES[r.to_file]}", r.expr())


def screen(pos: Position, candidates: list[Restriction], budget: Budget) -> list[Restriction]:
    """The candidates the history model of `pos` proves (one incremental solver for all)."""
    from retrologic.history.cnf import SatBackend
    from retrologic.history.query import Query
    if not candidates:
        return []
    claims = [_claim(r) for r in candidates]
    query = Query(pos, [], claims, budget)
    sat = SatBackend(query.model, budget)
    try:
        if not sat.solve(query.selectors):
            return list(candidates)         # no history at all: every claim holds
        return [r for r, c in zip(candidates, claims)
                if not sat.solve(query.selectors + [query.negated[c.name]])]
    finally:
        sat.close()


def certify(pos: Position, r: Restriction, budget: Budget) -> dict[str, Any]:
    """The deduce-drup certificate of `r` in the history model of `pos` (as deduce writes it,
    with every fact of the model in its core); RuntimeError if the model does not prove it."""
    from retrologic.certformat import FORMAT
    from retrologic.history.checker import certificate_cnf, conclusion
    from retrologic.history.clauses import dimacs
    from retrologic.history.cnf import drup_proof
    from retrologic.history.query import Query
    from retrologic.version import __version__
    claim = _claim(r)
    query = Query(pos, [], [claim], budget)
    core = list(query.model.groups.values())
    clauses, nv = certificate_cnf(query, core, claim)
    proved = drup_proof(clauses, [], budget)
    if proved is None:
        raise RuntimeError(f"the history model does not prove {r.expr()}")
    return {"type": "deduce-drup", "format": FORMAT, "retrologic": __version__,
            "fen": pos.fen(), "frozen": [], "assumptions": [],
            "claim": {"name": claim.name, "expr": claim.text},
            "core": query.names_of(core), "conclusion": conclusion(claim.name),
            "cnf": dimacs(clauses, nv), "proof": proved[1]}
