"""Distance maps shared by every analysis of a process (§5 of
shared/seeds/malikovic-spg-trajectories-coq.txt, the MAP function, with frozen units as
obstacles, §7). A map depends only on the frozen squares its unit can ever meet: a bishop's
squares of its own colour, a pawn's forward cone. Keyed by those, the many analyses of the
legal-game finder (one per set of walls, issue #19) compute each map once instead of once per
analysis: on a 31-ply target (seed 30694) half the piece maps and more than nine in ten pawn
sweeps were repeats."""

from __future__ import annotations

from functools import cache, lru_cache

import chess

from retrologic.spg import trajectory

PIECE_MAPS = 1 << 14   # piece maps kept (64 entries each), the least recently used dropped first
PAWN_SWEEPS = 1 << 11  # pawn sweeps kept (7 maps each)


@cache
def cone(color: chess.Color, square: chess.Square) -> int:
    """The squares a pawn of `color` on `square` can ever step to: ahead of it, at most one
    file aside per rank gained (every square its pushes, double steps and captures look at).
    Made on first use, not at import (the proof-game solver's start-up, issue #22)."""
    file, rank = chess.square_file(square), chess.square_rank(square)
    out = 0
    for sq in chess.SQUARES:
        ahead = chess.square_rank(sq) - rank if color == chess.WHITE else \
            rank - chess.square_rank(sq)
        if ahead > 0 and abs(chess.square_file(sq) - file) <= ahead:
            out |= chess.BB_SQUARES[sq]
    return out


def piece_map(piece_type: int, square: chess.Square, frozen: int, unreachable: int) -> tuple:
    """`trajectory.piece_map` among `frozen` units, shared: a bishop's map is keyed by the
    frozen squares of its colour only."""
    if piece_type == chess.BISHOP:
        same = chess.BB_LIGHT_SQUARES if chess.BB_SQUARES[square] & chess.BB_LIGHT_SQUARES \
            else chess.BB_DARK_SQUARES
        frozen &= same
    return _piece_map(piece_type, square, frozen, unreachable)


def pawn_sweep(color: chess.Color, square: chess.Square, frozen: int,
               unreachable: int) -> tuple:
    """`trajectory.pawn_sweep` among `frozen` units, shared: keyed by the frozen squares of the
    pawn's forward cone only."""
    return _pawn_sweep(color, square, frozen & cone(color, square), unreachable)


@lru_cache(maxsize=PIECE_MAPS)
def _piece_map(piece_type: int, square: chess.Square, frozen: int, unreachable: int) -> tuple:
    """`piece_map` computed (a pure function of its arguments)."""
    return trajectory.piece_map(piece_type, square, frozen, unreachable)


@lru_cache(maxsize=PAWN_SWEEPS)
def _pawn_sweep(color: chess.Color, square: chess.Square, frozen: int,
                unreachable: int) -> tuple:
    """`pawn_sweep` computed (a pure function of its arguments)."""
    return trajectory.pawn_sweep(color, square, frozen, unreachable)
