"""Static illegality proofs: facts about a single position that no game can produce.

Each check returns `Reason`s naming the rule that fired, so a verdict "illegal" always says why.
Only sound rules live here: a rule fires only on positions that are illegal in every game
(for partial positions: in every extension). Retractor 2's static cages are in static_rules.
"""

from __future__ import annotations

import chess

from retrologic.legality import pawn_columns, reachability, static_cages, tempo
from retrologic.legality.reason import Reason
from retrologic.position import Position
from retrologic.retract import LIGHT, attackers, retractions, retractors
from retrologic.vocabulary import color_name


def count_reasons(pos: Position) -> list[Reason]:
    """Unit counts: kings, pawns, units, and promoted pieces against missing pawns."""
    out = []
    pl = pos.placement
    for color in chess.COLORS:
        cm = pl.color_mask(color)
        name = color_name(color)
        kings = chess.popcount(pl.kings & cm)
        if kings > 1:
            out.append(Reason("kings", f"{name} has {kings} kings"))
        if kings == 0 and not pos.partial:
            out.append(Reason("kings", f"{name} has no king"))
        n = chess.popcount(pl.occupied & cm)
        if n > 16:
            out.append(Reason("unit-count", f"{name} has {n} units (at most 16)"))
        pawns = chess.popcount(pl.pawns & cm)
        if pawns > 8:
            out.append(Reason("pawn-count", f"{name} has {pawns} pawns (at most 8)"))
        bishops = pl.bishops & cm
        excess = {
            "queens": max(0, chess.popcount(pl.queens & cm) - 1),
            "rooks": max(0, chess.popcount(pl.rooks & cm) - 2),
            "knights": max(0, chess.popcount(pl.knights & cm) - 2),
            "light-squared bishops": max(0, chess.popcount(bishops & LIGHT) - 1),
            "dark-squared bishops": max(0, chess.popcount(bishops & ~LIGHT) - 1),
        }
        promoted = sum(excess.values())
        if pawns <= 8 and promoted > 8 - pawns:
            what = ", ".join(f"{v} extra {k}" for k, v in excess.items() if v)
            out.append(Reason("promotion-count",
                              f"{name} needs {promoted} promotions ({what}) but only "
                              f"{8 - pawns} pawns are missing"))
    back = pl.pawns & (chess.BB_RANK_1 | chess.BB_RANK_8)
    if back:
        squares = ", ".join(chess.square_name(s) for s in chess.scan_forward(back))
        out.append(Reason("pawn-on-back-rank", f"pawn on the first or last rank: {squares}"))
    return out


def check_reasons(pos: Position) -> list[Reason]:
    """Checks: the side not to move in check; three checks; two unblockable checks."""
    out = []
    pl = pos.placement
    occ = pl.occupied
    kings = {c: pl.king(c) for c in chess.COLORS}
    checked = {c: kings[c] is not None and bool(attackers(pl, kings[c], not c, occ, pos.partial))
               for c in chess.COLORS}
    if not pos.partial and pos.turn is not None and checked[not pos.turn]:
        out.append(Reason("opposite-check",
                          f"{color_name(not pos.turn)} is in check but "
                          f"{color_name(pos.turn)} is to move"))
    if checked[chess.WHITE] and checked[chess.BLACK]:
        out.append(Reason("both-in-check", "both kings are in check"))
    for c in chess.COLORS:
        k = kings[c]
        if k is None:
            continue
        if not pos.partial:
            n = chess.popcount(attackers(pl, k, not c, occ, False))
            if n > 2:
                out.append(Reason("triple-check", f"the {color_name(c)} king is attacked {n} times"))
        contact = chess.popcount(attackers(pl, k, not c, occ, True))
        if contact > 1:
            out.append(Reason("double-contact-check",
                              f"the {color_name(c)} king stands in {contact} unblockable checks: "
                              "one checker must have just moved, the other cannot be discovered"))
    return out


def state_reasons(pos: Position) -> list[Reason]:
    """Castling rights and the e.p. square must fit the placement."""
    if pos.partial:
        return []
    out = []
    board = pos.to_board()
    if board.clean_castling_rights() != pos.castling:
        out.append(Reason("castling-rights", "a castling right without its king and rook at home"))
    ep = pos.ep_square
    if ep is not None and pos.turn is not None:
        mover = not pos.turn
        step = 8 if mover == chess.WHITE else -8
        rank_ok = chess.square_rank(ep) == (2 if mover == chess.WHITE else 5)
        pawn_ok = rank_ok and pos.placement.pieces(chess.PAWN, mover) & chess.BB_SQUARES[ep + step]
        empty_ok = rank_ok and not pos.placement.occupied & (chess.BB_SQUARES[ep] | chess.BB_SQUARES[ep - step])
        if not (pawn_ok and empty_ok):
            out.append(Reason("en-passant", f"no double step can have passed {chess.square_name(ep)}"))
    return out


def retro_stalemate_reasons(pos: Position) -> list[Reason]:
    """No retraction at all: the side that moved last cannot have moved (full positions; in a
    partial one only when a king in unblockable check forces the reply and it is impossible)."""
    if pos.partial:
        pl = pos.placement
        forced = any(pl.king(c) is not None and attackers(pl, pl.king(c), not c, pl.occupied, True)
                     for c in chess.COLORS)
        if forced and not retractions(pos, uncaptures="open"):
            return [Reason("retro-stalemate", "a king stands in an unblockable check that no "
                                              "retraction can have given")]
        return []
    if pos.at_initial_array():   # the game's start (frozen units or an open side included)
        return []
    out = []
    for c in retractors(pos):
        if not retractions(pos, color=c):
            out.append(Reason("retro-stalemate",
                              f"{color_name(c)} made the last move but has no retraction"))
    if pos.turn is None and len(out) < 2:
        return []  # with the side to move open, one side without retractions proves nothing
    return out


def state_and_count_reasons(pos: Position) -> list[Reason]:
    """The rules that read the position alone: counts, checks, castling and e.p. state."""
    return count_reasons(pos) + check_reasons(pos) + state_reasons(pos)


def cage_rule_reasons(pos: Position) -> list[Reason]:
    """Retractor 2's static cages (retrologic.legality.static_cages; full positions only)."""
    return static_cages.reasons(pos)


UNREACHABLE = reachability.RULE


def reachability_reasons(pos: Position) -> list[Reason]:
    """No game from the initial array reaches the placement: the proof-game bound of a side is
    infinite (retrologic.legality.reachability; full positions the counting rules pass)."""
    return reachability.reasons(pos)


PAWN_COLUMNS = pawn_columns.RULE


def pawn_column_reasons(pos: Position) -> list[Reason]:
    """No sequence of captures and promotions turns the initial array's pawn columns into the
    position's (retrologic.legality.pawn_columns, Texel's proof kernel; full positions)."""
    return pawn_columns.reasons(pos)


TEMPO = tempo.RULE


def tempo_reasons(pos: Position) -> list[Reason]:
    """No capture ever happened and the parity of every unit's moves is known, and the side to
    move contradicts it (retrologic.legality.tempo; full positions with all 32 units)."""
    return tempo.reasons(pos)


def reasons(pos: Position) -> list[Reason]:
    """Every static reason why `pos` is illegal (empty: no static proof of illegality); the
    proof-game bound only where the counting, check and state rules find nothing, the pawn
    columns and the tempo parity only where the bound finds nothing either."""
    out = state_and_count_reasons(pos)
    if not out:
        out += retro_stalemate_reasons(pos) + reachability_reasons(pos)
    if not out:
        out += pawn_column_reasons(pos) + tempo_reasons(pos)
    return out + cage_rule_reasons(pos)
