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

Where the peeling is stuck, `settle_steps` goes on: a *door* pawn steps back one square (the
knight f8 of Ceriani 1951 came in over g6 before g7-g6: the pawn must wait), or the stuck
pieces are *shuffled* back by the fewest retracted moves that let one of them out (the rook
e8 before Re8-e7 and Kf8-e8); each event is a goal of the plan finder's staged search.

It is a plan, not a proof: moving units and captures are ignored. The plan finder uses it only
to guide its search; what it finds is replayed by python-chess.
"""

from __future__ import annotations

import chess

from retrologic.spg.maps import piece_targets

OPEN = 12   # squares a piece must reach backwards from its target square to count as open
SHUFFLE_PLIES = 4       # retracted moves at most to open a stuck cage (`settle_steps`)
SHUFFLE_STATES = 5_000  # cage configurations looked at, at most


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


def _opening(pieces: dict[chess.Square, chess.Piece], occupied: int,
             barred: dict[bool, int]) -> list[chess.Square]:
    """The squares of `pieces` whose piece reaches OPEN squares backwards (`reach`)."""
    out = []
    for sq, piece in pieces.items():
        bar = barred[piece.color] if piece.piece_type == chess.KING else 0
        if chess.popcount(reach(piece.piece_type, sq, occupied, bar)) >= OPEN:
            out.append(sq)
    return out


def _shuffle(pieces: dict[chess.Square, chess.Piece], occupied: int, barred: dict[bool, int]
             ) -> list[tuple[chess.Square, chess.Square]] | None:
    """The fewest retracted moves (at most SHUFFLE_PLIES; each piece back as its own type to an
    empty square) of the stuck `pieces` after which one of them opens, as (from, to) pairs
    in retraction order; None when there are none."""
    start = tuple(sorted(pieces.items()))
    seen = {start}
    frontier: list[tuple[tuple, int, list]] = [(start, occupied, [])]
    for _ in range(SHUFFLE_PLIES):
        nxt = []
        for state, occ, line in frontier:
            for sq, piece in state:
                bar = barred[piece.color] if piece.piece_type == chess.KING else 0
                for to in chess.scan_forward(piece_targets(piece.piece_type, sq, no_cross=occ)
                                             & ~occ & ~bar):
                    moved = tuple(sorted((to if s == sq else s, p) for s, p in state))
                    if moved in seen or len(seen) > SHUFFLE_STATES:
                        continue
                    seen.add(moved)
                    after = occ & ~chess.BB_SQUARES[sq] | chess.BB_SQUARES[to]
                    if _opening(dict(moved), after, barred):
                        return line + [(sq, to)]
                    nxt.append((moved, after, line + [(sq, to)]))
        frontier = nxt
    return None


def settle_steps(target: chess.BaseBoard, frozen: int = 0
                 ) -> list[tuple[dict[chess.Square, chess.Piece], int]]:
    """The settle plan as a list of goals, first first: (the pieces, and the pawns that
    stepped, each on the square it holds then; the squares of the pawns that must not move
    yet). The target is peeled backwards as in `settle_layers`; where the peeling is stuck, a
    *door* pawn is stepped back one square (the one that opens the most pieces), or else the
    stuck pieces are *shuffled* back (`_shuffle`: the fewest retracted moves after which one
    opens). Each event of the peeling is one goal forward: the state before it.

    Ceriani 1951 before Kg8xQh8 (3bkNKq/pppprp1p/4p1p1/8/8/8/8/8 w), forward: the rook e8 and
    the bishop d8 (the king out over e7), the king back to f8 over e7, Re8-e7, Kf8-e8, the
    knight f8 over g6 while the g-pawn waits on g7, g7-g6, then Kg8 and Qh8. Issue #19:
    without the doors and shuffles Re7, Bd8, Ke8 and Nf8 were one closed layer searched at
    once and g7-g6 unordered; no game was found."""
    pieces = {sq: p for sq in chess.scan_forward(target.occupied & ~target.pawns & ~frozen)
              if (p := target.piece_at(sq)) is not None}
    pawns = {sq: p for sq in chess.scan_forward(target.pawns & ~frozen)
             if (p := target.piece_at(sq)) is not None}
    occupied = target.occupied
    barred = {color: pawn_attacks(target, not color) for color in chess.COLORS}
    origin = {sq: sq for sq in pawns}     # a pawn's square now -> its square in the target
    states: list[tuple[dict[chess.Square, chess.Piece], dict[chess.Square, chess.Square]]] = []

    def snapshot() -> None:
        state = (dict(pieces), dict(origin))
        if not states or states[-1] != state:
            states.append(state)

    while pieces:
        snapshot()
        layer = _opening(pieces, occupied, barred)
        if layer:
            for sq in layer:
                occupied &= ~chess.BB_SQUARES[sq]
                del pieces[sq]
            continue
        best: tuple[int, chess.Square, chess.Square] | None = None
        for sq, piece in pawns.items():
            home = 1 if piece.color == chess.WHITE else 6
            behind = sq - 8 if piece.color == chess.WHITE else sq + 8
            if chess.square_rank(sq) == home or occupied & chess.BB_SQUARES[behind]:
                continue        # at home (never behind it: pawns stand on ranks 2-7)
            opened = len(_opening(pieces, occupied & ~chess.BB_SQUARES[sq]
                                  | chess.BB_SQUARES[behind], barred))
            if opened and (best is None or opened > best[0]):
                best = (opened, sq, behind)
        if best is not None:
            _, sq, behind = best
            occupied = occupied & ~chess.BB_SQUARES[sq] | chess.BB_SQUARES[behind]
            pawns[behind] = pawns.pop(sq)
            origin[behind] = origin.pop(sq)
            continue
        line = _shuffle(pieces, occupied, barred)
        if line is None:
            break                               # a closed cage: the first goal
        for number, (sq, to) in enumerate(line):
            if number:
                snapshot()
            occupied = occupied & ~chess.BB_SQUARES[sq] | chess.BB_SQUARES[to]
            pieces[to] = pieces.pop(sq)
    # the door pawns (stepped at least once) stand in every goal on their square then, and
    # wait while that is not their target square
    doors = {origin[sq] for sq in origin if origin[sq] != sq}
    steps = []
    for placed, where in states[::-1]:
        goal, hold = dict(placed), 0
        for sq, home in where.items():
            if home in doors:
                goal[sq] = target.piece_at(home)   # type: ignore[assignment]
                if sq != home:
                    hold |= chess.BB_SQUARES[sq]
        steps.append((goal, hold))
    return steps


__all__ = ["OPEN", "pawn_attacks", "reach", "settle_layers", "settle_steps"]
