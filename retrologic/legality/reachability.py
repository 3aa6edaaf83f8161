"""Unreachable placements: no game from the initial array ends on a full position when the
proof-game bound of one side is infinite (the assignment of §10 of
shared/seeds/malikovic-spg-trajectories-coq.txt, `spg.bound`), or when its pawns need more
captures all together than the other side has units missing.

The bound asks, for each side, for one assignment of its units in the initial array to its
units in the position: pawns only forwards and changing file by captures, at most as many
captures all together as the opponent has units missing, a promoted piece from a pawn that can
reach the promotion square, units that never moved (pawns on their second rank, walled-in
pieces, a castling right's king and rook, units the problem states never moved) as
obstacles. When no assignment exists, no game has any length. The bound counts each pawn's
captures alone, so the joint count is asked too: the fewest pawn captures of any one
assignment (`pawn_captures_needed`) must fit within the captures the side makes, one per
missing unit of the other side. Together: the counting argument of the record last-move
problems (promotions and captures over many moves) in one query. The bound is
the proof-game solver's, whose soundness the admission oracle tests over the positions of
real games (tests/test_legality_reachability.py runs it on random games' positions too).

Dearer than the counting rules (a few milliseconds: the distance tables), so the last-move
search asks it only when they find nothing; the side to move and the e.p. square play no part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import chess

from retrologic.legality.reason import Reason
from retrologic.position import Position
from retrologic.vocabulary import color_name

if TYPE_CHECKING:
    from retrologic.spg.analysis import Analysis, Solver

RULE = "unreachable"


def reasons(pos: Position) -> list[Reason]:
    """[the unreachable rule] when no game from the initial array reaches `pos`'s placement (a
    full position only: a partial one leaves units out), else []."""
    if pos.partial:
        return []
    target = pos.to_board()
    if not _countable(target):
        return []
    from retrologic.spg.analysis import Analysis
    from retrologic.spg.distances import INF
    start = chess.Board()
    analysis = Analysis(start, target, extra_frozen=pos.immobile)
    if analysis.impossible:
        return [Reason(RULE, "no game reaches this position: a unit that never moved (a pawn "
                             "on its second rank, a piece on its back rank walled in by such "
                             "units) is not the unit of the initial array on that square")]
    out = []
    for color in chess.COLORS:
        missing = 16 - chess.popcount(target.occupied_co[not color])
        if analysis.bound.side_bound(start, color) >= INF:
            out.append(Reason(RULE, f"no game reaches this position: {color_name(color)}'s "
                                    f"units of the initial array cannot become its units here "
                                    f"(pawn routes, promotions, units that never moved) with "
                                    f"the {missing} captures {color_name(not color)}'s missing "
                                    f"units allow (the proof-game bound is infinite)"))
            continue
        needed = pawn_captures_needed(analysis, start, color, missing)
        if needed > missing:
            out.append(Reason(RULE, f"no game reaches this position: {color_name(color)}'s "
                                    f"pawns need at least {needed} captures all together "
                                    f"(file changes, promotions) but only {missing} "
                                    f"{color_name(not color)} "
                                    f"{'unit is' if missing == 1 else 'units are'} missing"))
    return out


def capture_column(analysis: "Analysis", color: chess.Color, utype: int, usq: int,
                   captures: int) -> tuple[int, ...]:
    """A unit's fewest pawn captures to become each of `color`'s target units, on its routes of
    at most `captures` (INF: it cannot)."""
    from retrologic.spg.distances import INF
    return tuple(min((c for _, c, _ in analysis.unit_routes(color, utype, usq, ttype, tsq,
                                                            captures)), default=INF)
                 for tsq, ttype in analysis.target_units[color])


ColumnOf = Callable[[chess.Color, int, int, int], tuple[tuple[int, ...], int]]


def pawn_captures_needed(analysis: "Analysis", board: chess.BaseBoard, color: chess.Color,
                         captures: int, column_of: ColumnOf | None = None,
                         blocks: dict | None = None,
                         solve: Solver | None = None) -> int:
    """The fewest pawn captures of any assignment of `color`'s units on `board` to its target
    units (each unit's `capture_column`; INF: none). The bound counts each pawn's captures
    alone; all together they must fit within the captures the side makes, one per missing unit
    of the other side. `column_of(color, type, square, captures)` -> (column, finite mask) and
    `blocks` (the assignment's block memo) let a caller memoise (the legal-game finder asks
    this of every position it scores), and `solve` chooses the assignment's solver (None:
    ours, `spg.assignment.hungarian`)."""
    from retrologic.spg.analysis import column_assignment, finite_mask, hungarian
    from retrologic.spg.distances import INF
    if column_of is None:
        def column_of(c: chess.Color, utype: int, usq: int, k: int) -> tuple[tuple[int, ...], int]:
            column = capture_column(analysis, c, utype, usq, k)
            return column, finite_mask(column)
    columns, masks = [], []
    for usq in chess.scan_forward(board.occupied_co[color] & ~analysis.frozen):
        column, mask = column_of(color, board.piece_type_at(usq) or 0, usq, captures)
        columns.append(column)
        masks.append(mask)
    rows = len(analysis.target_units[color])
    if len(columns) < rows:
        return INF
    return column_assignment(columns, masks, rows, blocks, solve or hungarian)


def _countable(board: chess.Board) -> bool:
    """Whether the counting rules pass the placement (one king a side, at most 16 units and 8
    pawns, no pawn on a back rank): the bound is asked about such placements only (the
    counting rules speak for the others)."""
    if board.pawns & (chess.BB_RANK_1 | chess.BB_RANK_8):
        return False
    for color in chess.COLORS:
        mask = board.occupied_co[color]
        if chess.popcount(board.kings & mask) != 1 or chess.popcount(mask) > 16 or \
                chess.popcount(board.pawns & mask) > 8:
            return False
    return True


__all__ = ["RULE", "capture_column", "pawn_captures_needed", "reasons"]
