"""The schedule model's geometry: the steps a unit can make and the placements that attack a
square, on a board whose only obstacles are the frozen units ("walls"); the model decides with
its own literals which squares are empty when a step is made (spg/schedule.py).
"""

from __future__ import annotations

import chess

from retrologic.vocabulary import PROMOTION_TYPES

State = tuple[int, int]  # (square, piece type): a pawn that promotes changes type
PROMOTIONS = PROMOTION_TYPES  # a pawn's steps onto its last rank, one per type, in this order
# the kinds of step: a pawn's push, double step or diagonal take; any move of a piece; castling
PUSH, DOUBLE, TAKE, ANY, CASTLING = "push", "double", "take", "any", "castle"

SLIDERS = {chess.BISHOP: (chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS),
           chess.ROOK: (chess.BB_RANK_ATTACKS, chess.BB_RANK_MASKS),
           "file": (chess.BB_FILE_ATTACKS, chess.BB_FILE_MASKS)}


def slides(piece_type: int, square: int, walls: int) -> int:
    """Squares a bishop, rook or queen on `square` reaches with `walls` occupied (walls included
    where they stop a line)."""
    out = 0
    lines = []
    if piece_type in (chess.BISHOP, chess.QUEEN):
        lines.append(SLIDERS[chess.BISHOP])
    if piece_type in (chess.ROOK, chess.QUEEN):
        lines += [SLIDERS[chess.ROOK], SLIDERS["file"]]
    for attacks, masks in lines:
        out |= attacks[square][masks[square] & walls]
    return out


def steps(state: State, color: chess.Color, walls: int) -> list[tuple[State, str]]:
    """The geometric steps of a unit in `state`: (next state, kind), never onto or across a
    wall (a frozen unit). Kinds: push / double (pawn, onto empty squares), take (pawn, a capture
    or e.p.), any (a piece: onto an empty square or an enemy)."""
    square, ptype = state
    out: list[tuple[State, str]] = []
    if ptype == chess.PAWN:
        fwd = 8 if color == chess.WHITE else -8
        rank = chess.square_rank(square)
        last = 7 if color == chess.WHITE else 0

        def add(to: int, kind: str) -> None:
            if chess.square_rank(to) == last:
                out.extend(((to, p), kind) for p in PROMOTIONS)
            else:
                out.append(((to, chess.PAWN), kind))

        one = square + fwd
        if not walls & chess.BB_SQUARES[one]:
            add(one, PUSH)
            home = 1 if color == chess.WHITE else 6
            if rank == home and not walls & chess.BB_SQUARES[one + fwd]:
                add(one + fwd, DOUBLE)
        for to in chess.scan_forward(chess.BB_PAWN_ATTACKS[color][square] & ~walls):
            add(to, TAKE)
        return out
    if ptype == chess.KNIGHT:
        reach = chess.BB_KNIGHT_ATTACKS[square]
    elif ptype == chess.KING:
        reach = chess.BB_KING_ATTACKS[square]
    else:
        reach = slides(ptype, square, walls)
    return [((to, ptype), ANY) for to in chess.scan_forward(reach & ~walls)]


def attackers_of(king: int, walls: int) -> list[tuple[int, int, int]]:
    """(square, piece type, squares between) of every enemy placement that attacks `king` when
    the squares between are empty; pawns are listed per colour by the caller."""
    out = []
    for sq in chess.scan_forward(chess.BB_KNIGHT_ATTACKS[king]):
        out.append((sq, chess.KNIGHT, 0))
    for sq in chess.scan_forward(chess.BB_KING_ATTACKS[king]):
        out.append((sq, chess.KING, 0))
    for ptype in (chess.BISHOP, chess.ROOK):
        for sq in chess.scan_forward(slides(ptype, king, walls) & ~walls):
            between = chess.between(king, sq)
            out.append((sq, ptype, between))
            out.append((sq, chess.QUEEN, between))
    return out
