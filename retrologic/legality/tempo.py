"""Tempo parity: in a game without captures, where every unit's number of moves has a known
parity, the side to move is fixed by the position.

The classic retro argument ("the initial array with Black to move is illegal": knights need an
even number of moves to come home, and nothing else of either side can have moved). Sound for
full positions in which both sides have all 16 units and 8 pawns, so that no capture and no
promotion ever happened and every unit of the diagram is the unit of the initial array that
started on its file or home square:
- a pawn on its second rank never moved, one on its third rank moved exactly once; any other
  pawn (a double step or two single steps) leaves the parity open and the rule says nothing;
- *walls*: the pawns that never moved, the units the position says never moved (castling
  rights, frozen units), and, to a fixpoint, pieces that no move can take off their home square
  between walls; none of them leaves its square in the whole game;
- every other piece stays in the *region* its moves reach from its home square between the
  walls (a superset of the squares it visits); when the graph of its moves inside that region
  is bipartite, each move crosses between the two classes, so the parity of the moves of the
  pieces of one type in one region is the sum of their home squares' classes and their
  diagram squares' classes, whichever piece ended where; a region that is not bipartite (a
  rook on three squares of a rank) leaves the parity open;
- castling (two units in one move) must be impossible: its king, its rook or a square between
  them is a wall.
White has made as many moves as Black with White to move, one more with Black to move, so the
two sides' parities must add up to 1 exactly when Black is to move.
"""

from __future__ import annotations

import chess

from retrologic.legality.reason import Reason
from retrologic.spg.maps import piece_targets
from retrologic.position import Position

RULE = "tempo-parity"

HOMES: dict[chess.Color, tuple[tuple[int, int], ...]] = {
    color: tuple((ptype, chess.square(f, 0 if color else 7))
                 for f, ptype in enumerate((chess.ROOK, chess.KNIGHT, chess.BISHOP, chess.QUEEN,
                                            chess.KING, chess.BISHOP, chess.KNIGHT, chess.ROOK)))
    for color in chess.COLORS}

# (king square, rook square, squares that must be empty) of each castling
CASTLINGS = ((chess.E1, chess.H1, chess.BB_F1 | chess.BB_G1),
             (chess.E1, chess.A1, chess.BB_B1 | chess.BB_C1 | chess.BB_D1))


def moves_from(ptype: int, square: int, walls: int) -> int:
    """The squares a piece of this type moves to from `square` when only `walls` are occupied
    (every move it has in any position whose occupied squares include the walls)."""
    return piece_targets(ptype, square, no_entry=walls, no_cross=walls)


def region_classes(ptype: int, home: int, walls: int) -> dict[int, int] | None:
    """The squares a piece reaches from `home` between the walls, each with its class of the
    bipartition of the piece's move graph there (home: 0), or None when that graph has an odd
    cycle (the parity of its moves is open)."""
    classes = {home: 0}
    todo = [home]
    while todo:
        sq = todo.pop()
        for to in chess.scan_forward(moves_from(ptype, sq, walls)):
            if to not in classes:
                classes[to] = classes[sq] ^ 1
                todo.append(to)
            elif classes[to] == classes[sq]:
                return None
    return classes


def _walls(pos: Position) -> int | None:
    """The squares occupied during the whole game (see the module docstring), or None when a
    piece that cannot have moved is not on its home square (other rules answer that)."""
    pl = pos.placement
    walls = (pl.pawns & pl.color_mask(chess.WHITE) & chess.BB_RANK_2) | \
        (pl.pawns & pl.color_mask(chess.BLACK) & chess.BB_RANK_7) | pos.immobile
    changed = True
    while changed:
        changed = False
        for color in chess.COLORS:
            for ptype, home in HOMES[color]:
                if walls & chess.BB_SQUARES[home] or moves_from(ptype, home, walls):
                    continue
                if pl.piece_at(home) != chess.Piece(ptype, color):
                    return None
                walls |= chess.BB_SQUARES[home]
                changed = True
    return walls


def side_parity(pos: Position, color: chess.Color, walls: int) -> int | None:
    """The parity of `color`'s number of moves in every game reaching `pos`, or None when the
    rule cannot tell (a pawn beyond its third rank, a region with an odd cycle, a castling)."""
    pl = pos.placement
    mine = pl.color_mask(color)
    for king, rook, between in CASTLINGS:
        if color == chess.BLACK:
            king, rook, between = (chess.square_mirror(king), chess.square_mirror(rook),
                                   chess.flip_vertical(between))
        if not walls & (chess.BB_SQUARES[king] | chess.BB_SQUARES[rook] | between):
            return None
    second, third = (chess.BB_RANK_2, chess.BB_RANK_3) if color else (chess.BB_RANK_7,
                                                                        chess.BB_RANK_6)
    pawns = pl.pawns & mine
    if pawns & ~(second | third):
        return None
    parity = chess.popcount(pawns & third)
    done: set[tuple[int, int]] = set()
    for ptype, home in HOMES[color]:
        if walls & chess.BB_SQUARES[home] or (ptype, home) in done:
            continue
        classes = region_classes(ptype, home, walls)
        if classes is None:
            return None
        homes = [h for t, h in HOMES[color] if t == ptype and h in classes]
        done.update((ptype, h) for h in homes)
        ends = [sq for sq in chess.scan_forward(pl.pieces(ptype, color)) if sq in classes]
        if len(ends) != len(homes):
            return None             # a unit outside its region: not this rule's to say
        parity += sum(classes[h] for h in homes) + sum(classes[e] for e in ends)
    return parity % 2


def reasons(pos: Position) -> list[Reason]:
    """[the tempo-parity rule] when the side to move contradicts the parities of the two sides'
    moves (full positions with all 32 units), else []."""
    pl = pos.placement
    if pos.partial or pos.turn is None:
        return []
    for color in chess.COLORS:
        if chess.popcount(pl.color_mask(color)) != 16 or \
                chess.popcount(pl.pawns & pl.color_mask(color)) != 8:
            return []
    walls = _walls(pos)
    if walls is None:
        return []
    parities = [side_parity(pos, color, walls) for color in (chess.WHITE, chess.BLACK)]
    if None in parities:
        return []
    white, black = parities
    if (white + black) % 2 == (pos.turn == chess.BLACK):    # type: ignore[operator]
        return []
    turn = "Black" if pos.turn == chess.BLACK else "White"
    return [Reason(RULE, f"no capture was ever made and every unit's number of moves has a "
                         f"known parity (White's {'odd' if white else 'even'}, Black's "
                         f"{'odd' if black else 'even'}), so {turn} cannot be to move")]
