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
"""

from __future__ import annotations

from typing import NamedTuple

import chess


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
    occupied = board.occupied
    return any(not line.between & occupied and board.piece_at(line.square) == line.piece
               for line in lines)


__all__ = ["CheckLine", "check_lines", "early_check"]
