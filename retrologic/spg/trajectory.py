"""Linguistic-Geometry distance maps and trajectory bundles (Maliković §5-7, 9, 11; Stilman).

Squares are python-chess indices (a1 = 0 … h8 = 63). A *map* is a tuple of 64 ints: the moves a
unit needs to stand on each square, UNREACHABLE (the paper's 2 × 64 = 128) where no route exists. A
*trajectory* is a tuple of squares from start to target (one square per move, start included); a
*bundle* is a sorted list of trajectories with the same start and target.

Obstacles are bitboards (or iterables of squares): `no_entry` squares may not be entered (nor
captured on), `no_cross` squares may not be crossed by a line move or a pawn's double step;
`blocked` squares are both (a unit that never moves). A pawn moves forward, double-steps from its
2nd rank and steps diagonally only by capturing (the map counts the captures it needs); on the last
rank it promotes, and with `promote=` its route continues as that piece. Castling is not a move
here.

Internally a unit moves on a small graph of *states* (square + 64 × layer): pieces have one layer;
a pawn has one layer per capture count made so far (0 … 6), plus, with `promote`, one layer per
count for the promoted piece. Every route is one state sequence, so counts never double-count.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache
from typing import Iterable, Iterator, Sequence

import chess

UNREACHABLE = 128          # the paper's marker for squares no route reaches (2 × 64)
MAX_PAWN_CAPTURES = 6      # a pawn makes at most six moves, so at most six captures
PROMOTION_PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)

Squares = int | Iterable[int]
Map = tuple[int, ...]
Trajectory = tuple[int, ...]


class BundleTooLarge(Exception):
    """Raised by the enumerating functions when a bundle exceeds the caller's `limit`."""

    def __init__(self, count: int, limit: int) -> None:
        self.count, self.limit = count, limit
        super().__init__(f"the bundle holds {count} trajectories (limit {limit})")


def mask_of(squares: Squares | None) -> int:
    """A bitboard from a bitboard, or from an iterable of square indices."""
    if squares is None:
        return 0
    if isinstance(squares, int):
        return squares & chess.BB_ALL
    out = 0
    for sq in squares:
        out |= chess.BB_SQUARES[sq]
    return out


# ---------------------------------------------------------------------------------------------
# one move of a unit


def piece_targets(piece: int, square: int, no_entry: int = 0, no_cross: int = 0) -> int:
    """Squares a piece (not a pawn) on `square` reaches in one move, as a bitboard.

    Line moves stop at the first `no_cross` square (which they may still enter); no move ends on a
    `no_entry` square. Uses python-chess's attack tables.
    """
    if piece == chess.KNIGHT:
        bb = chess.BB_KNIGHT_ATTACKS[square]
    elif piece == chess.KING:
        bb = chess.BB_KING_ATTACKS[square]
    else:
        bb = 0
        if piece in (chess.BISHOP, chess.QUEEN):
            bb |= chess.BB_DIAG_ATTACKS[square][chess.BB_DIAG_MASKS[square] & no_cross]
        if piece in (chess.ROOK, chess.QUEEN):
            bb |= (chess.BB_RANK_ATTACKS[square][chess.BB_RANK_MASKS[square] & no_cross]
                   | chess.BB_FILE_ATTACKS[square][chess.BB_FILE_MASKS[square] & no_cross])
        if piece not in (chess.BISHOP, chess.ROOK, chess.QUEEN):
            raise ValueError(f"not a piece type: {piece!r}")
    return bb & ~no_entry


def pawn_steps(color: chess.Color, square: int, no_entry: int = 0,
               no_cross: int = 0) -> list[tuple[int, bool]]:
    """A pawn's one-move destinations as (square, is_capture); empty on the 1st and last ranks.

    Forward step, double step from the 2nd rank (its middle square must be crossable), and the
    diagonal steps, each of which needs a capture.
    """
    rank, file = chess.square_rank(square), chess.square_file(square)
    if rank in (0, 7):
        return []
    up = 8 if color == chess.WHITE else -8
    home = 1 if color == chess.WHITE else 6
    out: list[tuple[int, bool]] = []
    fwd = square + up
    if not no_entry & chess.BB_SQUARES[fwd]:
        out.append((fwd, False))
    if rank == home and not no_cross & chess.BB_SQUARES[fwd] \
            and not no_entry & chess.BB_SQUARES[fwd + up]:
        out.append((fwd + up, False))
    for df in (-1, 1):
        if 0 <= file + df <= 7 and not no_entry & chess.BB_SQUARES[fwd + df]:
            out.append((fwd + df, True))
    return out


def last_rank(color: chess.Color) -> int:
    """The rank index (0-7) on which a pawn of `color` promotes."""
    return 7 if color == chess.WHITE else 0


# ---------------------------------------------------------------------------------------------
# the state graph of one unit among obstacles


class UnitGraph:
    """The moves of one unit among fixed obstacles, as a graph over states (square + 64 × layer).

    Layers: a piece has layer 0 only. A pawn has layers 0 … 6 (captures made so far); with
    `promote`, layers 7 … 13 hold the promoted piece after a pawn phase with 0 … 6 captures.
    Breadth-first distances are cached per source set.
    """

    def __init__(self, piece: int, color: chess.Color, no_entry: int, no_cross: int,
                 promote: int | None) -> None:
        self.piece, self.color, self.promote = piece, color, promote
        self.no_entry, self.no_cross = no_entry, no_cross
        if piece == chess.PAWN:
            self.layers = (MAX_PAWN_CAPTURES + 1) * (2 if promote else 1)
        else:
            self.layers = 1
        n = 64 * self.layers
        succ: list[list[int]] = [[] for _ in range(n)]
        if piece != chess.PAWN:
            for sq in range(64):
                succ[sq] = list(chess.scan_forward(piece_targets(piece, sq, no_entry, no_cross)))
        else:
            top = last_rank(color)
            pawn_layers = MAX_PAWN_CAPTURES + 1
            for sq in range(64):
                steps = pawn_steps(color, sq, no_entry, no_cross)
                for c in range(pawn_layers):
                    out = succ[64 * c + sq]
                    for dst, capture in steps:
                        c2 = c + capture
                        if c2 > MAX_PAWN_CAPTURES:
                            continue
                        if promote and chess.square_rank(dst) == top:
                            out.append(64 * (pawn_layers + c2) + dst)
                        else:
                            out.append(64 * c2 + dst)
            if promote:
                for sq in range(64):
                    bb = piece_targets(promote, sq, no_entry, no_cross)
                    targets = list(chess.scan_forward(bb))
                    for c in range(pawn_layers):
                        base = 64 * (pawn_layers + c)
                        succ[base + sq] = [base + t for t in targets]
        self.succ: tuple[tuple[int, ...], ...] = tuple(tuple(s) for s in succ)
        pred: list[list[int]] = [[] for _ in range(n)]
        for x, ys in enumerate(self.succ):
            for y in ys:
                pred[y].append(x)
        self.pred: tuple[tuple[int, ...], ...] = tuple(tuple(p) for p in pred)
        self._cache: dict[tuple[bool, tuple[int, ...]], list[int]] = {}

    @property
    def size(self) -> int:
        return 64 * self.layers

    def final_layers(self, captures: int | None) -> tuple[int, ...]:
        """Layers in which the unit ends: its own type (or the promoted piece), `captures` exact."""
        if self.piece != chess.PAWN:
            if captures not in (None, 0) and captures is not None:
                raise ValueError("captures applies to pawns only")
            return (0,)
        if captures is not None and not 0 <= captures <= MAX_PAWN_CAPTURES:
            raise ValueError(f"captures must be 0..{MAX_PAWN_CAPTURES}, not {captures!r}")
        base = MAX_PAWN_CAPTURES + 1 if self.promote else 0
        if captures is None:
            return tuple(range(base, base + MAX_PAWN_CAPTURES + 1))
        return (base + captures,)

    def states(self, square: int, layers: Sequence[int]) -> tuple[int, ...]:
        return tuple(64 * layer + square for layer in layers)

    def distances(self, sources: Iterable[int], reverse: bool = False) -> list[int]:
        """Breadth-first distances from a set of states (to it, with `reverse`), cached."""
        key = (reverse, tuple(sorted(set(sources))))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        edges = self.pred if reverse else self.succ
        dist = [UNREACHABLE] * self.size
        queue: deque[int] = deque()
        for s in key[1]:
            dist[s] = 0
            queue.append(s)
        while queue:
            x = queue.popleft()
            d = dist[x] + 1
            for y in edges[x]:
                if dist[y] > d:
                    dist[y] = d
                    queue.append(y)
        if len(self._cache) > 4096:
            self._cache.clear()
        self._cache[key] = dist
        return dist


@lru_cache(maxsize=1024)
def _graph(piece: int, color: chess.Color, no_entry: int, no_cross: int,
           promote: int | None) -> UnitGraph:
    return UnitGraph(piece, color, no_entry, no_cross, promote)


def unit_graph(piece: int, color: chess.Color, blocked: Squares = 0, *, no_entry: Squares = 0,
               no_cross: Squares = 0, promote: int | None = None) -> UnitGraph:
    """The (cached) move graph of a unit among obstacles; validates piece, colour and promotion."""
    if piece not in chess.PIECE_TYPES:
        raise ValueError(f"not a piece type: {piece!r}")
    if promote is not None:
        if piece != chess.PAWN:
            raise ValueError("promote applies to pawns only")
        if promote not in PROMOTION_PIECES:
            raise ValueError(f"a pawn promotes to N, B, R or Q, not {promote!r}")
    b = mask_of(blocked)
    return _graph(piece, bool(color), b | mask_of(no_entry), b | mask_of(no_cross), promote)


def _check_start(piece: int, start: int) -> int:
    """`start` itself, if a unit of this type can stand there (a pawn not on rank 1 or 8)."""
    if not 0 <= start < 64:
        raise ValueError(f"not a square: {start!r}")
    if piece == chess.PAWN and chess.square_rank(start) in (0, 7):
        raise ValueError(f"a pawn cannot stand on {chess.square_name(start)} "
                         "(1st rank, or last rank: it would have promoted)")
    return start


def _square_map(dist: Sequence[int], layers: Sequence[int]) -> Map:
    return tuple(min(dist[64 * layer + sq] for layer in layers) for sq in range(64))


# ---------------------------------------------------------------------------------------------
# distance maps (the paper's MAP)


def piece_map(piece: int, start: int, blocked: int = 0, unreachable: int = UNREACHABLE) -> Map:
    """`distance_map` of a piece (not a pawn) among `blocked` units, by a breadth-first sweep of
    bitboard frontiers: no move graph is built, which matters when the obstacles keep changing.
    `unreachable` marks the squares no route reaches (it must exceed every real distance, 63)."""
    _check_start(piece, start)
    dist = [unreachable] * 64
    dist[start] = 0
    seen = frontier = chess.BB_SQUARES[start]
    d = 0
    while frontier:
        d += 1
        reach = 0
        for sq in chess.scan_forward(frontier):
            reach |= piece_targets(piece, sq, blocked, blocked)
        frontier = reach & ~seen
        seen |= frontier
        for sq in chess.scan_forward(frontier):
            dist[sq] = d
    return tuple(dist)


def pawn_sweep(color: chess.Color, start: int, blocked: int = 0,
               unreachable: int = UNREACHABLE) -> tuple[Map, ...]:
    """`pawn_maps` of a pawn among `blocked` units, by one sweep over the ranks in its
    direction (every pawn move gains a rank, so each square is final when its rank comes).
    `unreachable` marks the squares no route reaches (it must exceed every real distance, 6)."""
    _check_start(chess.PAWN, start)
    layers = MAX_PAWN_CAPTURES + 1
    dist = [[unreachable] * 64 for _ in range(layers)]
    dist[0][start] = 0
    ranks = range(chess.square_rank(start), 8) if color == chess.WHITE \
        else range(chess.square_rank(start), -1, -1)
    for rank in ranks:
        for sq in range(8 * rank, 8 * rank + 8):
            steps = None
            for c in range(layers):
                d = dist[c][sq]
                if d >= unreachable:
                    continue
                if steps is None:
                    steps = pawn_steps(color, sq, blocked, blocked)
                for dst, capture in steps:
                    c2 = c + capture
                    if c2 < layers and dist[c2][dst] > d + 1:
                        dist[c2][dst] = d + 1
    return tuple(tuple(m) for m in dist)


def distance_map(piece: int, color: chess.Color, start: int, blocked: Squares = 0, *,
                 no_entry: Squares = 0, no_cross: Squares = 0, captures: int | None = None,
                 promote: int | None = None) -> Map:
    """Moves a unit on `start` needs to stand on each square (UNREACHABLE where it cannot).

    For a pawn, `captures=None` takes the fewest moves over any number of captures (each diagonal
    step assumes a victim there), `captures=c` counts routes with exactly c captures; with
    `promote=P` the map is of the promoted piece P (the pawn's moves up to and including the
    promotion, then P's). Without `promote` a pawn's last rank holds its promotion moves.
    """
    g = unit_graph(piece, color, blocked, no_entry=no_entry, no_cross=no_cross, promote=promote)
    dist = g.distances([_check_start(g.piece, start)])
    return _square_map(dist, g.final_layers(captures))


def distance_to_map(piece: int, color: chess.Color, target: int, blocked: Squares = 0, *,
                    no_entry: Squares = 0, no_cross: Squares = 0, captures: int | None = None,
                    promote: int | None = None) -> Map:
    """Moves a unit of this kind would need from each square to reach `target` (reverse map).

    Equal to the forward map for pieces (their moves are symmetric); for pawns it is the
    backward search from the target. A pawn has no moves on the 1st or last rank, so those
    squares are UNREACHABLE except the target itself (0 moves).
    """
    g = unit_graph(piece, color, blocked, no_entry=no_entry, no_cross=no_cross, promote=promote)
    if not 0 <= target < 64:
        raise ValueError(f"not a square: {target!r}")
    dist = g.distances(g.states(target, g.final_layers(captures)), reverse=True)
    return tuple(dist[:64])


def distance(piece: int, color: chess.Color, start: int, target: int, blocked: Squares = 0, *,
             no_entry: Squares = 0, no_cross: Squares = 0, captures: int | None = None,
             promote: int | None = None) -> int:
    """The fewest moves from `start` to `target` (UNREACHABLE when there is no route)."""
    return distance_map(piece, color, start, blocked, no_entry=no_entry, no_cross=no_cross,
                        captures=captures, promote=promote)[target]


def pawn_maps(color: chess.Color, start: int, blocked: Squares = 0, *, no_entry: Squares = 0,
              no_cross: Squares = 0, promote: int | None = None) -> tuple[Map, ...]:
    """Seven maps, index c = 0 … 6: the fewest moves to each square with exactly c captures."""
    g = unit_graph(chess.PAWN, color, blocked, no_entry=no_entry, no_cross=no_cross,
                   promote=promote)
    dist = g.distances([_check_start(g.piece, start)])
    return tuple(_square_map(dist, g.final_layers(c)) for c in range(MAX_PAWN_CAPTURES + 1))


def min_captures_map(color: chess.Color, start: int, blocked: Squares = 0, *,
                     no_entry: Squares = 0, no_cross: Squares = 0,
                     promote: int | None = None) -> Map:
    """The fewest captures a pawn on `start` needs to reach each square (UNREACHABLE if none)."""
    maps = pawn_maps(color, start, blocked, no_entry=no_entry, no_cross=no_cross, promote=promote)
    return tuple(next((c for c, m in enumerate(maps) if m[sq] < UNREACHABLE), UNREACHABLE)
                 for sq in range(64))


def sum_map(piece: int, color: chess.Color, start: int, target: int, blocked: Squares = 0, *,
            no_entry: Squares = 0, no_cross: Squares = 0, captures: int | None = None,
            promote: int | None = None) -> Map:
    """The paper's SUM: MAP(start) + MAP(target) per square; the shortest routes run exactly
    over the squares whose sum equals the distance (for pawns, minimised over capture layers)."""
    g = unit_graph(piece, color, blocked, no_entry=no_entry, no_cross=no_cross, promote=promote)
    ds = g.distances([_check_start(g.piece, start)])
    dt = g.distances(g.states(target, g.final_layers(captures)), reverse=True)
    return tuple(min(UNREACHABLE, min(ds[64 * layer + sq] + dt[64 * layer + sq]
                                      for layer in range(g.layers))) for sq in range(64))


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
    if not 0 <= target < 64:
        raise ValueError(f"not a square: {target!r}")
    return _Query(g, _check_start(g.piece, start), g.states(target, g.final_layers(captures)))


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
