"""A legal game by the proof-game search, the lengths in rising order: for a position a few
dozen plies from the initial array, the exhaustive search of `spg.search` over lengths from the
bound upwards finds a game where the finder's heuristic search may wander (issue #19;
castled-rook-f1, 12 plies, is one the finder misses in 10 s).

The lengths have the target's parity (White to move: even) and start at the proof-game bound
(`spg.analysis`, Malikovic §10 of shared/seeds/malikovic-spg-trajectories-coq.txt); each length is
searched depth first until the first game that ends on the target with its side to move, its
castling rights and no e.p. capture it does not state (what `legalgame.checker` asks of a game);
a game that keeps castling rights the target lacks is made to give them up by a tour
(`legalgame.rights`, the first TOURS_ASKED such games of a length), and is then longer than the
length searched. The route stops at `max_plies` or after `node_cap` search nodes, saying
nothing by failing; a game found after every shorter length was searched to the end, without a
tour, is a shortest one (the search is complete for placement, the stricter target only drops
games).
"""

from __future__ import annotations

from typing import Callable

import chess

from retrologic.legalgame.rights import lose_rights
from retrologic.limits import Budget, LimitHit, in_share
from retrologic.spg.analysis import Analysis, scipy_hungarian
from retrologic.spg.search import Limits, Search

ROUTE_PLIES = 40      # the route is tried only when the bound is at most this many plies
HOME_MISSING = 6      # ... and at most this many units are captured
HOME_UNITS = 9        # ... and at least this many stand on their squares of the initial array
FINDER_FIRST_SHARE = 0.1  # of the time left, at most the finders' first round, before the route
FINDER_FIRST_NODES = 500  # ... without a deadline: at most this many positions (see FINDER_RATE)
ROUTE_FIRST = 20_000  # search nodes of the route's first turn (0.1-0.4 ms each)
FIRST_SHARE = 0.25    # of the time left, at most the route's first turn (with a deadline)
FINDER_SECONDS = 10.0  # the finders' turn at most (the schedule route gets the rest)
FINDER_NODES = 3_000   # ... without a deadline: at most this many positions
# FINDER_RATE: the finders expand 100-530 positions a second on the problems/spg diagrams (a
# slow machine, 2026-11-29); the node slices make a run without a deadline the same on any
# machine, so that a node limit alone decides what is found (the "Limits hold" standard)
ROUTE_NODES = 200_000  # search nodes of the route's second turn, after the finders
SCHEDULE_SECONDS = 60.0  # the schedule route's turn without a deadline (after the finders')
SCHEDULE_LEAST = 2.0   # seconds left at least for the schedule route's turn (with a deadline)
TOURS_ASKED = 4        # games per length that keep extra rights handed to `lose_rights` at most


class _Found(Exception):
    """Raised out of the search at the first game that ends on the full target."""

    def __init__(self, moves: list[chess.Move]) -> None:
        super().__init__()
        self.moves = moves


class _CapSpent(Exception):
    """The route's own node cap is spent (not a limit of the user's)."""


class FirstGameSearch(Search):
    """`spg.search.Search` that stops at the first game ending on the full position `full`
    (placement, side to move by the length's parity, castling rights, no unstated e.p.); a game
    that keeps rights `full` lacks ends there once a tour makes it give them up."""

    def __init__(self, start: chess.Board, full: chess.Board, plies: int, analysis: Analysis,
                 limits: Limits, cap: int) -> None:
        super().__init__(start, full, plies, analysis.prune, None, limits,
                         analysis.candidate_moves)
        self.full = full
        self.rights = full.clean_castling_rights()
        self.cap = cap
        self.toured = 0                    # games handed to `lose_rights`

    def _is_target(self, board: chess.Board) -> bool:
        if not super()._is_target(board):
            return False
        if board.ep_square is not None and board.has_legal_en_passant():
            return False
        have = board.clean_castling_rights()
        if have == self.rights:
            raise _Found(list(board.move_stack))
        if self.rights & ~have or self.toured >= TOURS_ASKED:
            return False
        self.toured += 1
        toured = lose_rights(list(board.move_stack), self.full)
        if toured is not None:
            raise _Found(toured)
        return False

    def _check_after(self, nodes: int) -> int:
        return min(super()._check_after(nodes), self.cap + 1)

    def _check_limits(self) -> None:
        super()._check_limits()
        if self.nodes > self.cap:
            raise _CapSpent()


def parity_of(target: chess.Board) -> int:
    """The parity of every game's length to `target` (0: White to move)."""
    return 0 if target.turn == chess.WHITE else 1


def first_length(analysis: Analysis, target: chess.Board, max_plies: int) -> int | None:
    """The least length of the target's parity the bound does not rule out (None: none up to
    `max_plies`)."""
    start = chess.Board()
    for plies in range(parity_of(target), max_plies + 1, 2):
        if not analysis.prune(start, plies):
            return plies
    return None


class ProofRoute:
    """The route over one target, resumable: each `run` goes on from where the last one
    stopped (the search of the current length keeps its memo of finished positions)."""

    def __init__(self, target: chess.Board, max_plies: int = ROUTE_PLIES,
                 analysis: Analysis | None = None) -> None:
        self.target = target
        self.max_plies = max_plies
        # SciPy's block solver: the same bounds, a tenth of the time on large blocks (the
        # finder loads SciPy anyway; the route's nodes are its share, not its seconds)
        self.analysis = analysis or Analysis(chess.Board(), target, assignment=scipy_hungarian)
        self.plies = None if target.ep_square is not None or self.analysis.impossible else \
            first_length(self.analysis, target, max_plies)
        self.search: FirstGameSearch | None = None
        self.nodes = 0                     # search nodes spent over every run

    def run(self, budget: Budget, nodes: int) -> list[chess.Move] | None:
        """Go on for at most `nodes` more search nodes: the first game found, or None (the
        nodes spent, or no length left up to `max_plies`). LimitHit only for the user's limits
        (time, nodes, Ctrl-C), whose budget is charged the route's nodes."""
        cap = self.nodes + nodes                # the route's total after this run
        while self.plies is not None and self.plies <= self.max_plies:
            if self.search is None:
                self.search = FirstGameSearch(chess.Board(), self.target, self.plies,
                                              self.analysis, Limits(budget=budget), 0)
            search = self.search
            before = search.nodes
            search.limits, search.cap = Limits(budget=budget), before + (cap - self.nodes)
            try:
                result = search.run()
            except _Found as found:
                return found.moves
            except _CapSpent:
                return None
            finally:
                self.nodes += search.nodes - before
            if not result.complete:             # the user's time, nodes or Ctrl-C
                raise LimitHit(result.reason or "limit")
            self.search, self.plies = None, self.plies + 2
        return None


def find_by_proof_route(target: chess.Board, budget: Budget, node_cap: int = ROUTE_NODES,
                        max_plies: int = ROUTE_PLIES) -> list[chess.Move] | None:
    """A game from the initial array to `target` (a full position without an e.p. square): the
    first the route reaches, lengths in rising order (a toured game is longer than its length:
    queen-return-d1's 15 plies against the 9 the search alone finds, after 300 nodes instead of
    8,500); None when the bound exceeds `max_plies` or `node_cap` search nodes are spent first
    (see `ProofRoute.run`)."""
    return ProofRoute(target, max_plies).run(budget, node_cap)


def near_initial_array(target: chess.Board) -> bool:
    """A proof-game-like position: at most HOME_MISSING units captured and at least
    HOME_UNITS units on their squares of the initial array. The positions of random games the
    finders certify are loose (measured on seeds 3100-3199: the route found 6 of 100, each
    one the finders find in under a second), published proof games are tight."""
    initial = chess.Board()
    missing = 32 - chess.popcount(target.occupied)
    home = sum(1 for square, piece in target.piece_map().items()
               if initial.piece_at(square) == piece)
    return missing <= HOME_MISSING and home >= HOME_UNITS


def with_route(target: chess.Board, budget: Budget,
               finders: Callable[[Budget], list[chess.Move] | None],
               first: Callable[[Budget], list[chess.Move] | None] | None = None
               ) -> list[chess.Move] | None:
    """For a position near the initial array (`near_initial_array`) whose bound is at most
    ROUTE_PLIES, turns: `first`, a short turn of the legal-game finders (their first round;
    at most FINDER_FIRST_SHARE of the time left, or FINDER_FIRST_NODES positions without a
    deadline); the route (ROUTE_FIRST nodes, and with a deadline at most FIRST_SHARE of the
    time left); `finders`, going on from `first` (at most FINDER_SECONDS, or FINDER_NODES
    positions without a deadline: with a node limit alone, the figure decides what is found,
    not the machine's speed); the schedule route
    (`legalgame.schedule_route`: all the time left, at least SCHEDULE_LEAST, or SCHEDULE_SECONDS
    without a deadline; not under a node limit alone: its slices are seconds, while its CP-SAT
    work counts against the node limit like the nodes of a search); when they stop
    with time left (their own node cap, or no deadline), the route again from where it stopped
    (ROUTE_NODES more), then `finders` once more. Else `finders` alone. Measured
    (bench/README-legal.md): the finders find most positions of short random games within
    their first round, the route most of what it finds on problems/spg within its first turn,
    and the rest of the random ones need the finders' time: a second route turn within a
    deadline lost two of them."""
    if target.ep_square is not None or not near_initial_array(target):
        return finders(budget)
    route = ProofRoute(target)
    if route.plies is None:
        return finders(budget)
    game = None
    if first is not None:
        game = in_turn(budget, FINDER_FIRST_SHARE, first, nodes=FINDER_FIRST_NODES)
    if game is None:
        game = in_turn(budget, FIRST_SHARE, lambda inner: route.run(inner, ROUTE_FIRST))
    left = budget.left()
    if game is None:        # at most FINDER_SECONDS, or FINDER_NODES without a deadline
        share = 1.0 if left is None or left <= FINDER_SECONDS else FINDER_SECONDS / left
        game = in_turn(budget, share, finders, nodes=FINDER_NODES)
    left = budget.left()
    if game is None and (budget.nodes is None if left is None else left >= SCHEDULE_LEAST):
        game = in_turn(budget, 1.0, _schedule_turn(target), seconds=SCHEDULE_SECONDS)
    if game is None:
        game = route.run(budget, ROUTE_NODES)
    return game if game is not None else finders(budget)


def _schedule_turn(target: chess.Board) -> Callable[[Budget], list[chess.Move] | None]:
    """The schedule route's turn (`legalgame.schedule_route`, the CP-SAT schedule model one
    length at a time), its model built only when the turn comes."""
    def turn(inner: Budget) -> list[chess.Move] | None:
        from retrologic.legalgame.schedule_route import ScheduleRoute
        return ScheduleRoute(target).run(inner)
    return turn


def in_turn(budget: Budget, share: float,
            turn: Callable[[Budget], list[chess.Move] | None],
            seconds: float | None = None, nodes: int | None = None
            ) -> list[chess.Move] | None:
    """`turn` under `share` of the time left; without a deadline, under `nodes` nodes (at most
    what a node limit leaves), else `seconds`, else the whole budget. None when its share runs
    out; LimitHit only when the caller's own limits are hit. Its nodes are charged to
    `budget`."""
    if budget.left() is not None:
        inner = budget.share(share)
    elif nodes is not None:
        inner = budget.share(nodes=nodes)
    elif seconds is not None:
        inner = budget.share(seconds=seconds)
    else:
        return turn(budget)
    return in_share(budget, inner, turn)


__all__ = ["FirstGameSearch", "LimitHit", "ProofRoute", "ROUTE_NODES", "ROUTE_PLIES",
           "find_by_proof_route", "first_length", "in_turn", "near_initial_array", "with_route"]
