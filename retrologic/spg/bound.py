"""The lower bound on the moves each side still needs to reach the proof game's target (Natch /
Euclide's counting; §10 of shared/seeds/malikovic-spg-trajectories-coq.txt sums one trajectory per
piece).

The bound is identity-free, so it holds for *every* game from the current position: for side c
it is the cheapest assignment of c's units to c's target units (the distance tables, never-moving
units as obstacles, pawns capturing at most as often as the other side still has units to lose,
promotions included, castling as one move for king and rook), and at least the number of
captures c must still make. Victim slots couple the sides: the captures the opponent's pawns are
forced to make land on known squares, where distinct units of c must first walk
(`capture_slots`). A search pruned by it stays complete.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable, NamedTuple

import chess

from retrologic.spg import trajectory
from retrologic.spg.assignment import (BlockMemo, Solver, column_assignment, finite_mask,
                                       hungarian, min_assignment)
from retrologic.spg.distances import INF, Distances, UnitRoutes
from retrologic.spg.memo import Memo
from retrologic.spg.options import BoundOptions
from retrologic.spg.targets import BACK_RANK, Targets, Units, units_on
from retrologic.vocabulary import CASTLINGS

# Lagrange multipliers (doubled: 2*mu, 2*lambda) of the capture-accounting bound, see _weighted
LAGRANGE = ((0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1))
CAPW = 1024  # moves weigh CAPW, capture capacity 1: one assignment gives both (capacity < CAPW)

# units placed on the board for one castling scenario: (square, piece type) each
Placed = Units
# one unit's assignment entries (per target unit, then per victim slot) and their finite mask
Column = tuple[tuple[int, ...], int]
# `Bound.spare_rows` per unit: (may it be left out of a cheapest plan, the rows it may take in
# a cheapest plan, the rows it may take in a plan of one move more)
SpareRows = tuple[bool, tuple[int, ...], tuple[int, ...]]


def _weighted(routes: UnitRoutes, mu2: int, lam2: int) -> int:
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


def _capacity_weighted(routes: UnitRoutes) -> int:
    """CAPW * moves - capacity of the unit's cheapest route, the most capacity among ties.

    Capacity: the captures the route can make, its pawn captures plus its piece moves.
    """
    best = INF
    for pm, c, d in routes:
        v = CAPW * (pm + d) - (c + d)
        if v < best:
            best = v
    return best


def _piece_weighted(moves: int) -> int:
    """`_capacity_weighted` of a piece's route of `moves` moves (INF: none): each move may
    capture, so its capacity is `moves` (read without building the route)."""
    return INF if moves >= INF else CAPW * moves - moves


def moves_left(turn: chess.Color, plies: int) -> tuple[int, int]:
    """(White's, Black's) moves among the next `plies` plies, `turn` moving first."""
    first, second = (plies + 1) // 2, plies // 2
    return (first, second) if turn == chess.WHITE else (second, first)


class SideKey(NamedTuple):
    """What a side's bound depends on: its units by type (fields 1..6 are indexed by piece type,
    as `chess.PAWN`..`chess.KING`), its castling rights, the opponent's unit count and the victim
    slots the opponent's pawns impose on it."""

    color: chess.Color
    pawns: int
    knights: int
    bishops: int
    rooks: int
    queens: int
    kings: int
    castling: int
    opponents: int
    slots: tuple[int, ...]


# SideKey from its fields as one iterable, without the generated __new__'s Python-level call (side
# keys are made several times per node)
new_side_key: Callable[[Iterable[Any]], SideKey] = functools.partial(tuple.__new__, SideKey)


class Scenario(NamedTuple):
    """One castling scenario of a side's plans."""

    moves: int  # the moves of its cheapest plans
    capacity: int  # their largest capture capacity
    placed: Placed  # the units' squares once castled
    castling: int  # the castling move it counts (0 or 1)


class Plans(NamedTuple):
    """A side's bound and, per castling scenario, (moves of its cheapest plans, their largest
    capture capacity, the units' squares); the captures it must still make; its victim slots."""

    bound: int
    scenarios: tuple[Scenario, ...]
    captures: int
    slots: tuple[int, ...]
    cheapest: int = INF  # the fewest moves of any scenario (== moves left: no spare move)


class Bound:
    """Each side's plans and bound for one start, target and set of frozen units, memoised by
    side key."""

    def __init__(self, targets: Targets, distances: Distances, options: BoundOptions,
                 solve: Solver = hungarian) -> None:
        self.targets = targets
        self.distances = distances
        self.options = options
        self.solve = solve      # the assignment blocks' solver (same values, speed only)
        self.plans_by_key: Memo[SideKey, Plans] = Memo("plans")
        # (color, pawns, capture budget) -> victim slots
        self.slots_by_pawns: Memo[tuple[bool, int, int], tuple[int, ...]] = Memo("victim slots")
        # (color, unit type, unit square, captures, slots) -> the unit's assignment column
        self.columns: Memo[tuple[bool, int, int, int, tuple[int, ...]], Column] = Memo("columns")
        self.blocks: BlockMemo = Memo("assignment blocks")
        # (held squares, side key) -> the bound per held unit disturbed
        self.disturbed: Memo[tuple[int, SideKey], list[int]] = Memo("disturbed bounds")
        # (side key, the opponent's landing squares) -> the bound with every victim visiting them
        self.visits: Memo[tuple[SideKey, int], int] = Memo("victim visits")
        # (side key, where) -> the visit assignment's fewest moves (no capacity term)
        self.visit_moves_by_key: Memo[tuple[SideKey, int], int] = Memo("victim visit moves")
        # (side key, where) -> per unit square, the visit rows it may take in the fewest moves
        self.visit_rows_by_key: Memo[tuple[SideKey, int], dict[int, tuple[int, ...]]] = \
            Memo("victim visit rows")
        # (color, unit type, unit square, captures, slots) -> `plain_entries`
        self.plain: Memo[tuple[bool, int, int, int, tuple[int, ...]], tuple[int, ...]] = \
            Memo("plain entries")
        # side key -> per unit square, `spare_rows` (a side with one spare move)
        self.spare_rows_by_key: Memo[SideKey, dict[int, SpareRows]] = Memo("spare rows")

    # victim slots ------------------------------------------------------------------------------

    def capture_slots(self, board: chess.Board, color: chess.Color) -> tuple[int, ...]:
        """Squares of the captures `color`'s pawns must still make, one set per capture.

        For each of `color`'s pawn targets, every pawn of `color` that could still reach it needs
        at least m captures (m >= 1: the target's pawn is not on its file or cannot get there
        straight); those m captures land on squares of the union Q of the capture routes from
        the candidate pawns to the target. Pawns ending on distinct targets are distinct, so their
        captures take distinct victims of the other side. Returns m copies of Q per target.
        """
        # `color` makes exactly this many more captures: routes needing more are impossible
        budget = chess.popcount(board.occupied_co[not color]) - self.targets.count[not color]
        return self.slots(color, board.pawns & board.occupied_co[color], budget)

    def slots(self, color: chess.Color, pawns: int, budget: int) -> tuple[int, ...]:
        """`capture_slots` of `color`'s pawns on `pawns` with `budget` captures still to make."""
        pawns &= ~self.targets.frozen
        budget = min(budget, trajectory.MAX_PAWN_CAPTURES)
        if budget <= 0:
            return ()
        key = (color, pawns, budget)
        hit = self.slots_by_pawns.get(key)
        if hit is not None:
            return hit
        out = []
        for tsq, ttype in self.targets.units[color]:
            if ttype != chess.PAWN:
                continue
            need, squares = INF, 0
            for p in chess.scan_forward(pawns):
                fewest, route = self.distances.pawn_capture_route(color, p, tsq, budget)
                need = min(need, fewest)
                if need == 0:
                    break
                squares |= route
            if 0 < need < INF:
                out.extend([squares] * need)
        hit = tuple(sorted(out))
        self.slots_by_pawns[key] = hit
        return hit

    # the plans ---------------------------------------------------------------------------------

    def side_key(self, board: chess.Board, color: chess.Color) -> SideKey:
        """The side's key: what its plans depend on."""
        mask = board.occupied_co[color]
        return new_side_key((color, board.pawns & mask, board.knights & mask,
                             board.bishops & mask, board.rooks & mask, board.queens & mask,
                             board.kings & mask, board.castling_rights & BACK_RANK[color],
                             chess.popcount(board.occupied_co[not color]),
                             self.capture_slots(board, not color)
                             if self.options.victim_slots else ()))

    def side_bound(self, board: chess.Board, color: chess.Color) -> int:
        """A lower bound on the moves `color` still needs to reach the target (INF: never)."""
        return self.plans(board, color).bound

    def plans(self, board: chess.Board, color: chess.Color, key: SideKey | None = None) -> Plans:
        """The side's plans, cached by its side key (pass `key` when already computed)."""
        if key is None:
            key = self.side_key(board, color)
        hit = self.plans_by_key.get(key)
        if hit is None:
            hit = self._compute(board, color, key.slots)
            self.plans_by_key[key] = hit
        return hit

    def cached_plans(self, key: SideKey) -> Plans | None:
        """The plans of a side key if already computed (never computes)."""
        return self.plans_by_key.get(key)

    def no_spare(self, board: chess.Board, color: chess.Color, moves: int,
                 side_key: SideKey | None = None) -> bool:
        """Every cheapest plan of `color` uses exactly `moves` moves (no move to spare)."""
        return self.plans(board, color, side_key).cheapest == moves

    def _compute(self, board: chess.Board, color: chess.Color, slots: tuple[int, ...]) -> Plans:
        """The side's plans: per castling scenario, the capacity-weighted assignment of its
        units to its target units and victim slots (with `capture_accounting`, the Lagrangian
        grid of `_weighted` on top)."""
        dead = Plans(INF, (), 0, ())
        targets = self.targets
        if targets.impossible:
            return dead
        if (board.occupied_co[color] & targets.frozen) != \
                (targets.target.occupied_co[color] & targets.frozen):
            return dead
        captures = chess.popcount(board.occupied_co[not color]) - targets.count[not color]
        if captures < 0:
            return dead
        units = units_on(board, board.occupied_co[color] & ~targets.frozen)
        rows = targets.units[color]
        if len(units) < len(rows):
            return dead
        scenarios: list[tuple[int, dict[int, int]]] = [(0, {})]
        for rook in chess.scan_forward(board.castling_rights & BACK_RANK[color]):
            king_from, king_to, rook_to = CASTLINGS[(color, rook)]
            scenarios.append((1, {king_from: king_to, rook: rook_to}))
        # with no capture left to make, mu and lambda only weaken the plain assignment
        grid = LAGRANGE[1:] if self.options.capture_accounting and captures > 0 else ()
        if len(slots) > len(units) - len(rows):
            return dead  # the opponent's pawns need more victims than this side can lose
        best = INF
        plans = []
        for extra, moved in scenarios:
            placed = [(moved.get(usq, usq), utype) for usq, utype in units]
            # the plain assignment, ties broken towards the most capture capacity
            columns, masks = self.placed_columns(color, placed, captures, slots)
            total = column_assignment(columns, masks, len(rows) + len(slots), self.blocks,
                                      self.solve)
            if total >= INF:
                continue
            value, capacity, scenario = self.scenario(total, extra, captures)
            plans.append(Scenario(value, capacity, placed, extra))
            if grid:
                routes = [[self.distances.unit_routes(color, utype, usq, ttype, tsq, captures)
                           for usq, utype in placed] for tsq, ttype in rows]
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
        cheapest = min((p.moves for p in plans), default=INF)
        return Plans(max(best, captures), tuple(plans), captures, slots, cheapest)

    def scenario(self, total: int, extra: int, captures: int) -> tuple[int, int, int]:
        """A scenario's (moves, capture capacity, bound) from its weighted assignment `total`
        and its castling move `extra`."""
        base = -(-total // CAPW)
        capacity = base * CAPW - total
        return base + extra, capacity, base + extra + self.capacity_short(capacity, captures)

    def capacity_short(self, capacity: int, captures: int) -> int:
        """One more move when even the cheapest plans cannot make the captures still due."""
        return 1 if self.options.capacity and capacity < captures else 0

    def placed_columns(self, color: chess.Color, placed: Placed, captures: int,
                       slots: tuple[int, ...]) -> tuple[list[tuple[int, ...]], list[int]]:
        """The assignment's columns of the placed units, and their finite masks."""
        columns, masks = [], []
        for usq, utype in placed:
            column, mask = self.column(color, utype, usq, captures, slots)
            columns.append(column)
            masks.append(mask)
        return columns, masks

    def column(self, color: chess.Color, utype: int, usq: int, captures: int,
               slots: tuple[int, ...]) -> Column:
        """The unit's entries of the assignment: CAPW * moves - capacity per target unit,
        then per victim slot (INF: cannot); and their `finite_mask`. A piece's entries do not
        depend on `captures`, a pawn's on at most `MAX_PAWN_CAPTURES` of them: the key says so,
        and a side's capture leaves its pieces' columns as they were (issue #19)."""
        captures = min(captures, trajectory.MAX_PAWN_CAPTURES) if utype == chess.PAWN else 0
        key = (color, utype, usq, captures, slots)
        hit = self.columns.get(key)
        if hit is None:
            distances = self.distances
            if utype == chess.PAWN:
                unit_routes = distances.unit_routes
                entries = tuple(_capacity_weighted(unit_routes(color, utype, usq, ttype, tsq,
                                                               captures))
                                for tsq, ttype in self.targets.units[color])
            else:   # a piece's one route to a target unit of its type: `d` moves, capacity `d`
                distance = distances.piece_distance
                entries = tuple(INF if ttype != utype else _piece_weighted(
                    distance(utype, color, usq, tsq)) for tsq, ttype in self.targets.units[color])
            victim_cost = distances.victim_cost
            for squares in slots:
                v = victim_cost(color, utype, usq, squares, captures)
                entries += (CAPW * v - v if v < INF else INF,)
            hit = (entries, finite_mask(entries))
            self.columns[key] = hit
        return hit

    # every victim visits the capturer's landing squares ---------------------------------------

    def visit_bound(self, board: chess.Board, color: chess.Color, where: int,
                    side_key: SideKey | None = None) -> int:
        """`color`'s bound when each of its units that ends captured must first stand on a
        square of `where` (issue #22, "capture-event coupling"): a superset of the squares the
        opponent can land a move on in the moves it has left (`Coupling.landing_squares`).

        Every unit of `color` beyond its target units is captured (the opponent's captures
        equal that surplus), and a capture lands where its victim stands (a pawn taken e.p.
        stands beside the landing square: `Distances.victim_cost` counts that), so each victim
        first walks to `where`. The victims are distinct units, so besides the target rows and
        the victim slots of the opponent's forced pawn captures (`capture_slots`, a subset of
        the victims) the assignment gets one row per other victim, costed by the unit's
        distance to `where` (kings: never). Where the plain bound leaves a surplus unit out at
        cost 0, this charges its walk: the bound of a side whose victims stand far from every
        square the opponent can still reach. Memoised by (side key, where)."""
        side_key = side_key or self.side_key(board, color)
        plans = self.plans(board, color, side_key)
        targets = self.targets
        victims = chess.popcount(board.occupied_co[color]) - targets.count[color]
        generic = victims - len(plans.slots)
        movers = board.occupied_co[color] & ~targets.frozen & ~board.kings
        if plans.bound >= INF or generic <= 0 or (where and not movers & ~where):
            return plans.bound  # no victim beyond the slots, or each unit stands in `where`
        if where == 0:
            return INF  # a victim to take, and no square the opponent can land on
        key = (side_key, where)
        hit = self.visits.get(key)
        if hit is not None:
            return hit
        nrows = len(targets.units[color]) + len(plans.slots) + generic
        victim_cost = self.distances.victim_cost
        best = fewest = INF
        for _, _, placed, extra in plans.scenarios:
            columns, masks = [], []
            for usq, utype in placed:
                column = self.column(color, utype, usq, plans.captures, plans.slots)[0]
                if utype == chess.KING:
                    v = INF
                elif where & chess.BB_SQUARES[usq]:
                    v = 0  # standing there already (`victim_cost` would scan every square)
                else:
                    v = victim_cost(color, utype, usq, where, plans.captures)
                entries = column + (CAPW * v - v if v < INF else INF,) * generic
                columns.append(entries)
                masks.append(finite_mask(entries))
            total = column_assignment(columns, masks, nrows, self.blocks, self.solve)
            if total < INF:
                value = self.scenario(total, extra, plans.captures)
                best, fewest = min(best, value[2]), min(fewest, value[0])
        hit = INF if best >= INF else max(best, plans.captures, plans.bound)
        self.visits[key] = hit
        self.visit_moves_by_key[key] = fewest
        return hit

    def visit_moves(self, board: chess.Board, color: chess.Color, where: int,
                    side_key: SideKey) -> int:
        """The fewest moves of the visit assignment of `visit_bound` (its cheapest scenario's
        moves, no capacity term), or -1 where `visit_bound` made no assignment (no victim
        beyond the slots, every unit already on `where`, or none can reach it)."""
        self.visit_bound(board, color, where, side_key)
        return self.visit_moves_by_key.get((side_key, where), -1)

    def visit_rows(self, board: chess.Board, color: chess.Color, where: int,
                   side_key: SideKey) -> dict[int, tuple[int, ...]]:
        """Per unit square, the rows of the visit assignment (`visit_entries`' order; the
        walk rows as one, the last) the unit may take in an assignment of the fewest moves
        (`visit_moves`), in every castling scenario that has them: its entry there plus, for
        every other row, the cheapest entry of another unit (the walk rows: the cheapest
        distinct other units) stays within them -- a superset, as `admissible`. Memoised by
        (side key, where); {} where `visit_moves` is -1."""
        key = (side_key, where)
        hit = self.visit_rows_by_key.get(key)
        if hit is not None:
            return hit
        fewest = self.visit_moves(board, color, where, side_key)
        plans = self.plans(board, color, side_key)
        out: dict[int, tuple[int, ...]] = {}
        generic = chess.popcount(board.occupied_co[color]) - self.targets.count[color] - \
            len(plans.slots)
        for _, _, placed, extra in plans.scenarios if fewest >= 0 else ():
            entries = [self.visit_entries(color, utype, usq, plans.captures, plans.slots, where)
                       for usq, utype in placed]
            nrows = len(entries[0]) if entries else 0
            for j, (usq, _) in enumerate(placed):
                others = [e for i, e in enumerate(entries) if i != j]
                cheapest = [min((e[r] for e in others), default=INF) for r in range(nrows - 1)]
                walks = sorted(e[-1] for e in others)
                ok = []
                for r in range(nrows):
                    mine = entries[j][r]
                    if mine >= INF:
                        continue
                    rest = sum(c for i, c in enumerate(cheapest) if i != r) + \
                        sum(walks[:generic - (r == nrows - 1)])
                    if mine + rest + extra <= fewest:
                        ok.append(r)
                out[usq] = tuple(sorted(set(out.get(usq, ())) | set(ok)))
        self.visit_rows_by_key[key] = out
        return out

    def visit_entries(self, color: chess.Color, utype: int, usq: int, captures: int,
                      slots: tuple[int, ...], where: int) -> tuple[int, ...]:
        """A unit's moves in each row of the visit assignment (`visit_bound`): per target
        unit, per victim slot, then its walk to `where` (0 standing on it; kings: INF)."""
        column = self.column(color, utype, usq, captures, slots)[0]
        if utype == chess.KING:
            v = INF
        elif where & chess.BB_SQUARES[usq]:
            v = 0
        else:
            v = self.distances.victim_cost(color, utype, usq, where, captures)
        return tuple(INF if e >= INF else -(-e // CAPW) for e in column) + (v,)

    # a held unit disturbed ---------------------------------------------------------------------

    def bumped(self, color: chess.Color, utype: int, usq: int,
               column: tuple[int, ...]) -> Column:
        """The column of a unit on its target square that must leave it (or be captured):
        coming back takes at least two moves, with at most two captures; a pawn never comes back."""
        row = next(i for i, (tsq, _) in enumerate(self.targets.units[color]) if tsq == usq)
        out = list(column)
        out[row] = INF if utype == chess.PAWN else max(out[row], 2 * CAPW - 2)
        entries = tuple(out)
        return entries, finite_mask(entries)

    def disturbed_bound(self, board: chess.Board, color: chess.Color, held: int,
                        side_key: SideKey | None = None) -> int:
        """`color`'s bound in the games where at least one of its units on `held` (each on its
        own target square) is moved or captured before the end: the least, over those units, of
        the bound with that unit's stay costing two moves."""
        side_key = side_key or self.side_key(board, color)
        key = (held, side_key)
        values = self.disturbed.get(key)
        if values is None:
            values = self.disturbed[key] = self._bumped_bounds(board, color, side_key, held)
        return min(values, default=INF)

    def _bumped_bounds(self, board: chess.Board, color: chess.Color, side_key: SideKey,
                       held: int) -> list[int]:
        """Per unit on `held`, the side's bound (as `_compute`, without the optional capture
        accounting: lower, still sound) when that unit's stay costs two moves."""
        plans = self.plans(board, color, side_key)
        if plans.bound >= INF:
            return [INF]
        slots, captures = plans.slots, plans.captures
        nrows = len(self.targets.units[color]) + len(slots)
        units = list(chess.scan_forward(board.occupied_co[color] & ~self.targets.frozen))
        best = {h: INF for h in chess.scan_forward(held)}
        for value, capacity, placed, extra in plans.scenarios:
            columns, masks = self.placed_columns(color, placed, captures, slots)
            for h in best:
                j = units.index(h)
                usq, utype = placed[j]
                if usq != h:  # castling moved it: this scenario disturbs it already
                    best[h] = min(best[h], value + self.capacity_short(capacity, captures))
                    continue
                keep = columns[j], masks[j]
                columns[j], masks[j] = self.bumped(color, utype, usq, columns[j])
                total = column_assignment(columns, masks, nrows, self.blocks, self.solve)
                columns[j], masks[j] = keep
                if total < INF:
                    best[h] = min(best[h], self.scenario(total, extra, captures)[2])
        return [max(v, captures) for v in best.values()]

    # the rows a unit may take ------------------------------------------------------------------

    def spare_rows(self, board: chess.Board, color: chess.Color,
                   side_key: SideKey) -> dict[int, SpareRows]:
        """Per unit square of `color`, what `MoveFilter.spent` needs when the side has exactly
        one spare move (issue #22, reach): whether the unit may be left out of an assignment
        of the side's cheapest plans' moves (`Plans.cheapest`: never with no more units than
        rows; else when the other rows' cheapest entries fit), the rows it may take in one,
        and the rows it may take in an assignment of one move more, each in a castling
        scenario: its entry plus, for every other row, the cheapest entry of another unit (a
        superset, as `admissible`); unions over the scenarios (a unit on a square a castled
        king or rook takes in some scenario gets theirs too: more rows, fewer moves dropped).
        Memoised by side key."""
        hit = self.spare_rows_by_key.get(side_key)
        if hit is not None:
            return hit
        plans = self.plans(board, color, side_key)
        out: dict[int, SpareRows] = {}
        for _, _, placed, extra in plans.scenarios:
            moves = [tuple(-(-v // CAPW) if v < INF else INF for v in
                           self.column(color, utype, usq, plans.captures, plans.slots)[0])
                     for usq, utype in placed]
            nrows = len(moves[0]) if moves else 0
            # per row, its two cheapest entries with their units (the cheapest of the others)
            firsts = [sorted((m[r], i) for i, m in enumerate(moves))[:2] + [(INF, -1)]
                      for r in range(nrows)]
            for j, (usq, _) in enumerate(placed):
                cheapest = [f[1][0] if f[0][1] == j else f[0][0] for f in firsts]
                rest = sum(cheapest)
                tight, loose = [], []
                for r in range(nrows):
                    if moves[j][r] >= INF:
                        continue
                    cost = moves[j][r] + rest - cheapest[r] + extra
                    if cost <= plans.cheapest:
                        tight.append(r)
                    if cost <= plans.cheapest + 1:
                        loose.append(r)
                out_before, tight_before, loose_before = out.get(usq, (False, (), ()))
                aside = len(placed) > nrows and rest + extra <= plans.cheapest
                out[usq] = (out_before or aside,
                            tuple(sorted(set(tight_before) | set(tight))),
                            tuple(sorted(set(loose_before) | set(loose))))
        self.spare_rows_by_key[side_key] = out
        return out

    def plain_entries(self, color: chess.Color, utype: int, usq: int, captures: int,
                      slots: tuple[int, ...]) -> tuple[int, ...]:
        """A unit's moves in each row of the side's assignment (per target unit, then per
        victim slot; INF: cannot): its `column` without the capacity weighting."""
        key = (color, utype, usq, captures, slots)
        hit = self.plain.get(key)
        if hit is None:
            hit = self.plain[key] = tuple(
                INF if e >= INF else -(-e // CAPW)
                for e in self.column(color, utype, usq, captures, slots)[0])
        return hit

    def admissible(self, color: chess.Color, placed: Placed, captures: int,
                   slots: tuple[int, ...], base: int) -> list[list[int]]:
        """Per unit, the rows (targets, then victim slots) it may take in a plan of `base`
        moves: its cost there plus the cheapest cost of every other row by another unit
        stays within `base`."""
        columns = [self.column(color, utype, usq, captures, slots)[0] for usq, utype in placed]
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
