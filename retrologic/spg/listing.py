"""Every game of a length, listed by the CP-SAT schedule model (spg/schedule.py) and played out
by python-chess.

The model is a relaxation of the games of that length (it holds every game; the play-out
rejects the rest it lets through), so it is used as a complete game generator: each solution is
played out with python-chess; an illegal one is cut off at its first illegal ply (its prefix is
forbidden), a legal one is a game and is forbidden as a whole; when the model becomes
infeasible, every game has been listed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import chess

from retrologic.limits import Budget, LimitHit
from retrologic.progress import ticking
from retrologic.spg.analysis import Analysis
from retrologic.spg.schedule import ModelTooLarge, ScheduleModel
from retrologic.spg.status import Feasibility, Listing
from retrologic.spg.strategy import StrategyModel, analyse, limit_reason


@dataclass
class ScheduleReport:
    """The games one schedule model lists, and how the listing ended."""

    plies: int
    status: Listing                  # complete (every game listed) or unknown
    games: list[list[chess.Move]] = field(default_factory=list)
    reason: str | None = None        # the limit that was hit, or why there is no game
    rejected: int = 0                # solutions cut off by the play-out (an illegal ply)
    solves: int = 0
    conflicts: int = 0               # CP-SAT's nodes (cpsat_limits.work_done), charged to the
    #                                  node limit; the JSON key keeps its first name
    variables: int = 0
    seconds: float = 0.0
    still: int = 0                   # units the strategy layer proved still (frozen here)

    def as_dict(self) -> dict[str, Any]:
        return {"plies": self.plies, "status": self.status, "games": len(self.games),
                "reason": self.reason, "rejected": self.rejected, "solves": self.solves,
                "conflicts": self.conflicts, "variables": self.variables,
                "seconds": round(self.seconds, 3)}


def play_out(start: chess.Board, moves: list[chess.Move]) -> tuple[int | None, chess.Board]:
    """The first ply (1-based) python-chess finds illegal (None when the game is legal), and
    the board after the legal plies before it."""
    board = start.copy(stack=False)
    for i, move in enumerate(moves):
        if not board.is_legal(move):
            return i + 1, board
        board.push(move)
    return None, board


def schedule(target: chess.BaseBoard, plies: int, start: chess.Board | None = None,
             base: Analysis | None = None, timeout: float | None = None,
             limit: int | None = None, progress: Any = None,
             budget: Budget | None = None, walk_counts: bool = False) -> ScheduleReport:
    """Every game of `plies` plies from `start` to `target`: the strategy layer first (no
    strategy: no game; still units frozen), then `list_games`; `budget` (default: one of
    `timeout` seconds) holds both."""
    t0 = time.monotonic()
    budget = budget if budget is not None else Budget(timeout)
    start = start if start is not None else chess.Board()
    strat, analysis = analyse(target, plies, start=start, enumerate_strategies=False, base=base,
                              budget=budget)
    if strat.status == Feasibility.INFEASIBLE:
        return ScheduleReport(plies, Listing.COMPLETE, reason=strat.reason, still=strat.frozen,
                              solves=strat.solves, seconds=time.monotonic() - t0)
    report = list_games(analysis, plies, limit=limit, progress=progress, budget=budget,
                        walk_counts=walk_counts)
    report.still, report.solves = strat.frozen, report.solves + strat.solves
    report.conflicts += strat.conflicts
    report.seconds = time.monotonic() - t0
    return report


def list_games(analysis: Analysis, plies: int, deadline: float | None = None,
               limit: int | None = None, progress: Any = None,
               budget: Budget | None = None,
               parameters: dict[str, Any] | None = None,
               fixed_groups: bool = False,
               on_game: Callable[[list[chess.Move]], None] | None = None,
               walk_counts: bool = False) -> ScheduleReport:
    """Every game of `plies` plies from `analysis.start` to `analysis.target`, listed by the
    schedule model and checked by python-chess (see the module's docstring): status
    'complete' when the list is all of them, 'unknown' after `limit` games, at the deadline of
    `budget` (or a bare `deadline`, a time.monotonic() value) or on Ctrl-C, with the games
    listed so far. `budget`'s node limit bounds CP-SAT (cpsat_limits), charged to it.
    `parameters`: CP-SAT parameters over the model's own (another `random_seed`: the race's
    second listing), and `fixed_groups` the strategy model's groups as hard constraints
    (`StrategyModel.fix_groups`) and `walk_counts` (`ScheduleModel`'s): they change how fast,
    never what is listed. `on_game`: each game as it is listed (the race's worker tells it to
    the parent at once, spg/solver.py)."""
    t0 = time.monotonic()
    if budget is None:
        budget = Budget(None, None, deadline)
    report = ScheduleReport(plies, Listing.UNKNOWN)
    spent = budget.spent
    try:
        return _listing(analysis, plies, limit, progress, budget, report, t0, parameters,
                        fixed_groups, on_game, walk_counts)
    finally:
        report.conflicts = budget.spent - spent


def _listing(analysis: Analysis, plies: int, limit: int | None, progress: Any, budget: Budget,
             report: ScheduleReport, t0: float,
             parameters: dict[str, Any] | None = None, fixed_groups: bool = False,
             on_game: Callable[[list[chess.Move]], None] | None = None,
             walk_counts: bool = False) -> ScheduleReport:
    """`list_games` after its arguments are settled: `report` filled in and returned."""
    if budget.expired() or budget.nodes_used_up():
        report.reason = f"{limit_reason(budget)} (schedule model not built)"
        return report
    try:
        model = ScheduleModel(StrategyModel(analysis, plies, node_budget=budget), budget=budget,
                              walk_counts=walk_counts)
    except ModelTooLarge as e:
        report.reason = str(e)
        report.seconds = time.monotonic() - t0
        return report
    except LimitHit as e:
        report.reason = f"{e.reason} (building the schedule model)"
        report.seconds = time.monotonic() - t0
        return report
    model.strategy.parameters.update(parameters or {})
    if fixed_groups:
        model.strategy.fix_groups()
    list_schedule(model, report, budget, limit, progress, on_game)
    report.seconds = time.monotonic() - t0
    return report


def list_schedule(model: ScheduleModel, report: ScheduleReport, budget: Budget,
                  limit: int | None = None, progress: Any = None,
                  on_game: Callable[[list[chess.Move]], None] | None = None) -> None:
    """The listing loop on a built schedule model (its strategy model's own constraints
    included: bench/spg-strategy-split.py fixes a strategy there): solve, play the solution
    out with python-chess, forbid the game or its illegal prefix, until the model has no
    solution (`report` complete), `limit` games, or `budget`'s limits. `progress(report,
    running)`: after each solve (`running` None), and every `progress.TICK` seconds of a
    solve (`running` its seconds so far: one solve may run for minutes); `on_game(moves)`
    after each game."""
    a: Analysis = model.strategy.analysis
    start, target_fen = a.start, a.target.board_fen()
    report.variables = model.size()
    while True:
        if limit is not None and len(report.games) >= limit:
            report.reason = f"stopped after {limit} game(s) (the listing limit)"
            break
        with ticking(None if progress is None else lambda ran: progress(report, ran)):
            solver, status = model.strategy.solve(deadline=budget.deadline)
        report.solves += 1
        if status == Feasibility.UNKNOWN:
            report.reason = limit_reason(budget)
            break
        if status == Feasibility.INFEASIBLE:
            report.status = Listing.COMPLETE
            break
        moves, used = model.game(solver)
        bad, board = play_out(start, moves)
        if bad is not None:
            report.rejected += 1
            model.forbid(used[:bad])
        else:
            if board.board_fen() != target_fen:
                raise AssertionError("internal error: a schedule does not reach the diagram")
            report.games.append(moves)
            model.forbid(used)
            if on_game is not None:
                on_game(moves)
        if progress is not None:
            progress(report, None)
