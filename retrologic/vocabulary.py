"""The chess vocabulary every room shares: units, sides, castling, promotion types, neighbour tables.

One definition of each, so the retraction generator, the deductions and the proof-game models
speak of the same units and the same castlings (python-chess supplies squares, pieces and attacks).
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

# The pieces a pawn may promote to, strongest first (the order engines enumerate them in).
PROMOTION_TYPES: tuple[chess.PieceType, ...] = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)

# Castling, keyed by (side, rook's home square): (king's home, king's square after, rook's after).
CASTLINGS: dict[tuple[chess.Color, chess.Square], tuple[chess.Square, chess.Square, chess.Square]] = {
    (chess.WHITE, chess.H1): (chess.E1, chess.G1, chess.F1),
    (chess.WHITE, chess.A1): (chess.E1, chess.C1, chess.D1),
    (chess.BLACK, chess.H8): (chess.E8, chess.G8, chess.F8),
    (chess.BLACK, chess.A8): (chess.E8, chess.C8, chess.D8),
}

# The king-move neighbours of each square along a rank or file, and along a diagonal.
ORTHOGONAL_NEIGHBOURS: list[chess.Bitboard] = [
    chess.BB_KING_ATTACKS[s] & (chess.BB_RANK_ATTACKS[s][0] | chess.BB_FILE_ATTACKS[s][0])
    for s in chess.SQUARES]
DIAGONAL_NEIGHBOURS: list[chess.Bitboard] = [
    chess.BB_KING_ATTACKS[s] & chess.BB_DIAG_ATTACKS[s][0] for s in chess.SQUARES]

# The game array's back rank, files a..h.
BACK_RANK: tuple[chess.PieceType, ...] = (chess.ROOK, chess.KNIGHT, chess.BISHOP, chess.QUEEN,
                                          chess.KING, chess.BISHOP, chess.KNIGHT, chess.ROOK)


def side_name(color: chess.Color) -> str:
    """'White' or 'Black', as verdicts and explanations print a side."""
    return "White" if color == chess.WHITE else "Black"


def color_name(color: chess.Color) -> str:
    """'white' or 'black', as rule messages and fact names print a side inside a sentence."""
    return chess.COLOR_NAMES[color]


def castling_owner(rook: chess.Square) -> chess.Color:
    """The side a castling rook's home square belongs to (a1/h1: White, a8/h8: Black)."""
    return chess.WHITE if chess.square_rank(rook) == 0 else chess.BLACK


@dataclass(frozen=True)
class Unit:
    """An original unit of the game array: its side, its home square and its type there
    (a promoted piece stays the pawn it was: units are what captures and trajectories count)."""

    color: chess.Color
    home: chess.Square
    piece_type: chess.PieceType

    @property
    def is_pawn(self) -> bool:
        return self.piece_type == chess.PAWN

    @property
    def file(self) -> int:
        return chess.square_file(self.home)

    def name(self) -> str:
        """Short name: 'wNg1', 'bPe7'."""
        return f"{'w' if self.color else 'b'}{chess.piece_symbol(self.piece_type).upper()}" \
               f"{chess.square_name(self.home)}"

    def label(self) -> str:
        """Name for people: "White's c1-bishop", "Black's e-pawn"."""
        side = side_name(self.color)
        if self.is_pawn:
            return f"{side}'s {chess.FILE_NAMES[self.file]}-pawn"
        return f"{side}'s {chess.square_name(self.home)}-{chess.piece_name(self.piece_type)}"

    def __repr__(self) -> str:
        return f"Unit({self.name()})"


def game_array(color: chess.Color) -> list[Unit]:
    """The 16 units of one side in the initial array: pieces a..h, then pawns a..h."""
    back, pawns = (0, 1) if color == chess.WHITE else (7, 6)
    return ([Unit(color, chess.square(f, back), BACK_RANK[f]) for f in range(8)]
            + [Unit(color, chess.square(f, pawns), chess.PAWN) for f in range(8)])
