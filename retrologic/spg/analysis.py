"""Preliminary analysis of a proof game (Euclide's "preliminary analysis"; shared/seeds/
malikovic-spg-trajectories-coq.txt §4–§11): the façade the search, the strategy and schedule
models and the solver use. One concern per module, composed here:

    options      BoundOptions: the bound's on/off switches (SWITCHES: their names)
    targets      frozen units, target units, anchored units (§4 starting state, §7 obstacles)
    distances    distance tables and unit costs (§5 MAP, pawns per capture count)
    assignment   the Hungarian assignment per connected block
    routes       squares of shortest (§6) and admissible (§11) trajectories
    bound        each side's plans and lower bound, victim slots, disturbed bounds
    coupling     a side with no spare move: its routes, captures, landings, the coupled bound
    obstruction  the three-way split on the units standing on their target squares (§7)
    rules        the prune as named rules, applied in order
    moves        the move filter: the candidate moves of a position (§10)
    memo         the named memo tables every component keeps

The bound is identity-free, so it holds for *every* game from the current position; a search
pruned by the rules (and filtered by `candidate_moves`) stays complete.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Callable, cast

import chess

from retrologic.spg import trajectory
from retrologic.spg.assignment import (Solver, column_assignment, finite_mask, hungarian,
                                       min_assignment, scipy_hungarian)
from retrologic.spg.bound import Bound, Plans, SideKey, moves_left
from retrologic.spg.coupling import Coupling
from retrologic.spg.distances import INF, Distances, UnitRoutes, shared as shared_distances
from retrologic.spg.memo import memo_sizes
from retrologic.spg.moves import MoveFilter
from retrologic.spg.obstruction import Obstruction
from retrologic.spg.options import SWITCHES, BoundOptions
from retrologic.spg.routes import Routes
from retrologic.spg.rules import Deductions, Facts, PruneRule, VictimVisits, active_rules
from retrologic.spg.targets import TargetUnits, Targets, anchored, arrival_squares, \
    frozen_units
from retrologic.vocabulary import CASTLINGS

# spg/strategy.py and spg/schedule.py import these from here (CASTLE: vocabulary.CASTLINGS)
CASTLE = CASTLINGS

__all__ = ["Analysis", "BoundOptions", "CASTLE", "INF", "SWITCHES", "Plans", "arrival_squares",
           "Solver", "column_assignment", "finite_mask", "frozen_units", "hungarian",
           "min_assignment", "scipy_hungarian"]


@dataclass
class Analysis:
    """What the proof game's target tells before any search, and the search's prune and move
    filter. The switches are keyword arguments (`BoundOptions` documents each; `options` holds
    them); `extra_frozen`: units assumed never to move nor be captured (an obstruction view)."""

    start: chess.Board
    target: chess.BaseBoard
    # the bound's switches, as keyword arguments (`BoundOptions` documents each)
    capture_accounting: bool = BoundOptions.capture_accounting
    victim_slots: bool = BoundOptions.victim_slots
    capacity: bool = BoundOptions.capacity
    coupling: bool = BoundOptions.coupling
    landings: bool = BoundOptions.landings
    victim_visits: bool = BoundOptions.victim_visits
    visit_steps: bool = BoundOptions.visit_steps
    route_steps: bool = BoundOptions.route_steps
    obstruction: bool = BoundOptions.obstruction
    pawn_walls: bool = BoundOptions.pawn_walls
    extra_frozen: int = 0
    assignment: Solver = hungarian  # the bound's block solver (`scipy_hungarian`: speed only)
    # made by __post_init__: the switches as one record, what the target fixes, the components
    options: BoundOptions = field(init=False, repr=False)
    targets: Targets = field(init=False, repr=False)
    frozen: int = field(init=False)
    impossible: bool = field(init=False)
    target_units: dict[chess.Color, TargetUnits] = field(init=False, repr=False)
    target_count: dict[chess.Color, int] = field(init=False, repr=False)
    distances: Distances = field(init=False, repr=False)
    routes: Routes = field(init=False, repr=False)
    bound: Bound = field(init=False, repr=False)
    coupler: Coupling = field(init=False, repr=False)
    obstruction_split: Obstruction = field(init=False, repr=False)
    mover: MoveFilter = field(init=False, repr=False)
    visits: VictimVisits = field(init=False, repr=False)
    rules: tuple[PruneRule, ...] = field(init=False, repr=False)
    _cuts: tuple[Callable[[Deductions, Facts], bool], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.options = BoundOptions(**{name: getattr(self, name) for name in SWITCHES})
        self.bound = bound_of(self.start, self.target, self.options, self.extra_frozen,
                              self.assignment)
        self.targets, self.distances = self.bound.targets, self.bound.distances
        self.frozen, self.impossible = self.targets.frozen, self.targets.impossible
        self.target_units, self.target_count = self.targets.units, self.targets.count
        self.routes = Routes(self.distances)
        self.coupler = Coupling(self.targets, self.distances, self.routes, self.bound,
                                self.options)
        # the views' maker holds what it needs, not the analysis: no reference cycle, so an
        # analysis is freed as soon as it is dropped, not by a full collection (issue #19)
        self.obstruction_split = Obstruction(self.targets, self.bound, self.options,
                                             partial(_view, self.start, self.target,
                                                     self.options, self.extra_frozen,
                                                     self.assignment))
        self.visits = VictimVisits(self.targets, self.bound, self.coupler)
        self.mover = MoveFilter(self.targets, self.bound, self.coupler, self.obstruction_split,
                                self.options, self.visits.dead)
        self.rules = active_rules(self.options)
        self._cuts = tuple(rule.cuts for rule in self.rules)

    @classmethod
    def of(cls, start: chess.Board, target: chess.BaseBoard, options: BoundOptions,
           extra_frozen: int = 0, assignment: Solver = hungarian) -> "Analysis":
        """The analysis of games from `start` to `target` with these options."""
        return cls(start, target, **options.as_keywords(), extra_frozen=extra_frozen,
                   assignment=assignment)

    def memo_sizes(self) -> dict[str, int]:
        """Entries per memo table (for profiling)."""
        return memo_sizes(self.distances, self.routes, self.bound, self.coupler,
                          self.obstruction_split, self.visits)

    # distance tables (distances.py) -------------------------------------------------------------

    def piece_map(self, piece_type: int, color: chess.Color, square: chess.Square) -> tuple:
        """Moves a piece needs from `square` to every square, frozen units as obstacles."""
        return self.distances.piece_map(piece_type, color, square)

    def pawn_maps(self, color: chess.Color, square: chess.Square) -> tuple:
        """Per capture count c (0..6), the moves a pawn on `square` needs to each square."""
        return self.distances.pawn_maps(color, square)

    def unit_cost(self, color: chess.Color, utype: int, usq: int, ttype: int, tsq: int,
                  captures: int) -> int:
        """Fewest moves for a unit to become the target unit (see `Distances.unit_cost`)."""
        return self.distances.unit_cost(color, utype, usq, ttype, tsq, captures)

    def unit_routes(self, color: chess.Color, utype: int, usq: int, ttype: int, tsq: int,
                    captures: int) -> UnitRoutes:
        """The unit's cheapest routes to the target unit (see `Distances.unit_routes`)."""
        return self.distances.unit_routes(color, utype, usq, ttype, tsq, captures)

    def victim_cost(self, color: chess.Color, utype: int, usq: int, squares: int,
                    captures: int) -> int:
        """Fewest moves for a unit to stand where it is captured (`Distances.victim_cost`)."""
        return self.distances.victim_cost(color, utype, usq, squares, captures)

    def capture_landings(self, color: chess.Color, p: int, tsq: int,
                         budget: int = trajectory.MAX_PAWN_CAPTURES) -> int:
        """Squares where a capture may land on a route of a pawn on p to tsq with at most
        `budget` captures (see `Distances.capture_landings`)."""
        return self.distances.capture_landings(color, p, tsq, budget)

    # the bound (bound.py) -----------------------------------------------------------------------

    def capture_slots(self, board: chess.Board, color: chess.Color) -> tuple[int, ...]:
        """Squares of the captures `color`'s pawns must still make, one set per capture."""
        return self.bound.capture_slots(board, color)

    def side_bound(self, board: chess.Board, color: chess.Color) -> int:
        """A lower bound on the moves `color` still needs to reach the target (INF: never)."""
        return self.bound.plans(board, color).bound

    def _plans(self, board: chess.Board, color: chess.Color, key: SideKey | None = None) -> Plans:
        """The side's plans, memoised by its side key."""
        return self.bound.plans(board, color, key)

    def _no_spare(self, board: chess.Board, color: chess.Color, moves: int,
                  side_key: SideKey | None = None) -> bool:
        """Every cheapest plan of `color` uses exactly `moves` moves (no move to spare)."""
        return self.bound.no_spare(board, color, moves, side_key)

    def disturbed_bound(self, board: chess.Board, color: chess.Color, held: int,
                        side_key: SideKey | None = None) -> int:
        """`color`'s bound in the games that move or capture one of its units on `held`."""
        return self.bound.disturbed_bound(board, color, held, side_key)

    def moves_left(self, board: chess.Board, plies: int) -> tuple[int, int]:
        """(White's, Black's) moves among the next `plies` plies, `board.turn` moving first."""
        return moves_left(board.turn, plies)

    # both sides (coupling.py) and obstruction (obstruction.py) ----------------------------------

    def capture_squares(self, board: chess.Board, color: chess.Color,
                        side_key: SideKey | None = None) -> int:
        """Squares where `color` can still capture when it has no spare move (a superset)."""
        return self.coupler.capture_squares(board, color, side_key)

    def landing_squares(self, board: chess.Board, color: chess.Color, moves: int,
                        side_key: SideKey | None = None) -> int:
        """Squares `color` can land a move on within `moves` moves (a superset)."""
        return self.coupler.landing_squares(board, color, moves, side_key)

    def forced_victims(self, board: chess.Board, color: chess.Color,
                       side_key: SideKey | None = None) -> list[tuple[int, int]]:
        """`color`'s units that can become no target unit and fill no victim slot."""
        return self.coupler.forced_victims(board, color, side_key)

    def coupled_bound(self, board: chess.Board, color: chess.Color, side_key: SideKey | None = None,
                      other_key: SideKey | None = None) -> int:
        """`color`'s bound when the opponent has no spare move."""
        return self.coupler.coupled_bound(board, color, side_key, other_key)

    def next_steps(self, board: chess.Board, color: chess.Color,
                   side_key: SideKey | None = None) -> dict[int, int]:
        """Per unit of `color`, the squares its first move may go to on a cheapest route."""
        return self.coupler.next_steps(board, color, side_key)

    def anchored(self, board: chess.BaseBoard) -> int:
        """Units (not frozen) standing on a target square of their own colour and type."""
        return anchored(self.target, self.frozen, board)

    def held_units(self, board: chess.BaseBoard) -> int:
        """The anchored units the obstruction split holds in place."""
        return self.obstruction_split.held_units(board)

    def view(self, held: int) -> "Analysis":
        """The analysis of the games that never move nor capture the units on `held`."""
        return cast(Analysis, self.obstruction_split.view(held))

    # the search's prune and move filter ---------------------------------------------------------

    def prune(self, board: chess.Board, plies: int) -> bool:
        """True when the target cannot be reached in exactly `plies` more plies (proved)."""
        facts = Facts(self.bound, board, plies)
        for cuts in self._cuts:  # the rules in order (`rules`; `cutting_rule` names the one)
            if cuts(self, facts):
                return True
        return False

    def cutting_rule(self, board: chess.Board, plies: int) -> str | None:
        """The name of the first rule that prunes the position (None: it is not pruned)."""
        facts = Facts(self.bound, board, plies)
        return next((rule.name for rule in self.rules if rule.cuts(self, facts)), None)

    def move_filter(self, board: chess.Board, move: chess.Move, plies: int) -> bool:
        """False for moves no game to the target can make: moving or capturing a frozen unit,
        capturing when the opponent has no unit left to lose, or (a side with no spare move)
        stepping off every cheapest route of the moving unit."""
        return move in self.candidate_moves(board, plies)

    def candidate_moves(self, board: chess.Board, plies: int) -> list[chess.Move]:
        """The legal moves `move_filter` lets through, generated once per position."""
        return self.mover.candidate_moves(board, plies)


def bound_of(start: chess.Board, target: chess.BaseBoard, options: BoundOptions,
             extra_frozen: int = 0, assignment: Solver = hungarian) -> Bound:
    """The proof-game bound from `start` to `target` with the units on `extra_frozen` never
    moving: `Analysis.bound`, and all of it that `legalgame.walls`'s views build."""
    targets = Targets.of(start, target, extra_frozen)
    return Bound(targets, shared_distances(targets.frozen, targets.king_walls), options,
                 assignment)


def _view(start: chess.Board, target: chess.BaseBoard, options: BoundOptions, extra_frozen: int,
          assignment: Solver, held: int) -> Analysis:
    """An obstruction view of the analysis (start, target, options, extra_frozen, its block
    solver): the units on `held` frozen too, the split itself off."""
    return Analysis.of(start, target, options.without_split(), held | extra_frozen, assignment)
