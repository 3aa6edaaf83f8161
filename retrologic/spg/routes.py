"""The squares of a unit's trajectories, from the distance tables (shared/seeds/
malikovic-spg-trajectories-coq.txt): its shortest trajectories and their first steps (§6: the
squares q with d(from, q) + d(q, to) = d(from, to)), and its admissible trajectories of a given
length (§11: a shortest trajectory to a docking square, then one onward), which bound where a
unit with spare moves may land."""

from __future__ import annotations

from typing import Callable

import chess

from retrologic.spg import trajectory
from retrologic.spg.distances import INF, LAST_RANK_SQUARES, Distances
from retrologic.spg.memo import Memo
from retrologic.vocabulary import PROMOTION_TYPES

# (pawn destination, pawn captures, pawn moves, piece moves after it)
PawnEnd = tuple[int, int, int, int]


def pawn_first_moves(color: chess.Color, square: chess.Square) -> int:
    """Squares one pawn move from `square` may reach (single, double step, captures)."""
    rank = chess.square_rank(square)
    if rank in (0, 7):
        return 0
    step = 8 if color == chess.WHITE else -8
    out = chess.BB_SQUARES[square + step] | chess.BB_PAWN_ATTACKS[color][square]
    if rank == (1 if color == chess.WHITE else 6):
        out |= chess.BB_SQUARES[square + 2 * step]
    return out


class Routes:
    """Squares of shortest (§6) and admissible (§11) trajectories over one set of distance
    tables, memoised per look-up."""

    def __init__(self, distances: Distances) -> None:
        self.distances = distances
        # (piece type, color, from, to) -> squares after `from` on its shortest routes
        self.piece_routes: Memo[tuple[int, bool, int, int], int] = Memo("piece routes")
        # (color, from, to, captures) -> squares the pawn's cheapest routes may capture on
        self.pawn_routes: Memo[tuple[bool, int, int, int], int] = Memo("pawn routes")
        # (piece type, color, from) -> squares one move away
        self.one_steps: Memo[tuple[int, bool, int], int] = Memo("one steps")
        # (color, unit type, unit square, victim squares, captures, budget) -> landing squares
        self.slot_detours: Memo[tuple[bool, int, int, int, int, int], int] = Memo("slot detours")

    # shortest trajectories (§6) -----------------------------------------------------------------

    def piece_route(self, utype: int, color: chess.Color, frm: int, to: int, d: int) -> int:
        """Squares after `frm` on the piece's shortest routes frm -> to of length d."""
        if d >= INF or d == 0:
            return 0
        key = (utype, color, frm, to)
        hit = self.piece_routes.get(key)
        if hit is None:
            a = self.distances.piece_map(utype, color, frm)
            b = self.distances.piece_map(utype, color, to)  # reversible moves: b[q] = d(q, to)
            hit = 0
            for q in chess.SQUARES:
                if q != frm and a[q] + b[q] == d:
                    hit |= chess.BB_SQUARES[q]
            self.piece_routes[key] = hit
        return hit

    def pawn_route(self, color: chess.Color, frm: int, to: int, c: int) -> int:
        """Squares a pawn's cheapest route frm -> to with exactly c captures may capture on."""
        key = (color, frm, to, c)
        hit = self.pawn_routes.get(key)
        if hit is None:
            hit = 0
            maps = self.distances.pawn_maps(color, frm)
            total = maps[c][to] if c <= trajectory.MAX_PAWN_CAPTURES else INF
            if 0 < c and total < INF:
                for q in chess.SQUARES:
                    if q == frm:
                        continue
                    for c1 in range(1, c + 1):
                        if maps[c1][q] < INF and (
                                q == to and c1 == c or chess.square_rank(q) not in (0, 7)
                                and maps[c1][q] + self.distances.pawn_maps(color, q)[c - c1][to]
                                == total):
                            hit |= chess.BB_SQUARES[q]
                            break
            self.pawn_routes[key] = hit
        return hit

    def one_step(self, utype: int, color: chess.Color, usq: int) -> int:
        """Squares one move of the piece from `usq` reaches (frozen units as obstacles)."""
        key = (utype, color, usq)
        hit = self.one_steps.get(key)
        if hit is None:
            dist = self.distances.piece_map(utype, color, usq)
            hit = sum(chess.BB_SQUARES[q] for q in chess.SQUARES if dist[q] == 1)
            self.one_steps[key] = hit
        return hit

    def route_squares(self, color: chess.Color, utype: int, usq: int, ttype: int, tsq: int,
                      captures: int) -> int:
        """Capture squares of the unit's cheapest routes to the target unit."""
        if utype != chess.PAWN:
            if utype != ttype:
                return 0
            return self.piece_route(utype, color, usq, tsq,
                                    self.distances.piece_map(utype, color, usq)[tsq])
        out = 0
        for dest, c, _, d in self.cheapest_pawn_ends(color, usq, ttype, tsq, captures):
            out |= self.pawn_route(color, usq, dest, c) | \
                self.piece_route(ttype, color, dest, tsq, d)
        return out

    def cheapest_pawn_ends(self, color: chess.Color, usq: int, ttype: int, tsq: int,
                           captures: int) -> list[PawnEnd]:
        """(pawn destination, pawn captures, pawn moves, piece moves after it) of the cheapest
        routes of the pawn on `usq` to the target unit (none when it needs no move)."""
        if ttype == chess.KING:
            return []
        cost = self.distances.unit_cost(color, chess.PAWN, usq, ttype, tsq, captures)
        if cost >= INF or cost == 0:
            return []
        maps = self.distances.pawn_maps(color, usq)
        ends = []
        for c in range(min(captures, trajectory.MAX_PAWN_CAPTURES) + 1):
            if ttype == chess.PAWN:
                if maps[c][tsq] == cost:
                    ends.append((tsq, c, cost, 0))
                continue
            for p in LAST_RANK_SQUARES[color]:
                pm = maps[c][p]
                if pm < INF:
                    d = self.distances.piece_map(ttype, color, p)[tsq]
                    if pm + d == cost:
                        ends.append((p, c, pm, d))
        return ends

    def first_steps(self, color: chess.Color, utype: int, usq: int, ttype: int, tsq: int,
                    captures: int) -> int:
        """First-move squares of the unit's cheapest routes to the target unit."""
        if utype != chess.PAWN:
            if utype != ttype:
                return 0
            d = self.distances.piece_map(utype, color, usq)[tsq]
            return self.piece_route(utype, color, usq, tsq, d) & self.one_step(utype, color, usq)
        ends = self.cheapest_pawn_ends(color, usq, ttype, tsq, captures)
        out = 0
        for q in chess.scan_forward(pawn_first_moves(color, usq) if ends else 0):
            c1 = 1 if chess.square_file(q) != chess.square_file(usq) else 0
            for dest, c, pm, _ in ends:
                if c1 > c:
                    continue
                rest = 0 if q == dest and c1 == c else (
                    INF if chess.square_rank(q) in (0, 7)
                    else self.distances.pawn_maps(color, q)[c - c1][dest])
                if 1 + rest == pm:
                    out |= chess.BB_SQUARES[q]
                    break
        return out

    # admissible trajectories (§11): detours within a budget ------------------------------------

    def reach(self, color: chess.Color, utype: int, usq: int, budget: int, captures: int) -> int:
        """Squares the unit (a pawn: promoting on the way) reaches in at most `budget` moves."""
        if utype != chess.PAWN:
            dist = self.distances.piece_map(utype, color, usq)
            return sum(chess.BB_SQUARES[q] for q in chess.SQUARES if dist[q] <= budget)
        top = min(captures, trajectory.MAX_PAWN_CAPTURES)
        maps = self.distances.pawn_maps(color, usq)[:top + 1]
        out = 0
        for q in chess.SQUARES:
            pm = min(m[q] for m in maps)
            if pm > budget:
                continue
            out |= chess.BB_SQUARES[q]
            if q in LAST_RANK_SQUARES[color]:
                for tt in PROMOTION_TYPES:
                    out |= self.reach(color, tt, q, budget - pm, 0)
        return out

    def detour(self, color: chess.Color, utype: int, usq: int, ttype: int, tsq: int,
               captures: int, budget: int) -> int:
        """Squares q on the unit's routes to the target unit with d(u, q) + d(q, f) <= budget."""
        if utype != chess.PAWN:
            a = self.distances.piece_map(utype, color, usq)
            b = self.distances.piece_map(ttype, color, tsq)
            return sum(chess.BB_SQUARES[q] for q in chess.SQUARES if a[q] + b[q] <= budget)
        promotes = ttype not in (chess.PAWN, chess.KING)
        return self.pawn_landings(
            color, usq, captures, budget,
            lambda q, c: self.distances.unit_cost(color, chess.PAWN, q, ttype, tsq, c),
            lambda q, left: self.detour(color, ttype, q, ttype, tsq, 0, left) if promotes else 0)

    def slot_detour(self, color: chess.Color, utype: int, usq: int, squares: int, captures: int,
                    budget: int) -> int:
        """Squares q the unit may land on while walking to a victim slot (`squares`) with
        d(u, q) + d(q, slot) <= budget; a pawn may promote on the way."""
        if utype == chess.KING or budget >= INF:
            return 0
        key = (color, utype, usq, squares, captures, budget)
        hit = self.slot_detours.get(key)
        if hit is not None:
            return hit
        victim_cost = self.distances.victim_cost
        if utype != chess.PAWN:
            a = self.distances.piece_map(utype, color, usq)
            out = 0
            for q in chess.SQUARES:
                if a[q] <= budget and a[q] + victim_cost(color, utype, q, squares, 0) <= budget:
                    out |= chess.BB_SQUARES[q]
        else:  # a promoted queen covers the bishop's and rook's detours
            out = self.pawn_landings(
                color, usq, captures, budget,
                lambda q, c: victim_cost(color, chess.PAWN, q, squares, c),
                lambda q, left: self.slot_detour(color, chess.QUEEN, q, squares, 0, left)
                | self.slot_detour(color, chess.KNIGHT, q, squares, 0, left))
        self.slot_detours[key] = out
        return out

    def pawn_landings(self, color: chess.Color, usq: int, captures: int, budget: int,
                      rest: Callable[[int, int], int], promoted: Callable[[int, int], int]) -> int:
        """Squares a pawn on `usq` may land on within `budget` moves of a route: before its
        last rank, q with d(u, q) + rest(q, captures left) <= budget; promoting on q, the
        squares promoted(q, moves left) of the new piece."""
        cap = min(captures, trajectory.MAX_PAWN_CAPTURES)
        maps = self.distances.pawn_maps(color, usq)
        out = 0
        for q in chess.SQUARES:
            last = q in LAST_RANK_SQUARES[color]
            for c1 in range(cap + 1):
                pm = maps[c1][q]
                if pm > budget:
                    continue
                if last:
                    out |= promoted(q, budget - pm)
                elif pm + rest(q, captures - c1) <= budget:
                    out |= chess.BB_SQUARES[q]
                    break
        return out
