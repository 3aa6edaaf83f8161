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

from dataclasses import dataclass, field

import chess

from retrologic import trajectory

INF = 10 ** 6
PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)
BACK_RANK = {chess.WHITE: chess.BB_RANK_1, chess.BLACK: chess.BB_RANK_8}
PAWN_HOME = {chess.WHITE: chess.BB_RANK_2, chess.BLACK: chess.BB_RANK_7}
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
    """Minimum cost matching rows to distinct columns, split into independent blocks first."""
    n = len(cost)
    if n == 0:
        return 0
    m = len(cost[0])
    # union-find over rows and columns joined by allowed entries
    parent = list(range(n + m))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, row in enumerate(cost):
        if min(row) >= INF:
            return INF
        for j, c in enumerate(row):
            if c < INF:
                a, b = find(i), find(n + j)
                if a != b:
                    parent[a] = b
    groups: dict[int, tuple[list[int], list[int]]] = {}
    for i in range(n):
        groups.setdefault(find(i), ([], []))[0].append(i)
    for j in range(m):
        root = find(n + j)
        if root in groups:
            groups[root][1].append(j)
    total = 0
    for rows, cols in groups.values():
        if len(cols) < len(rows):
            return INF
        if len(rows) == 1:
            total += min(cost[rows[0]][j] for j in cols)
        else:
            total += hungarian([[cost[i][j] for j in cols] for i in rows])
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
    _slot_cache: dict = field(default_factory=dict)
    _pair_cache: dict = field(default_factory=dict)
    target_units: dict = field(default_factory=dict)
    target_count: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.frozen, self.impossible = frozen_units(self.start, self.target)
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
        """Moves a piece needs from `square` to every square, frozen units as obstacles."""
        key = (piece_type, color, square)
        hit = self._piece_maps.get(key)
        if hit is None:
            hit = trajectory.distance_map(piece_type, color, square, self.frozen)
            hit = tuple(INF if d >= trajectory.UNREACHABLE else d for d in hit)
            self._piece_maps[key] = hit
        return hit

    def pawn_maps(self, color: chess.Color, square: chess.Square) -> tuple:
        """Per capture count c (0..6), the moves a pawn on `square` needs to each square."""
        key = (color, square)
        hit = self._pawn_maps.get(key)
        if hit is None:
            maps = trajectory.pawn_maps(color, square, self.frozen)
            hit = tuple(tuple(INF if d >= trajectory.UNREACHABLE else d for d in m) for m in maps)
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
        pawns = board.pawns & board.occupied_co[color] & ~self.frozen
        # `color` makes exactly this many more captures: routes needing more are impossible
        budget = min(chess.popcount(board.occupied_co[not color]) - self.target_count[not color],
                     trajectory.MAX_PAWN_CAPTURES)
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
        squares = 0
        if 0 < fewest < INF:
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
        hit = (fewest, squares)
        self._pair_cache[key] = hit
        return hit

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

    def side_bound(self, board: chess.Board, color: chess.Color) -> int:
        """A lower bound on the moves `color` still needs to reach the target (INF: never)."""
        mask = board.occupied_co[color]
        key = (color, board.pawns & mask, board.knights & mask, board.bishops & mask,
               board.rooks & mask, board.queens & mask, board.kings & mask,
               board.castling_rights & BACK_RANK[color],
               chess.popcount(board.occupied_co[not color]),
               self.capture_slots(board, not color) if self.victim_slots else ())
        hit = self._bound_cache.get(key)
        if hit is None:
            hit = self._compute_bound(board, color, key[-1])
            self._bound_cache[key] = hit
        return hit

    def _compute_bound(self, board: chess.Board, color: chess.Color, slots: tuple) -> int:
        if self.impossible:
            return INF
        if (board.occupied_co[color] & self.frozen) != (self.target.occupied_co[color] & self.frozen):
            return INF
        captures = chess.popcount(board.occupied_co[not color]) - self.target_count[not color]
        if captures < 0:
            return INF
        units = [(sq, board.piece_type_at(sq))
                 for sq in chess.scan_forward(board.occupied_co[color] & ~self.frozen)]
        targets = self.target_units[color]
        if len(units) < len(targets):
            return INF
        scenarios = [(0, {})]
        for rook in chess.scan_forward(board.castling_rights & BACK_RANK[color]):
            king_from, king_to, rook_to = CASTLE[(color, rook)]
            scenarios.append((1, {king_from: king_to, rook: rook_to}))
        # with no capture left to make, mu and lambda only weaken the plain assignment
        grid = LAGRANGE if self.capture_accounting and captures > 0 else ((0, 0),)
        if len(slots) > len(units) - len(targets):
            return INF  # the opponent's pawns need more victims than this side can lose
        best = INF
        for extra, moved in scenarios:
            placed = [(moved.get(usq, usq), utype) for usq, utype in units]
            routes = [[self.unit_routes(color, utype, usq, ttype, tsq, captures)
                       for usq, utype in placed] for tsq, ttype in targets]
            victims = [[self.victim_cost(color, utype, usq, squares, captures)
                        for usq, utype in placed] for squares in slots]
            scenario = 0
            for mu2, lam2 in grid:
                cost = [[_weighted(r, mu2, lam2) for r in row] for row in routes]
                if (mu2, lam2) == (0, 0):
                    cost += [[2 * v if v < INF else INF for v in row] for row in victims]
                else:  # a victim's moves minus mu times its captures are >= 0; kings never die
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
            return INF
        return max(best, captures)

    def moves_left(self, board: chess.Board, plies: int) -> tuple[int, int]:
        """(White's, Black's) moves among the next `plies` plies, `board.turn` moving first."""
        first = (plies + 1) // 2
        second = plies // 2
        return (first, second) if board.turn == chess.WHITE else (second, first)

    def move_filter(self, board: chess.Board, move: chess.Move, plies: int) -> bool:
        """False for moves no game to the target can make: moving or capturing a frozen unit,
        or capturing when the opponent has no unit left to lose."""
        if self.frozen & (chess.BB_SQUARES[move.from_square] | chess.BB_SQUARES[move.to_square]):
            return False
        if chess.popcount(board.occupied_co[not board.turn]) <= self.target_count[not board.turn]:
            return not board.is_capture(move)
        return True

    def prune(self, board: chess.Board, plies: int) -> bool:
        """True when the target cannot be reached in exactly `plies` more plies (proved)."""
        w, b = self.moves_left(board, plies)
        return self.side_bound(board, chess.WHITE) > w or self.side_bound(board, chess.BLACK) > b
