"""A target whose side to move stands in check: the check came with the last move (issue #19).

A unit that checks the target's king from its target square, along an open line, in a
position of the game that is not the target, is there too early: with the king on its own
target square that king must answer the check at once (so the king or the checker, or a unit
stepping between, still has to move away and back), and with the king elsewhere the king can
never step onto its square while the checker covers it. The finder's guides
(`legalgame.finder.Finder.guide`, in the capture searches and the placement search alike) count
two more moves for such a position, as the placement guide counts two for a placed piece that
has to step aside (Malikovic §7's obstruction split); a heuristic of the guides, never a bound.
Measured on the 279 targets in check (by a piece) among seeds 28100-31299 of bench/legal.py at
10 s (bench/README-legal.md, 2026-12-02 06:20 UTC), beside the code before in one run: 262
against 259 found, the median CPU of the 256 found by both 1.93 s against 2.62 s.

The placement guide also counts the checker's way round (`late_arrival`): while the king has
not reached its square, the checker's unit must wait on a square that does not cover it, so a
unit that stands in the king's way, or can reach its square only by covering the king's, goes
round (seed 79597); and a checker there too early is not among the pieces the guide holds on
their target squares (Malikovic §7's obstruction split, `Finder.placement_moves`).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import chess

from retrologic.retract import unit_attacks
from retrologic.spg.distances import INF

MEMO_SIZE = 50_000  # `late_arrival`'s figures kept at most (then the memo starts afresh)
# moves of a piece type between two squares (`spg.distances.Distances.piece_distance`)
Distance = Callable[[int, chess.Color, chess.Square, chess.Square], int]


class CheckLine(NamedTuple):
    """One checker of the target: its square, its unit, and the squares strictly between it
    and the checked king's square (empty for a knight or a pawn)."""

    square: chess.Square
    piece: chess.Piece
    between: int


def check_lines(target: chess.Board) -> tuple[CheckLine, ...]:
    """The units that give the target's side to move check, with their lines to its king."""
    king = target.king(target.turn)
    if king is None:
        return ()
    lines = []
    for square in chess.scan_forward(target.checkers_mask()):
        piece = target.piece_at(square)
        assert piece is not None
        lines.append(CheckLine(square, piece, chess.between(square, king)))
    return tuple(lines)


def early_check(board: chess.BaseBoard, lines: tuple[CheckLine, ...]) -> bool:
    """Whether some checker of the target already stands on its square in `board` with its
    line to the king's target square open (the caller asks it of positions that are not the
    target)."""
    return bool(early_checkers(board, lines))


def early_checkers(board: chess.BaseBoard, lines: tuple[CheckLine, ...]) -> int:
    """The squares of the checkers of the target that stand there too early (`early_check`)."""
    occupied, mask = board.occupied, 0
    for line in lines:
        if not line.between & occupied and board.piece_at(line.square) == line.piece:
            mask |= chess.BB_SQUARES[line.square]
    return mask


def late_arrival(board: chess.BaseBoard, lines: tuple[CheckLine, ...], king: chess.Square,
                 frozen: int, distance: Distance, memo: dict[tuple, int]) -> int:
    """The moves a piece checker of the target needs beyond its way to its square when the
    checked king still has to reach `king`, its target square: the king can step there only
    while no unit of the checker's side covers it, so the checker's unit stands on a square
    that does not cover `king` then (not `king` itself) and comes to its square after (seed
    79597: a bishop on g8 that must give Bf7+ to a king on g7 leaves by f7 and e8 and comes
    back, three moves where the bound counts one). As in the bound's `distance`, only the
    `frozen` units stand in the way (so the squares covering `king` are those of an open
    line); both ways are the least over the units of the checker's type. 0 when the king
    is there, when a unit stands between the checker's square and the king's (a
    discovered check may come), and for a pawn's check (the finders go through its
    predecessors, `last_move.checked_by_pawn`). A heuristic of the placement guide, never a
    bound; `memo` keeps each line's figure by the squares of the checker's type's units."""
    extra = 0
    for line in lines:
        piece_type, color = line.piece.piece_type, line.piece.color
        if piece_type == chess.PAWN or line.between & board.occupied or \
                board.kings & board.occupied_co[not color] & chess.BB_SQUARES[king]:
            continue
        units = board.pieces_mask(piece_type, color)
        key = (line.square, piece_type, color, units)
        hit = memo.get(key)
        if hit is None:
            if len(memo) > MEMO_SIZE:
                memo.clear()
            # a piece's attacks are symmetric: the squares covering `king` are its attacks there
            covering = unit_attacks(piece_type, color, king, frozen, False)
            free = ~covering & ~chess.BB_SQUARES[king] & chess.BB_ALL
            straight = via = INF
            for unit in chess.scan_forward(units):
                straight = min(straight, distance(piece_type, color, unit, line.square))
                for square in chess.scan_forward(free):
                    via = min(via, distance(piece_type, color, unit, square)
                              + distance(piece_type, color, square, line.square))
            hit = memo[key] = via - straight if straight < INF and via < INF else 0
        extra = max(extra, hit)
    return extra


__all__ = ["CheckLine", "Distance", "check_lines", "early_check", "early_checkers", "late_arrival"]
