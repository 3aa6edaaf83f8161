"""Obstruction: units standing on their target squares are obstacles to the others (§7 of
shared/seeds/malikovic-spg-trajectories-coq.txt: movable and unmovable obstacles) unless one of
them is disturbed. Every game from a position either leaves the held units all in place (then
they are unmovable obstacles, never captured: the prune of a *view*, an analysis with them
frozen, applies) or moves or captures one of White's (White pays `Bound.disturbed_bound`) or one
of Black's. The position is cut when all three cases are out of reach."""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, NamedTuple, Protocol

import chess

from retrologic.spg.bound import Bound, Plans, SideKey
from retrologic.spg.memo import Memo
from retrologic.spg.options import BoundOptions
from retrologic.spg.targets import Targets, anchored

MAX_VIEWS = 2048  # obstruction views kept (each has its own distance tables and memo tables)
# the split is given up once it has pruned fewer than 1 in 5 of its first SPLIT_TRIAL tries
# (not pruning is always sound; the split costs about one more bound per try)
SPLIT_TRIAL = 4096


class View(Protocol):
    """An analysis of the games that leave some units in place (see `Obstruction.view`)."""

    def prune(self, board: chess.Board, plies: int) -> bool: ...


class ObstructedKey(NamedTuple):
    """What the split's verdict depends on: both side keys, both sides' moves left, e.p."""

    white: SideKey
    black: SideKey
    white_moves: int
    black_moves: int
    ep_square: int | None


class Obstruction:
    """The obstruction split of one analysis, its verdicts memoised, its views kept (the least
    recently used dropped first)."""

    def __init__(self, targets: Targets, bound: Bound, options: BoundOptions,
                 make_view: Callable[[int], View]) -> None:
        self.targets = targets
        self.bound = bound
        self.options = options
        self.make_view = make_view  # the view of the games that never disturb these units
        self.verdicts: Memo[ObstructedKey, bool] = Memo("obstruction verdicts")
        self.views: OrderedDict[int, View] = OrderedDict()
        self.tries = 0  # splits tried
        self.hits = 0  # ... and how many pruned

    def held_units(self, board: chess.BaseBoard) -> int:
        """The anchored units the obstruction split holds in place: those the start and the
        target agree on, and every pawn on its own target square (a pawn never comes back)."""
        t = self.targets
        return anchored(t.target, t.frozen, board) & (
            t.home | (board.pawns if self.options.pawn_walls else 0))

    def obstructed(self, board: chess.Board, plies: int, w: int, b: int, pw: Plans, pb: Plans,
                   kw: SideKey, kb: SideKey) -> bool:
        """True when the target is out of reach whether or not the held units (`held_units`:
        the units the start and the target share, and pawns on their own target squares) are
        disturbed. `w`, `b`: the sides' moves left; `pw`, `pb`: their plans; `kw`, `kb`: their
        side keys."""
        held = self.held_units(board)
        white = held & board.occupied_co[chess.WHITE]
        black = held & board.occupied_co[chess.BLACK]
        # disturbing a piece costs at most two moves and one more for capture capacity
        # (`Bound.bumped`): with three spare moves that case alone keeps the position alive
        pieces = held & ~board.pawns
        if not held or ((white & pieces) and pw.bound + 3 <= w) or \
                ((black & pieces) and pb.bound + 3 <= b):
            return False
        key = ObstructedKey(kw, kb, w, b, board.ep_square)
        hit = self.verdicts.get(key)
        if hit is None:
            if self.tries >= SPLIT_TRIAL and self.hits * 5 < self.tries:
                return False  # it rarely prunes on this problem: not worth its cost
            hit = self.verdicts[key] = self._split(board, plies, w, b, pw, pb, kw, kb,
                                                   held, white, black)
            self.tries += 1
            self.hits += hit
        return hit

    def view(self, held: int) -> View:
        """The analysis of the games that never move nor capture the units on `held`: they
        are frozen there. At most MAX_VIEWS are kept, the least recently used dropped first."""
        views = self.views
        view = views.get(held)
        if view is not None:
            views.move_to_end(held)
            return view
        if len(views) >= MAX_VIEWS:
            views.popitem(last=False)
        view = views[held] = self.make_view(held)
        return view

    def _split(self, board: chess.Board, plies: int, w: int, b: int, pw: Plans, pb: Plans,
               kw: SideKey, kb: SideKey, held: int, white: int, black: int) -> bool:
        """`obstructed`'s three cases, uncached: the disturbed bounds first (memoised by side
        key, they often keep the position alive before a view is built or asked)."""
        if white and pb.bound <= b and \
                self.bound.disturbed_bound(board, chess.WHITE, white, kw) <= w:
            return False
        if black and pw.bound <= w and \
                self.bound.disturbed_bound(board, chess.BLACK, black, kb) <= b:
            return False
        return self.view(held).prune(board, plies)
