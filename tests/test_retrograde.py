"""The generic retrograde engine against brute force: random game graphs, a subtraction game with a
closed-form solution, the single-agent (reach) rule against breadth-first search, and limits."""

from __future__ import annotations

import functools
import sys
from collections import deque

import numpy as np
import pytest

from retrologic.tablebase import retrograde as rg
from retrologic.tablebase.retrograde import DRAW, INVALID, LOSS, NONE, WIN


def random_game(seed: int, n: int = 40) -> tuple[rg.GraphGame, dict]:
    """A random game graph with cycles, dead ends, every kind of terminal, exits and unused indices."""
    rng = np.random.default_rng(seed)
    legal = rng.random(n) > 0.1
    terminal = np.zeros(n, np.int8)
    kinds = rng.random(n)
    terminal[kinds < 0.12] = LOSS
    terminal[(kinds >= 0.12) & (kinds < 0.15)] = WIN
    terminal[(kinds >= 0.15) & (kinds < 0.18)] = DRAW
    ids = np.flatnonzero(legal & (terminal == NONE))
    par, chi = [], []
    for p in ids:
        for c in rng.choice(np.flatnonzero(legal), size=rng.integers(0, 4), replace=False):
            par.append(p)
            chi.append(c)
    exit_out = np.zeros(n, np.int8)
    exit_dist = np.zeros(n, np.int32)
    with_exit = ids[rng.random(len(ids)) < 0.3]
    exit_out[with_exit] = rng.choice([WIN, DRAW, LOSS], size=len(with_exit))
    exit_dist[with_exit] = rng.integers(1, 7, size=len(with_exit))
    game = rg.GraphGame(n, np.array(par, np.int64), np.array(chi, np.int64), terminal, legal,
                        exit_out, exit_dist)
    spec = {"n": n, "legal": legal, "terminal": terminal, "exit_out": exit_out,
            "exit_dist": exit_dist, "moves": {p: [c for q, c in zip(par, chi) if q == p] for p in range(n)}}
    return game, spec


def brute_force(spec: dict) -> tuple[list[int], list[int]]:
    """Outcome and distance by the definition: won within d plies / lost within d plies, recursively."""
    n, legal, terminal = spec["n"], spec["legal"], spec["terminal"]
    exit_out, exit_dist, moves = spec["exit_out"], spec["exit_dist"], spec["moves"]
    sys.setrecursionlimit(10000)

    @functools.lru_cache(maxsize=None)
    def won(p: int, d: int) -> bool:
        if terminal[p] != NONE:
            return bool(terminal[p] == WIN)
        if exit_out[p] == WIN and exit_dist[p] <= d:
            return True
        return d > 0 and any(lost(c, d - 1) for c in moves[p])

    @functools.lru_cache(maxsize=None)
    def lost(p: int, d: int) -> bool:
        if terminal[p] != NONE:
            return bool(terminal[p] == LOSS)
        if not moves[p] and exit_out[p] == NONE:
            return False
        if exit_out[p] in (WIN, DRAW) or (exit_out[p] == LOSS and exit_dist[p] > d):
            return False
        return d > 0 and all(won(c, d - 1) for c in moves[p])

    horizon = 2 * n + 14
    outcome, dist = [], []
    for p in range(n):
        if not legal[p]:
            outcome.append(INVALID)
            dist.append(-1)
            continue
        dw = next((d for d in range(horizon) if won(p, d)), None)
        dl = next((d for d in range(horizon) if lost(p, d)), None)
        assert dw is None or dl is None
        if dw is not None:
            outcome.append(WIN)
            dist.append(dw)
        elif dl is not None:
            outcome.append(LOSS)
            dist.append(dl)
        else:
            outcome.append(DRAW)
            dist.append(-1)
    return outcome, dist


@pytest.mark.parametrize("seed", range(100))
def test_random_games_match_brute_force(seed: int) -> None:
    game, spec = random_game(seed)
    sol = rg.solve(game, chunk=7)      # tiny chunks exercise the batching
    want_out, want_dist = brute_force(spec)
    assert sol.complete
    assert sol.outcome.tolist() == want_out
    assert sol.dist.tolist() == want_dist


def test_random_games_are_not_trivial() -> None:
    """The corpus has wins, losses and draws at several distances (else the test above proves little)."""
    kinds, longest = set(), 0
    for seed in range(100):
        game, _ = random_game(seed)
        sol = rg.solve(game)
        kinds |= set(sol.outcome.tolist())
        longest = max(longest, int(sol.dist.max()))
    assert kinds == {WIN, LOSS, DRAW, INVALID}
    assert longest >= 6


class Subtraction:
    """Take 1..3 counters from a pile of `size-1` or fewer; who cannot move loses (vectorised)."""

    def __init__(self, size: int):
        self.size = size

    def seeds(self) -> rg.Seeds:
        terminal = np.zeros(self.size, np.int8)
        terminal[0] = LOSS
        return rg.Seeds(np.ones(self.size, bool), terminal)

    def successors(self, parents):
        row = np.repeat(np.arange(len(parents)), 3)
        child = np.repeat(parents, 3) - np.tile([1, 2, 3], len(parents))
        keep = child >= 0
        return row[keep], child[keep]

    def predecessors(self, children):
        parent = (children[:, None] + np.array([1, 2, 3])).ravel()
        return parent[parent < self.size]


def test_subtraction_game_closed_form() -> None:
    n = 1000
    sol = rg.solve(Subtraction(n), chunk=64)
    k = np.arange(n)
    lost = k % 4 == 0
    assert (sol.outcome[lost] == LOSS).all() and (sol.outcome[~lost] == WIN).all()
    assert (sol.dist[lost] == k[lost] // 4 * 2).all()       # each round removes 4 counters
    assert (sol.dist[~lost] == k[~lost] // 4 * 2 + 1).all()
    assert sol.plies == sol.dist.max() + 1     # the last level finds nothing new


def test_reach_rule_matches_breadth_first_search() -> None:
    for seed in range(30):
        rng = np.random.default_rng(1000 + seed)
        n = 60
        par = rng.integers(0, n, size=120)
        chi = rng.integers(0, n, size=120)
        terminal = np.zeros(n, np.int8)
        goals = rng.choice(n, size=3, replace=False)
        terminal[goals] = WIN
        keep = ~np.isin(par, goals)          # goals end the game
        game = rg.GraphGame(n, par[keep], chi[keep], terminal)
        sol = rg.solve(game, rule="reach")
        # BFS backwards from the goals
        back: dict[int, list[int]] = {}
        for p, c in zip(par[keep], chi[keep]):
            back.setdefault(int(c), []).append(int(p))
        depth = {int(g): 0 for g in goals}
        queue = deque(depth)
        while queue:
            c = queue.popleft()
            for p in back.get(c, []):
                if p not in depth:
                    depth[p] = depth[c] + 1
                    queue.append(p)
        for p in range(n):
            if p in depth:
                assert sol.outcome[p] == WIN and sol.dist[p] == depth[p]
            else:
                assert sol.outcome[p] == LOSS and sol.dist[p] == -1


def test_ply_limit_gives_incomplete_but_exact_values() -> None:
    full = rg.solve(Subtraction(200))
    part = rg.solve(Subtraction(200), max_plies=10)
    assert not part.complete and "ply limit" in part.reason
    decided = part.outcome != NONE
    assert decided.sum() > 0 and (~decided).sum() > 0
    assert (part.outcome[decided] == full.outcome[decided]).all()
    assert (part.dist[decided] == full.dist[decided]).all()
    assert (part.dist[decided] <= 10).all()


def test_progress_is_reported_per_ply() -> None:
    seen = []
    rg.solve(Subtraction(20), progress=lambda ply, w, l: seen.append((ply, w, l)))
    assert [s[0] for s in seen] == list(range(len(seen)))
    assert seen[-1][1] + seen[-1][2] == 20


def test_bad_rule_is_rejected() -> None:
    with pytest.raises(ValueError):
        rg.solve(Subtraction(5), rule="maximin")


def test_node_limit_gives_incomplete_but_exact_values() -> None:
    full = rg.solve(Subtraction(400))
    part = rg.solve(Subtraction(400), nodes=100)
    assert not part.complete and "node limit" in part.reason
    decided = part.outcome != NONE
    assert 0 < decided.sum() < 400
    assert (part.dist[decided] == full.dist[decided]).all()


def test_a_game_may_stop_the_solver() -> None:
    class Stopping(Subtraction):
        def seeds(self):
            raise rg.Stopped("deadline while setting up")
    sol = rg.solve(Stopping(10))
    assert not sol.complete and sol.reason == "deadline while setting up"
    assert (sol.outcome == NONE).all()
