"""Distance tables of the proof-game analysis (§5 of
shared/seeds/malikovic-spg-trajectories-coq.txt, the MAP function): the moves a unit needs from
its square to every square, with the frozen units as unmovable obstacles (§7), and for a king
the squares the other side's frozen units attack too; a pawn's per capture count, promotions
included. From them: the cost of a unit becoming a target unit, of
walking to where it is captured, and the squares where a pawn's captures may land."""

from __future__ import annotations

from functools import lru_cache

import chess

from retrologic.spg import shared_maps, trajectory
from retrologic.spg.memo import Memo

INF = 10 ** 6  # moves to an unreachable square; an assignment entry that is not allowed
SHARED = 16    # tables of distinct frozen sets a process keeps for reuse (`shared`)
LAST_RANK_SQUARES = {chess.WHITE: list(chess.SquareSet(chess.BB_RANK_8)),
                     chess.BLACK: list(chess.SquareSet(chess.BB_RANK_1))}

# a unit's cheapest routes to a target unit per pawn-capture count: (pawn moves, captures, piece
# moves) each
UnitRoutes = tuple[tuple[int, int, int], ...]
# (color, unit type, unit square, target type, target square, captures)
RouteKey = tuple[bool, int, int, int, int, int]


class Distances:
    """The distance tables of one set of frozen units (the same for both colours: frozen units
    of either side block; a king's also avoid `king_walls`, per colour the squares the other
    side's frozen units attack), and what follows from them per unit."""

    def __init__(self, frozen: int, king_walls: dict[chess.Color, int] | None = None) -> None:
        self.frozen = frozen
        walls = king_walls or {}
        # per colour, the squares its king's maps take as obstacles
        self.king_blocked = {color: frozen | walls.get(color, 0) for color in chess.COLORS}
        # (piece type, square, colour: a king's own, True for every other piece)
        self.piece_maps: Memo[tuple[int, int, bool], tuple] = Memo("piece maps")
        self.pawn_sweeps: Memo[tuple[bool, int], tuple] = Memo("pawn sweeps")
        self.cheapest_routes: Memo[RouteKey, UnitRoutes] = Memo("cheapest routes")
        # (color, unit type, unit square, victim squares, captures)
        self.victim_costs: Memo[tuple[bool, int, int, int, int], int] = Memo("victim costs")
        # (color, pawn square, target square, capture budget)
        self.capture_routes: Memo[tuple[bool, int, int, int], tuple[int, int]] = \
            Memo("capture routes")

    def blocked(self, piece_type: int, color: chess.Color) -> int:
        """The squares a `color` piece of this type never enters: the frozen units, and for a
        king the squares the other side's frozen units attack (it starts on one only when in
        check, and may leave it)."""
        return self.king_blocked[color] if piece_type == chess.KING else self.frozen

    def piece_map(self, piece_type: int, color: chess.Color, square: chess.Square) -> tuple:
        """Moves a piece needs from `square` to every square, its `blocked` squares as
        obstacles (the same for both colours but a king's)."""
        key = (piece_type, square, color if piece_type == chess.KING else True)
        hit = self.piece_maps.get(key)
        if hit is None:
            hit = shared_maps.piece_map(piece_type, square, self.blocked(piece_type, color), INF)
            self.piece_maps[key] = hit
        return hit

    def piece_distance(self, piece_type: int, color: chess.Color, square: chess.Square,
                       target: chess.Square) -> int:
        """Moves a piece needs from `square` to `target`, read off the map from `target`
        when neither is blocked (a piece's moves are reversible, so the distance is symmetric):
        the target squares are few and fixed, the units' squares and the promotion squares
        many, so far fewer maps are built."""
        if (chess.BB_SQUARES[square] | chess.BB_SQUARES[target]) & \
                self.blocked(piece_type, color):
            return self.piece_map(piece_type, color, square)[target]
        return self.piece_map(piece_type, color, target)[square]

    def pawn_maps(self, color: chess.Color, square: chess.Square) -> tuple:
        """Per capture count c (0..6), the moves a pawn on `square` needs to each square."""
        key = (color, square)
        hit = self.pawn_sweeps.get(key)
        if hit is None:
            hit = shared_maps.pawn_sweep(color, square, self.frozen, INF)
            self.pawn_sweeps[key] = hit
        return hit

    def unit_cost(self, color: chess.Color, utype: int, usq: int, ttype: int, tsq: int,
                  captures: int) -> int:
        """Fewest moves for a unit to become the target unit, its pawn phase capturing at most
        `captures` times."""
        if utype != chess.PAWN:
            if utype != ttype:
                return INF
            return self.piece_map(utype, color, usq)[tsq]
        maps = self.pawn_maps(color, usq)
        top = min(captures, trajectory.MAX_PAWN_CAPTURES)
        if ttype == chess.PAWN:
            return min(maps[c][tsq] for c in range(top + 1))
        if ttype == chess.KING:
            return INF
        best = INF
        for p in LAST_RANK_SQUARES[color]:
            pm = min(maps[c][p] for c in range(top + 1))
            if pm >= INF:
                continue
            d = self.piece_map(ttype, color, p)[tsq]
            if pm + d < best:
                best = pm + d
        return best

    def unit_routes(self, color: chess.Color, utype: int, usq: int, ttype: int, tsq: int,
                    captures: int) -> UnitRoutes:
        """The unit's cheapest routes to the target unit per pawn-capture count c, as tuples
        (pawn moves, c, piece moves) (a piece: (0, 0, d)); () when it cannot become it."""
        key = (color, utype, usq, ttype, tsq, captures)
        hit = self.cheapest_routes.get(key)
        if hit is not None:
            return hit
        out = []
        if utype != chess.PAWN:
            if utype == ttype:
                d = self.piece_distance(utype, color, usq, tsq)
                if d < INF:
                    out.append((0, 0, d))
        elif ttype != chess.KING:
            maps = self.pawn_maps(color, usq)
            top = min(captures, trajectory.MAX_PAWN_CAPTURES)
            for c in range(top + 1):
                if ttype == chess.PAWN:
                    if maps[c][tsq] < INF:
                        out.append((maps[c][tsq], c, 0))
                    continue
                # keep the Pareto-best (pawn moves, piece moves) pairs over promotion squares
                pairs = []
                for p in LAST_RANK_SQUARES[color]:
                    pm = maps[c][p]
                    if pm >= INF:
                        continue
                    d = self.piece_distance(ttype, color, p, tsq)
                    if d < INF:
                        pairs.append((pm, d))
                for pm, d in pairs:
                    if not any((q, e) != (pm, d) and q <= pm and e <= d for q, e in pairs):
                        out.append((pm, c, d))
        hit = tuple(sorted(set(out)))
        self.cheapest_routes[key] = hit
        return hit

    def victim_cost(self, color: chess.Color, utype: int, usq: int, squares: int,
                    captures: int) -> int:
        """Fewest moves for a unit to stand on one of `squares` (where it is captured); a pawn
        may instead stand beside it, taken en passant. Kings are never captured."""
        if utype == chess.KING:
            return INF
        key = (color, utype, usq, squares, captures)
        hit = self.victim_costs.get(key)
        if hit is not None:
            return hit
        if utype != chess.PAWN:
            distance = self.piece_map(utype, color, usq)
            best = min((distance[q] for q in chess.scan_forward(squares)), default=INF)
        else:
            best = self._pawn_victim_cost(color, usq, squares, captures)
        self.victim_costs[key] = best
        return best

    def _pawn_victim_cost(self, color: chess.Color, usq: int, squares: int,
                          captures: int) -> int:
        """`victim_cost` of a pawn: the fewest moves to stand on one of `squares`, or beside
        one (taken e.p.), as a pawn or as the piece it promotes to (`unit_cost` of each type
        there). A queen goes wherever a rook or a bishop goes, as fast (frozen units block it
        alike), so the queen and the knight stand for the four promotions."""
        spots = squares  # e.p.: a white pawn taken e.p. stands one rank above the landing
        # square, a black one one rank below
        spots |= ((squares << 8) & chess.BB_ALL) if color == chess.WHITE else squares >> 8
        maps = self.pawn_maps(color, usq)
        counts = range(min(captures, trajectory.MAX_PAWN_CAPTURES) + 1)
        best = INF
        for q in chess.scan_forward(spots):
            best = min(best, min(maps[c][q] for c in counts))
        for p in LAST_RANK_SQUARES[color]:
            to_promote = min(maps[c][p] for c in counts)
            if to_promote >= best:
                continue
            for ptype in (chess.KNIGHT, chess.QUEEN):
                distance = self.piece_map(ptype, color, p)
                for q in chess.scan_forward(spots):
                    if to_promote + distance[q] < best:
                        best = to_promote + distance[q]
        return best

    def pawn_capture_route(self, color: chess.Color, p: int, tsq: int,
                           budget: int = trajectory.MAX_PAWN_CAPTURES) -> tuple[int, int]:
        """(fewest captures, at most `budget`, for a pawn on p to reach tsq (INF: never), squares
        where any capture of a route with at most `budget` captures may land)."""
        key = (color, p, tsq, budget)
        hit = self.capture_routes.get(key)
        if hit is not None:
            return hit
        maps = self.pawn_maps(color, p)
        fewest = next((c for c in range(budget + 1) if maps[c][tsq] < INF), INF)
        squares = self.capture_landings(color, p, tsq, budget) if 0 < fewest < INF else 0
        hit = (fewest, squares)
        self.capture_routes[key] = hit
        return hit

    def capture_landings(self, color: chess.Color, p: int, tsq: int,
                         budget: int = trajectory.MAX_PAWN_CAPTURES) -> int:
        """Squares where a capture may land on a route of a pawn on p to tsq with at most
        `budget` (<= MAX_PAWN_CAPTURES) captures: those reached after at least one capture
        from which tsq is still in reach (a superset of the landing squares)."""
        maps = self.pawn_maps(color, p)
        squares = 0
        for q in chess.SQUARES:
            if q == p:
                continue
            before = [c for c in range(1, budget + 1) if maps[c][q] < INF]
            if not before:
                continue
            if q == tsq:
                squares |= chess.BB_SQUARES[q]
            elif chess.square_rank(q) not in (0, 7):
                onward = self.pawn_maps(color, q)
                if any(onward[c2][tsq] < INF for c2 in range(budget - before[0] + 1)):
                    squares |= chess.BB_SQUARES[q]
        return squares


def shared(frozen: int, king_walls: dict[chess.Color, int] | None = None) -> Distances:
    """The distance tables of these frozen units and king walls, shared by every analysis of
    the process that has the same (the SHARED most recently used kept). Every table of
    `Distances` is a function of its key, the frozen units and the king walls alone, so an
    analysis may start with the entries another one made. Why: the last-move refutation runs
    the proof-game bound (`legality.reachability`) on every position of its trees, a fresh
    analysis each, with nearly always the same frozen units: on hoeg-1915's three plies
    (9,987 sequences, 20,078 positions) 9,909 of 9,917 analyses found their tables here, and
    the solve took 21 s of CPU instead of 43-47 s, at the same peak memory (2026-12-05)."""
    return _shared(frozen, tuple(sorted((king_walls or {}).items())))


@lru_cache(maxsize=SHARED)
def _shared(frozen: int, king_walls: tuple[tuple[chess.Color, int], ...]) -> Distances:
    """`shared`'s tables, made once per key (lru_cache: safe to call from threads)."""
    return Distances(frozen, dict(king_walls))
