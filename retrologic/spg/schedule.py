"""Move order of a proof game on OR-Tools CP-SAT: every unit's square (and type) after every
ply, on top of the strategy model (spg/strategy.py), so that one solution is one game.

Per unit that is not frozen and per ply of its side: whether it moves, and which step it makes
(a geometric move of its type, frozen units as walls). A step must find its path empty, may land
on an enemy only by capturing it (which removes it), and a pawn steps straight onto an empty
square or diagonally onto an enemy, or e.p. just after a double step; castling moves king and
rook together, neither having moved, the squares between them empty. Each ply moves one unit
of the side to move (two when castling), a unit moves only while alive, and a unit leaves the
board only when a step lands on it. After its own ply a side's king is not attacked by an enemy
pawn, knight or king, nor by a line piece whose line to it is empty. The last ply's squares are
the diagram, tied to the strategy model's fates, move counts and castlings. A king does not
castle out of, through or into such an attack.

The model is a relaxation of the games of that length (it holds every game), used as a complete
game generator by spg/listing.py, which plays each solution out with python-chess. The steps
and attack lines come from spg/geometry.py. With `walk_counts`, redundant counts tie each
unit's square after each ply of its side to its move count (`_walk_counts`): the same games,
found faster by a lone listing and the race's second (bench/README-spg.md, 2026-12-07 and
2026-12-08).
"""

from __future__ import annotations

from typing import Any

import chess

from retrologic.limits import Budget
from retrologic.spg.analysis import Analysis
from retrologic.spg.geometry import (CASTLING, DOUBLE, PUSH, TAKE, State, attackers_of, slides,
                                     steps)
from retrologic.spg.status import Feasibility
from retrologic.spg.strategy import StrategyModel
from retrologic.vocabulary import CASTLINGS, Unit, castling_owner

MAX_STEPS = 400_000  # step variables at most (memory: about 3 GB beyond that): then unknown


class ModelTooLarge(Exception):
    """The schedule model would exceed MAX_STEPS step variables."""



class ScheduleModel:
    """Units' squares ply by ply, added to a strategy model (see the module's docstring)."""

    def __init__(self, strategy: StrategyModel, deadline: float | None = None,
                 budget: Budget | None = None, walk_counts: bool = False) -> None:
        """Build the model; `budget` (or a bare `deadline`) is looked at while building:
        LimitHit when it is used up or Ctrl-C arrives. `walk_counts`: add `_walk_counts`."""
        self.budget = budget if budget is not None else Budget(None, None, deadline)
        deadline = self.budget.deadline
        self.strategy = strategy
        self.model = strategy.model
        a: Analysis = strategy.analysis
        self.start = a.start
        self.walls = a.frozen
        self.plies = strategy.plies
        self.units = [u for c in chess.COLORS for u in strategy.units.get(c, [])]
        self.pos: dict[Unit, list[dict[State, Any]]] = {}
        self.alive: dict[Unit, list[Any]] = {}
        self.moved: dict[Unit, dict[int, Any]] = {}
        self.trans: dict[Unit, dict[int, dict[tuple[State, State], Any]]] = {}
        self.castlings: dict[tuple[int, int], Any] = {}  # (rook square, ply) -> king's step
        self.kinds: dict[tuple[State, State, chess.Color], str] = {}
        self._true = self.model.new_bool_var("true")
        self.model.add(self._true == 1)
        self._steps: dict[tuple[chess.Color, State], list[tuple[State, str]]] = {}
        self.steps = 0
        self._occupant_cache: dict[int, dict] = {}
        self._flags: dict[tuple[chess.Color, int, int], Any] = {}
        self._exact: set[tuple[chess.Color, int, int]] = set()
        self.walk_counts = walk_counts
        # per unit, its moves from its start (`d_from`) and to its fates (`d_to`) by state
        self.walks: dict[Unit, tuple[dict[State, int], dict[State, int]]] = {}
        if strategy.impossible:
            return
        self._build(deadline)
        # a model of clauses: no LP relaxation (measured: 1.1-1.7x faster on the long problems)
        strategy.parameters["linearization_level"] = 0

    def mover(self, ply: int) -> chess.Color:
        """The side that makes ply `ply` (1-based)."""
        return self.start.turn if ply % 2 == 1 else not self.start.turn

    def _succ(self, color: chess.Color, state: State) -> list[tuple[State, str]]:
        key = (color, state)
        hit = self._steps.get(key)
        if hit is None:
            hit = steps(state, color, self.walls)
            self._steps[key] = hit
        return hit

    # reachable states --------------------------------------------------------------------------

    def _moves(self, u: Unit, st: State) -> list[tuple[State, str]]:
        """Steps of `u` from `st` with their kinds, castling included (a king's step from its
        start square to its castled square, when the strategy model allows that castling)."""
        out = self._succ(u.color, st)
        if st == (u.home, chess.KING):
            out = out + [((CASTLINGS[(u.color, r)][1], chess.KING), CASTLING)
                         for r in self.strategy.castles
                         if castling_owner(r) == u.color
                         and CASTLINGS[(u.color, r)][0] == u.home]
        return out

    def _reach(self, u: Unit, budget: int) -> list[set[State]]:
        """Per ply, the states `u` can be in: `d_from + d_to <= budget` (its most moves), with
        `d_from` (moves from its start) at most its side's plies so far and `d_to` (moves to a
        diagram square it may become; 0 for a unit that may be captured) at most those left."""
        s = self.strategy
        first = (u.home, u.piece_type)
        d_from = {first: 0}
        frontier = [first]
        for d in range(1, budget + 1):
            nxt_frontier = []
            for st in frontier:
                for nxt, _ in self._moves(u, st):
                    if nxt not in d_from:
                        d_from[nxt] = d
                        nxt_frontier.append(nxt)
            frontier = nxt_frontier
        if u in s.captured:
            d_to = {st: 0 for st in d_from}
        else:
            ends = {(tsq, s.analysis.target.piece_type_at(tsq)) for (w, tsq) in s.becomes
                    if w == u}
            preds: dict[State, list[State]] = {}
            for st in d_from:
                for nxt, _ in self._moves(u, st):
                    preds.setdefault(nxt, []).append(st)
            d_to = {st: 0 for st in ends if st in d_from}
            frontier = list(d_to)
            while frontier:
                nxt_frontier = []
                for st in frontier:
                    for prev in preds.get(st, []):
                        if prev not in d_to:
                            d_to[prev] = d_to[st] + 1
                            nxt_frontier.append(prev)
                frontier = nxt_frontier
        self.walks[u] = (d_from, d_to)
        mine = [1 if self.mover(p) == u.color else 0 for p in range(self.plies + 1)]
        mine[0] = 0
        done = 0
        left = sum(mine)
        reach = []
        for ply in range(self.plies + 1):
            done += mine[ply]
            left -= mine[ply]
            reach.append({st for st, d in d_from.items() if d <= done and st in d_to
                          and d_to[st] <= left and d + d_to[st] <= budget})
        return reach

    def _budgets(self, deadline: float | None) -> dict[Unit, int]:
        """The most moves each unit makes in any strategy (CP-SAT maximum, or its bound when
        the deadline cuts the solve short), written into the model as a bound."""
        s = self.strategy
        out = {}
        for u in self.units:
            s.model.maximize(s.moves[u])
            solver, status = s.solve(deadline=deadline)
            if status == Feasibility.FEASIBLE:
                bound = round(solver.best_objective_bound)
            elif status == Feasibility.INFEASIBLE:
                bound = -1
            else:
                self.budget.check_now()  # the deadline or Ctrl-C: stop building
                bound = self.plies       # (sound: the most moves any unit can make)
            s.model.clear_objective()
            out[u] = max(bound, 0)
            s.model.add(s.moves[u] <= out[u])
        return out

    # building ----------------------------------------------------------------------------------

    def _build(self, deadline: float | None) -> None:
        s, m = self.strategy, self.model
        budgets = self._budgets(deadline)
        for u in self.units:
            self.budget.check_now()
            reach = self._reach(u, budgets[u])
            pos: list[dict[State, Any]] = [{st: self._true for st in reach[0]}]
            alive = [self._true]
            capturable = u in s.captured
            self.moved[u], self.trans[u] = {}, {}
            for ply in range(1, self.plies + 1):
                self.budget.check(every=8)
                if self.mover(ply) != u.color:
                    pos.append(pos[-1])
                    if capturable:
                        a = m.new_bool_var(f"alive_{u.name()}_{ply}")
                        m.add_implication(a, alive[-1])
                        alive.append(a)
                    else:
                        alive.append(alive[-1])
                    continue
                alive.append(alive[-1])
                now = {st: m.new_bool_var(f"at_{u.name()}_{ply}_{chess.square_name(st[0])}"
                                        f"{chess.piece_symbol(st[1])}") for st in reach[ply]}
                if not now:
                    m.add_bool_or([])  # the unit has nowhere to be: no game
                    pos.append(now)
                    continue
                m.add_exactly_one(now.values())
                mv = m.new_bool_var(f"mv_{u.name()}_{ply}")
                if capturable:
                    m.add_implication(mv, alive[-1])
                trans = {(st, nxt): kind for st in pos[-1] for nxt, kind in self._moves(u, st)
                         if nxt in now}
                lits = {}
                self.steps += len(trans)
                if self.steps > MAX_STEPS:
                    raise ModelTooLarge(f"the schedule model exceeds {MAX_STEPS:,} steps")
                for (st, nxt), kind in trans.items():
                    t = m.new_bool_var(f"t_{u.name()}_{ply}_{chess.square_name(st[0])}"
                                     f"{chess.square_name(nxt[0])}{chess.piece_symbol(nxt[1])}")
                    m.add_implication(t, pos[-1][st])
                    m.add_implication(t, now[nxt])
                    lits[(st, nxt)] = t
                    self.kinds[(st, nxt, u.color)] = kind
                m.add(sum(lits.values()) == mv)
                for st, lit in now.items():
                    if st in pos[-1]:
                        m.add(lit == pos[-1][st]).only_enforce_if(mv.negated())
                    else:
                        m.add_implication(lit, mv)
                self.moved[u][ply] = mv
                self.trans[u][ply] = lits
                pos.append(now)
            self.pos[u], self.alive[u] = pos, alive
        for r in self.strategy.castles:
            color = castling_owner(r)
            kfrom, kto, _ = CASTLINGS[(color, r)]
            for ply, lits in self.trans.get(Unit(color, kfrom, chess.KING), {}).items():
                t = lits.get(((kfrom, chess.KING), (kto, chess.KING)))
                if t is not None:
                    self.castlings[(r, ply)] = t
        for ply in range(1, self.plies + 1):
            self.budget.check_now()
            self._ply(ply)
        self._castling()
        self._ties()

    def _occupants(self, ply: int) -> dict[tuple[chess.Color, int], list[tuple[Unit, Any]]]:
        """Per (colour, square), the units that may stand there after `ply`, with the literal
        of their position there (one per state: a pawn's and its promoted types')."""
        hit = self._occupant_cache.get(ply)
        if hit is None:
            hit = {}
            for v in self.units:
                for st, lit in self.pos[v][ply].items():
                    hit.setdefault((v.color, st[0]), []).append((v, lit))
            self._occupant_cache[ply] = hit
        return hit

    def _flag(self, color: chess.Color, ply: int, square: int, exact: bool = False) -> Any:
        """A literal true when a `color` unit stands on `square` after `ply` (None: none can).
        Each occupant implies it; with `exact` it also implies an occupant."""
        key = (color, ply, square)
        f = self._flags.get(key)
        m = self.model
        if f is None:
            occupants = self._occupants(ply).get((color, square), [])
            if not occupants:
                return None
            f = m.new_bool_var(f"occ_{'w' if color else 'b'}{ply}_{chess.square_name(square)}")
            for v, lit in occupants:
                m.add_bool_or([lit.negated(), self.alive[v][ply].negated(), f])
            self._flags[key] = f
        if exact and key not in self._exact:
            self._exact.add(key)
            per_unit: dict[Unit, list[Any]] = {}
            for v, lit in self._occupants(ply)[(color, square)]:
                per_unit.setdefault(v, []).append(lit)
            options = []
            for v, lits in per_unit.items():
                o = m.new_bool_var(f"on_{v.name()}_{ply}_{chess.square_name(square)}")
                m.add_implication(o, self.alive[v][ply])
                m.add_bool_or([o.negated()] + lits)
                options.append(o)
            m.add_bool_or([f.negated()] + options)
        return f

    def _forbid(self, cond: Any, ply: int, squares: int,
                colors: tuple[chess.Color, ...] = chess.COLORS) -> None:
        """`cond` implies no unit of `colors` stands on `squares` after `ply`."""
        for sq in chess.scan_forward(squares):
            for color in colors:
                f = self._flag(color, ply, sq)
                if f is not None:
                    self.model.add_implication(cond, f.negated())

    def _ply(self, ply: int) -> None:
        """The rules of ply `ply`: paths, landings, captures, e.p., deaths, one move."""
        m, c = self.model, self.mover(ply)
        before = ply - 1
        mine = [u for u in self.units if u.color == c]
        theirs = [v for v in self.units if v.color != c]
        landings: dict[int, list[Any]] = {}   # square -> steps landing there (may capture)
        ep_victims: dict[int, list[Any]] = {}  # square of an e.p. victim -> e.p. literals
        for u in mine:
            for (st, nxt), t in self.trans[u].get(ply, {}).items():
                kind = self.kinds[(st, nxt, c)]
                frm, to = st[0], nxt[0]
                if kind == CASTLING:
                    continue  # see _castling
                self._forbid(t, before, chess.between(frm, to))
                if kind in (PUSH, DOUBLE):
                    self._forbid(t, before, chess.BB_SQUARES[to])
                    continue
                self._forbid(t, before, chess.BB_SQUARES[to], (c,))
                landings.setdefault(to, []).append(t)
                # an enemy standing there is gone after the ply: captured (it did not move)
                self._forbid(t, ply, chess.BB_SQUARES[to], (not c,))
                if kind == TAKE:
                    f = self._flag(not c, before, to, exact=True)
                    options = [f] if f is not None else []
                    e = self._en_passant(u, ply, frm, to, theirs)
                    if e is not None:
                        m.add_implication(e, t)  # e.p. is this step, not a phantom capture
                        options.append(e)
                        ep_victims.setdefault(
                            chess.square(chess.square_file(to), chess.square_rank(frm)),
                            []).append(e)
                    m.add_bool_or([t.negated()] + options)
        # a unit leaves the board only when a step lands on it (or takes it e.p.)
        for v in theirs:
            if v not in self.strategy.captured:
                continue
            was, now = self.alive[v][before], self.alive[v][ply]
            for st, lit in self.pos[v][before].items():
                m.add_bool_or([was.negated(), now, lit.negated()] + landings.get(st[0], [])
                            + ep_victims.get(st[0], []))
        if theirs:
            m.add(sum(self.alive[v][before] for v in theirs if v in self.strategy.captured)
                  - sum(self.alive[v][ply] for v in theirs if v in self.strategy.captured) <= 1)
        castles = [t for (r, p), t in self.castlings.items() if p == ply]
        movers = [self.moved[u][ply] for u in mine if ply in self.moved[u]]
        if movers:
            m.add(sum(movers) == 1 + sum(castles))
        else:
            m.add_bool_or([])  # the side has no unit that can move: no game
        self._king_safe(ply, c)

    def _en_passant(self, u: Unit, ply: int, frm: int, to: int, theirs: list[Unit]) -> Any | None:
        """The literal of `u`'s diagonal step frm-to being e.p. (None: it cannot be)."""
        if u.color == chess.WHITE and chess.square_rank(to) != 5 or \
                u.color == chess.BLACK and chess.square_rank(to) != 2:
            return None
        m = self.model
        behind = chess.square(chess.square_file(to), chess.square_rank(frm))
        origin = chess.square(chess.square_file(to), 6 if u.color == chess.WHITE else 1)
        pawns = [v for v in theirs if v in self.strategy.captured
                 and (behind, chess.PAWN) in self.pos[v][ply - 1]]
        if not pawns:
            return None
        if ply == 1:
            if self.start.ep_square != to:
                return None
            doubles = [self._true]
        else:
            doubles = [self.trans[v][ply - 1][((origin, chess.PAWN), (behind, chess.PAWN))]
                       for v in pawns if ((origin, chess.PAWN), (behind, chess.PAWN))
                       in self.trans[v].get(ply - 1, {})]
            if not doubles:
                return None
        e = m.new_bool_var(f"ep_{u.name()}_{ply}")
        m.add_bool_or([e.negated()] + doubles)
        self._forbid(e, ply - 1, chess.BB_SQUARES[to])
        # the pawn that double-stepped is gone after the ply: captured e.p.
        self._forbid(e, ply, chess.BB_SQUARES[behind], (not u.color,))
        return e

    def _castling(self) -> None:
        """King and rook castle together, neither having moved, the squares between empty."""
        m = self.model
        for r, flag in self.strategy.castles.items():
            color = castling_owner(r)
            kfrom, kto, rto = CASTLINGS[(color, r)]
            king, rook = Unit(color, kfrom, chess.KING), Unit(color, r, chess.ROOK)
            steps_k = []
            for (rook_sq, ply), t in self.castlings.items():
                if rook_sq != r:
                    continue
                steps_k.append(t)
                partner = self.trans[rook].get(ply, {}).get(((r, chess.ROOK), (rto, chess.ROOK)))
                if partner is None:
                    m.add(t == 0)
                    continue
                m.add_implication(t, partner)
                for earlier in range(1, ply):
                    for unit in (king, rook):
                        if earlier in self.moved[unit]:
                            m.add_implication(t, self.moved[unit][earlier].negated())
                self._forbid(t, ply - 1, chess.between(kfrom, r))
                # not out of, through or into check
                for sq in chess.scan_forward(chess.between(kfrom, kto) | chess.BB_SQUARES[kfrom]
                                             | chess.BB_SQUARES[kto]):
                    self._unattacked(t, ply - 1, color, sq)
            m.add(sum(steps_k) == flag)

    def _anyone(self, ply: int, square: int) -> list[Any]:
        """Literals one of which holds when a unit stands on `square` after `ply`."""
        return [f for c in chess.COLORS for f in [self._flag(c, ply, square, exact=True)]
                if f is not None]

    def _king_safe(self, ply: int, color: chess.Color) -> None:
        """After its own ply, `color`'s king is not attacked."""
        king = next((u for u in self.units if u.color == color and u.piece_type == chess.KING),
                    None)
        if king is not None:
            places = [(st[0], lit) for st, lit in self.pos[king][ply].items()]
        else:
            squares = self.start.kings & self.start.occupied_co[color] & self.walls
            places = [(sq, self._true) for sq in chess.scan_forward(squares)]
        for k, klit in places:
            self._unattacked(klit, ply, color, k)

    def _unattacked(self, cond: Any, ply: int, color: chess.Color, k: int) -> None:
        """`cond` implies no enemy of `color` attacks square `k` after `ply`: no enemy pawn,
        knight or king next to it, no line piece with an empty line to it."""
        m = self.model
        enemies = [v for v in self.units if v.color != color]
        threats = attackers_of(k, self.walls)
        threats += [(sq, chess.PAWN, 0) for sq in
                    chess.scan_forward(chess.BB_PAWN_ATTACKS[color][k] & ~self.walls)]
        for sq, ptype, between in threats:
            line = None
            for v in enemies:
                lit = self.pos[v][ply].get((sq, ptype))
                if lit is not None:
                    if line is None:
                        line = [f for q in chess.scan_forward(between)
                                for f in self._anyone(ply, q)]
                    m.add_bool_or([cond.negated(), lit.negated(),
                                   self.alive[v][ply].negated()] + line)
        for sq in chess.scan_forward(self.walls & self.start.occupied_co[not color]):
            piece = self.start.piece_at(sq)
            if not chess.BB_SQUARES[k] & self._attacks(piece, sq):
                continue
            line = [f for q in chess.scan_forward(chess.between(sq, k))
                    for f in self._anyone(ply, q)]
            m.add_bool_or([cond.negated()] + line)

    def _attacks(self, piece: chess.Piece, square: int) -> int:
        """Squares a frozen piece attacks on a board of walls only (lines stop at walls)."""
        if piece.piece_type == chess.PAWN:
            return chess.BB_PAWN_ATTACKS[piece.color][square]
        if piece.piece_type == chess.KNIGHT:
            return chess.BB_KNIGHT_ATTACKS[square]
        if piece.piece_type == chess.KING:
            return chess.BB_KING_ATTACKS[square]
        return slides(piece.piece_type, square, self.walls & ~chess.BB_SQUARES[square])

    def _ties(self) -> None:
        """The last ply's squares are the strategy's fates; moves and captures counted."""
        s, m = self.strategy, self.model
        target = s.analysis.target
        for u in self.units:
            m.add(s.moves[u] == sum(self.moved[u].values()))
            if self.walk_counts:
                self._walk_counts(u)
            if u in s.captured:
                m.add(s.captured[u] + self.alive[u][self.plies] == 1)
            for (w, tsq), x in s.becomes.items():
                if w != u:
                    continue
                lit = self.pos[u][self.plies].get((tsq, target.piece_type_at(tsq)))
                if lit is None:
                    m.add(x == 0)
                else:
                    m.add_implication(x, lit)

    def _walk_counts(self, u: Unit) -> None:
        """After each ply of `u`'s side, the moves `u` has made are at least its state's
        distance from its start, and the moves it has left (its move count less those made)
        at least the state's distance to its fates (a unit that may be captured: none).
        Every game obeys both, its steps being moves of the unit's own graph; the chain of
        transitions implies them, but only ply by ply: said at once (Natch's move counting,
        per unit and per ply), CP-SAT cuts a unit that lags or strays as soon as it is placed.
        """
        s, m = self.strategy, self.model
        d_from, d_to = self.walks[u]
        made: list[Any] = []
        for ply in sorted(self.moved[u]):
            made.append(self.moved[u][ply])
            here = self.pos[u][ply].items()
            walked = [(d_from[st], lit) for st, lit in here if d_from[st] > 0]
            if walked:
                m.add(sum(made) >= sum(d * lit for d, lit in walked))
            ahead = [(d_to[st], lit) for st, lit in here if d_to[st] > 0]
            if ahead and u not in s.captured:
                m.add(s.moves[u] - sum(made) >= sum(d * lit for d, lit in ahead))

    # reading solutions -------------------------------------------------------------------------

    def game(self, solver) -> tuple[list[chess.Move], list[list[Any]]]:
        """The solved game as moves, and per ply the literals that make it, negated: its steps
        (the king's and the rook's when castling) and, positive, the castlings it does not
        make at that ply (a rook's plain h1-f1 and its half of O-O share a step literal)."""
        moves, used = [], []
        for ply in range(1, self.plies + 1):
            c = self.mover(ply)
            lits, move = [], None
            for u in self.units:
                if u.color != c or ply not in self.moved[u] or \
                        not solver.boolean_value(self.moved[u][ply]):
                    continue
                for (st, nxt), t in self.trans[u][ply].items():
                    if not solver.boolean_value(t):
                        continue
                    lits.append(t)
                    if u.piece_type == chess.ROOK and any(
                            solver.boolean_value(x) for (r, p), x in self.castlings.items()
                            if p == ply):
                        continue  # the rook's half of a castling
                    promotion = nxt[1] if st[1] == chess.PAWN and nxt[1] != chess.PAWN else None
                    move = chess.Move(st[0], nxt[0], promotion)
            if move is None:
                raise AssertionError(f"internal error: no move at ply {ply} of a schedule")
            moves.append(move)
            used.append([t.negated() for t in lits] + [
                x for (_, p), x in self.castlings.items()
                if p == ply and not solver.boolean_value(x)])
        return moves, used

    def literals_of(self, moves: list[chess.Move]) -> list[Any]:
        """The step literals of a given game (the model's own reading of it), for checking that
        the model admits a real game; KeyError names a move the model has no step for."""
        board = self.start.copy(stack=False)
        where = {sq: Unit(p.color, sq, p.piece_type) for sq, p in board.piece_map().items()}
        kind = {sq: p.piece_type for sq, p in board.piece_map().items()}
        out = []
        for ply, move in enumerate(moves, 1):
            u = where.pop(move.from_square)
            ptype = kind.pop(move.from_square)
            if board.is_castling(move):
                short = chess.square_file(move.to_square) > chess.square_file(move.from_square)
                rank = chess.square_rank(move.from_square)
                rook_from = chess.square(7 if short else 0, rank)
                rook_to = chess.square(5 if short else 3, rank)
                to = chess.square(6 if short else 2, rank)
                rook = where.pop(rook_from)
                kind.pop(rook_from)
                where[rook_to], kind[rook_to] = rook, chess.ROOK
                out.append(self._step(rook, ply, (rook_from, chess.ROOK), (rook_to, chess.ROOK)))
            else:
                to = move.to_square
                if board.is_en_passant(move):
                    victim = chess.square(chess.square_file(to),
                                          chess.square_rank(move.from_square))
                    where.pop(victim)
                    kind.pop(victim)
                else:
                    where.pop(to, None)
                    kind.pop(to, None)
            new = move.promotion or ptype
            out.append(self._step(u, ply, (move.from_square, ptype), (to, new)))
            where[to], kind[to] = u, new
            board.push(move)
        return out

    def _step(self, u: Unit, ply: int, st: State, nxt: State) -> Any:
        if u not in self.trans:
            raise KeyError(f"ply {ply}: {u.name()} moves but is frozen")
        lit = self.trans[u].get(ply, {}).get((st, nxt))
        if lit is None:
            raise KeyError(f"ply {ply}: no step {chess.square_name(st[0])}-"
                           f"{chess.square_name(nxt[0])} of {u.name()}")
        return lit

    def forbid(self, used: list[list[Any]]) -> None:
        """No later solution starts with these plies (`game`'s negated literals)."""
        self.model.add_bool_or([x for lits in used for x in lits])

    def size(self) -> int:
        """Variables of the model (strategy and schedule)."""
        return len(self.model.proto.variables)
