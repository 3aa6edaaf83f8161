"""The plan-guided legal-game finder: the plain finder's captures, then the pieces placed in the
order the target's doors allow (issue #19; Hwa's cages, shared/seeds).

The plain finder (`legalgame.finder`) places every unit at once, by a weighted A* on the
proof-game lower bound. That bound ignores *order*: in a cage such as the Brandis corner
(8/8/8/8/8/1P6/KPkPP3/1R1b4, White to play Ka2-a1) the black bishop must reach d1 through c2
before the black king sits there, and the black king c2 (over b1 or c1: c3 and d3 are
attacked by the unmoved pawns) before the rook closes b1; the A* settles pieces early and
starves. The plan (`plan_order.settle_steps`) peels the target backwards into steps (layers
of pieces, a door pawn stepped back, a stuck cage's pieces shuffled back); the placement then
runs one best-first search per step, each bringing that step's units onto their squares,
scored by an assignment of the board's units to those squares (Hungarian, on the analysis'
distance maps: `spg.analysis`, a king's avoiding the squares unmoved enemy pawns attack);
the last step's search ends on the target itself (side to move, pawns, castling rights). A
door's pawn waits (no move, not captured: `hold`) from the start, captures included, until
the step that lets it go (Ceriani 1951: g7-g6 after the knight has passed g6 to f8).
Before that, a unit of the initial array the unmoved units wall in for good (the bishop c1
between b2 and d2) is captured first, where it stands, before the region around it closes
(`capture_near`).

Sound by construction: every move is a legal python-chess move from the initial array, the
end is compared with the target exactly (`Finder.is_target`), and callers replay the game with
`legalgame.checker`. Failing proves nothing (the caller says *unknown*). Limits: the same
`Budget` (LimitHit) and node cap (a count) as the plain finder.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any, Callable

import chess

from retrologic.legalgame.plan_order import OPEN, pawn_attacks, reach, settle_steps
from retrologic.limits import Budget
from retrologic.spg.analysis import INF, min_assignment

MISSING = 8     # the cost of a target piece no unit of its kind can fill (a promotion is due)
COST_WEIGHT = 2.0   # the layer's assignment cost against the bound in a layer's score
BRANCHES = 3    # outcomes of a layer's search tried in turn before backtracking further
PLACEMENT_SCALE = 3  # a layer's search may expand this many times a capture search's cap


@dataclass
class Phase:
    """What a layer's search is after (the plain finder's `Phase` by shape: `done`, `score`,
    `nodes`, no `floor`: every child scored at once; this module does not import the finder,
    which calls it)."""

    done: Callable[[chess.Board, chess.Board], bool]
    score: Callable[[chess.Board, int], float | None]
    nodes: int
    floor: Callable[[chess.Board, int], float | None] | None = None


@functools.cache
def plan_finder(base: type) -> type:
    """The plan finder class on the plain finder class `base` (passed in, so that the finder
    module can call this one without an import cycle)."""

    class PlanFinder(_Staged, base):  # type: ignore[valid-type, misc]
        """The plain finder with a staged placement: layer by layer in the settle order."""

        def _extend(self, board: chess.Board, attempt: Any) -> list[chess.Move] | None:
            """As the plain finder's, with the placement staged by the settle layers."""
            if self.captures_left(board, chess.WHITE) > 0 or \
                    self.captures_left(board, chess.BLACK) > 0:
                return base._extend(self, board, attempt)
            if self.is_target(board):
                return list(board.move_stack)
            return self._place(board, 0, attempt, PLACEMENT_SCALE * attempt.nodes)

    return PlanFinder


class _Staged:
    """The staged placement, mixed into the plain finder (its attributes and methods:
    `target`, `frozen`, `analysis`, `search`, `guide`, `side_bounds`, `legal_moves`,
    `is_target`, `placement_phase`)."""

    target: chess.Board
    frozen: int
    analysis: Any
    search: Callable[..., Any]
    guide: Callable[[chess.Board], int | None]
    side_bounds: Callable[[chess.Board], tuple[int, int] | None]
    is_target: Callable[[chess.Board], bool]
    placement_phase: Callable[[float, int], Any]
    hold = 0        # squares whose pawns wait for their door (`plan_order.settle_steps`)

    def plan(self) -> None:
        """Make the plan: the settle steps (the first step's waiting pawns wait from the start,
        the captures included) and the kings' barred squares (after __init__)."""
        target = self.target
        self.steps = [(tuple((sq, p.color, p.piece_type) for sq, p in sorted(goal.items())),
                       hold) for goal, hold in settle_steps(target, self.frozen)]
        self.hold = self.steps[0][1] if self.steps else 0
        self.cost_memo: dict[tuple, int] = {}
        # a king never crosses a square a frozen enemy pawn attacks (that pawn never moves)
        frozen_board = chess.BaseBoard(None)
        for sq in chess.scan_forward(self.frozen & target.pawns):
            frozen_board.set_piece_at(sq, target.piece_at(sq))
        self.barred = {c: pawn_attacks(frozen_board, not c) for c in chess.COLORS}
        self.king_maps: dict[tuple[bool, int], list[int]] = {}
        # units of the initial array the frozen units wall in for good (the Brandis bishop c1
        # between b2 and d2): not in the target, so captured where they stand, first
        start = chess.Board()
        self.trapped = 0
        for sq in chess.scan_forward(start.occupied & ~start.pawns & ~start.kings & ~self.frozen):
            ptype = start.piece_type_at(sq) or chess.KING
            if chess.popcount(reach(ptype, sq, self.frozen)) < OPEN:
                self.trapped |= chess.BB_SQUARES[sq]

    def legal_moves(self, board: chess.Board) -> Any:
        """The plain finder's moves but those of a waiting pawn (`hold`) and the captures of
        one: the piece its door lets through has not passed yet."""
        held = self.hold & board.pawns
        for move in super().legal_moves(board):  # type: ignore[misc]
            if held and (chess.BB_SQUARES[move.from_square] | chess.BB_SQUARES[move.to_square]) \
                    & held:
                continue
            yield move

    def capture_near(self, board: chess.Board) -> int:
        """The plain finder's distance to the next capture (the capture plan's), but while a
        trapped unit (see `plan`) still stands, the fewest moves of an enemy piece to its
        square: it is taken before the region around it closes. (Until 2026-12-01 this
        overrode the victim slots' distance alone, which no try of `finder.TRIES` has used
        since the capture plan came, 2026-11-25: it was inert; that guide is gone.)"""
        near = self.trapped_distance(board)
        return super().capture_near(board) if near is None else near  # type: ignore[misc]

    def trapped_distance(self, board: chess.Board) -> int | None:
        """The fewest moves of an enemy piece to a trapped unit still standing (None: none
        stands, or no enemy piece can reach one)."""
        for sq in chess.scan_forward(self.trapped & board.occupied):
            piece = board.piece_at(sq)
            if piece is None or piece.piece_type == chess.PAWN:
                continue
            enemy = board.occupied_co[not piece.color] & ~board.pawns & ~self.frozen
            best = min((self.unit_map(board.piece_type_at(u) or chess.KING, not piece.color,
                                      u)[sq] for u in chess.scan_forward(enemy)), default=INF)
            if best < INF:
                return best
        return None

    def unit_map(self, ptype: int, color: chess.Color, square: chess.Square) -> list[int] | tuple:
        """Moves a piece needs from `square` to every square: the analysis' distance map, for
        a king one that also avoids the squares frozen enemy pawns attack; for a pawn its
        steps straight ahead (a door's pawn: `plan_order.settle_steps`)."""
        if ptype == chess.PAWN:
            ahead = 8 if color == chess.WHITE else -8
            steps = [INF] * 64
            sq, n = square, 0
            while 0 <= sq < 64:
                steps[sq] = n
                sq, n = sq + ahead, n + 1
            return steps
        if ptype != chess.KING:
            return self.analysis.piece_map(ptype, color, square)
        hit = self.king_maps.get((color, square))
        if hit is None:
            hit = [INF] * 64
            hit[square] = 0
            blocked = self.frozen | self.barred[color]
            frontier = [square]
            while frontier:
                nxt = []
                for sq in frontier:
                    for to in chess.scan_forward(chess.BB_KING_ATTACKS[sq] & ~blocked):
                        if hit[to] == INF:
                            hit[to] = hit[sq] + 1
                            nxt.append(to)
                frontier = nxt
            self.king_maps[(color, square)] = hit
        return hit

    def layer_cost(self, board: chess.BaseBoard, goal: tuple[tuple[int, bool, int], ...]) -> int:
        """Fewest moves (distance maps, frozen units as obstacles; moving units ignored) that
        bring the board's units onto the `goal` squares (square, colour, type): a minimum
        assignment per colour and type; MISSING per square no such unit can fill."""
        key = (goal, board.occupied, board.occupied_co[chess.WHITE], board.kings,
               board.queens, board.rooks, board.bishops, board.knights)
        hit = self.cost_memo.get(key)
        if hit is not None:
            return hit
        groups: dict[tuple[bool, int], list[chess.Square]] = {}
        for sq, color, ptype in goal:
            groups.setdefault((color, ptype), []).append(sq)
        total = 0
        for (color, ptype), squares in groups.items():
            units = list(chess.scan_forward(board.pieces_mask(ptype, color) & ~self.frozen))
            rows = [[self.unit_map(ptype, color, u)[t] for u in units]
                    for t in squares]
            missing = max(len(squares) - len(units), 0)
            if missing:
                # the nearest units to the squares, the rest of the squares counted missing
                best = sorted(min(row, default=INF) for row in rows)[:len(units)]
                total += sum(min(b, MISSING) for b in best) + MISSING * missing
            else:
                total += min(min_assignment(rows), MISSING * len(squares))
        self.cost_memo[key] = total
        return total

    def alive(self, board: chess.Board) -> bool:
        """Whether the side to move has a move that keeps the bound finite (a layer settled
        with the wrong side to move can leave it only moves into dead ends)."""
        for move in self.legal_moves(board):
            board.push(move)
            ok = self.side_bounds(board) is not None
            board.pop()
            if ok:
                return True
        return False

    def layer_phase(self, goal: tuple[tuple[int, bool, int], ...], weight: float, nodes: int,
                    exact: bool = False) -> Phase:
        """Every square of `goal` holding its unit, the bound still finite and the side
        to move not stuck; `exact`: the target position itself (the last layer)."""
        def done(board: chess.Board, _parent: chess.Board) -> bool:
            if exact:
                return self.is_target(board)
            return (self.layer_cost(board, goal) == 0 and self.side_bounds(board) is not None
                    and self.alive(board))

        def score(board: chess.Board, depth: int) -> float | None:
            moves = self.guide(board)
            if moves is None:
                return None
            cost = self.layer_cost(board, goal)
            return depth + weight * (COST_WEIGHT * cost + 0.5 * moves)

        return Phase(done, score, nodes)

    def _place(self, board: chess.Board, index: int, attempt: Any,
               nodes: int) -> list[chess.Move] | None:
        """Reach the settle steps from `index` on (`plan_order.settle_steps`: the units of each
        on their squares, its pawns waiting), the last one ending on the target; the best
        `BRANCHES` outcomes of each step's search in turn."""
        goal: tuple[tuple[int, bool, int], ...] = ()
        hold = 0
        while index < len(self.steps):
            goal, hold = self.steps[index]
            index += 1
            if self.layer_cost(board, goal) != 0:
                break
        exact = index >= len(self.steps)     # the last step ends on the target itself
        if exact and self.is_target(board):
            return list(board.move_stack)
        phase = self.layer_phase(goal, attempt.place_weight, nodes, exact)
        outer, self.hold = self.hold, hold
        try:
            outcomes = self.search(board.copy(), phase)
            for moves in itertools.islice(outcomes, 1 if exact else BRANCHES):
                after = board.copy()
                for move in moves:
                    after.push(move)
                if exact:
                    return list(after.move_stack)
                game = self._place(after, index, attempt, nodes)
                self.hold = hold         # the generator goes on with this step's waiting pawns
                if game is not None:
                    return game
            return None
        finally:
            self.hold = outer


def find_planned(base: type, target: chess.Board, budget: Budget,
                 node_cap: int) -> list[chess.Move] | None:
    """A legal game from the initial array to `target` (no e.p. square: `find.find_game`
    handles a double step) by the plan finder on the plain finder class `base`; None when
    none is found within `node_cap` positions (LimitHit: the budget ran out)."""
    finder = plan_finder(base)(target, budget, node_cap)
    finder.plan()
    return finder.find()


__all__ = ["Phase", "find_planned", "plan_finder"]
