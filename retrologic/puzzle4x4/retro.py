"""The 4x4 capture puzzle as a game for the generic retrograde engine (retrologic.tablebase.retrograde).

The table holds every position reachable from a start, indexed by its rank among their sorted
keys. Forward moves come from puzzle4x4.moves, un-moves from puzzle4x4.unmoves (filtered to the
table); solved positions (the white king alone) are the goals of the single-agent `reach` rule, so
a position is won exactly when it is solvable, at distance = plies to the goal.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from retrologic.puzzle4x4 import game as p4
from retrologic.tablebase import retrograde as rg
from retrologic.limits import Budget, LimitHit

CHECK_EVERY = 1024  # positions between two looks at the budget


def reachable(start: int, limit: int | None = None,
              progress: Callable[[int, int], None] | None = None,
              budget: Budget | None = None) -> np.ndarray:
    """The sorted keys (uint64) of every position reachable from `start`, itself included.

    LimitReached when there are more than `limit` positions (the node limit), or at `budget`'s
    time limit or Ctrl-C.
    """
    budget = budget if budget is not None else Budget()
    seen = {start}
    layer = [start]
    depth = 0
    while layer:
        nxt = set()
        for n, key in enumerate(layer):
            if n % CHECK_EVERY == 0:
                budget.check_now()
            for m in p4.moves(key):
                nxt.add(p4.play(key, m))
        nxt -= seen
        seen |= nxt
        depth += 1
        if progress:
            progress(depth, len(seen))
        if limit is not None and len(seen) > limit:
            raise p4.LimitReached(f"node limit {limit} (more than {limit} reachable positions)")
        layer = list(nxt)
    return np.array(sorted(seen), dtype=np.uint64)


class ReachableGame:
    """Every position reachable from a start, as a retrograde.Game (rule 'reach')."""

    def __init__(self, start: int, limit: int | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 budget: Budget | None = None) -> None:
        self.start = start
        self.budget = budget if budget is not None else Budget()
        self.keys = reachable(start, limit, progress, self.budget)
        self.size = len(self.keys)

    def _check(self, n: int) -> None:
        """Every CHECK_EVERY positions: the budget's time limit or Ctrl-C stops the retrograde
        cycles (rg.Stopped: the solution is then incomplete, with the reason)."""
        if n % CHECK_EVERY == 0:
            try:
                self.budget.check_now()
            except LimitHit as e:
                raise rg.Stopped(e.reason) from None

    def index(self, keys: list[int]) -> np.ndarray:
        """Indices of keys in the table, -1 for keys outside it."""
        arr = np.array(keys, dtype=np.uint64)
        pos = np.searchsorted(self.keys, arr)
        pos = np.minimum(pos, self.size - 1)
        return np.where(self.keys[pos] == arr, pos, -1).astype(np.int64)

    def seeds(self) -> rg.Seeds:
        terminal = np.zeros(self.size, dtype=np.int8)
        for i, key in enumerate(self.keys.tolist()):
            self._check(i)
            if p4.is_solved(key):
                terminal[i] = rg.WIN
            elif not p4.moves(key):
                terminal[i] = rg.LOSS
        return rg.Seeds(legal=np.ones(self.size, dtype=bool), terminal=terminal)

    def successors(self, parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows: list[int] = []
        kids: list[int] = []
        for r, key in enumerate(self.keys[np.asarray(parents, dtype=np.int64)].tolist()):
            self._check(r)
            for m in p4.moves(key):
                rows.append(r)
                kids.append(p4.play(key, m))
        child = self.index(kids)
        if (child < 0).any():
            raise AssertionError("a move left the reachable set")
        return np.array(rows, dtype=np.int64), child

    def predecessors(self, children: np.ndarray) -> np.ndarray:
        parents = []
        for n, key in enumerate(self.keys[np.asarray(children, dtype=np.int64)].tolist()):
            self._check(n)
            parents.extend(p4.unmoves(key))
        idx = self.index(parents)
        return idx[idx >= 0]


def solve(start: int, limit: int | None = None, timeout: float | None = None,
          progress: Callable[[int, int, int], None] | None = None,
          budget: Budget | None = None) -> tuple[ReachableGame, rg.Solution]:
    """Build the table of positions reachable from `start` and solve it by retrograde cycles.
    `budget` (default: one of `timeout` seconds) covers both steps: LimitReached while building,
    an incomplete solution with its reason while solving."""
    budget = budget if budget is not None else Budget(timeout)
    game = ReachableGame(start, limit, budget=budget)
    return game, rg.solve(game, rule="reach", progress=progress)


def winning_line(game: ReachableGame, solution: rg.Solution) -> list[tuple[int, int]] | None:
    """A winning line read from a solved table (each move to a won child one ply closer)."""
    key = game.start
    i = int(game.index([key])[0])
    if solution.outcome[i] != rg.WIN:
        return None
    line = []
    while not p4.is_solved(key):
        d = int(solution.dist[i])
        for m in p4.moves(key):
            child = p4.play(key, m)
            j = int(game.index([child])[0])
            if solution.outcome[j] == rg.WIN and int(solution.dist[j]) == d - 1:
                line.append(m)
                key, i = child, j
                break
        else:
            raise AssertionError("a won position without a won child one ply closer")
    return line
