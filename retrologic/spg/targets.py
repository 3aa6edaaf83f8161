"""What the proof game's target fixes before any search (§4 of
shared/seeds/malikovic-spg-trajectories-coq.txt, the starting state; Euclide's preliminary
analysis): the units that provably never move (unmovable obstacles, §7), the target units each
side's units must become, and the units already standing where the target wants them."""

from __future__ import annotations

from dataclasses import dataclass

import chess

from retrologic.vocabulary import DIAGONAL_NEIGHBOURS, ORTHOGONAL_NEIGHBOURS

BACK_RANK = {chess.WHITE: chess.BB_RANK_1, chess.BLACK: chess.BB_RANK_8}
PAWN_HOME = {chess.WHITE: chess.BB_RANK_2, chess.BLACK: chess.BB_RANK_7}

# a side's target units: (square, piece type) of each, the frozen ones left out
TargetUnits = list[tuple[chess.Square, chess.PieceType]]
# units on a board: (square, piece type) of each
Units = list[tuple[chess.Square, chess.PieceType]]


def frozen_attacks(target: chess.BaseBoard, frozen: int, color: chess.Color) -> int:
    """Squares `color`'s frozen units (on `frozen`, as in `target`) attack whatever else stands
    where: a pawn's, a knight's and a king's attacks, and a line piece's neighbours along its
    lines. The other side's king never steps there (it would stand in check from a unit that
    never moves nor is captured), so its distance maps take them as walls (issue #19: a king
    shut out of its target's corner by settled pawns' attacks)."""
    out = 0
    for sq in chess.scan_forward(frozen & target.occupied_co[color]):
        kind = target.piece_type_at(sq)
        # a piece's contact attacks are the squares a move of its type arrives from
        out |= chess.BB_PAWN_ATTACKS[color][sq] if kind == chess.PAWN else \
            arrival_squares(kind, sq)
    return out


def units_on(board: chess.BaseBoard, mask: int) -> Units:
    """(square, piece type) of the units of `board` on `mask` (occupied squares), in square
    order."""
    type_at = board.piece_type_at
    return [(sq, type_at(sq) or 0) for sq in chess.scan_forward(mask)]


def arrival_squares(piece_type: int, square: chess.Square) -> int:
    """Squares a move of this piece type must come from or cross last to arrive on `square`."""
    if piece_type == chess.KNIGHT:
        return chess.BB_KNIGHT_ATTACKS[square]
    if piece_type == chess.BISHOP:
        return DIAGONAL_NEIGHBOURS[square]
    if piece_type == chess.ROOK:
        return ORTHOGONAL_NEIGHBOURS[square]
    return chess.BB_KING_ATTACKS[square]  # queen, king (castling passes a neighbour too)


def frozen_units(start: chess.BaseBoard, target: chess.BaseBoard) -> tuple[int, bool]:
    """Units that stand still for the whole game, and whether the target is plainly unreachable.

    A target pawn on its 2nd rank never moved (pawns only advance). A target piece on its own back
    rank whose every arrival square holds such a unit never moved either (its last arrival would
    have come through one; no promotion lands there); repeated to a fixpoint. A unit that never
    moved must stand on the same square in `start`, else no game exists.
    """
    frozen, impossible = 0, False
    for color in chess.COLORS:
        pawns = target.pieces_mask(chess.PAWN, color) & PAWN_HOME[color]
        for sq in chess.scan_forward(pawns):
            if start.piece_at(sq) != target.piece_at(sq):
                impossible = True
            frozen |= chess.BB_SQUARES[sq]
    changed = True
    while changed:
        changed = False
        for color in chess.COLORS:
            for sq in chess.scan_forward(target.occupied_co[color] & BACK_RANK[color] & ~frozen):
                piece = target.piece_at(sq)
                if piece is None or piece.piece_type == chess.PAWN:
                    continue
                if arrival_squares(piece.piece_type, sq) & ~frozen:
                    continue
                if start.piece_at(sq) != piece:
                    impossible = True
                frozen |= chess.BB_SQUARES[sq]
                changed = True
    return frozen, impossible


@dataclass(frozen=True, eq=False)
class Targets:
    """The start, the target, and what follows from them alone (see `of`)."""

    start: chess.Board
    target: chess.BaseBoard
    frozen: int
    """Units that never move nor are captured: structurally frozen, plus any assumed so."""
    impossible: bool
    """The target is plainly unreachable (a frozen unit missing from the start, a king missing)."""
    units: dict[chess.Color, TargetUnits]
    """Per side, its target units not frozen: the rows of the bound's assignment."""
    count: dict[chess.Color, int]
    """Per side, how many units it has in the target (frozen ones too)."""
    home: int
    """Units the start and the target agree on (not frozen): the anchored units of the start."""
    king_walls: dict[chess.Color, int]
    """Per side, the squares its king never enters: attacked by the other side's frozen units
    (`frozen_attacks`)."""

    @classmethod
    def of(cls, start: chess.Board, target: chess.BaseBoard, extra_frozen: int = 0) -> "Targets":
        """The targets of a game from `start` to `target`, the units on `extra_frozen` (units
        of the target, standing where it has them) assumed never to move nor be captured."""
        frozen, impossible = frozen_units(start, target)
        frozen |= extra_frozen
        units: dict[chess.Color, TargetUnits] = {}
        count: dict[chess.Color, int] = {}
        for color in chess.COLORS:
            units[color] = units_on(target, target.occupied_co[color] & ~frozen)
            count[color] = chess.popcount(target.occupied_co[color])
        if target.kings & target.occupied_co[chess.WHITE] == 0 or \
                target.kings & target.occupied_co[chess.BLACK] == 0:
            impossible = True
        king_walls = {color: frozen_attacks(target, frozen, not color) for color in chess.COLORS}
        return cls(start, target, frozen, impossible, units, count,
                   anchored(target, frozen, start), king_walls)


def anchored(target: chess.BaseBoard, frozen: int, board: chess.BaseBoard) -> int:
    """Units of `board` (not frozen) standing on a target square of their own colour and type."""
    t = target
    same = ((board.pawns & t.pawns) | (board.knights & t.knights) | (board.bishops & t.bishops)
            | (board.rooks & t.rooks) | (board.queens & t.queens) | (board.kings & t.kings))
    side = ((board.occupied_co[chess.WHITE] & t.occupied_co[chess.WHITE])
            | (board.occupied_co[chess.BLACK] & t.occupied_co[chess.BLACK]))
    return same & side & ~frozen
