"""Strategies of a proof game on OR-Tools CP-SAT: which original unit becomes which unit of the
diagram or is captured, how many moves and captures each makes, who castles, and which units
the pawns' captures take (Natch / Euclide's "strategies", as one constraint model).

The model is a relaxation of every game of the stipulated length from the start, so what it
proves holds for all of them: no strategy means no game; a unit that ends on its own square
without moving in every strategy never moves (it is frozen for the search). Constraints, per
side: every diagram unit comes from exactly one unit (same type, or a pawn that promoted);
every other unit is captured, by exactly the captures the opponent makes; a unit's moves are at
least its distance along its route (frozen units are obstacles), a knight's have the parity of
its colour change, a unit that leaves and comes back needs two; a pawn that stays a pawn makes
exactly its route's captures and its rank difference in moves, less one for a double step;
castling is one move of king and rook; the moves of the side's units add up to its plies; and
each capture of a pawn that stays a pawn takes a distinct enemy unit able to stand on one of
the squares where that pawn's captures can land.

The side totals (moves, captures) and the victim constraints sit behind named enforcement
literals that every solve assumes, so an infeasible model names the groups it needs (CP-SAT's
sufficient assumptions: an UNSAT core), and `explain` adds the fewest moves a side's units need.
Once the model is known to have a solution (the strategies listed), or where no reason is
named (a lone listing of games, the race's second), `fix_groups` makes them hard constraints:
the same solutions, but CP-SAT searches another way (assumed, they stay free literals in its
presolve): 25-40 % faster listings on some problems, up to 1.8x slower on others
(bench/README-spg.md, 2026-12-03); with the walk counts, fewer conflicts on all seven timed
(2026-12-08).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import chess

from retrologic import limits
from retrologic.cpsat_limits import bound_work, charge_work, run_solver
from retrologic.limits import Budget
from retrologic.spg import trajectory
from retrologic.spg.analysis import INF, SWITCHES, Analysis
from retrologic.spg.status import Feasibility
from retrologic.vocabulary import CASTLINGS, Unit, castling_owner, side_name

ENUMERATION_LIMIT = 200  # strategies listed at most by default


def limit_reason(budget: Budget | None) -> str:
    """Why a solve under `budget` came back undecided: Ctrl-C, the node limit (CP-SAT's
    conflicts and deterministic time count as nodes) or the time limit, quoting the user's
    figure."""
    if limits.interrupted():
        return limits.INTERRUPTED
    if budget is not None and budget.nodes_used_up():
        return budget.node_reason()
    return budget.time_reason() if budget is not None else "time limit"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class Fate:
    """What a unit becomes in a strategy: a diagram unit on `square` (of type `piece_type`), or
    captured (`square` None); `captures` of a pawn that stays a pawn (else None); `moves` in one
    witness distribution of the side's moves."""

    unit: Unit
    square: chess.Square | None
    piece_type: int | None
    captures: int | None
    moves: int

    def text(self) -> str:
        if self.square is None:
            return f"{self.unit.name()} captured ({_count(self.moves, 'move')})"
        became = "" if self.piece_type == self.unit.piece_type else \
            f"={chess.piece_symbol(self.piece_type).upper()}"
        caps = f", {_count(self.captures, 'capture')}" if self.captures else ""
        return f"{self.unit.name()} -> {chess.square_name(self.square)}{became} " \
               f"({_count(self.moves, 'move')}{caps})"


@dataclass(frozen=True)
class Strategy:
    """One strategy: the fate of every unit that is not frozen, and the castlings (rook squares)."""

    fates: tuple[Fate, ...]
    castled: tuple[chess.Square, ...]

    def key(self) -> tuple:
        """The strategy without its witness move counts."""
        return (tuple((f.unit, f.square, f.piece_type, f.captures) for f in self.fates),
                self.castled)

    def text(self) -> str:
        parts = [f.text() for f in self.fates if f.moves or f.square != f.unit.home]
        for rook in self.castled:
            parts.append(f"{'w' if castling_owner(rook) == chess.WHITE else 'b'} castles "
                         f"{'short' if chess.square_file(rook) == 7 else 'long'}")
        return "; ".join(parts) if parts else "no unit moves"


@dataclass
class StrategyReport:
    """The strategies of a proof game of `plies` plies and what they prove."""

    plies: int
    status: Feasibility               # feasible, infeasible (proved: no game) or unknown
    strategies: list[Strategy] = field(default_factory=list)
    complete: bool = False            # every strategy is listed
    frozen: int = 0                   # units proved still (never move): frozen for the search
    reason: str | None = None         # why infeasible, or the limit that was hit
    solves: int = 0
    conflicts: int = 0                # CP-SAT's nodes (cpsat_limits.work_done), charged to the
    #                                   node limit; the JSON key keeps its first name
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"plies": self.plies, "status": self.status, "complete": self.complete,
                "count": len(self.strategies), "reason": self.reason,
                "still": [chess.square_name(s) for s in chess.scan_forward(self.frozen)],
                "strategies": [s.text() for s in self.strategies],
                "solves": self.solves, "conflicts": self.conflicts,
                "seconds": round(self.seconds, 3)}


class StrategyModel:
    """The CP-SAT model of the strategies of a game of `plies` plies from `analysis.start` to
    `analysis.target` (units frozen by the analysis are left out: they stand still)."""

    def __init__(self, analysis: Analysis, plies: int, node_budget: Budget | None = None
                 ) -> None:
        """`node_budget`: the question's budget; its node limit bounds the work of every
        solve (cpsat_limits), which is charged to it (deadlines are passed to each solve)."""
        from ortools.sat.python import cp_model  # ~0.7 s: imported only here
        self._cp = cp_model
        self.node_budget = node_budget
        self.analysis = analysis
        self.plies = plies
        self.model = cp_model.CpModel()
        self.units: dict[chess.Color, list[Unit]] = {}
        self.moves: dict[Unit, Any] = {}
        self.captures: dict[Unit, Any] = {}
        self.captured: dict[Unit, Any] = {}
        self.becomes: dict[tuple[Unit, chess.Square], Any] = {}
        self.routes: dict[tuple[Unit, chess.Square, int], Any] = {}  # pawn route by captures
        self.castles: dict[chess.Square, Any] = {}  # rook square -> castled
        self.takes: list[tuple[Unit, chess.Square, int, Unit, Any]] = []  # pawn capture -> victim
        self.impossible: str | None = None
        self.budget: dict[chess.Color, int] = {}  # captures each side makes
        self.solves = 0
        self.parameters: dict[str, Any] = {}  # extra CpSolver parameters of `solve`
        # constraint groups behind enforcement literals, so that an infeasible model names the
        # groups it needs (its UNSAT core): name -> literal, always assumed true
        self.groups: dict[str, Any] = {}
        self.fixed = False  # the groups are hard constraints (`fix_groups`), not assumed
        self._build()

    # building --------------------------------------------------------------------------------

    def _build(self) -> None:
        a, start, target = self.analysis, self.analysis.start, self.analysis.target
        if a.impossible:
            self.impossible = ("the diagram lacks a king, or a unit that never moves (a pawn on "
                               "its second rank, a walled-in piece) is not on its start square")
            return
        for color in chess.COLORS:
            self.budget[color] = chess.popcount(start.occupied_co[not color]) - \
                chess.popcount(target.occupied_co[not color])
            if self.budget[color] < 0:
                self.impossible = f"{side_name(not color)} has more units in the diagram"
                return
        left = dict(zip((chess.WHITE, chess.BLACK), a.moves_left(start, self.plies)))
        for color in chess.COLORS:
            self.units[color] = [Unit(color, sq, start.piece_type_at(sq))
                                 for sq in chess.scan_forward(start.occupied_co[color] & ~a.frozen)]
            for u in self.units[color]:
                # bounded by the plies, not the side's moves: the move total is a named group
                self.moves[u] = self.model.new_int_var(0, self.plies, f"m_{u.name()}")
                self.captures[u] = self.model.new_int_var(0, self.budget[color], f"k_{u.name()}")
                self.model.add(self.captures[u] <= self.moves[u])
                if u.piece_type != chess.KING and self.budget[not color] > 0:
                    self.captured[u] = self.model.new_bool_var(f"x_{u.name()}")
            self._castlings(color)
        for color in chess.COLORS:
            for u in self.units[color]:
                self._fates(u)
                if self.impossible:
                    return
            for tsq, ttype in a.target_units[color]:
                sources = [v for (u, s), v in self.becomes.items() if s == tsq and u.color == color]
                if not sources:
                    self.impossible = (f"no {side_name(color)} unit can become the "
                                       f"{chess.piece_name(ttype)} on {chess.square_name(tsq)}")
                    return
                self.model.add_exactly_one(sources)
            name = side_name(color)
            castled = self._castled(color)
            self.model.add(sum(self.moves[u] for u in self.units[color]) - sum(castled)
                           == left[color]).only_enforce_if(
                self._group(f"{name} makes exactly {_count(left[color], 'move')}"))
            self.model.add(sum(self.captures[u] for u in self.units[color]) == self.budget[color]
                           ).only_enforce_if(self._group(
                               f"{name} makes exactly {_count(self.budget[color], 'capture')}"))
            self.model.add(sum(self.captured[u] for u in self.units[color] if u in self.captured)
                           == self.budget[not color])
        for color in chess.COLORS:
            self._pawn_victims(color)

    def _castlings(self, color: chess.Color) -> None:
        """A castled flag per castling the start still allows and the frozen units do not bar."""
        start, frozen = self.analysis.start, self.analysis.frozen
        options = []
        for (c, rook), (kfrom, _, _) in CASTLINGS.items():
            if c != color or not start.castling_rights & chess.BB_SQUARES[rook]:
                continue
            if start.piece_at(kfrom) != chess.Piece(chess.KING, color) or \
                    start.piece_at(rook) != chess.Piece(chess.ROOK, color):
                continue
            if frozen & (chess.BB_SQUARES[kfrom] | chess.BB_SQUARES[rook] |
                         chess.between(kfrom, rook)):
                continue
            self.castles[rook] = self.model.new_bool_var(f"castle_{chess.square_name(rook)}")
            options.append(self.castles[rook])
            for unit in (Unit(color, kfrom, chess.KING), Unit(color, rook, chess.ROOK)):
                self.model.add(self.moves[unit] >= 1).only_enforce_if(self.castles[rook])
        if options:
            self.model.add_at_most_one(options)

    def _piece_lower_bounds(self, u: Unit, tsq: chess.Square) -> list[tuple[int, list]]:
        """(distance, enforcement literals) pairs of a piece's ways to `tsq`: plain, or through
        a castling (the castling move plus the distance from the castled square)."""
        a = self.analysis
        mine = [(r, f) for r, f in self.castles.items() if castling_owner(r) == u.color]
        plain = a.piece_map(u.piece_type, u.color, u.home)[tsq]
        if u.piece_type == chess.KING and mine:
            out = [(plain, [f.negated() for _, f in mine])]
            for rook, flag in mine:
                castled_king = CASTLINGS[(u.color, rook)][1]
                out.append((1 + a.piece_map(chess.KING, u.color, castled_king)[tsq], [flag]))
            return out
        for rook, flag in mine:
            if u.piece_type == chess.ROOK and u.home == rook:
                castled_rook = CASTLINGS[(u.color, rook)][2]
                return [(plain, [flag.negated()]),
                        (1 + a.piece_map(chess.ROOK, u.color, castled_rook)[tsq], [flag])]
        return [(plain, [])]

    def _fates(self, u: Unit) -> None:
        """The unit's candidate fates, with their move and capture constraints."""
        a, m, k = self.analysis, self.moves[u], self.captures[u]
        options = [self.captured[u]] if u in self.captured else []
        for tsq, ttype in a.target_units[u.color]:
            if u.piece_type != chess.PAWN:
                if ttype != u.piece_type:
                    continue
                ways = self._piece_lower_bounds(u, tsq)
                if all(d >= INF for d, _ in ways):
                    continue
                x = self.model.new_bool_var(f"b_{u.name()}_{chess.square_name(tsq)}")
                for d, lits in ways:
                    if d >= INF:
                        self.model.add_bool_or([x.negated()] + [lit.negated() for lit in lits])
                    else:
                        self.model.add(m >= d).only_enforce_if([x] + lits)
                if tsq == u.home:
                    self.model.add(m != 1).only_enforce_if(x)  # leaving and coming back: two
                if u.piece_type == chess.KNIGHT:  # every knight move changes the square colour
                    half = self.model.new_int_var(0, self.plies, f"h_{u.name()}_{tsq}")
                    plain = a.piece_map(chess.KNIGHT, u.color, u.home)[tsq]
                    self.model.add(m == plain + 2 * half).only_enforce_if(x)
            else:
                routes = a.unit_routes(u.color, chess.PAWN, u.home, ttype, tsq,
                                       self.budget[u.color])
                if not routes:
                    continue
                x = self.model.new_bool_var(f"b_{u.name()}_{chess.square_name(tsq)}")
                ys = []
                rank_gap = abs(chess.square_rank(tsq) - chess.square_rank(u.home))
                for pm, c, d in routes:
                    y = self.model.new_bool_var(f"r_{u.name()}_{tsq}_{c}_{pm}_{d}")
                    ys.append(y)
                    self.model.add(m >= pm + d).only_enforce_if(y)
                    if ttype == chess.PAWN:  # a pawn's moves: its rank gap, less a double step
                        self.model.add(m <= rank_gap).only_enforce_if(y)
                        self.model.add(k == c).only_enforce_if(y)
                        self.routes[(u, tsq, c)] = y
                    else:
                        self.model.add(k >= c).only_enforce_if(y)
                self.model.add(sum(ys) == x)
            self.becomes[(u, tsq)] = x
            options.append(x)
        if not options:
            self.impossible = f"{u.name()} can neither reach a diagram unit nor be captured"
            return
        self.model.add_exactly_one(options)

    def _pawn_victims(self, color: chess.Color) -> None:
        """Each capture of a `color` pawn that stays a pawn takes a distinct enemy unit, which
        must first stand on a square where that pawn's captures can land (or beside it, e.p.)."""
        a = self.analysis
        victims = [v for v in self.units[not color] if v in self.captured]
        per_victim: dict[Unit, list] = {v: [] for v in victims}
        for u in self.units[color]:
            if u.piece_type != chess.PAWN:
                continue
            for tsq, ttype in a.target_units[color]:
                counts = sorted(c for (w, s, c) in self.routes if w == u and s == tsq)
                if not counts or counts[-1] == 0:
                    continue
                squares = a.capture_landings(
                    color, u.home, tsq, min(self.budget[color], trajectory.MAX_PAWN_CAPTURES))
                costs = {v: a.victim_cost(not color, v.piece_type, v.home, squares,
                                          self.budget[not color]) for v in victims}
                for j in range(counts[-1]):
                    active = self.model.new_bool_var(f"e_{u.name()}_{tsq}_{j}")
                    self.model.add(active == sum(self.routes[(u, tsq, c)] for c in counts
                                                 if c > j))
                    zs = []
                    for v, cost in costs.items():
                        if cost >= INF:
                            continue
                        z = self.model.new_bool_var(f"z_{u.name()}_{tsq}_{j}_{v.name()}")
                        self.model.add_implication(z, self.captured[v])
                        self.model.add(self.moves[v] >= cost).only_enforce_if(z)
                        zs.append(z)
                        per_victim[v].append(z)
                        self.takes.append((u, tsq, j, v, z))
                    self.model.add(sum(zs) == active).only_enforce_if(self._group(
                        f"each capture of a {side_name(color)} pawn takes a unit "
                        "able to stand where it lands"))
        for zs in per_victim.values():
            if len(zs) > 1:
                self.model.add_at_most_one(zs)

    def _castled(self, color: chess.Color) -> list:
        """The castling flags of `color`."""
        return [flag for rook, flag in self.castles.items() if castling_owner(rook) == color]

    def _group(self, name: str):
        """The enforcement literal of a named constraint group (made on first use)."""
        lit = self.groups.get(name)
        if lit is None:
            lit = self.groups[name] = self.model.new_bool_var(f"group: {name}")
            if self.fixed:
                self.model.add_bool_or([lit])
        return lit

    def fix_groups(self) -> None:
        """Make the constraint groups hard constraints instead of assumptions, for the solves
        that need no UNSAT core (the same solutions: an assumed literal is true in every one).
        Another configuration rather than a better one: the listings of vereshchagin-2015 and
        osorio-lois-2006 took 25-40 % less CPU, frolkin-1991's 1.4-1.8x more
        (bench/README-spg.md, 2026-12-03)."""
        if not self.fixed:
            for lit in self.groups.values():
                self.model.add_bool_or([lit])
            self.fixed = True

    # solving ---------------------------------------------------------------------------------

    def solve(self, assumptions: list | None = None,
              deadline: float | None = None) -> tuple[Any, Feasibility]:
        """A CpSolver after one solve (deterministic, one worker) and its status: feasible,
        infeasible or unknown (the deadline passed, the node limit, or Ctrl-C)."""
        if self.impossible:
            return None, Feasibility.INFEASIBLE
        cp = self._cp
        self.model.clear_assumptions()
        named = [] if self.fixed else list(self.groups.values())
        self.model.add_assumptions(named + list(assumptions or []))
        solver = cp.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = 0
        for name, value in self.parameters.items():
            setattr(solver.parameters, name, value)
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                return None, Feasibility.UNKNOWN
            solver.parameters.max_time_in_seconds = left
        if not bound_work(solver, self.node_budget):
            return None, Feasibility.UNKNOWN
        self.solves += 1
        status = run_solver(solver, self.model)
        if status is None:
            return None, Feasibility.UNKNOWN
        charge_work(solver, self.node_budget)
        if status in (cp.OPTIMAL, cp.FEASIBLE):
            return solver, Feasibility.FEASIBLE
        if status == cp.INFEASIBLE:
            return solver, Feasibility.INFEASIBLE
        if status == cp.MODEL_INVALID:
            raise AssertionError("internal error: invalid strategy model: "
                                 + self.model.validate())
        return solver, Feasibility.UNKNOWN

    def explain(self, deadline: float | None = None) -> str:
        """Why the model has no solution: the constraint groups CP-SAT needs for that (a
        sufficient subset of its assumptions), and for a side whose move total is among them
        the fewest moves its units need with those groups dropped."""
        if self.impossible:
            return self.impossible
        if self.fixed:
            return "no strategy (the constraint groups were fixed: none can be named)"
        solver, status = self.solve(deadline=deadline)
        if status != Feasibility.INFEASIBLE:
            return "no strategy (the constraint groups at fault were not named in time)"
        names = {lit.index: name for name, lit in self.groups.items()}
        core = [names[i] for i in solver.sufficient_assumptions_for_infeasibility() if i in names]
        if not core:
            return "no unit assignment fits the diagram (no strategy even without the totals)"
        notes = []
        dropped = [self.groups[n] for n in core]
        left = dict(zip((chess.WHITE, chess.BLACK),
                        self.analysis.moves_left(self.analysis.start, self.plies)))
        totals = {c: f"{side_name(c)} makes exactly {_count(left[c], 'move')}"
                  for c in chess.COLORS}
        for color in chess.COLORS:
            name = side_name(color)
            if totals[color] not in core:
                continue
            # the fewest moves with both totals off, then whether this side's total alone fails
            fewest = self._fewest_moves(color, dropped + [self.groups[totals[not color]]],
                                        deadline)
            if fewest is None:
                continue
            if fewest > left[color]:
                notes.append(f"{name}'s units need at least {_count(fewest, 'move')}")
            elif self._fewest_moves(color, [d for d in dropped if d is not self.groups[
                    totals[color]]] + [self.groups[totals[not color]]], deadline) is None:
                notes.append(f"{name}'s units need {fewest} but cannot make exactly "
                             f"{left[color]}: a unit that comes back needs two moves, a "
                             "knight's moves keep the parity of its colour change")
        text = "no strategy satisfies together: " + "; ".join(core)
        return text + (f" ({'; '.join(notes)})" if notes else "")

    def _fewest_moves(self, color: chess.Color, dropped: list,
                      deadline: float | None = None) -> int | None:
        """The fewest moves `color`'s units (less its castlings) can make with the `dropped`
        groups off (None: no solution even so, or none found within 5 s or the deadline).
        The 5 s are wall time on purpose: this only words the reason of an infeasible model,
        never a verdict."""
        cp = self._cp
        clone = self.model.clone()
        clone.clear_assumptions()
        off = {d.index for d in dropped}
        clone.add_assumptions([lit for lit in self.groups.values() if lit.index not in off])
        castled = self._castled(color)
        total = sum(self.moves[u] for u in self.units[color]) - sum(castled)
        clone.minimize(total)
        solver = cp.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = 0
        left = 5.0 if deadline is None else min(5.0, deadline - time.monotonic())
        if left <= 0:
            return None
        solver.parameters.max_time_in_seconds = left
        if not bound_work(solver, self.node_budget):
            return None
        self.solves += 1
        status = run_solver(solver, clone)
        if status is not None:
            charge_work(solver, self.node_budget)
        return round(solver.objective_value) if status == cp.OPTIMAL else None

    def strategy(self, solver) -> Strategy:
        """The strategy of a solved model."""
        fates = []
        for color in chess.COLORS:
            for u in self.units[color]:
                m = solver.value(self.moves[u])
                square = ptype = caps = None
                for (w, tsq), x in self.becomes.items():
                    if w == u and solver.boolean_value(x):
                        square, ptype = tsq, self.analysis.target.piece_type_at(tsq)
                        if u.piece_type == chess.PAWN and ptype == chess.PAWN:
                            caps = solver.value(self.captures[u])
                fates.append(Fate(u, square, ptype, caps, m))
        castled = tuple(r for r, f in sorted(self.castles.items()) if solver.boolean_value(f))
        return Strategy(tuple(fates), castled)

    def block(self, solver) -> None:
        """Forbid the solved strategy (its fates, pawn captures and castlings) from now on.
        Fates and routes are exactly-one choices, so their true literals name them; castling
        flags are not (none may be set), so each contributes its value either way."""
        chosen = [v for v in list(self.becomes.values()) + list(self.captured.values())
                  + list(self.routes.values()) if solver.boolean_value(v)]
        flags = [v.negated() if solver.boolean_value(v) else v for v in self.castles.values()]
        self.model.add_bool_or([v.negated() for v in chosen] + flags)

    def stays(self, solver, u: Unit) -> bool:
        """In the solved model, `u` ends on its own square without having moved."""
        x = self.becomes.get((u, u.home))
        return x is not None and solver.boolean_value(x) and solver.value(self.moves[u]) == 0


def still_units(model: StrategyModel, deadline: float | None) -> tuple[int, Feasibility]:
    """Units that stand still in every strategy (the model's own, beyond its analysis's frozen
    ones), and the model's status. A unit stands still when asking it to move (or leave its
    square for good) makes the model infeasible; each feasible witness clears every unit it
    moves at once."""
    solver, status = model.solve(deadline=deadline)
    if status != Feasibility.FEASIBLE:
        return 0, status
    candidates = [u for c in chess.COLORS for u in model.units[c] if model.stays(solver, u)]
    still = 0
    while candidates:
        u = candidates.pop(0)
        x = model.becomes[(u, u.home)]
        # the probe stays in the model, harmless: it binds only when assumed
        probe = model.model.new_bool_var(f"probe_{u.name()}")
        model.model.add(model.moves[u] >= 1).only_enforce_if([probe, x])
        solver, status = model.solve([probe], deadline)
        if status == Feasibility.UNKNOWN:
            return 0, Feasibility.UNKNOWN  # nothing claimed unless every probe was answered
        if status == Feasibility.INFEASIBLE:
            still |= chess.BB_SQUARES[u.home]
        else:
            candidates = [v for v in candidates if model.stays(solver, v)]
    return still, Feasibility.FEASIBLE


def analyse(target: chess.BaseBoard, plies: int, start: chess.Board | None = None,
            limit: int | None = ENUMERATION_LIMIT, timeout: float | None = None,
            enumerate_strategies: bool = True, options: dict[str, bool] | None = None,
            base: Analysis | None = None, budget: Budget | None = None
            ) -> tuple[StrategyReport, Analysis]:
    """The strategies of the games of `plies` plies from `start` (default: the initial array)
    to `target`, and an Analysis whose frozen units include those no strategy moves.

    Units proved still are frozen and the model rebuilt until nothing new is found (a frozen
    unit is an obstacle, which can lengthen other routes). With `enumerate_strategies`, up to
    `limit` strategies are then listed (`complete` when that is all of them). A timeout makes
    the report 'unknown'. `base` (default: a new one with the bound `options`) is the analysis
    of `start` and `target` without the layer: it is returned, tables and caches kept, when the
    layer proves no unit still or runs out of time. `budget` (default: one of `timeout`
    seconds) is the question's shared limit: its deadline and Ctrl-C stop the solves, its node
    limit bounds their work (conflicts and deterministic time, cpsat_limits).
    """
    t0 = time.monotonic()
    budget = budget if budget is not None else Budget(timeout)
    deadline, spent = budget.deadline, budget.spent
    start = start if start is not None else chess.Board()
    plain = base if base is not None else Analysis(start, target, **(options or {}))
    analysis, extra, solves = plain, 0, 0
    while True:
        model = StrategyModel(analysis, plies, node_budget=budget)
        still, status = still_units(model, deadline)
        if status != Feasibility.FEASIBLE:
            reason = model.explain(deadline) if status == Feasibility.INFEASIBLE else \
                limit_reason(budget)
            solves += model.solves
            report = StrategyReport(plies, status, reason=reason, solves=solves,
                                    conflicts=budget.spent - spent,
                                    seconds=time.monotonic() - t0)
            return report, (analysis if status == Feasibility.INFEASIBLE else plain)
        solves += model.solves
        if not still:
            break
        extra |= still
        switches = {name: getattr(plain, name) for name in SWITCHES}
        analysis = Analysis(start, target, **switches, extra_frozen=plain.extra_frozen | extra)
    report = StrategyReport(plies, Feasibility.FEASIBLE, frozen=extra, solves=solves)
    before = model.solves
    if enumerate_strategies:
        model.fix_groups()      # it has a solution: no core to name from here on
        while limit is None or len(report.strategies) < limit:
            solver, status = model.solve(deadline=deadline)
            if status == Feasibility.UNKNOWN:
                report.reason = f"{limit_reason(budget)} (while listing strategies)"
                break
            if status == Feasibility.INFEASIBLE:
                report.complete = True
                break
            report.strategies.append(model.strategy(solver))
            model.block(solver)
        report.solves = solves + model.solves - before
    report.conflicts = budget.spent - spent
    report.seconds = time.monotonic() - t0
    return report, analysis
