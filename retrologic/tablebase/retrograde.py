"""Generic retrograde solver (Leapfrog cycles) over any finite game with densely indexed positions.

THE INTERFACE a game implements (batch-oriented: every call takes and returns numpy arrays, so a
table of millions of positions costs a few hundred vectorised calls, not millions of Python calls):

    game.size : int
        Positions are the integers 0 .. size-1. Indices need not all be used: `legal` says which are.
    game.seeds() -> Seeds
        Per-position arrays, computed once:
          legal[i]     bool  - index i is a real position (unused/illegal indices are never touched);
          terminal[i]  int8  - NONE (play goes on), LOSS (side to move has lost, e.g. is mated: lost(0)),
                               WIN (side to move has won; for `rule="reach"`, a goal) or DRAW
                               (e.g. stalemate; never changes);
          exit_outcome[i], exit_dist[i] (optional, may be None)
                             - the best value, *for the side to move at i*, of the moves that leave
                               the table (captures or promotions into an already solved table):
                               NONE if there is no such move, else WIN/DRAW/LOSS with the distance
                               in plies counted from i (a move into a sub-table position lost in 4
                               plies is WIN, 5 here). The game takes the best over its exits.
    game.predecessors(children: int64[k]) -> int64[m]
        Every legal position with an in-table move to any of `children` (un-moves; duplicates and
        any order are fine). Moves that leave the table have no predecessors here.
    game.successors(parents: int64[k]) -> (row: int64[m], child: int64[m])
        Every in-table move: `child[j]` is reached in one move from `parents[row[j]]`.

Values are from the side to move's point of view, with distances in plies (Gaviota's convention:
a mate in 1 is WIN in 1 ply, being mated is LOSS in 0). `solve(game)` runs the seed's cycles:
lost(0) are the terminal losses; in cycle N the newly-won positions are the undecided parents of
lost(N) (ply 2N+1), the potentially-lost are the undecided parents of the newly-won, and those are
*verified* - every move of the loser reaches an already won position - to give lost(N+1) (ply
2N+2). Generalised to terminal wins and exits, each ply level d does both steps at once:
won(d+1) = undecided parents of lost(d) (or exit WIN at d+1), lost(d+1) = verified undecided
parents of won(d) (or exit LOSS at d+1). What is undecided when nothing more can change is a draw.

`rule="reach"` is the single-agent variant (a puzzle where one player makes every move): a
position is won (goal reachable) when some move reaches a won position; the rest are lost.

The verification generates all moves of a batch of candidates at once (numpy has no early exit
per row), so Leapfrog's cut-off at the first escape becomes one vectorised test per batch.

Limits (`max_plies`, and the shared `retrologic.limits.Budget`: time, Ctrl-C, and a node limit
counting the positions expanded, checked at every batch) stop the cycles early: the result is then
incomplete, every decided value is still exact (a ply stopped half-way is dropped whole) and the
undecided ones are unknown, not draws. A game may raise `Stopped(reason)` or `LimitHit` from any
of its methods (e.g. a long `seeds()` past a deadline) to the same effect.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from retrologic.limits import Budget, LimitHit, budget_for

# outcome codes (int8), from the side to move's point of view
NONE = 0      # terminal: play goes on; exit: no exit; Solution: undecided (unknown if incomplete)
WIN = 1
LOSS = 2
DRAW = 3
INVALID = 4   # Solution only: an unused or illegal index

RULES = ("minimax", "reach")


class Stopped(Exception):
    """Raised by a game when a limit is hit; `solve` then returns an incomplete Solution."""


@dataclass
class Seeds:
    """What a game knows before any search: legal indices, terminal values, best exits."""

    legal: np.ndarray                        # bool[size]
    terminal: np.ndarray                     # int8[size]: NONE, LOSS, WIN or DRAW
    exit_outcome: np.ndarray | None = None   # int8[size]: NONE, WIN, DRAW or LOSS
    exit_dist: np.ndarray | None = None      # int32[size]: plies from this position


class Game(Protocol):
    """A finite game with densely indexed positions (see the module docstring)."""

    size: int

    def seeds(self) -> Seeds: ...

    def predecessors(self, children: np.ndarray) -> np.ndarray: ...

    def successors(self, parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass
class Solution:
    """The solved table: outcome (WIN, LOSS, DRAW, INVALID; NONE = undecided) and distance.

    When `complete` is False a limit stopped the cycles: NONE then means unknown, not draw;
    when complete, no position is left NONE (undecided legal positions become DRAW).
    """

    outcome: np.ndarray          # int8[size]
    dist: np.ndarray             # int32[size]: plies to the end, -1 for draws/invalid/unknown
    complete: bool
    plies: int                   # the last ply level completed
    reason: str = ""             # why incomplete
    seconds: float = 0.0
    counts: list[tuple[int, int, int]] = field(default_factory=list)  # (ply, new won, new lost)

    def signed(self) -> np.ndarray:
        """Gaviota-style signed distances: +d won in d plies, -d lost in d, 0 draw/other."""
        out = np.zeros(len(self.dist), dtype=np.int32)
        out[self.outcome == WIN] = self.dist[self.outcome == WIN]
        out[self.outcome == LOSS] = -self.dist[self.outcome == LOSS]
        return out


Progress = Callable[[int, int, int], None]   # (ply, positions won so far, lost so far)


def _chunks(idx: np.ndarray, size: int):
    for start in range(0, len(idx), size):
        yield idx[start:start + size]


def _charge(budget: Budget, positions: int) -> None:
    """Charge a batch of expanded positions: LimitHit at the node limit, the deadline or Ctrl-C
    (the clock is read at every batch: a batch is thousands of positions)."""
    budget.check(positions, every=1)


def _parents(game: Game, children: np.ndarray, chunk: int, size: int, budget: Budget) -> np.ndarray:
    """Mask of the predecessors of a set of positions (batches of `chunk`; a mask, not a sort,
    removes duplicates)."""
    mask = np.zeros(size, dtype=bool)
    for part in _chunks(children, chunk):
        _charge(budget, len(part))
        mask[np.asarray(game.predecessors(part), dtype=np.int64)] = True
    return mask


def _all_children_won(game: Game, cand: np.ndarray, outcome: np.ndarray, dist: np.ndarray,
                      ply: int, chunk: int, budget: Budget) -> np.ndarray:
    """Mask over `cand`: every in-table move reaches a position won in at most `ply` plies."""
    ok = np.ones(len(cand), dtype=bool)
    for start in range(0, len(cand), chunk):
        part = cand[start:start + chunk]
        _charge(budget, len(part))
        row, child = game.successors(part)
        row = np.asarray(row, dtype=np.int64)
        child = np.asarray(child, dtype=np.int64)
        escape = (outcome[child] != WIN) | (dist[child] > ply)
        ok[start + row[escape]] = False
    return ok


def solve(game: Game, *, rule: str = "minimax", max_plies: int | None = None,
          timeout: float | None = None, nodes: int | None = None,
          progress: Progress | None = None, chunk: int = 1 << 17,
          budget: Budget | None = None) -> Solution:
    """Solve a game by retrograde cycles; see the module docstring for the interface and rules.

    Limits: `budget` (the question's shared one) or one of `timeout` seconds and `nodes`, the
    positions expanded (un-moved frontier positions plus verified candidates).
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, not {rule!r}")
    budget = budget_for(timeout, nodes, budget)
    t0 = time.monotonic()
    n = int(game.size)
    try:
        return _solve(game, rule, max_plies, budget, progress, chunk, t0)
    except (Stopped, LimitHit) as e:
        outcome = np.full(n, NONE, dtype=np.int8)
        return _finish(outcome, np.full(n, -1, dtype=np.int32), False, 0, str(e), t0, [])


def _solve(game: Game, rule: str, max_plies: int | None, budget: Budget,
           progress: Progress | None, chunk: int, t0: float) -> Solution:
    budget.check_now()
    seeds = game.seeds()
    n = int(game.size)
    legal = np.asarray(seeds.legal, dtype=bool)
    terminal = np.asarray(seeds.terminal, dtype=np.int8)
    if len(legal) != n or len(terminal) != n:
        raise ValueError("seeds arrays must have game.size entries")
    if seeds.exit_outcome is None:
        exit_out = np.zeros(n, dtype=np.int8)
        exit_dist = np.zeros(n, dtype=np.int32)
    else:
        exit_out = np.asarray(seeds.exit_outcome, dtype=np.int8)
        exit_dist = np.asarray(seeds.exit_dist, dtype=np.int32)
    outcome = np.full(n, NONE, dtype=np.int8)
    dist = np.full(n, -1, dtype=np.int32)
    outcome[~legal] = INVALID
    closed = legal & (terminal == DRAW)          # decided draws: never candidates
    outcome[closed] = DRAW
    won_now = np.flatnonzero(legal & (terminal == WIN))
    lost_now = np.flatnonzero(legal & (terminal == LOSS))
    outcome[won_now], dist[won_now] = WIN, 0
    outcome[lost_now], dist[lost_now] = LOSS, 0
    live = legal & (terminal == NONE)
    pending_exit = live & (exit_out != NONE) & (exit_out != DRAW)
    last_exit = int(exit_dist[pending_exit].max()) if pending_exit.any() else 0
    counts = [(0, len(won_now), len(lost_now))]
    n_won, n_lost = len(won_now), len(lost_now)
    if progress:
        progress(0, n_won, n_lost)
    ply = 0
    while len(won_now) or len(lost_now) or ply < last_exit:
        if max_plies is not None and ply >= max_plies:
            return _finish(outcome, dist, False, ply, f"ply limit {max_plies} reached", t0, counts)
        d = ply + 1
        try:
            budget.check_now()
            undecided = outcome == NONE
            by_exit_win = undecided & (exit_out == WIN) & (exit_dist == d)
            if rule == "minimax":
                new_won = np.flatnonzero(undecided & (_parents(game, lost_now, chunk, n, budget)
                                                      | by_exit_win))
                cand = undecided & (_parents(game, won_now, chunk, n, budget) |
                                    ((exit_out == LOSS) & (exit_dist == d)))
                cand[new_won] = False
                # a better exit (draw, win, or a slower loss) saves the position from lost(d)
                cand &= (exit_out == NONE) | ((exit_out == LOSS) & (exit_dist <= d))
                cand = np.flatnonzero(cand)
                new_lost = cand[_all_children_won(game, cand, outcome, dist, ply, chunk, budget)]
            else:
                new_won = np.flatnonzero(undecided & (_parents(game, won_now, chunk, n, budget)
                                                      | by_exit_win))
                new_lost = np.zeros(0, dtype=np.int64)
        except (Stopped, LimitHit) as e:       # the ply is dropped whole: decided values stay exact
            return _finish(outcome, dist, False, ply, str(e), t0, counts)
        outcome[new_won], dist[new_won] = WIN, d
        outcome[new_lost], dist[new_lost] = LOSS, d
        won_now, lost_now, ply = new_won, new_lost, d
        n_won += len(new_won)
        n_lost += len(new_lost)
        counts.append((d, len(new_won), len(new_lost)))
        if progress:
            progress(d, n_won, n_lost)
    undecided = outcome == NONE
    outcome[undecided] = DRAW if rule == "minimax" else LOSS
    return _finish(outcome, dist, True, ply, "", t0, counts)


def _finish(outcome, dist, complete, ply, reason, t0, counts) -> Solution:
    return Solution(outcome=outcome, dist=dist, complete=complete, plies=ply, reason=reason,
                    seconds=time.monotonic() - t0, counts=counts)


class GraphGame:
    """A game given as an explicit move list (edges parent -> child), for small games and tests.

    Both directions are stored as CSR arrays, so `successors` and `predecessors` are vectorised.
    """

    def __init__(self, size: int, parents: np.ndarray, children: np.ndarray,
                 terminal: np.ndarray | None = None, legal: np.ndarray | None = None,
                 exit_outcome: np.ndarray | None = None, exit_dist: np.ndarray | None = None):
        self.size = int(size)
        parents = np.asarray(parents, dtype=np.int64)
        children = np.asarray(children, dtype=np.int64)
        self._fwd = _csr(self.size, parents, children)
        self._back = _csr(self.size, children, parents)
        self._seeds = Seeds(
            legal=np.ones(self.size, bool) if legal is None else np.asarray(legal, bool),
            terminal=np.zeros(self.size, np.int8) if terminal is None else np.asarray(terminal, np.int8),
            exit_outcome=exit_outcome, exit_dist=exit_dist)

    def seeds(self) -> Seeds:
        return self._seeds

    def successors(self, parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _gather(self._fwd, np.asarray(parents, dtype=np.int64))

    def predecessors(self, children: np.ndarray) -> np.ndarray:
        return _gather(self._back, np.asarray(children, dtype=np.int64))[1]


def _csr(size: int, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(src, kind="stable")
    start = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=size), out=start[1:])
    return start, dst[order]


def _gather(csr: tuple[np.ndarray, np.ndarray], idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, neighbour) pairs for the rows `idx` of a CSR adjacency."""
    start, nbr = csr
    lo, hi = start[idx], start[idx + 1]
    lengths = hi - lo
    row = np.repeat(np.arange(len(idx), dtype=np.int64), lengths)
    offsets = np.arange(lengths.sum(), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return row, nbr[np.repeat(lo, lengths) + offsets]
