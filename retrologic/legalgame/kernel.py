"""The capture plan of the legal-game finder (issue #19): which unit of a side becomes which
target unit, which pawn captures how often and where, and which units are left over for the
opponent to capture -- a "proof kernel" in the sense of Texel's proof-game tool, taken from one
joint assignment instead of each target unit's cheapest route alone.

Why: the finder's capture search was guided by the bound's victim slots (`Bound.capture_slots`),
which are per target pawn: with Black pawns on a6 and b6 and targets a6 and a5, each target
alone is reached without a capture (a6 stays, a6 goes to a5), so no slot is seen, yet jointly
the b-pawn must capture on a5. The guide then pointed at the nearest capture of any unit (say
the queen taking a pawn), which kills the bound, and the search stalled on the last captures
(measured in bench/README-legal.md, session "capture plan"). The plan assigns all of a side's
units at once (minimum pawn captures first, then moves: captures beyond what the side still has
to make are impossible), so the b-pawn's capture on a5 becomes a planned capture with its
squares, and the opponent's units the assignment leaves over become the victims to bring there.

The plans also cut dead capture prefixes (`victims_fit`, issue #19 session of 2026-11-26): the
units a side must still lose have to reach the opponent's capture events, and a pawn that never
leaves its file can neither pass a pawn of the other side that never leaves it either nor promote.

A plan is a heuristic guide only: nothing is proved from it, the finder's game is replayed by
python-chess and `legalgame.checker`. Different `salt`s give other plans of the same capture
count (random tie-breaks on the moves), for the finder's restarts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import chess
from scipy.optimize import linear_sum_assignment

from retrologic.spg.analysis import Analysis
from retrologic.spg.distances import INF

CAPTURE_COST = 1_000  # one pawn capture outweighs any difference in moves
NOISE = 4.0           # a salted plan may take this many moves more than the cheapest
IMPOSSIBLE = 10 ** 9  # the cost of a unit that cannot become a target unit


@dataclass(frozen=True)
class PawnCaptures:
    """A planned capturing pawn: where it stands, how many captures its route makes, and the
    squares where they may land (a superset: `Distances.capture_landings`)."""

    square: chess.Square
    count: int
    squares: int


@dataclass(frozen=True)
class SidePlan:
    """One side's plan: (unit square, target index, pawn captures) per target unit, the
    capturing pawns, the side's units left over (the opponent must capture them), and the
    expendable ones: those left over and those a left-over unit can replace (it reaches the
    same target unit, within the captures left) -- the victims the opponent is guided to."""

    assignment: tuple[tuple[chess.Square, int, int], ...]
    pawns: tuple[PawnCaptures, ...]
    spare: int
    expendable: int = 0

    @property
    def pawn_captures(self) -> int:
        """The captures the planned pawns make, all together."""
        return sum(p.count for p in self.pawns)


def _noise(salt: int, usq: int, index: int) -> float:
    """A fixed pseudo-random tie-break in [0, NOISE) per (salt, unit, target); 0 for salt 0."""
    if not salt:
        return 0.0
    h = (salt * 1_000_003 + usq * 7_919 + index * 104_729) * 2_654_435_761 % 2 ** 32
    return NOISE * h / 2 ** 32


def route_cost(analysis: Analysis, color: chess.Color, utype: int, usq: int, ttype: int,
               tsq: int, need: int) -> tuple[int, int]:
    """(fewest pawn captures, fewest moves with that many) for the unit to become the target
    unit with at most `need` captures; (INF, INF) when it cannot."""
    routes = analysis.unit_routes(color, utype, usq, ttype, tsq, max(need, 0))
    if not routes:
        return INF, INF
    captures = min(c for _, c, _ in routes)
    return captures, min(pm + d for pm, c, d in routes if c == captures)


def capture_squares(analysis: Analysis, color: chess.Color, usq: int, ttype: int, tsq: int,
                    count: int) -> int:
    """Where the captures of a pawn on `usq` becoming the target unit with `count` captures may
    land: on its route to `tsq` (a pawn target) or to a promotion square from which a `ttype`
    piece reaches `tsq`."""
    if ttype == chess.PAWN:
        return analysis.capture_landings(color, usq, tsq, count)
    maps = analysis.pawn_maps(color, usq)
    last = chess.BB_RANK_8 if color == chess.WHITE else chess.BB_RANK_1
    squares = 0
    for p in chess.scan_forward(last):
        if maps[count][p] < INF and analysis.piece_map(ttype, color, p)[tsq] < INF:
            squares |= analysis.capture_landings(color, usq, p, count)
    return squares


class Planner:
    """Side plans over one analysis, the per-unit work memoised: a unit's (captures, cost) row
    over the target units is a pure function of its colour, type, square, the captures left
    and the salt, and the capture squares of a planned pawn of its square, target and count
    (a child position changes one or two units, so most rows are look-ups)."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.rows: dict[tuple, tuple[tuple[int, ...], tuple[float, ...]]] = {}
        self.squares: dict[tuple, int] = {}

    def row(self, color: chess.Color, utype: int, usq: int, need: int,
            salt: int) -> tuple[tuple[int, ...], tuple[float, ...]]:
        """(pawn captures, assignment cost) of the unit per target unit of `color`."""
        key = (color, utype, usq, need, salt)
        hit = self.rows.get(key)
        if hit is None:
            captures, cost = [], []
            for index, (tsq, ttype) in enumerate(self.analysis.target_units[color]):
                c, moves = route_cost(self.analysis, color, utype, usq, ttype, tsq, need)
                captures.append(c)
                cost.append(IMPOSSIBLE if c >= INF else
                            CAPTURE_COST * c + moves + _noise(salt, usq, index))
            hit = self.rows[key] = (tuple(captures), tuple(cost))
        return hit

    def capture_squares(self, color: chess.Color, usq: int, index: int, count: int) -> int:
        """`capture_squares` of a pawn on `usq` planned for target unit `index`, memoised."""
        key = (color, usq, index, count)
        hit = self.squares.get(key)
        if hit is None:
            tsq, ttype = self.analysis.target_units[color][index]
            hit = self.squares[key] = capture_squares(self.analysis, color, usq, ttype, tsq,
                                                      count)
        return hit

    def side_plan(self, board: chess.BaseBoard, color: chess.Color, need: int,
                  salt: int = 0) -> SidePlan | None:
        """`color`'s plan on `board` with `need` captures still to make (None: no assignment
        of its movable units to its target units fits within `need` pawn captures)."""
        analysis = self.analysis
        movable = board.occupied_co[color] & ~analysis.frozen
        targets = analysis.target_units[color]
        if not targets:
            return SidePlan((), (), movable & ~board.kings, movable & ~board.kings)
        units = [(sq, board.piece_type_at(sq) or 0) for sq in chess.scan_forward(movable)]
        if len(targets) > len(units):
            return None
        rows = [self.row(color, utype, usq, need, salt) for usq, utype in units]
        cost = [r[1] for r in rows]
        chosen, columns = linear_sum_assignment(cost)
        assignment, pawns, used = [], [], 0
        for r, c in zip(chosen.tolist(), columns.tolist()):
            if cost[r][c] >= IMPOSSIBLE:
                return None
            usq = units[r][0]
            captures = rows[r][0][c]
            assignment.append((usq, c, captures))
            used |= chess.BB_SQUARES[usq]
            if captures:
                pawns.append(PawnCaptures(usq, captures,
                                          self.capture_squares(color, usq, c, captures)))
        total = sum(p.count for p in pawns)
        if total > need:
            return None
        spare = movable & ~used & ~board.kings
        free = [r for r, (usq, _) in enumerate(units) if spare & chess.BB_SQUARES[usq]]
        expendable = spare
        for r, c in zip(chosen.tolist(), columns.tolist()):
            if any(rows[w][0][c] < INF and total - rows[r][0][c] + rows[w][0][c] <= need
                   for w in free):
                expendable |= chess.BB_SQUARES[units[r][0]]
        return SidePlan(tuple(assignment), tuple(pawns), spare, expendable & ~board.kings)


def side_plan(analysis: Analysis, board: chess.BaseBoard, color: chess.Color, need: int,
              salt: int = 0) -> SidePlan | None:
    """`Planner.side_plan` without memo tables kept (one plan)."""
    return Planner(analysis).side_plan(board, color, need, salt)


class Measures(Protocol):
    """What `plan_distance` and `victims_fit` need of the finder: its frozen units, analysis,
    planner and salt, which ways the guide measures (`around_pawns`), captures left, plans,
    settled pawns (`legalgame.walls`), locked pawns (`locked_pawns`) and distances
    (`legalgame.finder.Finder` provides them, memoised)."""

    frozen: int
    analysis: Analysis
    planner: Planner
    plan_salt: int
    around_pawns: bool

    def captures_left(self, board: chess.BaseBoard, color: chess.Color) -> int: ...

    def side_plan(self, board: chess.BaseBoard, color: chess.Color) -> SidePlan | None: ...

    def settled(self, board: chess.BaseBoard, color: chess.Color) -> int: ...

    def distance(self, color: chess.Color, ptype: int, frm: chess.Square, to: chess.Square,
                 captures: int) -> int: ...

    def nearest(self, color: chess.Color, ptype: int, square: chess.Square, captures: int,
                squares: int, below: int, obstacles: int | None = None) -> int: ...

    def by_type(self, board: chess.BaseBoard, mask: int) -> list[tuple[int, int]]: ...

    def locked(self, board: chess.BaseBoard, color: chess.Color, plan: SidePlan) -> int: ...

    def victims(self, board: chess.BaseBoard, color: chess.Color, plan: SidePlan) -> int: ...

    def victim_arrival(self, color: chess.Color, square: chess.Square,
                       pieces: list[tuple[int, int]], foe_pawns: list[chess.Square],
                       cap: int, obstacles: int | None = None) -> int: ...


def plan_distance(finder: Measures, board: chess.BaseBoard) -> int:
    """How far the nearest planned capture is: for each side with captures to make, each
    planned pawn's moves to one of its capture squares plus the nearest victim's moves there
    (the victims: the units the opponent's plan finds expendable), and, when the side has more
    captures to make than its pawns plan, the fewest moves of one of its pieces or left-over
    pawns to a victim.
    INF when a side has no plan (the bound will say dead) or no victim. With the finder's
    `around_pawns`, a piece's moves go around the position's pawns and frozen units
    (`Reach.blocked_rings`); else the maps alone count."""
    obstacles = board.pawns | finder.frozen if finder.around_pawns else None
    best = INF
    for color in chess.COLORS:
        need = finder.captures_left(board, color)
        if need <= 0:
            continue
        mine, theirs = finder.side_plan(board, color), finder.side_plan(board, not color)
        if mine is None or theirs is None:
            return INF
        victims = finder.victims(board, not color, theirs) & ~finder.frozen
        # every capture takes a move (a unit never stands on its victim's square), so 1 is
        # the least any term can give: the side's other terms cannot beat it
        if not victims or best <= 1:
            continue
        if need > mine.pawn_captures:
            # the captures beyond the plan's: by a piece or a left-over pawn; another pawn that
            # leaves its file leaves the plan (mostly dead: seed 20734's plateau, where such
            # captures read 1 in nearly every position)
            own = (board.occupied_co[color] & ~board.pawns | mine.spare) & ~finder.frozen
            for ptype, mask in finder.by_type(board, own):
                for sq in chess.scan_forward(mask):
                    best = finder.nearest(color, ptype, sq, 1, victims, best, obstacles)
                if best <= 1:
                    break
        if not mine.pawns or best <= 1:
            continue
        pieces = finder.by_type(board, victims & ~board.pawns)
        foe_pawns = list(chess.scan_forward(victims & board.pawns))
        for planned in mine.pawns:
            for s in chess.scan_forward(planned.squares):
                reach = finder.distance(color, chess.PAWN, planned.square, s, planned.count)
                if reach < best:
                    best = min(best, reach + finder.victim_arrival(color, s, pieces, foe_pawns,
                                                                   best - reach, obstacles))
    return best


def locked_pawns(finder: Measures, board: chess.BaseBoard, color: chess.Color,
                 plan: SidePlan) -> int:
    """`color`'s pawns that never leave their files in any plan of the side: a pawn leaves
    its file only by capturing, and when the plan's pawn captures are all the captures the side
    has left, a pawn captures only if some assignment within the captures left makes it capture
    (`_may_capture`; the plan is one choice among those: seed 5130's d7 and f7 pawns may each
    be the one taking on the e-file). Frozen pawns and the settled ones (`legalgame.walls`,
    seed 20734's a4 and f3 with two captures left) never move at all."""
    pawns = board.pawns & board.occupied_co[color]
    settled = finder.settled(board, color)
    need = finder.captures_left(board, color)
    if need > plan.pawn_captures:
        return pawns & finder.frozen | settled
    for planned in plan.pawns:
        pawns &= ~chess.BB_SQUARES[planned.square]
    units = [(sq, board.piece_type_at(sq) or 0)
             for sq in chess.scan_forward(board.occupied_co[color] & ~finder.frozen)]
    rows = [finder.planner.row(color, utype, usq, need, 0) for usq, utype in units]
    for r, (usq, utype) in enumerate(units):
        if utype == chess.PAWN and pawns & chess.BB_SQUARES[usq] and \
                _may_capture(rows, r, need):
            pawns &= ~chess.BB_SQUARES[usq]
    return pawns | settled


def _may_capture(rows: list[tuple[tuple[int, ...], tuple[float, ...]]], r: int,
                 need: int) -> bool:
    """Whether some assignment of the units (`Planner.row`s; units left over are captured)
    to the target units, with at most `need` pawn captures, has unit `r` capture: the cheapest
    assignment with a bonus on `r`'s capturing entries takes one whenever one fits."""
    captures = rows[r][0]
    if not any(0 < c < INF for c in captures):
        return False
    bonus = 1_000 * CAPTURE_COST
    cost = [list(row[1]) for row in rows]
    cost[r] = [v - bonus if 0 < c < INF else v for v, c in zip(cost[r], captures)]
    chosen, columns = linear_sum_assignment(cost)
    total, used = 0, False
    for i, c in zip(chosen.tolist(), columns.tolist()):
        if rows[i][1][c] >= IMPOSSIBLE:
            return True                 # no plan at all: assume nothing
        total += rows[i][0][c]
        used |= i == r and rows[i][0][c] > 0
    return used and total <= need


def may_wall_spares(board: chess.BaseBoard, plan: SidePlan, need: int) -> bool:
    """Whether `plan_victims` can differ from `plan.expendable`: the side has a left-over pawn
    and no capture left (`need`, its captures left); else it is the plan's own."""
    return bool(plan.spare & board.pawns) and need <= 0


def plan_victims(finder: Measures, board: chess.BaseBoard, color: chess.Color,
                 plan: SidePlan) -> int:
    """The units of `color` its opponent may take under `color`'s `plan`: `plan.expendable`,
    except that a left-over pawn walled in for good -- its side has no capture left and a
    settled pawn of the other side (`legalgame.walls`) stands ahead of it on its file, so it
    can neither leave the file nor promote (`pawn_zone`) -- replaces only a target pawn in its
    zone. Why (issue #19, seed 78135): Black's last capture was to take White's left-over h2
    pawn, shut in by Black's settled h5; the plan counted the queen, rook and bishop as
    replaceable by that pawn's promotion, the capture search read Black's king one move from
    a victim on e7, and walked a plateau of some 55,000 positions where every capture in reach
    was a dead end."""
    need = finder.captures_left(board, color)
    if not may_wall_spares(board, plan, need):
        return plan.expendable
    blockers = finder.settled(board, not color)
    zones: dict[chess.Square, int] = {}
    for sq in chess.scan_forward(plan.spare & board.pawns):
        zone, promotes = pawn_zone(color, sq, blockers)
        if not promotes:
            zones[sq] = zone
    if not zones:
        return plan.expendable
    targets = finder.analysis.target_units[color]
    free = [(sq, finder.planner.row(color, board.piece_type_at(sq) or 0, sq, need,
                                    finder.plan_salt)[0])
            for sq in chess.scan_forward(plan.spare)]
    out = plan.spare
    for usq, index, _ in plan.assignment:
        tsq, ttype = targets[index]
        for sq, captures in free:
            if captures[index] != 0:
                continue    # no capture left: only a capture-free route replaces it
            zone = zones.get(sq)
            if zone is None or ttype == chess.PAWN and zone & chess.BB_SQUARES[tsq]:
                out |= chess.BB_SQUARES[usq]
                break
    return out & ~board.kings


def pawn_zone(color: chess.Color, square: chess.Square, blockers: int) -> tuple[int, bool]:
    """The squares a pawn on `square` that never leaves its file can stand on, from its own
    square forward up to the first of `blockers` (pawns of the other side that never leave
    the file: it can never pass one), and whether it can still promote (no such blocker)."""
    step = 8 if color == chess.WHITE else -8
    zone, sq = 0, square
    while 0 <= sq < 64:
        if blockers & chess.BB_SQUARES[sq]:
            return zone, False
        zone |= chess.BB_SQUARES[sq]
        sq += step
    return zone, True


def victims_fit(finder: Measures, board: chess.BaseBoard) -> bool:
    """Whether, under both sides' capture plans, the opponent of each side with captures to
    make can give up the right units at the right places: one assignment of its movable units
    to its target units and to the side's capture events (each planned pawn capture, landing on
    one of the pawn's capture squares; each capture beyond the planned ones, anywhere), where a
    pawn that never leaves its file (`locked_pawns`) only stands on its file short of the first
    locked pawn of the other side ahead of it (`pawn_zone`: it can neither pass it nor promote).

    Why (issue #19, bench/README-legal.md session 2026-11-26): the finder's capture prefixes
    often ended where the last capture could not be made at all -- e.g. Black's one capture left
    is b5xa4 but White's one unit left over is a pawn on c2 behind Black's c6 pawn: it can
    neither get to a4 nor promote -- and the capture search spent the try's share there, since
    the distances ignore blocking pawns. A False here is as good as the plans: a heuristic cut
    of the finder, never a proof of anything (the plans are one choice among several)."""
    plans = {c: finder.side_plan(board, c) for c in chess.COLORS}
    mine_, theirs_ = plans[chess.WHITE], plans[chess.BLACK]
    if mine_ is None or theirs_ is None:
        return True                     # the bound decides
    needs = {c: finder.captures_left(board, c) for c in chess.COLORS}
    locked = {chess.WHITE: finder.locked(board, chess.WHITE, mine_),
              chess.BLACK: finder.locked(board, chess.BLACK, theirs_)}
    for color in chess.COLORS:
        need = needs[color]
        if need <= 0:
            continue
        mine = plans[color]
        assert mine is not None
        events = [p.squares for p in mine.pawns for _ in range(p.count)]
        free = need - len(events)
        victim = not color
        units = [(sq, board.piece_type_at(sq) or 0)
                 for sq in chess.scan_forward(board.occupied_co[victim] & ~finder.frozen)]
        targets = finder.analysis.target_units[victim]
        if free < 0 or len(units) != len(targets) + need:
            continue
        blockers = locked[color]
        cost: list[list[float]] = []
        for usq, utype in units:
            row = list(finder.planner.row(victim, utype, usq, needs[victim],
                                          finder.plan_salt)[1])
            hits = []
            if utype == chess.KING:
                hits = [False] * len(events)
            elif utype == chess.PAWN and locked[victim] & chess.BB_SQUARES[usq]:
                zone, promotes = pawn_zone(victim, usq, blockers)
                if not promotes:
                    for index, (tsq, ttype) in enumerate(targets):
                        if ttype != chess.PAWN or not zone & chess.BB_SQUARES[tsq]:
                            row[index] = IMPOSSIBLE
                hits = [promotes or bool(zone & squares) for squares in events]
            elif utype == chess.PAWN:
                hits = [_pawn_reaches(finder, victim, usq, squares, needs[victim])
                        for squares in events]
            else:
                hits = [finder.nearest(victim, utype, usq, 0, squares, INF) < INF
                        for squares in events]
            free_cost = IMPOSSIBLE if utype == chess.KING else 0
            cost.append(row + [0 if hit else IMPOSSIBLE for hit in hits] + [free_cost] * free)
        chosen, columns = linear_sum_assignment(cost)
        if any(cost[r][c] >= IMPOSSIBLE for r, c in zip(chosen.tolist(), columns.tolist())):
            return False
    return True


def promotions_to_come(target: chess.BaseBoard, board: chess.BaseBoard,
                       color: chess.Color) -> int:
    """The pieces of `color` the target has more of than `board` (queens, rooks, knights, and
    bishops of each square colour apart): promotions still to come, at least. Measured against
    the position reached, not the initial array as `legality.pawn_columns.promotions_needed`
    (the promotions a diagram shows), hence its own name."""
    need = 0
    for ptype in (chess.QUEEN, chess.ROOK, chess.KNIGHT):
        need += max(0, chess.popcount(target.pieces_mask(ptype, color)) -
                    chess.popcount(board.pieces_mask(ptype, color)))
    there, here = target.pieces_mask(chess.BISHOP, color), board.pieces_mask(chess.BISHOP, color)
    for shade in (chess.BB_LIGHT_SQUARES, chess.BB_DARK_SQUARES):
        need += max(0, chess.popcount(there & shade) - chess.popcount(here & shade))
    return need


def promotions_fit(finder: Measures, target: chess.BaseBoard,
                   board: chess.BaseBoard) -> bool:
    """Whether each side with no capture left and promotions still to make (`promotions_to_come`)
    has pawns for its target pawns and its promotions at once: with no capture left its pawns
    never leave their files, so each stands on its file short of the first pawn of the other
    side ahead of it that never leaves the file either (`pawn_zone`: all of them when that side
    has no capture left either, else its `locked_pawns`) and promotes only with none ahead.
    Why (issue #19, promoted pieces): the plans promote pawns that walk up their files, and
    the capture searches ended with every capture made and such a pawn walled in by a pawn of
    the other side (seed 10280: Black's g5 and c7 behind White's g2 and c2, two knights to
    make), where the placement search spent its share. A False here is a cut of the finder
    (the other side's `locked_pawns` are a heuristic when it has captures left), never a proof."""
    plans: dict[chess.Color, SidePlan | None] | None = None
    for color in chess.COLORS:
        if finder.captures_left(board, color) > 0:
            continue
        promotions = promotions_to_come(target, board, color)
        if not promotions:
            continue
        pawns = board.pawns & board.occupied_co[color]
        if chess.popcount(pawns) < promotions:
            return False
        other = not color
        if finder.captures_left(board, other) <= 0:
            blockers = board.pawns & board.occupied_co[other]
        else:
            if plans is None:
                plans = {c: finder.side_plan(board, c) for c in chess.COLORS}
            plan = plans[other]
            if plan is None:
                return True                 # the bound decides
            blockers = finder.locked(board, other, plan)
        targets = [tsq for tsq, ttype in finder.analysis.target_units[color]
                   if ttype == chess.PAWN]
        cost: list[list[int]] = []
        for sq in chess.scan_forward(pawns):
            zone, promotes = pawn_zone(color, sq, blockers)
            cost.append([0 if zone & chess.BB_SQUARES[tsq] else 1 for tsq in targets] +
                        [0 if promotes else 1] * promotions)
        if len(cost) < len(targets) + promotions:
            return False
        chosen, columns = linear_sum_assignment(cost)
        if any(cost[r][c] for r, c in zip(chosen.tolist(), columns.tolist())):
            return False
    return True


def _pawn_reaches(finder: Measures, color: chess.Color, square: chess.Square, squares: int,
                  captures: int) -> bool:
    """Whether a pawn may stand on one of `squares` or promote, with at most `captures`."""
    last = chess.BB_RANK_8 if color == chess.WHITE else chess.BB_RANK_1
    return any(finder.distance(color, chess.PAWN, square, s, captures) < INF
               for s in chess.scan_forward(squares | last))


__all__ = ["Measures", "PawnCaptures", "Planner", "SidePlan", "capture_squares", "plan_distance",
           "locked_pawns", "pawn_zone", "promotions_fit", "promotions_to_come", "route_cost",
           "side_plan", "victims_fit"]
