"""The finder's distance look-ups (issue #19): how far a unit is from a square or a set of
squares, and how soon a victim can come to a capture square (the capture plan's guide,
`kernel.plan_distance`) -- a base class of `legalgame.finder.Finder` (through
`legalgame.bounds.Bounds`), split off to keep that module short; its memo tables and the
analysis are set by `Finder.__init__`.

The distances are the proof-game analysis' (`spg.analysis`: pawn maps per capture count, piece
maps with frozen units as obstacles); a piece's moves are reversible, so the distance from a
square to a piece is the piece's distance to the square. In every other try the capture plan's
guide measures a piece's way with the position's pawns standing still too (`blocked_rings`):
the maps alone put a rook on b1 one move from b8 behind its own pawn on b4, so the guide read 1
in positions where no planned capture was near and the capture search stalled there (seed 7501
of bench/legal.py, issue #19, session of 2026-11-27 23:34 UTC); each guide finds games the
other misses.
"""

from __future__ import annotations

import chess

from retrologic.spg.analysis import Analysis
from retrologic.spg.distances import INF
from retrologic.spg.maps import piece_targets

BLOCKED_MEMO = 200_000  # piece rings kept with obstacles (then the table starts afresh)


class Reach:
    """Distances, rings of squares and victims' arrivals, memoised."""

    analysis: Analysis
    frozen: int
    count: dict[chess.Color, int]
    distances: dict[tuple, int]
    ring_memo: dict[tuple, tuple[int, ...]]
    blocked_memo: dict[tuple, tuple[int, ...]]

    def captures_left(self, board: chess.BaseBoard, color: chess.Color) -> int:
        """The captures `color` still has to make (its opponent's units over the target's)."""
        return chess.popcount(board.occupied_co[not color]) - self.count[not color]

    def captures_done(self, board: chess.BaseBoard) -> bool:
        """Whether neither side has a capture left to make (the placement phase)."""
        return self.captures_left(board, chess.WHITE) <= 0 and \
            self.captures_left(board, chess.BLACK) <= 0

    def distance(self, color: chess.Color, ptype: int, frm: chess.Square, to: chess.Square,
                 captures: int) -> int:
        """Fewest moves for a unit to go from `frm` to `to` with at most `captures` captures
        (pawns: by capture count; pieces: the distance map), frozen units as obstacles."""
        key = (color, ptype, frm, to, captures)
        hit = self.distances.get(key)
        if hit is None:
            if ptype == chess.PAWN:
                maps = self.analysis.pawn_maps(color, frm)
                hit = min(maps[c][to] for c in range(min(captures, len(maps) - 1) + 1))
            else:
                hit = self.analysis.piece_map(ptype, color, frm)[to]
            self.distances[key] = hit
        return hit

    def rings(self, color: chess.Color, ptype: int, square: chess.Square,
              captures: int) -> tuple[int, ...]:
        """Per d, the squares a unit on `square` reaches in at most d moves (`distance`), as
        bitmasks: the nearest of a set of squares is the first ring that meets it."""
        key = (color, ptype, square, captures)
        hit = self.ring_memo.get(key)
        if hit is None:
            near: dict[int, int] = {}
            for to in chess.SQUARES:
                d = self.distance(color, ptype, square, to, captures)
                if d < INF:
                    near[d] = near.get(d, 0) | chess.BB_SQUARES[to]
            out, mask = [], 0
            for d in range(max(near, default=-1) + 1):
                mask |= near.get(d, 0)
                out.append(mask)
            hit = self.ring_memo[key] = tuple(out)
        return hit

    def blocked_rings(self, ptype: int, square: chess.Square, obstacles: int) -> tuple[int, ...]:
        """`rings` of a piece (knight to king) on `square` with the units on `obstacles`
        standing still: it may end a move on one (a capture) but never passes or leaves it.
        Memoised by the obstacles (a child position that moves no pawn keeps them)."""
        key = (ptype, square, obstacles)
        hit = self.blocked_memo.get(key)
        if hit is None:
            seen = frontier = chess.BB_SQUARES[square]
            out = [seen]
            while frontier:
                reached = 0
                for sq in chess.scan_forward(frontier):
                    reached |= piece_targets(ptype, sq, no_cross=obstacles)
                reached &= ~seen
                if not reached:
                    break
                seen |= reached
                out.append(seen)
                frontier = reached & ~obstacles
            if len(self.blocked_memo) > BLOCKED_MEMO:
                self.blocked_memo.clear()
            hit = self.blocked_memo[key] = tuple(out)
        return hit

    def nearest(self, color: chess.Color, ptype: int, square: chess.Square, captures: int,
                squares: int, below: int, obstacles: int | None = None) -> int:
        """Fewest moves of a unit on `square` to one of `squares` (`below` or more: `below`);
        with `obstacles`, a piece's moves are `blocked_rings` (a pawn's stay the maps')."""
        if obstacles is not None and ptype != chess.PAWN:
            rings = self.blocked_rings(ptype, square, obstacles)
        else:
            rings = self.rings(color, ptype, square, captures)
        for d, ring in enumerate(rings):
            if d >= below:
                break
            if ring & squares:
                return d
        return below

    def victim_arrival(self, color: chess.Color, square: chess.Square,
                       pieces: list[tuple[int, int]], foe_pawns: list[chess.Square],
                       cap: int, obstacles: int | None = None) -> int:
        """The fewest moves of one of `color`'s victims (the foe `pieces` by type, the foe pawns)
        to `square`, where a unit of `color` will capture it; at most `cap` (no better found).
        `obstacles`: as `nearest` (a piece's way with them standing is the same both ways)."""
        come = cap
        for ptype, mask in pieces:
            come = self.nearest(not color, ptype, square, 0, mask, come, obstacles)
        for v in foe_pawns:
            come = min(come, self.distance(not color, chess.PAWN, v, square, 0))
        return come

    @staticmethod
    def by_type(board: chess.BaseBoard, mask: int) -> list[tuple[int, int]]:
        """(piece type, the squares of `mask` holding one) for each type present."""
        out = []
        for ptype, bb in ((chess.PAWN, board.pawns), (chess.KNIGHT, board.knights),
                          (chess.BISHOP, board.bishops), (chess.ROOK, board.rooks),
                          (chess.QUEEN, board.queens), (chess.KING, board.kings)):
            if bb & mask:
                out.append((ptype, bb & mask))
        return out


__all__ = ["Reach"]
