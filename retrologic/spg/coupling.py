"""Coupling the two sides through a side with no spare move (its cheapest plans use every move
it has left): each of its units then follows a shortest trajectory of a cheapest plan (§6 of
shared/seeds/malikovic-spg-trajectories-coq.txt) and unmatched units stand still. So it captures
only on those trajectories' squares, and the other side's units that must be captured walk there
first (`coupled_bound`); it steps only along them (`next_steps`); and its own forced victims stay
where they stand, so the other side must land a move there, within the admissible trajectories
(§11) its spare moves allow (`landing_squares`)."""

from __future__ import annotations

from typing import NamedTuple

import chess

from retrologic.spg.bound import Bound, SideKey
from retrologic.spg.distances import INF, Distances
from retrologic.spg.memo import Memo
from retrologic.spg.options import BoundOptions
from retrologic.spg.routes import Routes, pawn_first_moves
from retrologic.spg.targets import BACK_RANK, Targets


class UnitWay(NamedTuple):
    """A unit of a cheapest castling scenario: where it stands, and where its cheapest routes
    go (to the rows it may take in a cheapest plan)."""

    square: int
    piece_type: int
    routes: int  # the squares of those routes
    steps: int  # their first steps


class Coupling:
    """The deductions from a side having no spare move, memoised by side key."""

    def __init__(self, targets: Targets, distances: Distances, routes: Routes, bound: Bound,
                 options: BoundOptions) -> None:
        self.targets = targets
        self.distances = distances
        self.routes = routes
        self.bound = bound
        self.options = options
        self.ways: Memo[SideKey, list[UnitWay]] = Memo("unit ways")
        self.victims: Memo[SideKey, list[tuple[int, int]]] = Memo("forced victims")
        # (moves, side key) -> the side's landing squares
        self.landings_by_moves: Memo[tuple[int, SideKey], int] = Memo("landing squares")
        # (color, unit type, unit square, captures, slots, spare moves) -> its landing squares
        self.landings_by_unit: Memo[tuple[bool, int, int, int, tuple[int, ...], int], int] = \
            Memo("unit landings")

    # a side with no spare move: its own units ---------------------------------------------------

    def unit_ways(self, board: chess.Board, color: chess.Color,
                  side_key: SideKey | None = None) -> list[UnitWay]:
        """Per unit of each cheapest castling scenario of `color`: (square, type, squares of its
        cheapest routes to the rows it may take in a cheapest plan, first steps of those routes).
        A pawn that may walk to a victim slot gets every square (not worked out)."""
        side_key = side_key or self.bound.side_key(board, color)
        plans = self.bound.plans(board, color, side_key)
        hit = self.ways.get(side_key)
        if hit is not None:
            return hit
        routes, distances = self.routes, self.distances
        base = min((p.moves for p in plans.scenarios), default=INF)
        targets = self.targets.units[color]
        out = []
        for value, _, placed, extra in plans.scenarios:
            if value != base:
                continue
            rows_of = self.bound.admissible(color, placed, plans.captures, plans.slots,
                                            base - extra)
            for (usq, utype), rows in zip(placed, rows_of):
                way = steps = 0
                for r in rows:
                    if r < len(targets):
                        tsq, ttype = targets[r]
                        way |= routes.route_squares(color, utype, usq, ttype, tsq, plans.captures)
                        steps |= routes.first_steps(color, utype, usq, ttype, tsq, plans.captures)
                    elif utype == chess.PAWN:
                        squares = plans.slots[r - len(targets)]
                        cost = distances.victim_cost(color, utype, usq, squares, plans.captures)
                        walk = routes.slot_detour(color, utype, usq, squares, plans.captures, cost)
                        way |= walk
                        steps |= walk & pawn_first_moves(color, usq)
                    elif utype != chess.KING:
                        dist = distances.piece_map(utype, color, usq)
                        for q in chess.scan_forward(plans.slots[r - len(targets)]):
                            walk = routes.piece_route(utype, color, usq, q, dist[q])
                            way |= walk
                            steps |= walk & routes.one_step(utype, color, usq)
                out.append(UnitWay(usq, utype, way, steps))
        self.ways[side_key] = out
        return out

    def next_steps(self, board: chess.Board, color: chess.Color,
                   side_key: SideKey | None = None) -> dict[int, int]:
        """Per unit of `color`, the squares its first move may go to on a cheapest route towards
        a target unit or victim slot it could take (a superset; castling is not covered).

        With no spare move every unit follows a cheapest route of a cheapest plan and unmatched
        units stand still, so any other move loses the game to the target.
        """
        out: dict[int, int] = {}
        for usq, utype, _, steps in self.unit_ways(board, color, side_key):
            if board.piece_type_at(usq) != utype or \
                    not board.occupied_co[color] & chess.BB_SQUARES[usq]:
                continue  # castled king or rook: the castling move is not filtered
            out[usq] = out.get(usq, 0) | steps
        return out

    def capture_squares(self, board: chess.Board, color: chess.Color,
                        side_key: SideKey | None = None) -> int:
        """Squares where `color` can still capture when it has no spare move (a superset).

        With no spare move every unit of `color` follows a cheapest route of a cheapest plan
        and unmatched units stand still, so a capture lands on a square of such a route: the
        squares of the shortest routes of every unit towards every target (or victim slot) it
        could take. Pawns walking to a victim slot give up (every square).
        """
        squares = 0
        for _, _, routes, _ in self.unit_ways(board, color, side_key):
            squares |= routes
        return squares

    def forced_victims(self, board: chess.Board, color: chess.Color,
                       side_key: SideKey | None = None) -> list[tuple[int, int]]:
        """`color`'s units that can become no target unit and fill no victim slot: they must be
        captured (kings and rooks that may still castle are left out)."""
        side_key = side_key or self.bound.side_key(board, color)
        plans = self.bound.plans(board, color, side_key)
        hit = self.victims.get(side_key)
        if hit is not None:
            return hit
        unit_routes, victim_cost = self.distances.unit_routes, self.distances.victim_cost
        out = []
        movable_rooks = 0
        for rook in chess.scan_forward(board.castling_rights & BACK_RANK[color]):
            movable_rooks |= chess.BB_SQUARES[rook]
        for usq in chess.scan_forward(board.occupied_co[color] & ~self.targets.frozen
                                      & ~board.kings & ~movable_rooks):
            utype = board.piece_type_at(usq) or 0  # (occupied: never 0)
            if any(unit_routes(color, utype, usq, ttype, tsq, plans.captures)
                   for tsq, ttype in self.targets.units[color]):
                continue
            if any(victim_cost(color, utype, usq, slot, plans.captures) < INF
                   for slot in plans.slots):
                continue
            out.append((usq, utype))
        self.victims[side_key] = out
        return out

    # ... and the other side ---------------------------------------------------------------------

    def coupled_bound(self, board: chess.Board, color: chess.Color,
                      side_key: SideKey | None = None, other_key: SideKey | None = None) -> int:
        """`color`'s bound when the opponent has no spare move: the opponent captures only on
        the squares of its cheapest routes, so each unit of `color` that must be captured walks
        to one of them first (distinct units: the walks add up). The keys: both sides' side
        keys when already computed."""
        side_key = side_key or self.bound.side_key(board, color)
        plans = self.bound.plans(board, color, side_key)
        if plans.bound >= INF:
            return INF
        victims = self.forced_victims(board, color, side_key)
        if not victims:
            return plans.bound
        where = self.capture_squares(board, not color, other_key)
        walk = 0
        for usq, utype in victims:
            walk += self.distances.victim_cost(color, utype, usq, where, plans.captures)
            if walk >= INF:
                return INF
        if walk == 0:
            return plans.bound
        k = plans.captures
        best = INF
        for value, capacity, *_ in plans.scenarios:
            # extra moves add at most one capture each: k <= capacity + (moves - value)
            best = min(best, value + walk + (1 if self.options.capacity and k - capacity > walk
                                             else 0))
        return max(best, k, plans.bound)

    def landing_squares(self, board: chess.Board, color: chess.Color, moves: int,
                        side_key: SideKey | None = None) -> int:
        """Squares `color` can land a move on, hence capture on, within `moves` moves (a
        superset; 0 when it cannot reach the target at all).

        In a scenario of value v the other units need at least v - cost(u, f) moves besides
        unit u's (the assignment without u's row and column), so u, heading for fate f, lands
        on q only if d(u, q) + d(q, f) <= cost(u, f) + (moves - v): a detour of at most the
        spare moves. Fates: the target units and victim slots u can take, or none (captured
        where it stands after its walk). With no spare move: `capture_squares`.
        """
        side_key = side_key or self.bound.side_key(board, color)
        plans = self.bound.plans(board, color, side_key)
        if plans.cheapest > moves:
            return 0
        if plans.cheapest == moves:
            return self.capture_squares(board, color, side_key)
        key = (moves, side_key)
        hit = self.landings_by_moves.get(key)
        if hit is not None:
            return hit
        out = 0
        for value, _, placed, _ in plans.scenarios:
            if value > moves:
                continue
            for usq, utype in placed:
                out |= self.unit_landings(color, utype, usq, plans.captures, plans.slots,
                                          moves - value)
        self.landings_by_moves[key] = out
        return out

    def unit_landings(self, color: chess.Color, utype: int, usq: int, captures: int,
                      slots: tuple[int, ...], spare: int) -> int:
        """Squares the unit may land on with `spare` moves of detour over the cost of one of
        its fates (see `landing_squares`)."""
        key = (color, utype, usq, captures, slots, spare)
        hit = self.landings_by_unit.get(key)
        if hit is not None:
            return hit
        routes, distances = self.routes, self.distances
        out = routes.reach(color, utype, usq, spare, captures)  # no fate: captured after a walk
        for tsq, ttype in self.targets.units[color]:
            cost = distances.unit_cost(color, utype, usq, ttype, tsq, captures)
            if cost < INF:
                out |= routes.detour(color, utype, usq, ttype, tsq, captures, cost + spare)
        for squares in slots:
            cost = distances.victim_cost(color, utype, usq, squares, captures)
            if cost < INF:
                out |= routes.slot_detour(color, utype, usq, squares, captures, cost + spare)
        self.landings_by_unit[key] = out  # its own square too: it may step out and come back
        return out
