"""The legal-game finder's lower bounds (issue #19): each side's fewest remaining moves from
a board to the target, with the finder's own checks of dead ends, and each side's capture plan
-- a base class of `legalgame.finder.Finder`, split off as `legalgame.reach` was to keep that
module short; its memo tables, walls and planner are set by `Finder.__init__`.

A side's bound is the proof-game analysis' (`spg.analysis`, the identity-free lower bound of
§10 of shared/seeds/malikovic-spg-trajectories-coq.txt) with the settled pawns as walls
(`legalgame.walls`) and two moves per castling right the target has lost; no finite bound (no
game) when the side's pawn captures do not fit within the captures it has left all together
(`captures_fit`) or a pawn that can never move again stands where the target has none
(`walls.stuck_pawns`). The capture plan (`legalgame.kernel`: one joint assignment of a side's
units to its target units) guides the capture searches and answers `captures_fit` when it
exists. Everything is memoised by what it depends on (restarts and sibling searches meet the
same positions). `side_floor` is the bounds without those checks, never above them: the floor
under which the capture searches queue a child before scoring it (`finder.Phase.floor`).
"""

from __future__ import annotations

import chess

from retrologic.legalgame.kernel import (Planner, SidePlan, locked_pawns, may_wall_spares,
                                         plan_victims)
from retrologic.legalgame.reach import Reach
from retrologic.legalgame.walls import Walls, stuck_pawns
from retrologic.legality.reachability import capture_column, pawn_captures_needed
from retrologic.spg.analysis import finite_mask
from retrologic.spg.distances import INF
from retrologic.spg.targets import BACK_RANK

BOUNDS_MEMO = 400_000  # positions whose `side_bounds` are kept (then the table starts afresh)


def plies_needed(turn: chess.Color, white: int, black: int, target_turn: chess.Color) -> int:
    """Fewest plies that give White `white` moves and Black `black` moves, `turn` moving first,
    and leave `target_turn` to move."""
    same = turn == target_turn
    first, second = (white, black) if turn == chess.WHITE else (black, white)
    plies = max(2 * first - 1, 2 * second, 0)
    return plies + ((plies % 2 == 0) != same)


class Bounds(Reach):
    """Lower bounds on each side's remaining moves and the capture plans, memoised."""

    target: chess.Board
    rights: int
    walls: Walls
    target_pawns: dict[chess.Color, int]
    fits: dict[tuple, bool]
    fit_columns: dict[tuple, tuple[tuple[int, ...], int]]
    fit_blocks: dict[tuple, int]
    bounds: dict[tuple, tuple[int, int] | None]
    parts: dict[tuple, int]
    raw_parts: dict[tuple, int]
    plans: dict[tuple, SidePlan | None]
    locks: dict[tuple, int]
    victim_memo: dict[tuple, int]
    planner: Planner
    plan_salt: int

    def side_bounds(self, board: chess.Board) -> tuple[int, int] | None:
        """(White's, Black's) lower bounds on their remaining moves; None when either is INF
        or a check of ours (`captures_fit`, `stuck_pawns`) finds the target out of reach.
        Memoised by placement and castling rights (all it depends on)."""
        key = self.bounds_key(board)
        hit = self.bounds.get(key, False)
        if hit is False:
            if len(self.bounds) > BOUNDS_MEMO:
                self.bounds.clear()
            hit = self.bounds[key] = self._side_bounds(board)
        return hit

    @staticmethod
    def bounds_key(board: chess.Board) -> tuple[int, ...]:
        """What `side_bounds` (and `side_floor`) depend on: the placement and castling rights."""
        return (board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                board.kings, board.occupied_co[chess.WHITE], board.castling_rights)

    def _side_bounds(self, board: chess.Board) -> tuple[int, int] | None:
        """`side_bounds` computed: each side's part, then the pawns that can never move."""
        white = self.side_part(board, chess.WHITE)
        if white >= INF:
            return None
        black = self.side_part(board, chess.BLACK)
        if black >= INF:
            return None
        stuck = self.stuck_pawns(board)
        if stuck and any(stuck & board.occupied_co[c] & ~self.target_pawns[c]
                         for c in chess.COLORS):
            return None
        return white, black

    def side_part(self, board: chess.Board, color: chess.Color) -> int:
        """`color`'s bound, with the settled pawns as walls (`legalgame.walls`), two more per
        castling right the target has lost (its king or rook still has to move), INF when its
        captures do not fit (`captures_fit`). Memoised by what it depends on (the walls too):
        the side's units and rights, the opponent's pawns and unit count (a move of the other
        side that neither captures nor moves a pawn leaves it as it was, so about half the
        parts of a node's children are look-ups)."""
        key = self.part_key(board, color)
        hit = self.parts.get(key)
        if hit is None:
            hit = self.raw_parts.get(key)
            if hit is None:
                hit = self.bare_part(board, color)
            if hit < INF and not self.captures_fit(board, color):
                hit = INF
            if len(self.parts) > BOUNDS_MEMO:
                self.parts.clear()
            self.parts[key] = hit
        return hit

    @staticmethod
    def part_key(board: chess.Board, color: chess.Color) -> tuple:
        """What `color`'s part depends on (`side_part`)."""
        mask, other = board.occupied_co[color], board.occupied_co[not color]
        return (color, board.pawns & mask, board.knights & mask, board.bishops & mask,
                board.rooks & mask, board.queens & mask, board.kings & mask,
                board.castling_rights & BACK_RANK[color], board.pawns & other,
                chess.popcount(other))

    def bare_part(self, board: chess.Board, color: chess.Color) -> int:
        """`side_part` without `captures_fit`, computed: the bound with the walls, and the
        rights' moves."""
        walls = self.walls.of(board)
        bound = self.walls.view(walls) if walls else self.analysis.bound
        hit = bound.side_bound(board, color)
        if hit < INF:
            hit += self.rights_moves(board.castling_rights & BACK_RANK[color])
        return hit

    def side_floor(self, board: chess.Board) -> tuple[int, int] | None:
        """(White's, Black's) `side_bounds` without our two checks that only turn finite
        bounds into none (`captures_fit`, `stuck_pawns`): never above `side_bounds`, and None
        only where it is None, so a floor of a search's score (`finder.Phase.floor`): the
        capture plan behind `captures_fit` is left for the children that come out."""
        key = self.bounds_key(board)
        hit = self.bounds.get(key, False)
        if hit is not False:
            return hit
        white = self.raw_part(board, chess.WHITE)
        if white >= INF:
            return None
        black = self.raw_part(board, chess.BLACK)
        return None if black >= INF else (white, black)

    def raw_part(self, board: chess.Board, color: chess.Color) -> int:
        """`bare_part` memoised by `part_key` (the part itself where it is known)."""
        key = self.part_key(board, color)
        hit = self.parts.get(key)
        if hit is None:
            hit = self.raw_parts.get(key)
        if hit is None:
            hit = self.bare_part(board, color)
            if len(self.raw_parts) > BOUNDS_MEMO:
                self.raw_parts.clear()
            self.raw_parts[key] = hit
        return hit

    def captures_fit(self, board: chess.Board, color: chess.Color) -> bool:
        """Whether `color`'s units can become its target units with, all together, no more pawn
        captures than it has captures left (the bound counts each pawn's captures alone): yes
        when the side's capture plan exists (`side_plan`, which the capture searches' guide
        needs anyway, is such an assignment), else the fewest captures' assignment decides."""
        need = self.captures_left(board, color)
        mask = board.occupied_co[color]
        key = (color, need, board.pawns & mask, board.knights & mask, board.bishops & mask,
               board.rooks & mask, board.queens & mask, board.kings & mask)
        hit = self.fits.get(key)
        if hit is None:
            hit = self.fits[key] = need >= 0 and (
                not self.captures_done(board) and self.side_plan(board, color) is not None
                or pawn_captures_needed(self.analysis, board, color, need, self.fit_column,
                                        self.fit_blocks, self.analysis.assignment) <= need)
        return hit

    def fit_column(self, color: chess.Color, utype: int, usq: int,
                   need: int) -> tuple[tuple[int, ...], int]:
        """A unit's fewest pawn captures to become each target unit of `color` (INF: cannot,
        with at most `need`), and the entries' `finite_mask`."""
        key = (color, utype, usq, need)
        hit = self.fit_columns.get(key)
        if hit is None:
            column = capture_column(self.analysis, color, utype, usq, need)
            hit = self.fit_columns[key] = (column, finite_mask(column))
        return hit

    def stuck_pawns(self, board: chess.BaseBoard) -> int:
        """`walls.stuck_pawns`, the sides with no capture left being the fixed ones."""
        return stuck_pawns(board, self.captures_left(board, chess.WHITE) <= 0,
                           self.captures_left(board, chess.BLACK) <= 0)

    def plies_left(self, board: chess.Board) -> int | None:
        """A lower bound on the plies to the target position (None: never)."""
        bounds = self.side_bounds(board)
        if bounds is None:
            return None
        return plies_needed(board.turn, bounds[0], bounds[1], self.target.turn)

    def moves_left(self, board: chess.Board) -> int | None:
        """Both sides' bounds added up, plus one when the side to move would come out wrong
        (the guide of the searches: every useful move of either side lowers it; None: never)."""
        bounds = self.side_bounds(board)
        if bounds is None:
            return None
        white, black = bounds
        return self.with_parity(board, white + black)

    def with_parity(self, board: chess.Board, moves: int) -> int:
        """Both sides' `moves` added up, plus one when the side to move would come out wrong."""
        return moves + ((moves % 2 == 1) != (board.turn != self.target.turn))

    def rights_moves(self, rights: int) -> int:
        """Two moves when a side keeps a castling right (of `rights`, its own) that the target
        has lost: its king or rook still has to move."""
        return 2 if rights & ~self.rights else 0

    def plan_key(self, board: chess.BaseBoard, color: chess.Color) -> tuple:
        """What `color`'s capture plan depends on: the side's units, its captures left (last
        but one) and the salt (last)."""
        mask = board.occupied_co[color]
        return (color, board.pawns & mask, board.knights & mask, board.bishops & mask,
                board.rooks & mask, board.queens & mask, board.kings & mask,
                self.captures_left(board, color), self.plan_salt)

    def side_plan(self, board: chess.BaseBoard, color: chess.Color) -> SidePlan | None:
        """`color`'s capture plan (`legalgame.kernel`) with the current salt, memoised by
        `plan_key`."""
        key = self.plan_key(board, color)
        hit = self.plans.get(key, False)
        if hit is False:
            if len(self.plans) > BOUNDS_MEMO:
                self.plans.clear()
            hit = self.plans[key] = self.planner.side_plan(board, color, key[-2],
                                                           self.plan_salt)
        return hit

    def settled(self, board: chess.BaseBoard, color: chess.Color) -> int:
        """`color`'s settled pawns (`Walls.of_side`)."""
        return self.walls.of_side(board, color)

    def victims(self, board: chess.BaseBoard, color: chess.Color, plan: SidePlan) -> int:
        """`kernel.plan_victims` of `color` under its `plan` (`side_plan`), memoised by
        `plan_key` and the other side's pawns (all it depends on: the other side's settled
        pawns depend on its pawns and captures left, the latter in the key); on the hot path
        of the capture searches' guide, so the common case (`kernel.may_wall_spares` false:
        the plan's own expendable units) builds no key."""
        if not may_wall_spares(board, plan, self.captures_left(board, color)):
            return plan.expendable
        key = self.plan_key(board, color) + (board.pawns & board.occupied_co[not color],)
        hit = self.victim_memo.get(key)
        if hit is None:
            if len(self.victim_memo) > BOUNDS_MEMO:
                self.victim_memo.clear()
            hit = self.victim_memo[key] = plan_victims(self, board, color, plan)
        return hit

    def locked(self, board: chess.BaseBoard, color: chess.Color, plan: SidePlan) -> int:
        """`kernel.locked_pawns` of `color` under its `plan` (`side_plan`), memoised by
        `plan_key` (all it depends on, the settled pawns included: about seven in eight calls
        of `victims_fit` are look-ups, measured on seed 6015)."""
        key = self.plan_key(board, color)
        hit = self.locks.get(key)
        if hit is None:
            if len(self.locks) > BOUNDS_MEMO:
                self.locks.clear()
            hit = self.locks[key] = locked_pawns(self, board, color, plan)
        return hit


__all__ = ["BOUNDS_MEMO", "Bounds", "plies_needed"]
