"""Linguistic-Geometry trajectory bundles (Maliković §6-7, 9, 11; Stilman), on the distance maps
of spg/maps.py, whose names this module re-exports: `trajectory` is the one module to import.

A *trajectory* is a tuple of squares from start to target (one square per move, start included);
a *bundle* is a sorted list of trajectories with the same start and target. The shortest ones
follow the intersection rule (§6): a square is on a shortest route when its distances from the
start and to the target add up to the length. Admissible trajectories of degree k (§11) join k
shortest ones at docks. Obstacles along a route (§7, §9) and the paper's rendering close the
module. Squares, obstacles and pawn layers are as in spg/maps.py.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import chess

from retrologic.spg.maps import (MAX_PAWN_CAPTURES, PROMOTION_PIECES, UNREACHABLE, Map, Squares,
                                 UnitGraph, check_square, check_start, distance, distance_map,
                                 distance_to_map, last_rank, mask_of, min_captures_map,
                                 pawn_maps, pawn_steps, pawn_sweep, piece_map, piece_targets,
                                 sum_map, unit_graph)
from retrologic.spg.maps import _graph  # noqa: F401 - bench/trajectory.py clears its cache

__all__ = [
    # the distance maps (spg/maps.py)
    "MAX_PAWN_CAPTURES", "PROMOTION_PIECES", "UNREACHABLE", "Map", "Squares", "UnitGraph",
    "distance", "distance_map", "distance_to_map", "last_rank", "mask_of", "min_captures_map",
    "pawn_maps", "pawn_steps", "pawn_sweep", "piece_map", "piece_targets", "sum_map",
    "unit_graph",
    # trajectories
    "Trajectory", "BundleTooLarge", "iter_shortest", "shortest_bundle", "count_shortest",
    "bundle_squares", "first_moves", "docks", "admissible_bundle", "count_admissible",
    "passed_squares", "capture_squares", "route_blocked", "movable_obstacles",
    "paper_coordinates", "from_paper", "grid", "render_map", "trajectory_text",
]

Trajectory = tuple[int, ...]


class BundleTooLarge(Exception):
    """Raised by the enumerating functions when a bundle exceeds the caller's `limit`."""

    def __init__(self, count: int, limit: int) -> None:
        self.count, self.limit = count, limit
        super().__init__(f"the bundle holds {count} trajectories (limit {limit})")


# ---------------------------------------------------------------------------------------------
# shortest trajectories (the intersection rule of §6)


class _Query:
    """A start state, a target state set, and both distance arrays on one graph."""

    def __init__(self, graph: UnitGraph, start: int, targets: Sequence[int]) -> None:
        self.graph, self.start, self.targets = graph, start, tuple(targets)
        self.ds = graph.distances([start])
        self.dt = graph.distances(self.targets, reverse=True)
        self.length = self.dt[start]

    def next_states(self, x: int, i: int) -> list[int]:
        """The intersection rule: one move from x, at distance i+1 from the start and
        length-i-1 from the target."""
        ds, dt, want = self.ds, self.dt, self.length - i - 1
        return [y for y in self.graph.succ[x] if ds[y] == i + 1 and dt[y] == want]

    def paths(self) -> Iterator[tuple[int, ...]]:
        if self.length >= UNREACHABLE:
            return
        path = [self.start]
        stack = [iter(self.next_states(self.start, 0))]
        if self.length == 0:
            yield (self.start,)
            return
        while stack:
            y = next(stack[-1], None)
            if y is None:
                stack.pop()
                path.pop()
                continue
            path.append(y)
            if len(path) - 1 == self.length:
                yield tuple(path)
                path.pop()
            else:
                stack.append(iter(self.next_states(y, len(path) - 1)))

    def count(self) -> int:
        if self.length >= UNREACHABLE:
            return 0
        memo: dict[int, int] = {}
        # states on the bundle, by decreasing depth
        layer = {self.start}
        levels = [layer]
        for i in range(self.length):
            layer = {y for x in layer for y in self.next_states(x, i)}
            levels.append(layer)
        for x in levels[-1]:
            memo[x] = 1
        for i in range(self.length - 1, -1, -1):
            for x in levels[i]:
                memo[x] = sum(memo[y] for y in self.next_states(x, i))
        return memo[self.start]


def _query(piece: int, color: chess.Color, start: int, target: int, blocked: Squares,
           no_entry: Squares, no_cross: Squares, captures: int | None,
           promote: int | None) -> _Query:
    g = unit_graph(piece, color, blocked, no_entry=no_entry, no_cross=no_cross, promote=promote)
    check_square(target)
    return _Query(g, check_start(g.piece, start), g.states(target, g.final_layers(captures)))


def iter_shortest(piece: int, color: chess.Color, start: int, target: int,
                  blocked: Squares = 0, *, no_entry: Squares = 0, no_cross: Squares = 0,
                  captures: int | None = None, promote: int | None = None) -> Iterator[Trajectory]:
    """Every shortest trajectory from `start` to `target`, lazily (depth-first order)."""
    q = _query(piece, color, start, target, blocked, no_entry, no_cross, captures, promote)
    for states in q.paths():
        yield tuple(s % 64 for s in states)


def shortest_bundle(piece: int, color: chess.Color, start: int, target: int,
                    blocked: Squares = 0, *, no_entry: Squares = 0, no_cross: Squares = 0,
                    captures: int | None = None, promote: int | None = None,
                    limit: int | None = None) -> list[Trajectory]:
    """The bundle of shortest trajectories, sorted (empty when the target is unreachable).

    Raises BundleTooLarge if it holds more than `limit` trajectories (counted first, cheaply).
    """
    q = _query(piece, color, start, target, blocked, no_entry, no_cross, captures, promote)
    if limit is not None:
        n = q.count()
        if n > limit:
            raise BundleTooLarge(n, limit)
    return sorted(tuple(s % 64 for s in states) for states in q.paths())


def count_shortest(piece: int, color: chess.Color, start: int, target: int,
                   blocked: Squares = 0, *, no_entry: Squares = 0, no_cross: Squares = 0,
                   captures: int | None = None, promote: int | None = None) -> int:
    """The number of shortest trajectories, by dynamic programming (no enumeration)."""
    return _query(piece, color, start, target, blocked, no_entry, no_cross, captures,
                  promote).count()


def bundle_squares(piece: int, color: chess.Color, start: int, target: int,
                   blocked: Squares = 0, *, no_entry: Squares = 0, no_cross: Squares = 0,
                   captures: int | None = None, promote: int | None = None) -> int:
    """Bitboard of the squares that some shortest trajectory stands on (no enumeration)."""
    q = _query(piece, color, start, target, blocked, no_entry, no_cross, captures, promote)
    if q.length >= UNREACHABLE:
        return 0
    out = 0
    for x in range(q.graph.size):
        if q.ds[x] + q.dt[x] == q.length:
            out |= chess.BB_SQUARES[x % 64]
    return out


def first_moves(piece: int, color: chess.Color, start: int, target: int,
                blocked: Squares = 0, *, no_entry: Squares = 0, no_cross: Squares = 0,
                captures: int | None = None, promote: int | None = None) -> list[int]:
    """The squares a shortest trajectory can go to first (the paper's b6, c6, d6 for K c7-e1)."""
    q = _query(piece, color, start, target, blocked, no_entry, no_cross, captures, promote)
    if q.length >= UNREACHABLE or q.length == 0:
        return []
    return sorted({y % 64 for y in q.next_states(q.start, 0)})


# ---------------------------------------------------------------------------------------------
# admissible trajectories of degree k (§11): concatenations of k shortest ones, joined at docks


def docks(piece: int, color: chess.Color, start: int, target: int, length: int,
          blocked: Squares = 0, *, no_entry: Squares = 0, no_cross: Squares = 0,
          captures: int | None = None, promote: int | None = None) -> list[int]:
    """Squares D with MAP_start(D) + MAP_target(D) = length: the docks of degree-2 trajectories."""
    q = _query(piece, color, start, target, blocked, no_entry, no_cross, captures, promote)
    return sorted({x % 64 for x in range(q.graph.size) if q.ds[x] + q.dt[x] == length})


def admissible_bundle(piece: int, color: chess.Color, start: int, target: int, length: int,
                      degree: int = 2, blocked: Squares = 0, *, no_entry: Squares = 0,
                      no_cross: Squares = 0, captures: int | None = None,
                      promote: int | None = None, limit: int | None = None) -> list[Trajectory]:
    """Admissible trajectories of `degree` k and exactly `length` moves, built via docks, sorted.

    Degree 1 is the shortest bundle (if its length matches); degree k joins an admissible
    trajectory of degree k-1 to a dock D with a shortest trajectory from D to the target. A
    shortest trajectory may be the single square D, so degree k includes degree k-1 at the same
    length. Raises BundleTooLarge past `limit` (counted first without enumeration).
    """
    if degree < 1:
        raise ValueError(f"degree must be at least 1, not {degree!r}")
    if length < 0:
        raise ValueError(f"length must be at least 0, not {length!r}")
    q = _query(piece, color, start, target, blocked, no_entry, no_cross, captures, promote)
    if limit is not None:
        n = _count_admissible(q, length, degree)
        if n > limit:
            raise BundleTooLarge(n, limit)
    g = q.graph
    memo: dict[tuple[int, int, int], frozenset[tuple[int, ...]]] = {}

    def shortest(src: int, dst_states: tuple[int, ...]) -> list[tuple[int, ...]]:
        return list(_Query(g, src, dst_states).paths())

    def adm(k: int, dst_states: tuple[int, ...], ell: int) -> frozenset[tuple[int, ...]]:
        key = (k, dst_states[0], ell)
        if len(dst_states) == 1 and key in memo:
            return memo[key]
        dt = g.distances(dst_states, reverse=True)
        if k == 1:
            out = frozenset(shortest(q.start, dst_states)) if dt[q.start] == ell else frozenset()
        else:
            acc: set[tuple[int, ...]] = set()
            for d in range(g.size):
                l2 = dt[d]
                if l2 > ell or q.ds[d] > ell - l2:
                    continue
                heads = adm(k - 1, (d,), ell - l2)
                if not heads:
                    continue
                tails = shortest(d, dst_states)
                for h in heads:
                    for t in tails:
                        acc.add(h + t[1:])
            out = frozenset(acc)
        if len(dst_states) == 1:
            memo[key] = out
        return out

    return sorted(tuple(s % 64 for s in states) for states in adm(degree, q.targets, length))


def count_admissible(piece: int, color: chess.Color, start: int, target: int, length: int,
                     degree: int = 2, blocked: Squares = 0, *, no_entry: Squares = 0,
                     no_cross: Squares = 0, captures: int | None = None,
                     promote: int | None = None) -> int:
    """The number of admissible trajectories of `degree` and `length`, without enumerating them.

    A route is admissible of degree k iff its greedy cut into shortest pieces (extend the current
    piece while it stays shortest) has at most k pieces; a dynamic programme over (piece start,
    square, pieces used) counts each route once.
    """
    if degree < 1:
        raise ValueError(f"degree must be at least 1, not {degree!r}")
    if length < 0:
        raise ValueError(f"length must be at least 0, not {length!r}")
    q = _query(piece, color, start, target, blocked, no_entry, no_cross, captures, promote)
    return _count_admissible(q, length, degree)


def _count_admissible(q: _Query, length: int, degree: int) -> int:
    g, dt = q.graph, q.dt
    if dt[q.start] > length:
        return 0
    # state: (piece start a, current x, pieces used) -> number of route prefixes
    layer: dict[tuple[int, int, int], int] = {(q.start, q.start, 1): 1}
    for i in range(length):
        rest = length - i - 1
        nxt: dict[tuple[int, int, int], int] = {}
        for (a, x, used), n in layer.items():
            da = g.distances([a])
            here = da[x]
            for y in g.succ[x]:
                if dt[y] > rest:
                    continue
                if da[y] == here + 1:
                    key = (a, y, used)
                elif used < degree:
                    key = (x, y, used + 1)
                else:
                    continue
                nxt[key] = nxt.get(key, 0) + n
        layer = nxt
    targets = set(q.targets)
    return sum(n for (a, x, used), n in layer.items() if x in targets)


# ---------------------------------------------------------------------------------------------
# obstacles along a trajectory (§7, §9)


def _between_in_order(a: int, b: int) -> list[int]:
    """The squares strictly between a and b on a line, from a towards b."""
    squares = list(chess.scan_forward(chess.between(a, b)))
    return squares if b > a else squares[::-1]


def passed_squares(piece: int, color: chess.Color, trajectory: Sequence[int],
                   promote: int | None = None) -> list[int]:
    """The squares each move of a trajectory crosses or enters, in order (start excluded).

    Line moves cross the squares between; a pawn's double step crosses its middle square. With
    `promote`, moves after the pawn reaches the last rank are the promoted piece's.
    """
    out: list[int] = []
    mover = piece
    for a, b in zip(trajectory, trajectory[1:]):
        if mover in (chess.BISHOP, chess.ROOK, chess.QUEEN) or \
                (mover == chess.PAWN and abs(b - a) == 16):
            out.extend(_between_in_order(a, b))
        out.append(b)
        if mover == chess.PAWN and chess.square_rank(b) == last_rank(color) and promote:
            mover = promote
    return out


def capture_squares(piece: int, color: chess.Color, trajectory: Sequence[int]) -> list[int]:
    """The squares where a pawn trajectory must capture (its diagonal steps), in order."""
    if piece != chess.PAWN:
        return []
    out = []
    top = last_rank(color)
    for a, b in zip(trajectory, trajectory[1:]):
        if chess.square_file(a) != chess.square_file(b):
            out.append(b)
        if chess.square_rank(b) == top:
            break
    return out


def route_blocked(piece: int, color: chess.Color, trajectory: Sequence[int], unmovable: Squares,
                  promote: int | None = None) -> bool:
    """The paper's F_s_on_t: does some move of the trajectory enter or cross an unmovable
    obstacle? Such trajectories are *impossible* and removed from consideration."""
    mask = mask_of(unmovable)
    return any(mask & chess.BB_SQUARES[sq] for sq in passed_squares(piece, color, trajectory,
                                                                    promote))


def movable_obstacles(piece: int, color: chess.Color, trajectory: Sequence[int],
                      occupied: Squares, capturable: Squares = 0,
                      promote: int | None = None) -> list[int]:
    """Units (squares of `occupied`) that must move away before the unit can follow the route.

    A unit on a square the route crosses is always in the way; one on a square the route stops on
    is in the way unless it is `capturable` and the move there may capture (not a pawn's
    forward step). Each square is listed once, in the order the route meets it.
    """
    occ, cap = mask_of(occupied), mask_of(capturable)
    out: list[int] = []
    mover = piece
    for a, b in zip(trajectory, trajectory[1:]):
        line = mover in (chess.BISHOP, chess.ROOK, chess.QUEEN) or \
            (mover == chess.PAWN and abs(b - a) == 16)
        for sq in (_between_in_order(a, b) if line else []):
            if occ & chess.BB_SQUARES[sq] and sq not in out:
                out.append(sq)
        forward_pawn = mover == chess.PAWN and chess.square_file(a) == chess.square_file(b)
        if occ & chess.BB_SQUARES[b] and (forward_pawn or not cap & chess.BB_SQUARES[b]):
            if b not in out:
                out.append(b)
        if mover == chess.PAWN and chess.square_rank(b) == last_rank(color) and promote:
            mover = promote
    return out


# ---------------------------------------------------------------------------------------------
# rendering


def paper_coordinates(square: int) -> tuple[int, int]:
    """The paper's (column, row) of a square: a→1 … h→8, rank 8→1 … rank 1→8; c7 = (3, 2)."""
    return chess.square_file(square) + 1, 8 - chess.square_rank(square)


def from_paper(column: int, row: int) -> int:
    """The square at the paper's (column, row)."""
    return chess.square(column - 1, 8 - row)


def grid(values: Sequence[int]) -> list[list[int]]:
    """A 64-entry map as 8 rows, rank 8 first, files a … h (the paper's row/column order)."""
    return [[values[chess.square(f, r)] for f in range(8)] for r in range(7, -1, -1)]


def render_map(values: Sequence[int], marks: int = 0) -> list[str]:
    """A map as text lines: rank 8 at the top, '-' for unreachable, '*' after marked squares."""
    lines = []
    for r in range(7, -1, -1):
        cells = []
        for f in range(8):
            sq = chess.square(f, r)
            v = values[sq]
            text = "-" if v >= UNREACHABLE else str(v)
            text += "*" if marks & chess.BB_SQUARES[sq] else ""
            cells.append(f"{text:>4}")
        lines.append(f"{r + 1} " + "".join(cells))
    lines.append("  " + "".join(f"{chr(97 + f):>4}" for f in range(8)))
    return lines


def trajectory_text(trajectory: Sequence[int]) -> str:
    """A trajectory as square names joined by '-' ('c7-d6-e5')."""
    return "-".join(chess.square_name(sq) for sq in trajectory)
