"""The order in which a target's pieces must settle: the doors of its cages (issue #19).

A region closed by the target's own units (Hwa's cages, shared/seeds: the Brandis corner a1 b1
a2 b2 c2 d1 d2 e2) has doors: a unit deep inside must enter before the units that close the way
behind it arrive. The order is found by *peeling* the target backwards: a piece whose square
opens onto the board (moving as its own type, backwards, through squares no remaining target
unit stands on, it reaches at least `OPEN` squares) may be the last to arrive; it is taken off
and the rest peeled again. The layers, reversed, are the settle order: every piece of a layer
can still arrive when the layers before it stand. Pawns are not peeled (they cannot walk back;
the capture phase places them) but block, and a king never crosses a square an enemy pawn of
the target attacks; frozen units block and never move.

It is a plan, not a proof: moving units and captures are ignored. The plan finder uses it only
to guide its search; what it finds is replayed by python-chess.
"""

from __future__ import annotations

import chess

from retrologic.spg.maps import piece_targets

OPEN = 12   # squares a piece must reach backwards from its target square to count as open


def reach(piece_type: int, square: chess.Square, occupied: int, barred: int = 0) -> int:
    """The squares a piece of `piece_type` on `square` reaches in any number of moves through
    empty squares (`occupied` blocks; `barred` squares it may not stand on, the square itself
    excluded). Pieces move the same way backwards as forwards, so this is also where it may
    have come from."""
    if piece_type == chess.PAWN:
        return 0        # pawns are not walked (they cannot go back)
    seen = chess.BB_SQUARES[square]
    frontier = [square]
    while frontier:
        attacks = piece_targets(piece_type, frontier.pop(), no_cross=occupied)
        new = attacks & ~occupied & ~barred & ~seen
        seen |= new
        frontier.extend(chess.scan_forward(new))
    return seen & ~chess.BB_SQUARES[square]


def pawn_attacks(board: chess.BaseBoard, color: chess.Color) -> int:
    """The squares `color`'s pawns on `board` attack."""
    pawns = board.pawns & board.occupied_co[color]
    if color == chess.WHITE:
        return ((pawns & ~chess.BB_FILE_A) << 7 | (pawns & ~chess.BB_FILE_H) << 9) & chess.BB_ALL
    return (pawns & ~chess.BB_FILE_A) >> 9 | (pawns & ~chess.BB_FILE_H) >> 7


def settle_layers(target: chess.BaseBoard, frozen: int = 0) -> list[list[chess.Square]]:
    """The target's pieces (not pawns, not `frozen` units) in layers, the first to settle
    first: each layer's pieces open onto the board once the later layers are taken off.
    Pieces that never open (a closed cage) form the first layer."""
    remaining = [sq for sq in chess.scan_forward(target.occupied & ~target.pawns & ~frozen)]
    occupied = target.occupied
    # a king never stands where an enemy pawn of the target attacks (pawns are not peeled)
    barred = {color: pawn_attacks(target, not color) for color in chess.COLORS}
    peeled: list[list[chess.Square]] = []
    while remaining:
        layer = []
        for sq in remaining:
            piece = target.piece_at(sq)
            assert piece is not None
            bar = barred[piece.color] if piece.piece_type == chess.KING else 0
            if chess.popcount(reach(piece.piece_type, sq, occupied, bar)) >= OPEN:
                layer.append(sq)
        if not layer:
            peeled.append(remaining)
            break
        peeled.append(layer)
        for sq in layer:
            occupied &= ~chess.BB_SQUARES[sq]
        remaining = [sq for sq in remaining if sq not in layer]
    return peeled[::-1]


__all__ = ["OPEN", "pawn_attacks", "reach", "settle_layers"]
