"""Preliminary analysis of a proof game: units that provably never move, distance tables among
them, and a sound lower bound on the moves each side still needs (Natch / Euclide's counting).

The bound is identity-free, so it holds for *every* game from the current position: for side c
it is the cheapest assignment of c's units to c's target units (distances from the trajectory
module with the never-moving units as obstacles, pawns capturing at most as often as the other
side still has units to lose, promotions included, castling as one move for king and rook),
and at least the number of captures c must still make. Victim slots couple the sides: the
captures the opponent's pawns are forced to make land on known squares, where distinct units of
c must first walk (`capture_slots`). A search pruned by it stays complete.
"""

from __future__ import annotations

import functools
import operator
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

import chess

from retrologic.spg import trajectory

INF = 10 ** 6
PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)
BACK_RANK = {chess.WHITE: chess.BB_RANK_1, chess.BLACK: chess.BB_RANK_8}
PAWN_HOME = {chess.WHITE: chess.BB_RANK_2, chess.BLACK: chess.BB_RANK_7}
PROMOTED = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
LAST_RANK_SQUARES = {chess.WHITE: list(chess.SquareSet(chess.BB_RANK_8)),
                     chess.BLACK: list(chess.SquareSet(chess.BB_RANK_1))}
ORTH = [chess.BB_KING_ATTACKS[s] & (chess.BB_RANK_ATTACKS[s][0] | chess.BB_FILE_ATTACKS[s][0])
        for s in chess.SQUARES]
DIAG = [chess.BB_KING_ATTACKS[s] & chess.BB_DIAG_ATTACKS[s][0] for s in chess.SQUARES]
# castling: (colour, rook square) -> (king from, king to, rook to)
CASTLE = {
    (chess.WHITE, chess.H1): (chess.E1, chess.G1, chess.F1),
    (chess.WHITE, chess.A1): (chess.E1, chess.C1, chess.D1),
    (chess.BLACK, chess.H8): (chess.E8, chess.G8, chess.F8),
    (chess.BLACK, chess.A8): (chess.E8, chess.C8, chess.D8),
}


def arrival_squares(piece_type: int, square: chess.Square) -> int:
    """Squares a move of this piece type must come from or cross last to arrive on `square`."""
    if piece_type == chess.KNIGHT:
        return chess.BB_KNIGHT_ATTACKS[square]
    if piece_type == chess.BISHOP:
        return DIAG[square]
    if piece_type == chess.ROOK:
        return ORTH[square]
    return chess.BB_KING_ATTACKS[square]  # queen, king (castling passes a neighbour too)


def frozen_units(start: chess.BaseBoard, target: chess.BaseBoard) -> tuple[int, bool]:
    """Units that stand still for the whole game, and whether the target is plainly unreachable.

    A target pawn on its 2nd rank never moved (pawns only advance). A target piece on its own back
    rank whose every arrival square holds such a unit never moved either (its last arrival would
    have come through one; no promotion lands there); repeated to a fixpoint. A unit that never
    moved must stand on the same square in `start`, else no game exists.
    """
    frozen, impossible = 0, False
    for color in chess.COLORS:
        pawns = target.pieces_mask(chess.PAWN, color) & PAWN_HOME[color]
        for sq in chess.scan_forward(pawns):
            if start.piece_at(sq) != target.piece_at(sq):
                impossible = True
            frozen |= chess.BB_SQUARES[sq]
    changed = True
    while changed:
        changed = False
        for color in chess.COLORS:
            for sq in chess.scan_forward(target.occupied_co[color] & BACK_RANK[color] & ~frozen):
                piece = target.piece_at(sq)
                if piece is None or piece.piece_type == chess.PAWN:
                    continue
                if arrival_squares(piece.piece_type, sq) & ~frozen:
                    continue
                if start.piece_at(sq) != piece:
                    impossible = True
                frozen |= chess.BB_SQUARES[sq]
                changed = True
    return frozen, impossible


def hungarian(cost: list[list[int]]) -> int:
    """Minimum total cost of matching every row to a distinct column (rows <= columns).

    Plain O(n^2 m) Hungarian method with potentials; INF entries mean "not allowed".
    """
    n = len(cost)
    if n == 0:
        return 0
    m = len(cost[0])
    if m < n:
        return INF
    u = [0] * (n + 1)
    v = [0] * (m + 1)
    p = [0] * (m + 1)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [INF * 4] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            row = cost[i0 - 1]
            ui0 = u[i0]
            delta = INF * 4
            j1 = 0
            for j in range(1, m + 1):
                if not used[j]:
                    cur = row[j - 1] - ui0 - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    total = 0
    for j in range(1, m + 1):
        if p[j]:
            total += cost[p[j] - 1][j - 1]
    return min(total, INF)


def min_assignment(cost: list[list[int]]) -> int:
    """Minimum cost matching rows to distinct columns (INF: impossible)."""
    if not cost:
        return 0
    columns = list(zip(*cost))
    return column_assignment(columns, [finite_mask(c) for c in columns], len(cost))


def finite_mask(column: tuple) -> int:
    """The rows where the column's entry is allowed (< INF), as a bitmask."""
    mask = 0
    for i, c in enumerate(column):
        if c < INF:
            mask |= 1 << i
    return mask


def column_assignment(columns: list[tuple], masks: list[int], nrows: int,
                      memo: dict | None = None) -> int:
    """Minimum cost of matching each of `nrows` rows to a distinct column, given the columns
    and their `finite_mask`s: the bipartite graph is split into connected blocks first (most
    are a single row), and the Hungarian method runs on each block. `memo` keeps the blocks'
    values by their rows and columns."""
    if nrows == 0:
        return 0
    blocks: list[tuple[int, list[int]]] = []  # (rows as a bitmask, column indices)
    covered = 0
    for j, mask in enumerate(masks):
        if not mask:
            continue
        covered |= mask
        cols = [j]
        keep = []
        for rows, members in blocks:
            if rows & mask:
                mask |= rows
                cols += members
            else:
                keep.append((rows, members))
        keep.append((mask, cols))
        blocks = keep
    if covered != (1 << nrows) - 1:
        return INF
    total = 0
    for rows_mask, cols in blocks:
        rows = [i for i in range(nrows) if rows_mask >> i & 1]
        if len(cols) < len(rows):
            return INF
        if len(rows) == 1:
            i = rows[0]
            total += min(columns[j][i] for j in cols)
        elif memo is None:
            total += hungarian([[columns[j][i] for j in cols] for i in rows])
        else:
            key = (rows_mask,) + tuple(columns[j] for j in cols)
            value = memo.get(key)
            if value is None:
                value = memo[key] = hungarian([[columns[j][i] for j in cols] for i in rows])
            total += value
        if total >= INF:
            return INF
    return total


# Lagrange multipliers (doubled: 2*mu, 2*lambda) of the capture-accounting bound, see _weighted
LAGRANGE = ((0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1))


def _weighted(routes: tuple, mu2: int, lam2: int) -> int:
    """Doubled cost 2*m - 2*mu*a + 2*lambda*c of a unit's cheapest route (INF: none).

    Side c must make exactly k = (opponent's units - opponent's target units) captures, so its
    moves M = sum_i m_i equal sum_i (m_i - mu*a_i) + mu*k for every mu (a_i: captures by unit i).
    A piece move may capture (a <= m), a pawn's captures are its file changes (a = c), castling
    never captures; for 0 <= mu <= 1 a unit that ends captured adds m - mu*a >= 0. The pawns'
    captures sum to at most k, so adding lambda*(sum c_i - k) <= 0 (lambda >= 0) keeps a lower
    bound. Each (mu, lambda) gives one assignment problem; the bound is their maximum.
    """
    best = INF
    for pm, c, d in routes:
        v = 2 * pm + (lam2 - mu2) * c + (2 - mu2) * d
        if v < best:
            best = v
    return best


def _moves_left(turn: chess.Color, plies: int) -> tuple[int, int]:
    """(White's, Black's) moves among the next `plies` plies, `turn` moving first."""
    first, second = (plies + 1) // 2, plies // 2
    return (first, second) if turn == chess.WHITE else (second, first)


def _pawn_first_moves(color: chess.Color, square: chess.Square) -> int:
    """Squares one pawn move from `square` may reach (single, double step, captures)."""
    rank = chess.square_rank(square)
    if rank in (0, 7):
        return 0
    step = 8 if color == chess.WHITE else -8
    out = chess.BB_SQUARES[square + step] | chess.BB_PAWN_ATTACKS[color][square]
    if rank == (1 if color == chess.WHITE else 6):
        out |= chess.BB_SQUARES[square + 2 * step]
    return out


def _obstructed_key(kw: tuple, kb: tuple, w: int, b: int, ep: int | None) -> tuple:
    """Cache key of `Analysis._obstructed`'s verdict: both side keys, moves left, e.p."""
    return ("obstructed", kw, kb, w, b, ep)


CAPW = 1024  # moves weigh CAPW, capture capacity 1: one assignment gives both (capacity < CAPW)


def _capacity_weighted(routes: tuple) -> int:
    """CAPW * moves - capacity of the unit's cheapest route, the most capacity among ties.

    Capacity: the captures the route can make, its pawn captures plus its piece moves.
    """
    best = INF
    for pm, c, d in routes:
        v = CAPW * (pm + d) - (c + d)
        if v < best:
            best = v
    return best


class Plans(NamedTuple):
    """A side's bound and, per castling scenario, (moves of its cheapest plans, their largest
    capture capacity, the units' squares); the captures it must still make; its victim slots."""

    bound: int
    scenarios: tuple
    captures: int
    slots: tuple
    cheapest: int = INF  # the fewest moves of any scenario (== moves left: no spare move)


# the bound's on/off switches (a view copies them; bench/spg.py switches them for A/B runs)
SWITCHES = ("capture_accounting", "victim_slots", "capacity", "coupling", "landings",
            "route_steps", "obstruction", "pawn_walls")


@dataclass
class Analysis:
    """What the proof game's target tells before any search: frozen units and distance tables."""

    start: chess.Board
    target: chess.BaseBoard
    frozen: int = 0
    impossible: bool = False
    _piece_maps: dict = field(default_factory=dict)
    _pawn_maps: dict = field(default_factory=dict)
    _bound_cache: dict = field(default_factory=dict)
    _route_cache: dict = field(default_factory=dict)
    capture_accounting: bool = False  # the Lagrangian grid: sound, rarely tighter, slower
    victim_slots: bool = True
    capacity: bool = True  # the cheapest plans must be able to make the captures still due
    coupling: bool = True  # a side with no spare move fixes where the other is captured
    landings: bool = True  # ... and its forced victims stand still: the other must land there
    route_steps: bool = True  # a side with no spare move steps along its cheapest routes
    obstruction: bool = True  # units on their target squares block, unless one is disturbed
    pawn_walls: bool = True  # ... counting every pawn on its own target square (`held_units`)
    extra_frozen: int = 0  # units assumed never to move nor be captured (an obstruction view)
    _slot_cache: dict = field(default_factory=dict)
    _block_memo: dict = field(default_factory=dict)
    _pair_cache: dict = field(default_factory=dict)
    target_units: dict = field(default_factory=dict)
    target_count: dict = field(default_factory=dict)
    _views: OrderedDict = field(default_factory=OrderedDict)
    _split_stats: tuple = (0, 0)  # obstruction splits tried, and how many pruned
    _home: int = 0  # units the start and the target agree on (not frozen): the anchored ones

    def __post_init__(self) -> None:
        self.frozen, self.impossible = frozen_units(self.start, self.target)
        self.frozen |= self.extra_frozen
        self._home = self.anchored(self.start)
        for color in chess.COLORS:
            units = []
            for sq in chess.scan_forward(self.target.occupied_co[color] & ~self.frozen):
                units.append((sq, self.target.piece_type_at(sq)))
            self.target_units[color] = units
            self.target_count[color] = chess.popcount(self.target.occupied_co[color])
        if self.target.kings & self.target.occupied_co[chess.WHITE] == 0 or \
                self.target.kings & self.target.occupied_co[chess.BLACK] == 0:
            self.impossible = True

    # distance tables -------------------------------------------------------------------------

    def piece_map(self, piece_type: int, color: chess.Color, square: chess.Square) -> tuple:
        """Moves a piece needs from `square` to every square, frozen units as obstacles (the
        same for both colours: frozen units of either block)."""
        key = (piece_type, square)
        hit = self._piece_maps.get(key)
        if hit is None:
            hit = trajectory.piece_map(piece_type, square, self.frozen, INF)
            self._piece_maps[key] = hit
        return hit

    def pawn_maps(self, color: chess.Color, square: chess.Square) -> tuple:
        """Per capture count c (0..6), the moves a pawn on `square` needs to each square."""
        key = (color, square)
        hit = self._pawn_maps.get(key)
        if hit is None:
            hit = trajectory.pawn_sweep(color, square, self.frozen, INF)
            self._pawn_maps[key] = hit
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
                    captures: int) -> tuple:
        """The unit's cheapest routes to the target unit per pawn-capture count c, as tuples
        (pawn moves, c, piece moves) (a piece: (0, 0, d)); () when it cannot become it."""
        key = (color, utype, usq, ttype, tsq, captures)
        hit = self._route_cache.get(key)
        if hit is not None:
            return hit
        out = []
        if utype != chess.PAWN:
            if utype == ttype:
                d = self.piece_map(utype, color, usq)[tsq]
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
                    d = self.piece_map(ttype, color, p)[tsq]
                    if d < INF:
                        pairs.append((pm, d))
                for pm, d in pairs:
                    if not any((q, e) != (pm, d) and q <= pm and e <= d for q, e in pairs):
                        out.append((pm, c, d))
        hit = tuple(sorted(set(out)))
        self._route_cache[key] = hit
        return hit

    def capture_slots(self, board: chess.Board, color: chess.Color) -> tuple:
        """Squares of the captures `color`'s pawns must still make, one set per capture.

        For each of `color`'s pawn targets, every pawn of `color` that could still reach it needs
        at least m captures (m >= 1: the target's pawn is not on its file or cannot get there
        straight); those m captures land on squares of the union Q of the capture routes from
        the candidate pawns to the target. Pawns ending on distinct targets are distinct, so their
        captures take distinct victims of the other side. Returns m copies of Q per target.
        """
        # `color` makes exactly this many more captures: routes needing more are impossible
        budget = chess.popcount(board.occupied_co[not color]) - self.target_count[not color]
        return self._slots(color, board.pawns & board.occupied_co[color], budget)

    def _slots(self, color: chess.Color, pawns: int, budget: int) -> tuple:
        """`capture_slots` of `color`'s pawns on `pawns` with `budget` captures still to make."""
        pawns &= ~self.frozen
        budget = min(budget, trajectory.MAX_PAWN_CAPTURES)
        if budget <= 0:
            return ()
        key = (color, pawns, budget)
        hit = self._slot_cache.get(key)
        if hit is not None:
            return hit
        out = []
        for tsq, ttype in self.target_units[color]:
            if ttype != chess.PAWN:
                continue
            need, squares = INF, 0
            for p in chess.scan_forward(pawns):
                fewest, route = self.pawn_capture_route(color, p, tsq, budget)
                need = min(need, fewest)
                if need == 0:
                    break
                squares |= route
            if 0 < need < INF:
                out.extend([squares] * need)
        hit = tuple(sorted(out))
        self._slot_cache[key] = hit
        return hit

    def pawn_capture_route(self, color: chess.Color, p: int, tsq: int,
                           budget: int = trajectory.MAX_PAWN_CAPTURES) -> tuple[int, int]:
        """(fewest captures, at most `budget`, for a pawn on p to reach tsq (INF: never), squares
        where any capture of a route with at most `budget` captures may land)."""
        key = (color, p, tsq, budget)
        hit = self._pair_cache.get(key)
        if hit is not None:
            return hit
        maps = self.pawn_maps(color, p)
        fewest = next((c for c in range(budget + 1) if maps[c][tsq] < INF), INF)
        squares = self.capture_landings(color, p, tsq, budget) if 0 < fewest < INF else 0
        hit = (fewest, squares)
        self._pair_cache[key] = hit
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

    def victim_cost(self, color: chess.Color, utype: int, usq: int, squares: int,
                    captures: int) -> int:
        """Fewest moves for a unit to stand on one of `squares` (where it is captured); a pawn
        may instead stand beside it, taken en passant. Kings are never captured."""
        if utype == chess.KING:
            return INF
        key = (color, utype, usq, squares, captures)
        hit = self._route_cache.get(key)
        if hit is not None:
            return hit
        best = INF
        spots = squares
        if utype == chess.PAWN:  # e.p.: the capturer lands behind the victim (a white pawn
            # taken e.p. stands one rank above the landing square, a black one one rank below)
            spots |= ((squares << 8) & chess.BB_ALL) if color == chess.WHITE else squares >> 8
        for q in chess.scan_forward(spots):
            if utype != chess.PAWN:
                d = self.piece_map(utype, color, usq)[q]
            else:
                d = min(self.unit_cost(color, chess.PAWN, usq, t, q, captures)
                        for t in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK,
                                  chess.QUEEN))
            best = min(best, d)
        self._route_cache[key] = best
        return best

    # the lower bound -------------------------------------------------------------------------

    def _side_key(self, board: chess.Board, color: chess.Color) -> tuple:
        mask = board.occupied_co[color]
        return (color, board.pawns & mask, board.knights & mask, board.bishops & mask,
                board.rooks & mask, board.queens & mask, board.kings & mask,
                board.castling_rights & BACK_RANK[color],
                chess.popcount(board.occupied_co[not color]),
                self.capture_slots(board, not color) if self.victim_slots else ())

    def side_bound(self, board: chess.Board, color: chess.Color) -> int:
        """A lower bound on the moves `color` still needs to reach the target (INF: never)."""
        return self._plans(board, color).bound

    def _plans(self, board: chess.Board, color: chess.Color, key: tuple | None = None) -> "Plans":
        """The side's plans, cached by its side key (pass `key` when already computed)."""
        if key is None:
            key = self._side_key(board, color)
        hit = self._bound_cache.get(key)
        if hit is None:
            hit = self._compute_bound(board, color, key[-1])
            self._bound_cache[key] = hit
        return hit

    def _compute_bound(self, board: chess.Board, color: chess.Color, slots: tuple) -> "Plans":
        dead = Plans(INF, (), 0, ())
        if self.impossible:
            return dead
        if (board.occupied_co[color] & self.frozen) != (self.target.occupied_co[color] & self.frozen):
            return dead
        captures = chess.popcount(board.occupied_co[not color]) - self.target_count[not color]
        if captures < 0:
            return dead
        units = [(sq, board.piece_type_at(sq))
                 for sq in chess.scan_forward(board.occupied_co[color] & ~self.frozen)]
        targets = self.target_units[color]
        if len(units) < len(targets):
            return dead
        scenarios = [(0, {})]
        for rook in chess.scan_forward(board.castling_rights & BACK_RANK[color]):
            king_from, king_to, rook_to = CASTLE[(color, rook)]
            scenarios.append((1, {king_from: king_to, rook: rook_to}))
        # with no capture left to make, mu and lambda only weaken the plain assignment
        grid = LAGRANGE[1:] if self.capture_accounting and captures > 0 else ()
        if len(slots) > len(units) - len(targets):
            return dead  # the opponent's pawns need more victims than this side can lose
        best = INF
        plans = []
        for extra, moved in scenarios:
            placed = [(moved.get(usq, usq), utype) for usq, utype in units]
            # the plain assignment, ties broken towards the most capture capacity
            columns, masks = self._placed_columns(color, placed, captures, slots)
            total = column_assignment(columns, masks, len(targets) + len(slots), self._block_memo)
            if total >= INF:
                continue
            value, capacity, scenario = self._scenario(total, extra, captures)
            plans.append((value, capacity, placed, extra))
            if grid:
                routes = [[self.unit_routes(color, utype, usq, ttype, tsq, captures)
                           for usq, utype in placed] for tsq, ttype in targets]
            for mu2, lam2 in grid:
                cost = [[_weighted(r, mu2, lam2) for r in row] for row in routes]
                # a victim's moves minus mu times its captures are >= 0; kings never die
                cost += [[INF if utype == chess.KING else 0 for _, utype in placed]
                         for _ in slots]
                total = min_assignment(cost)
                if total >= INF:
                    scenario = INF
                    break
                # doubled: 2 * (assignment) + 2 * castling + (mu - lambda) * 2 * captures
                value = -(-(total + 2 * extra + (mu2 - lam2) * captures) // 2)
                scenario = max(scenario, value)
            best = min(best, scenario)
        if best >= INF:
            return dead
        cheapest = min((p[0] for p in plans), default=INF)
        return Plans(max(best, captures), tuple(plans), captures, slots, cheapest)

    def _scenario(self, total: int, extra: int, captures: int) -> tuple[int, int, int]:
        """A scenario's (moves, capture capacity, bound) from its weighted assignment `total`
        and its castling move `extra`."""
        base = -(-total // CAPW)
        capacity = base * CAPW - total
        return base + extra, capacity, base + extra + self._capacity_short(capacity, captures)

    def _capacity_short(self, capacity: int, captures: int) -> int:
        """One more move when even the cheapest plans cannot make the captures still due."""
        return 1 if self.capacity and capacity < captures else 0

    def _placed_columns(self, color: chess.Color, placed: list, captures: int,
                        slots: tuple) -> tuple[list, list]:
        """The assignment's columns of the placed units, and their finite masks."""
        columns, masks = [], []
        for usq, utype in placed:
            column, mask = self._column(color, utype, usq, captures, slots)
            columns.append(column)
            masks.append(mask)
        return columns, masks

    def _column(self, color: chess.Color, utype: int, usq: int, captures: int,
                slots: tuple) -> tuple[tuple, int]:
        """The unit's entries of the assignment: CAPW * moves - capacity per target unit,
        then per victim slot (INF: cannot); and their `finite_mask`."""
        key = ("column", color, utype, usq, captures, slots)
        hit = self._route_cache.get(key)
        if hit is None:
            hit = tuple(_capacity_weighted(self.unit_routes(color, utype, usq, ttype, tsq, captures))
                        for tsq, ttype in self.target_units[color])
            for squares in slots:
                v = self.victim_cost(color, utype, usq, squares, captures)
                hit += (CAPW * v - v if v < INF else INF,)
            hit = (hit, finite_mask(hit))
            self._route_cache[key] = hit
        return hit

    def _bumped(self, color: chess.Color, utype: int, usq: int, column: tuple) -> tuple[tuple, int]:
        """The column of a unit on its target square that must leave it (or be captured):
        coming back takes at least two moves, with at most two captures; a pawn never comes back."""
        row = next(i for i, (tsq, _) in enumerate(self.target_units[color]) if tsq == usq)
        out = list(column)
        out[row] = INF if utype == chess.PAWN else max(out[row], 2 * CAPW - 2)
        out = tuple(out)
        return out, finite_mask(out)

    def disturbed_bound(self, board: chess.Board, color: chess.Color, held: int,
                        side_key: tuple | None = None) -> int:
        """`color`'s bound in the games where at least one of its units on `held` (each on its
        own target square) is moved or captured before the end: the least, over those units, of
        the bound with that unit's stay costing two moves."""
        side_key = side_key or self._side_key(board, color)
        key = ("bumped", held) + side_key
        values = self._bound_cache.get(key)
        if values is None:
            values = self._bound_cache[key] = self._bumped_bounds(board, color, side_key, held)
        return min(values, default=INF)

    def _bumped_bounds(self, board: chess.Board, color: chess.Color, side_key: tuple,
                       held: int) -> list[int]:
        """Per unit on `held`, the side's bound (as `_compute_bound`, without the optional
        capture accounting: lower, still sound) when that unit's stay costs two moves."""
        plans = self._plans(board, color, side_key)
        if plans.bound >= INF:
            return [INF]
        slots, captures = plans.slots, plans.captures
        nrows = len(self.target_units[color]) + len(slots)
        units = list(chess.scan_forward(board.occupied_co[color] & ~self.frozen))
        best = {h: INF for h in chess.scan_forward(held)}
        for value, capacity, placed, extra in plans.scenarios:
            columns, masks = self._placed_columns(color, placed, captures, slots)
            for h in best:
                j = units.index(h)
                usq, utype = placed[j]
                if usq != h:  # castling moved it: this scenario disturbs it already
                    best[h] = min(best[h], value + self._capacity_short(capacity, captures))
                    continue
                keep = columns[j], masks[j]
                columns[j], masks[j] = self._bumped(color, utype, usq, columns[j])
                total = column_assignment(columns, masks, nrows, self._block_memo)
                columns[j], masks[j] = keep
                if total < INF:
                    best[h] = min(best[h], self._scenario(total, extra, captures)[2])
        return [max(v, captures) for v in best.values()]

    def anchored(self, board: chess.BaseBoard) -> int:
        """Units (not frozen) standing on a target square of their own colour and type."""
        t = self.target
        same = ((board.pawns & t.pawns) | (board.knights & t.knights) | (board.bishops & t.bishops)
                | (board.rooks & t.rooks) | (board.queens & t.queens) | (board.kings & t.kings))
        side = ((board.occupied_co[chess.WHITE] & t.occupied_co[chess.WHITE])
                | (board.occupied_co[chess.BLACK] & t.occupied_co[chess.BLACK]))
        return same & side & ~self.frozen

    def held_units(self, board: chess.BaseBoard) -> int:
        """The anchored units the obstruction split holds in place: those the start and the
        target agree on, and every pawn on its own target square (a pawn never comes back)."""
        return self.anchored(board) & (self._home | (board.pawns if self.pawn_walls else 0))

    def _admissible(self, color: chess.Color, placed: list, captures: int, slots: tuple,
                    base: int) -> list[list[int]]:
        """Per unit, the rows (targets, then victim slots) it may take in a plan of `base`
        moves: its cost there plus the cheapest cost of every other row by another unit
        stays within `base`."""
        columns = [self._column(color, utype, usq, captures, slots)[0] for usq, utype in placed]
        moves = [[-(-v // CAPW) if v < INF else INF for v in col] for col in columns]
        rows = len(columns[0]) if columns else 0
        firsts = []
        for r in range(rows):
            order = sorted((moves[j][r], j) for j in range(len(moves)))
            firsts.append((order[0], order[1] if len(order) > 1 else (INF, -1)))
        out = []
        for j, col in enumerate(moves):
            ok = []
            for r in range(rows):
                if col[r] >= INF:
                    continue
                rest = 0
                for r2 in range(rows):
                    if r2 != r:
                        (c1, j1), (c2, _) = firsts[r2]
                        rest += c1 if j1 != j else c2
                if col[r] + rest <= base:
                    ok.append(r)
            out.append(ok)
        return out

    # two sides at once -----------------------------------------------------------------------

    def capture_squares(self, board: chess.Board, color: chess.Color,
                        side_key: tuple | None = None) -> int:
        """Squares where `color` can still capture when it has no spare move (a superset).

        With no spare move every unit of `color` follows a cheapest route of a cheapest plan
        and unmatched units stand still, so a capture lands on a square of such a route: the
        squares of the shortest routes of every unit towards every target (or victim slot) it
        could take. Pawns walking to a victim slot give up (every square).
        """
        squares = 0
        for _, _, routes, _ in self._unit_routes_now(board, color, side_key):
            squares |= routes
        return squares

    def landing_squares(self, board: chess.Board, color: chess.Color, moves: int,
                        side_key: tuple | None = None) -> int:
        """Squares `color` can land a move on, hence capture on, within `moves` moves (a
        superset; 0 when it cannot reach the target at all).

        In a scenario of value v the other units need at least v - cost(u, f) moves besides
        unit u's (the assignment without u's row and column), so u, heading for fate f, lands
        on q only if d(u, q) + d(q, f) <= cost(u, f) + (moves - v): a detour of at most the
        spare moves. Fates: the target units and victim slots u can take, or none (captured
        where it stands after its walk). With no spare move: `capture_squares`.
        """
        side_key = side_key or self._side_key(board, color)
        plans = self._plans(board, color, side_key)
        if plans.cheapest > moves:
            return 0
        if plans.cheapest == moves:
            return self.capture_squares(board, color, side_key)
        key = ("landing", moves) + side_key
        hit = self._bound_cache.get(key)
        if hit is not None:
            return hit
        out = 0
        for value, _, placed, _ in plans.scenarios:
            if value > moves:
                continue
            for usq, utype in placed:
                out |= self._unit_landings(color, utype, usq, plans.captures, plans.slots,
                                           moves - value)
        self._bound_cache[key] = out
        return out

    def _unit_landings(self, color: chess.Color, utype: int, usq: int, captures: int,
                       slots: tuple, spare: int) -> int:
        """Squares the unit may land on with `spare` moves of detour over the cost of one of
        its fates (see `landing_squares`)."""
        key = ("landings", color, utype, usq, captures, slots, spare)
        hit = self._route_cache.get(key)
        if hit is not None:
            return hit
        out = self._reach(color, utype, usq, spare, captures)  # no fate: captured after a walk
        for tsq, ttype in self.target_units[color]:
            cost = self.unit_cost(color, utype, usq, ttype, tsq, captures)
            if cost < INF:
                out |= self._detour(color, utype, usq, ttype, tsq, captures, cost + spare)
        for squares in slots:
            cost = self.victim_cost(color, utype, usq, squares, captures)
            if cost < INF:
                out |= self._slot_detour(color, utype, usq, squares, captures, cost + spare)
        self._route_cache[key] = out  # its own square too: it may step out and come back
        return out

    def _reach(self, color: chess.Color, utype: int, usq: int, budget: int, captures: int) -> int:
        """Squares the unit (a pawn: promoting on the way) reaches in at most `budget` moves."""
        if utype != chess.PAWN:
            dist = self.piece_map(utype, color, usq)
            return sum(chess.BB_SQUARES[q] for q in chess.SQUARES if dist[q] <= budget)
        maps = self.pawn_maps(color, usq)[:min(captures, trajectory.MAX_PAWN_CAPTURES) + 1]
        out = 0
        for q in chess.SQUARES:
            pm = min(m[q] for m in maps)
            if pm > budget:
                continue
            out |= chess.BB_SQUARES[q]
            if q in LAST_RANK_SQUARES[color]:
                for tt in PROMOTED:
                    out |= self._reach(color, tt, q, budget - pm, 0)
        return out

    def _detour(self, color: chess.Color, utype: int, usq: int, ttype: int, tsq: int,
                captures: int, budget: int) -> int:
        """Squares q on the unit's routes to the target unit with d(u, q) + d(q, f) <= budget."""
        if utype != chess.PAWN:
            a, b = self.piece_map(utype, color, usq), self.piece_map(ttype, color, tsq)
            return sum(chess.BB_SQUARES[q] for q in chess.SQUARES if a[q] + b[q] <= budget)
        promotes = ttype not in (chess.PAWN, chess.KING)
        return self._pawn_landings(
            color, usq, captures, budget,
            lambda q, c: self.unit_cost(color, chess.PAWN, q, ttype, tsq, c),
            lambda q, left: self._detour(color, ttype, q, ttype, tsq, 0, left) if promotes else 0)

    def _slot_detour(self, color: chess.Color, utype: int, usq: int, squares: int, captures: int,
                     budget: int) -> int:
        """Squares q the unit may land on while walking to a victim slot (`squares`) with
        d(u, q) + d(q, slot) <= budget; a pawn may promote on the way."""
        if utype == chess.KING or budget >= INF:
            return 0
        key = ("slotdetour", color, utype, usq, squares, captures, budget)
        hit = self._route_cache.get(key)
        if hit is not None:
            return hit
        if utype != chess.PAWN:
            a = self.piece_map(utype, color, usq)
            out = 0
            for q in chess.SQUARES:
                if a[q] <= budget and a[q] + self.victim_cost(color, utype, q, squares, 0) <= budget:
                    out |= chess.BB_SQUARES[q]
        else:  # a promoted queen covers the bishop's and rook's detours
            out = self._pawn_landings(
                color, usq, captures, budget,
                lambda q, c: self.victim_cost(color, chess.PAWN, q, squares, c),
                lambda q, left: self._slot_detour(color, chess.QUEEN, q, squares, 0, left)
                | self._slot_detour(color, chess.KNIGHT, q, squares, 0, left))
        self._route_cache[key] = out
        return out

    def _pawn_landings(self, color: chess.Color, usq: int, captures: int, budget: int,
                       rest: Callable[[int, int], int], promoted: Callable[[int, int], int]) -> int:
        """Squares a pawn on `usq` may land on within `budget` moves of a route: before its
        last rank, q with d(u, q) + rest(q, captures left) <= budget; promoting on q, the
        squares promoted(q, moves left) of the new piece."""
        cap = min(captures, trajectory.MAX_PAWN_CAPTURES)
        maps = self.pawn_maps(color, usq)
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

    def _piece_route(self, utype: int, color: chess.Color, frm: int, to: int, d: int) -> int:
        """Squares after `frm` on the piece's shortest routes frm -> to of length d."""
        if d >= INF or d == 0:
            return 0
        key = ("route", utype, color, frm, to)
        hit = self._route_cache.get(key)
        if hit is None:
            a = self.piece_map(utype, color, frm)
            b = self.piece_map(utype, color, to)  # piece moves are reversible: b[q] = d(q, to)
            hit = 0
            for q in chess.SQUARES:
                if q != frm and a[q] + b[q] == d:
                    hit |= chess.BB_SQUARES[q]
            self._route_cache[key] = hit
        return hit

    def _pawn_route(self, color: chess.Color, frm: int, to: int, c: int) -> int:
        """Squares a pawn's cheapest route frm -> to with exactly c captures may capture on."""
        key = ("pawnroute", color, frm, to, c)
        hit = self._route_cache.get(key)
        if hit is None:
            hit = 0
            maps = self.pawn_maps(color, frm)
            total = maps[c][to] if c <= trajectory.MAX_PAWN_CAPTURES else INF
            if 0 < c and total < INF:
                for q in chess.SQUARES:
                    if q == frm:
                        continue
                    for c1 in range(1, c + 1):
                        if maps[c1][q] < INF and (q == to and c1 == c or chess.square_rank(q) not in (0, 7)
                                                  and maps[c1][q] + self.pawn_maps(color, q)[c - c1][to] == total):
                            hit |= chess.BB_SQUARES[q]
                            break
            self._route_cache[key] = hit
        return hit

    def _route_squares(self, color: chess.Color, utype: int, usq: int, ttype: int, tsq: int,
                       captures: int) -> int:
        """Capture squares of the unit's cheapest routes to the target unit."""
        if utype != chess.PAWN:
            if utype != ttype:
                return 0
            return self._piece_route(utype, color, usq, tsq, self.piece_map(utype, color, usq)[tsq])
        out = 0
        for dest, c, _, d in self._cheapest_pawn_ends(color, usq, ttype, tsq, captures):
            out |= self._pawn_route(color, usq, dest, c) | self._piece_route(ttype, color, dest, tsq, d)
        return out

    def _cheapest_pawn_ends(self, color: chess.Color, usq: int, ttype: int, tsq: int,
                            captures: int) -> list[tuple[int, int, int, int]]:
        """(pawn destination, pawn captures, pawn moves, piece moves after it) of the cheapest
        routes of the pawn on `usq` to the target unit (none when it needs no move)."""
        if ttype == chess.KING:
            return []
        cost = self.unit_cost(color, chess.PAWN, usq, ttype, tsq, captures)
        if cost >= INF or cost == 0:
            return []
        maps = self.pawn_maps(color, usq)
        ends = []
        for c in range(min(captures, trajectory.MAX_PAWN_CAPTURES) + 1):
            if ttype == chess.PAWN:
                if maps[c][tsq] == cost:
                    ends.append((tsq, c, cost, 0))
                continue
            for p in LAST_RANK_SQUARES[color]:
                pm = maps[c][p]
                if pm < INF:
                    d = self.piece_map(ttype, color, p)[tsq]
                    if pm + d == cost:
                        ends.append((p, c, pm, d))
        return ends

    def forced_victims(self, board: chess.Board, color: chess.Color,
                       side_key: tuple | None = None) -> list[tuple[int, int]]:
        """`color`'s units that can become no target unit and fill no victim slot: they must be
        captured (kings and rooks that may still castle are left out)."""
        side_key = side_key or self._side_key(board, color)
        plans = self._plans(board, color, side_key)
        key = ("victims",) + side_key
        hit = self._bound_cache.get(key)
        if hit is not None:
            return hit
        out = []
        movable_rooks = 0
        for rook in chess.scan_forward(board.castling_rights & BACK_RANK[color]):
            movable_rooks |= chess.BB_SQUARES[rook]
        for usq in chess.scan_forward(board.occupied_co[color] & ~self.frozen & ~board.kings
                                      & ~movable_rooks):
            utype = board.piece_type_at(usq)
            if any(self.unit_routes(color, utype, usq, ttype, tsq, plans.captures)
                   for tsq, ttype in self.target_units[color]):
                continue
            if any(self.victim_cost(color, utype, usq, slot, plans.captures) < INF
                   for slot in plans.slots):
                continue
            out.append((usq, utype))
        self._bound_cache[key] = out
        return out

    def coupled_bound(self, board: chess.Board, color: chess.Color, side_key: tuple | None = None,
                      other_key: tuple | None = None) -> int:
        """`color`'s bound when the opponent has no spare move: the opponent captures only on
        the squares of its cheapest routes, so each unit of `color` that must be captured walks
        to one of them first (distinct units: the walks add up). The keys: both sides' side
        keys when already computed."""
        side_key = side_key or self._side_key(board, color)
        plans = self._plans(board, color, side_key)
        if plans.bound >= INF:
            return INF
        victims = self.forced_victims(board, color, side_key)
        if not victims:
            return plans.bound
        where = self.capture_squares(board, not color, other_key)
        walk = 0
        for usq, utype in victims:
            walk += self.victim_cost(color, utype, usq, where, plans.captures)
            if walk >= INF:
                return INF
        if walk == 0:
            return plans.bound
        k = plans.captures
        best = INF
        for value, capacity, *_ in plans.scenarios:
            # extra moves add at most one capture each: k <= capacity + (moves - value)
            best = min(best, value + walk + (1 if self.capacity and k - capacity > walk else 0))
        return max(best, k, plans.bound)

    def moves_left(self, board: chess.Board, plies: int) -> tuple[int, int]:
        """(White's, Black's) moves among the next `plies` plies, `board.turn` moving first."""
        return _moves_left(board.turn, plies)

    def move_filter(self, board: chess.Board, move: chess.Move, plies: int) -> bool:
        """False for moves no game to the target can make: moving or capturing a frozen unit,
        capturing when the opponent has no unit left to lose, or (a side with no spare move)
        stepping off every cheapest route of the moving unit."""
        return move in self.candidate_moves(board, plies)

    def candidate_moves(self, board: chess.Board, plies: int) -> list[chess.Move]:
        """The legal moves `move_filter` lets through, generated once per position."""
        from_mask = ~self.frozen & chess.BB_ALL
        to_mask = from_mask
        no_capture = chess.popcount(board.occupied_co[not board.turn]) <= self.target_count[not board.turn]
        if no_capture:
            to_mask &= ~board.occupied_co[not board.turn]
        keys = (self._side_key(board, board.turn), self._side_key(board, not board.turn))
        steps = None
        if self.route_steps and self._no_spare(board, board.turn, (plies + 1) // 2, keys[0]):
            steps = self.next_steps(board, board.turn, keys[0])
            # generate only what the filter below can let through (castling: king to rook)
            castling = board.castling_rights & BACK_RANK[board.turn]
            from_mask &= sum(chess.BB_SQUARES[sq] for sq, to in steps.items() if to) | (
                board.kings & board.occupied_co[board.turn] if castling else 0)
            to_mask &= functools.reduce(operator.or_, steps.values(), 0) | castling
        out = []
        for move in board.generate_legal_moves(from_mask, to_mask):
            if no_capture and board.is_en_passant(move):
                continue
            if steps is not None and not steps.get(move.from_square, 0) & chess.BB_SQUARES[move.to_square]:
                if not board.is_castling(move):
                    continue
            if self._quiet_child_pruned(board, move, plies, keys):
                continue
            out.append(move)
        return out

    def _quiet_child_pruned(self, board: chess.Board, move: chess.Move, plies: int,
                            keys: tuple) -> bool:
        """True when `move` is a quiet move (no capture, castling or promotion) after which a
        side bound already cached exceeds that side's moves left: `prune` of the child, without
        playing the move. `keys`: the side keys of the mover and the opponent now."""
        frm, to = chess.BB_SQUARES[move.from_square], chess.BB_SQUARES[move.to_square]
        if move.promotion or board.occupied & to:
            return False
        ptype = board.piece_type_at(move.from_square)
        if ptype == chess.PAWN and move.from_square & 7 != move.to_square & 7:
            return False  # en passant
        if ptype == chess.KING and abs(move.from_square - move.to_square) == 2:
            return False  # castling
        mover = board.turn
        mine, theirs = keys
        rights = board.castling_rights & ~frm & ~to
        if ptype == chess.KING:
            rights &= ~BACK_RANK[mover]
        child = list(mine)
        child[ptype] ^= frm | to
        child[7] = rights & BACK_RANK[mover]
        child = tuple(child)
        plans = self._bound_cache.get(child)
        if plans is not None and plans.bound > (plies - 1) // 2:
            return True
        other = list(theirs)
        other[7] = rights & BACK_RANK[not mover]
        if ptype == chess.PAWN and self.victim_slots:
            budget = chess.popcount(board.occupied_co[not mover]) - self.target_count[not mover]
            other[9] = self._slots(mover, mine[1] ^ (frm | to), budget)
        other = tuple(other)
        plans = self._bound_cache.get(other)
        if plans is not None and plans.bound > plies // 2:
            return True
        if self.obstruction and not (ptype == chess.PAWN and abs(move.to_square - move.from_square) == 16):
            # a child already found obstructed (`_obstructed` caches by both side keys)
            kw, kb = (child, other) if mover == chess.WHITE else (other, child)
            w, b = _moves_left(not mover, plies - 1)
            return bool(self._bound_cache.get(_obstructed_key(kw, kb, w, b, None)))
        return False

    def next_steps(self, board: chess.Board, color: chess.Color,
                   side_key: tuple | None = None) -> dict[int, int]:
        """Per unit of `color`, the squares its first move may go to on a cheapest route towards
        a target unit or victim slot it could take (a superset; castling is not covered).

        With no spare move every unit follows a cheapest route of a cheapest plan and unmatched
        units stand still, so any other move loses the game to the target.
        """
        out: dict[int, int] = {}
        for usq, utype, _, steps in self._unit_routes_now(board, color, side_key):
            if board.piece_type_at(usq) != utype or not board.occupied_co[color] & chess.BB_SQUARES[usq]:
                continue  # castled king or rook: the castling move is not filtered
            out[usq] = out.get(usq, 0) | steps
        return out

    def _unit_routes_now(self, board: chess.Board, color: chess.Color,
                         side_key: tuple | None = None) -> list[tuple]:
        """Per unit of each cheapest castling scenario of `color`: (square, type, squares of its
        cheapest routes to the rows it may take in a cheapest plan, first steps of those routes).
        A pawn that may walk to a victim slot gets every square (not worked out)."""
        side_key = side_key or self._side_key(board, color)
        plans = self._plans(board, color, side_key)
        key = ("unitroutes",) + side_key
        hit = self._bound_cache.get(key)
        if hit is not None:
            return hit
        base = min((p[0] for p in plans.scenarios), default=INF)
        targets = self.target_units[color]
        out = []
        for value, _, placed, extra in plans.scenarios:
            if value != base:
                continue
            rows_of = self._admissible(color, placed, plans.captures, plans.slots, base - extra)
            for (usq, utype), rows in zip(placed, rows_of):
                routes = steps = 0
                for r in rows:
                    if r < len(targets):
                        tsq, ttype = targets[r]
                        routes |= self._route_squares(color, utype, usq, ttype, tsq, plans.captures)
                        steps |= self._first_steps(color, utype, usq, ttype, tsq, plans.captures)
                    elif utype == chess.PAWN:
                        squares = plans.slots[r - len(targets)]
                        cost = self.victim_cost(color, utype, usq, squares, plans.captures)
                        way = self._slot_detour(color, utype, usq, squares, plans.captures, cost)
                        routes |= way
                        steps |= way & _pawn_first_moves(color, usq)
                    elif utype != chess.KING:
                        dist = self.piece_map(utype, color, usq)
                        for q in chess.scan_forward(plans.slots[r - len(targets)]):
                            way = self._piece_route(utype, color, usq, q, dist[q])
                            routes |= way
                            steps |= way & self._one_step(utype, color, usq)
                out.append((usq, utype, routes, steps))
        self._bound_cache[key] = out
        return out

    def _one_step(self, utype: int, color: chess.Color, usq: int) -> int:
        """Squares one move of the piece from `usq` reaches (frozen units as obstacles)."""
        key = ("onestep", utype, color, usq)
        hit = self._route_cache.get(key)
        if hit is None:
            dist = self.piece_map(utype, color, usq)
            hit = sum(chess.BB_SQUARES[q] for q in chess.SQUARES if dist[q] == 1)
            self._route_cache[key] = hit
        return hit

    def _first_steps(self, color: chess.Color, utype: int, usq: int, ttype: int, tsq: int,
                     captures: int) -> int:
        """First-move squares of the unit's cheapest routes to the target unit."""
        if utype != chess.PAWN:
            if utype != ttype:
                return 0
            d = self.piece_map(utype, color, usq)[tsq]
            return self._piece_route(utype, color, usq, tsq, d) & self._one_step(utype, color, usq)
        ends = self._cheapest_pawn_ends(color, usq, ttype, tsq, captures)
        out = 0
        for q in chess.scan_forward(_pawn_first_moves(color, usq) if ends else 0):
            c1 = 1 if chess.square_file(q) != chess.square_file(usq) else 0
            for dest, c, pm, _ in ends:
                if c1 > c:
                    continue
                rest = 0 if q == dest and c1 == c else (
                    INF if chess.square_rank(q) in (0, 7) else self.pawn_maps(color, q)[c - c1][dest])
                if 1 + rest == pm:
                    out |= chess.BB_SQUARES[q]
                    break
        return out

    def prune(self, board: chess.Board, plies: int) -> bool:
        """True when the target cannot be reached in exactly `plies` more plies (proved)."""
        w, b = self.moves_left(board, plies)
        kw = self._side_key(board, chess.WHITE)
        pw = self._plans(board, chess.WHITE, kw)
        if pw.bound > w:
            return True
        kb = self._side_key(board, chess.BLACK)
        pb = self._plans(board, chess.BLACK, kb)
        if pb.bound > b:
            return True
        if self.coupling:
            # a side with no spare move captures only on its cheapest routes
            if pw.cheapest == w and self.coupled_bound(board, chess.BLACK, kb, kw) > b:
                return True
            if pb.cheapest == b and self.coupled_bound(board, chess.WHITE, kw, kb) > w:
                return True
        if self.landings and board.ep_square is None:
            # a side with no spare move leaves its forced victims where they stand: the other
            # side must land on each of those squares
            for color, mine, theirs, plans, key, other_key in (
                    (chess.WHITE, w, b, pw, kw, kb), (chess.BLACK, b, w, pb, kb, kw)):
                if plans.cheapest != mine:
                    continue
                standing = 0
                for usq, _ in self.forced_victims(board, color, key):
                    standing |= chess.BB_SQUARES[usq]
                if standing and standing & ~self.landing_squares(board, not color, theirs, other_key):
                    return True
        if self.obstruction:
            return self._obstructed(board, plies, w, b, pw, pb, kw, kb)
        return False

    MAX_VIEWS = 2048  # obstruction views kept (each has its own distance tables and caches)
    # the split is given up once it has pruned fewer than 1 in 5 of its first SPLIT_TRIAL tries
    # (not pruning is always sound; the split costs about one more bound per try)
    SPLIT_TRIAL = 4096

    def _obstructed(self, board: chess.Board, plies: int, w: int, b: int, pw: "Plans",
                    pb: "Plans", kw: tuple, kb: tuple) -> bool:
        """True when the target is out of reach whether or not the held units (`held_units`:
        the units the start and the target share, and pawns on their own target squares) are
        disturbed.

        Every game from here either leaves them all in place (then they are obstacles that are
        never captured: the bounds of an Analysis with them frozen, its `prune`, apply) or
        moves or captures one of White's (White pays `disturbed_bound`) or one of Black's.
        """
        held = self.held_units(board)
        white = held & board.occupied_co[chess.WHITE]
        black = held & board.occupied_co[chess.BLACK]
        # disturbing a piece costs at most two moves and one more for capture capacity
        # (`_bumped`): with three spare moves that case alone keeps the position alive
        pieces = held & ~board.pawns
        if not held or ((white & pieces) and pw.bound + 3 <= w) or \
                ((black & pieces) and pb.bound + 3 <= b):
            return False
        key = _obstructed_key(kw, kb, w, b, board.ep_square)
        hit = self._bound_cache.get(key)
        if hit is None:
            tries, hits = self._split_stats
            if tries >= self.SPLIT_TRIAL and hits * 5 < tries:
                return False  # it rarely prunes on this problem: not worth its cost
            hit = self._bound_cache[key] = self._split(board, plies, w, b, pw, pb, kw, kb,
                                                       held, white, black)
            self._split_stats = (tries + 1, hits + hit)
        return hit

    def view(self, held: int) -> "Analysis":
        """The analysis of the games that never move nor capture the units on `held`: they
        are frozen there. At most MAX_VIEWS are kept, the least recently used dropped first."""
        views = self._views
        view = views.get(held)
        if view is not None:
            views.move_to_end(held)
            return view
        if len(views) >= self.MAX_VIEWS:
            views.popitem(last=False)
        options = {name: getattr(self, name) for name in SWITCHES}
        options["obstruction"] = False
        view = views[held] = Analysis(self.start, self.target, **options,
                                      extra_frozen=held | self.extra_frozen)
        return view

    def _split(self, board: chess.Board, plies: int, w: int, b: int, pw: "Plans", pb: "Plans",
               kw: tuple, kb: tuple, held: int, white: int, black: int) -> bool:
        """`_obstructed`'s three cases, uncached: the disturbed bounds first (cached by side
        key, they often keep the position alive before a view is built or asked)."""
        if white and pb.bound <= b and self.disturbed_bound(board, chess.WHITE, white, kw) <= w:
            return False
        if black and pw.bound <= w and self.disturbed_bound(board, chess.BLACK, black, kb) <= b:
            return False
        return self.view(held).prune(board, plies)

    def _no_spare(self, board: chess.Board, color: chess.Color, moves: int,
                  side_key: tuple | None = None) -> bool:
        """Every cheapest plan of `color` uses exactly `moves` moves (no move to spare)."""
        return self._plans(board, color, side_key).cheapest == moves
