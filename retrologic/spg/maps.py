"""Linguistic-Geometry distance maps: the moves a unit needs to stand on each square, among
obstacles (Maliković §5, the paper's MAP; Stilman). Trajectories are built on them in
spg/trajectory.py, which re-exports this module's names.

Squares are python-chess indices (a1 = 0 … h8 = 63). A *map* is a tuple of 64 ints: the moves a
unit needs to stand on each square, UNREACHABLE (the paper's 2 × 64 = 128) where no route exists.

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
from typing import Iterable, Sequence

import chess

from retrologic.vocabulary import PROMOTION_TYPES

UNREACHABLE = 128          # the paper's marker for squares no route reaches (2 × 64)
MAX_PAWN_CAPTURES = 6      # a pawn makes at most six moves, so at most six captures
# the shared promotion types in piece-type order N, B, R, Q (tests draw from it by index)
PROMOTION_PIECES = tuple(sorted(PROMOTION_TYPES))

Squares = int | Iterable[int]
Map = tuple[int, ...]


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


# a leaper's one-move squares per square; a line piece's (attack table, mask table) per line
_LEAPS = {chess.KNIGHT: chess.BB_KNIGHT_ATTACKS, chess.KING: chess.BB_KING_ATTACKS}
_DIAGONALS = ((chess.BB_DIAG_ATTACKS, chess.BB_DIAG_MASKS),)
_ORTHOGONALS = ((chess.BB_RANK_ATTACKS, chess.BB_RANK_MASKS),
                (chess.BB_FILE_ATTACKS, chess.BB_FILE_MASKS))
_LINES = {chess.BISHOP: _DIAGONALS, chess.ROOK: _ORTHOGONALS,
          chess.QUEEN: _DIAGONALS + _ORTHOGONALS}


def piece_targets(piece: int, square: int, no_entry: int = 0, no_cross: int = 0) -> int:
    """Squares a piece (not a pawn) on `square` reaches in one move, as a bitboard.

    Line moves stop at the first `no_cross` square (which they may still enter); no move ends on a
    `no_entry` square. Uses python-chess's attack tables (`_LEAPS`, `_LINES`).
    """
    leaps = _LEAPS.get(piece)
    if leaps is not None:
        return leaps[square] & ~no_entry
    lines = _LINES.get(piece)
    if lines is None:
        raise ValueError(f"not a piece type: {piece!r}")
    bb = 0
    for attacks, masks in lines:
        bb |= attacks[square][masks[square] & no_cross]
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
    if not isinstance(color, int) or color not in (0, 1):   # bool("black") was White
        raise ValueError(f"not a colour (chess.WHITE or chess.BLACK): {color!r}")
    b = mask_of(blocked)
    return _graph(piece, bool(color), b | mask_of(no_entry), b | mask_of(no_cross), promote)


def check_square(square: int) -> int:
    """`square` itself if it is a square index (0-63: `chess.C7`, not "c7"), else ValueError."""
    if not isinstance(square, int) or isinstance(square, bool) or not 0 <= square < 64:
        raise ValueError(f"not a square index (chess.A1 ... chess.H8): {square!r}")
    return square


def check_start(piece: int, start: int) -> int:
    """`start` itself, if a unit of this type can stand there (a pawn not on rank 1 or 8)."""
    check_square(start)
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
    check_start(piece, start)
    dist = [unreachable] * 64
    dist[start] = 0
    seen = frontier = chess.BB_SQUARES[start]
    leaps = _LEAPS.get(piece)
    lines = _LINES.get(piece, ())
    if leaps is None and not lines:
        raise ValueError(f"not a piece type: {piece!r}")
    d = 0
    while frontier:
        d += 1
        reach = 0
        # `piece_targets(piece, sq, blocked, blocked)` over the frontier, lowest square first,
        # its tables looked up once per map and no generator per level (the legal-game finder
        # builds thousands of maps per position, issue #19)
        rest = frontier
        while rest:
            low = rest & -rest
            sq = low.bit_length() - 1
            rest ^= low
            if leaps is not None:
                reach |= leaps[sq]
            else:
                for attacks, masks in lines:
                    reach |= attacks[sq][masks[sq] & blocked]
        frontier = reach & ~blocked & ~seen
        seen |= frontier
        rest = frontier
        while rest:
            low = rest & -rest
            dist[low.bit_length() - 1] = d
            rest ^= low
    return tuple(dist)


def pawn_sweep(color: chess.Color, start: int, blocked: int = 0,
               unreachable: int = UNREACHABLE) -> tuple[Map, ...]:
    """`pawn_maps` of a pawn among `blocked` units, by one sweep over the ranks in its
    direction (every pawn move gains a rank, so each square is final when its rank comes).
    `unreachable` marks the squares no route reaches (it must exceed every real distance, 6)."""
    check_start(chess.PAWN, start)
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
    dist = g.distances([check_start(g.piece, start)])
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
    check_square(target)
    dist = g.distances(g.states(target, g.final_layers(captures)), reverse=True)
    return tuple(dist[:64])


def distance(piece: int, color: chess.Color, start: int, target: int, blocked: Squares = 0, *,
             no_entry: Squares = 0, no_cross: Squares = 0, captures: int | None = None,
             promote: int | None = None) -> int:
    """The fewest moves from `start` to `target` (UNREACHABLE when there is no route)."""
    return distance_map(piece, color, start, blocked, no_entry=no_entry, no_cross=no_cross,
                        captures=captures, promote=promote)[check_square(target)]


def pawn_maps(color: chess.Color, start: int, blocked: Squares = 0, *, no_entry: Squares = 0,
              no_cross: Squares = 0, promote: int | None = None) -> tuple[Map, ...]:
    """Seven maps, index c = 0 … 6: the fewest moves to each square with exactly c captures."""
    g = unit_graph(chess.PAWN, color, blocked, no_entry=no_entry, no_cross=no_cross,
                   promote=promote)
    dist = g.distances([check_start(g.piece, start)])
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
    ds = g.distances([check_start(g.piece, start)])
    dt = g.distances(g.states(target, g.final_layers(captures)), reverse=True)
    return tuple(min(UNREACHABLE, min(ds[64 * layer + sq] + dt[64 * layer + sq]
                                      for layer in range(g.layers))) for sq in range(64))
