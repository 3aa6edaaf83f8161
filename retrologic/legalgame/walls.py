"""Settled pawns: pawns that stand on their target squares for good, walls for every other unit
(issue #19; the pawn part of Texel's "blocked squares", texel doc/proofgame.md, and the
unmovable obstacles of §7 of shared/seeds/malikovic-spg-trajectories-coq.txt).

A side with no capture left keeps each pawn on its file, and its pawns on a file keep their
order (a pawn never passes another on its file without capturing). When the file holds as many
of its pawns as the target does, the k-th from the side's home rank must become the target's
k-th: a pawn already on that square never moves again (it cannot come back) and is never
captured (the side could not replace it). The finder's bound is then taken with those pawns
frozen (`Walls.view`: the proof-game bound whose distance tables treat them as obstacles), so
a bishop shut in behind them, or a rook whose file they close, has no finite bound and the
search leaves that branch at once (seed 6204 of bench/legal.py: a light bishop on h3 behind
g4 with its target on d7, placement searched to the cap before).

A side with captures left settles pawns too (`unreplaceable_pawns`): a pawn on a target pawn
square of its side that left it could never come back, so another pawn of the side would have
to take its place; when no pawn of the side can still get there (behind it, no more files away
than its captures left and its ranks ahead) and none of those that could is itself held, it
stays for good (seed 10017: Black's d6, e5 and h6 shut in the bishop that must reach a1, with
Black's last capture still to make; 32 against 14 of the 44 positions the finder before it
missed at 10 s, bench/README-legal.md).

Pawns that can never move again wherever they stand (`stuck_pawns`: a side with no capture left
behind a pawn that never moves) must stand on target pawns: the finder's dead-end check.

The finder is a heuristic whose games are replayed, so nothing here is trusted; the rule is
still exact, and tests/test_legalgame_walls.py holds it to real games.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import cache

import chess

from retrologic.spg.analysis import Solver, bound_of, hungarian
from retrologic.spg.bound import Bound
from retrologic.spg.options import BoundOptions

# bounds kept, one per set of walls (the least recently used dropped first): the placement
# guide's releases (`Finder._placement_moves`) make one set per held piece, which 64 thrashed
# (0.925 of the CPU with 512, the same positions; bench/README-legal.md, 2026-12-07)
MAX_VIEWS = 512
MAX_SETTLED = 1 << 16  # `Walls.of_side` results kept (all dropped when full)


def stuck_pawns(board: chess.BaseBoard, white_fixed: bool, black_fixed: bool) -> int:
    """Pawns that can never move again: a side with no capture left (`white_fixed`,
    `black_fixed`) cannot leave its file, so its pawn stays behind the pawn in front of it
    when that one can never move either (two pawns face to face when neither side has a
    capture left). The finder requires each to stand on a target pawn of its colour."""
    if not (white_fixed or black_fixed):
        return 0
    white = board.pawns & board.occupied_co[chess.WHITE] if white_fixed else 0
    black = board.pawns & board.occupied_co[chess.BLACK] if black_fixed else 0
    # a pawn with a unit directly ahead that never moves: start from facing pawns
    stuck = (white & (black >> 8)) | (black & (white << 8))
    while True:
        more = stuck | (white & (stuck >> 8)) | (black & (stuck << 8))
        if more == stuck:
            return stuck
        stuck = more


def settled_pawns(pawns: int, goal: int) -> int:
    """Of one side's `pawns`, those on their own target square for good, given that the side
    has no capture left: on a file holding as many of its pawns as its target pawns (`goal`),
    the pawn with as many of its pawns below it as target pawns below its square (the same
    place in the file's order, from square a1 up: the same for both colours)."""
    out = 0
    for sq in chess.scan_forward(pawns & goal):
        file_mask = chess.BB_FILES[chess.square_file(sq)]
        now, want = pawns & file_mask, goal & file_mask
        if chess.popcount(now) != chess.popcount(want):
            continue
        below = chess.BB_SQUARES[sq] - 1
        if chess.popcount(now & below) == chess.popcount(want & below):
            out |= chess.BB_SQUARES[sq]
    return out


@cache
def cone(square: chess.Square, color: chess.Color, captures: int) -> int:
    """The squares from which a `color` pawn could still come to `square` with at most
    `captures` captures: behind it, each capture one file over, one rank per move."""
    out = 0
    for other in chess.SQUARES:
        ahead = chess.square_rank(square) - chess.square_rank(other)
        if color == chess.BLACK:
            ahead = -ahead
        files = abs(chess.square_file(square) - chess.square_file(other))
        if ahead > 0 and files <= min(captures, ahead):
            out |= chess.BB_SQUARES[other]
    return out


MAX_FILES = 7  # more captures than files to cross change nothing


def unreplaceable_pawns(pawns: int, goal: int, color: chess.Color, captures: int) -> int:
    """Of `color`'s `pawns`, those on its target pawn squares (`goal`) for good, given its
    `captures` left: a pawn that left its square (forward, or captured) could not come back,
    so the target's pawn there must be another, one that can still get there (`cone`: behind
    it, no more files away than its captures and its ranks ahead) and is not itself held
    (held pawns never move): with none, the pawn stays and is never captured. A fixed point:
    each pawn found held may leave others without a replacement."""
    k = max(0, min(captures, MAX_FILES))
    held = 0
    while True:
        grown = held
        for sq in chess.scan_forward(pawns & goal & ~held):
            if not pawns & ~held & cone(sq, color, k):
                grown |= chess.BB_SQUARES[sq]
        if grown == held:
            return held
        held = grown


class Walls:
    """The settled pawns of a position on the way to `target`, and the proof-game bound with
    them frozen (memoised by the walls, at most `MAX_VIEWS` kept), its assignment blocks solved by
    `assignment` (the finder passes its own)."""

    def __init__(self, start: chess.Board, target: chess.BaseBoard, frozen: int,
                 assignment: Solver = hungarian) -> None:
        self.start, self.target, self.frozen = start, target, frozen
        self.assignment = assignment
        self.goal = {c: target.pawns & target.occupied_co[c] for c in chess.COLORS}
        self.count = {c: chess.popcount(target.occupied_co[c]) for c in chess.COLORS}
        self.views: OrderedDict[int, Bound] = OrderedDict()
        # `of_side` by (colour, its pawns, its captures left), all it depends on
        self.settled: dict[tuple[chess.Color, int, int], int] = {}

    def of(self, board: chess.BaseBoard) -> int:
        """The settled pawns of both sides (`of_side`)."""
        return self.of_side(board, chess.WHITE) | self.of_side(board, chess.BLACK)

    def of_side(self, board: chess.BaseBoard, color: chess.Color) -> int:
        """`color`'s settled pawns: its pawns in their file's order when it has no capture left
        (`settled_pawns`), and those no other pawn of it can replace (`unreplaceable_pawns`,
        with its captures left). They depend on the side's pawns and captures left only, and
        are memoised by them (a tenth of the finder's profiled CPU on seed 30694 before)."""
        pawns = board.pawns & board.occupied_co[color]
        captures = chess.popcount(board.occupied_co[not color]) - self.count[not color]
        key = (color, pawns, captures)
        out = self.settled.get(key)
        if out is None:
            out = unreplaceable_pawns(pawns, self.goal[color], color, max(captures, 0))
            if captures <= 0:
                out |= settled_pawns(pawns, self.goal[color])
            if len(self.settled) > MAX_SETTLED:
                self.settled.clear()
            self.settled[key] = out
        return out

    def view(self, walls: int) -> Bound:
        """The proof-game bound from the initial array to the target with the units on
        `walls` (and the finder's own frozen units) never moving nor captured: the bound of
        `spg.analysis.Analysis` with the default options (`analysis.bound_of`), without the
        rest of an analysis (its move filter, coupling and rules), which the finder never asks
        of a view (about 0.96 of the CPU, the same positions; bench/README-legal.md, 2026-12-07)."""
        hit = self.views.get(walls)
        if hit is None:
            hit = bound_of(self.start, self.target, BoundOptions(), self.frozen | walls,
                           self.assignment)
            self.views[walls] = hit
            if len(self.views) > MAX_VIEWS:
                self.views.popitem(last=False)
        else:
            self.views.move_to_end(walls)
        return hit
