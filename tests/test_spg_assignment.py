"""The proof-game bound's assignment solvers (`spg.assignment`) against brute force: our Hungarian
method and SciPy's (`scipy_hungarian`, which the legal-game finder uses for speed, issue #19) give
the minimum over every assignment of rows to distinct columns, INF entries not allowed; the
block-splitting `column_assignment` gives the same with either solver; and the bound of a real
game's positions is the same whichever solver the analysis uses. The finder's memo of
`kernel.locked_pawns` (`Finder.locked`) returns what the function computes afresh."""

from __future__ import annotations

import itertools
import random

import chess
import pytest

from retrologic.legalgame.finder import Finder
from retrologic.legalgame.kernel import locked_pawns
from retrologic.limits import Budget
from retrologic.spg.analysis import Analysis
from retrologic.spg.assignment import (column_assignment, finite_mask, hungarian,
                                       scipy_hungarian)
from retrologic.spg.distances import INF


def brute_force(cost: list[list[int]]) -> int:
    """The least total over every assignment of the rows to distinct columns (INF: none without
    an INF entry, or no assignment at all)."""
    rows, cols = len(cost), len(cost[0]) if cost else 0
    best = INF
    for chosen in itertools.permutations(range(cols), rows):
        total = sum(cost[r][c] for r, c in enumerate(chosen))
        best = min(best, total)
    return min(best, INF)


def random_cost(rng: random.Random, rows: int, cols: int) -> list[list[int]]:
    """Entries 0-30, about one in four INF (not allowed)."""
    return [[INF if rng.random() < 0.25 else rng.randint(0, 30) for _ in range(cols)]
            for _ in range(rows)]


def test_both_solvers_give_the_brute_force_minimum():
    rng = random.Random(19)
    infeasible = 0
    for _ in range(400):
        rows = rng.randint(1, 5)
        cost = random_cost(rng, rows, rows + rng.randint(0, 2))
        expected = brute_force(cost)
        infeasible += expected >= INF
        assert hungarian(cost) == expected, cost
        assert scipy_hungarian(cost) == expected, cost
    assert 0 < infeasible < 400        # both kinds of matrix were met
    assert hungarian([[1, 2]] * 3) == scipy_hungarian([[1, 2]] * 3) == INF  # rows > columns


def test_column_assignment_is_the_same_with_either_solver():
    """Columns as the bound builds them (one per unit, one entry per target row), split into
    blocks: the same total with ours and SciPy's solver, and the brute-force minimum."""
    rng = random.Random(6015)
    for _ in range(300):
        nrows = rng.randint(1, 5)
        columns = [tuple(random_cost(rng, 1, nrows)[0]) for _ in range(nrows + rng.randint(0, 2))]
        masks = [finite_mask(c) for c in columns]
        ours = column_assignment(columns, masks, nrows)
        theirs = column_assignment(columns, masks, nrows, {}, scipy_hungarian)
        assert ours == theirs == brute_force([list(row) for row in zip(*columns)])


def test_column_assignment_splits_sparse_columns_into_blocks():
    """Sparse columns (three in four entries INF), as most units' are: split into blocks, the
    total is still the brute-force minimum (or INF). Met among them: columns of pairwise
    disjoint rows (several blocks) and columns finite in one row only."""
    rng = random.Random(1931)
    split = single = 0
    for _ in range(400):
        nrows = rng.randint(1, 5)
        columns = [tuple(INF if rng.random() < 0.75 else rng.randint(0, 30)
                         for _ in range(nrows)) for _ in range(nrows + rng.randint(0, 2))]
        masks = [finite_mask(c) for c in columns]
        rows_met = [m for m in set(masks) if m]
        split += len(rows_met) > 1 and not any(a & b for a in rows_met for b in rows_met
                                               if a != b)
        single += any(m & (m - 1) == 0 for m in rows_met)
        memo: dict = {}
        expected = brute_force([list(row) for row in zip(*columns)])
        assert column_assignment(columns, masks, nrows) == expected, columns
        assert column_assignment(columns, masks, nrows, memo, scipy_hungarian) == expected
        assert column_assignment(columns, masks, nrows, memo, scipy_hungarian) == expected
    assert split > 20 and single > 100  # both kinds were met


def real_game(seed: int, plies: int) -> list[chess.Board]:
    """The positions of a random game of python-chess (no stack)."""
    rng = random.Random(seed)
    board, out = chess.Board(), []
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        captures = [m for m in moves if board.is_capture(m)]
        board.push(rng.choice(captures if captures and rng.random() < 0.5 else moves))
        out.append(board.copy(stack=False))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_the_bound_is_the_same_with_either_solver(seed):
    """Along a real game, every position's bound towards the game's final position (the
    analysis from the initial array) is the same with either solver."""
    positions = real_game(seed, 70)
    target = positions[-1]
    ours = Analysis(chess.Board(), target)
    theirs = Analysis(chess.Board(), target, assignment=scipy_hungarian)
    checked = 0
    for board in positions:
        for color in chess.COLORS:
            assert ours.bound.side_bound(board, color) == theirs.bound.side_bound(board, color)
            checked += 1
    assert checked == 2 * len(positions) >= 100


def test_the_locked_pawns_memo_returns_what_the_function_computes():
    """`Finder.locked` (memoised by the plan's key, salt included) against `locked_pawns`
    computed afresh on every position of a real game, under two salts; the settled pawns it
    includes (`Walls.of_side`) depend on the side's pawns and captures left only, both in the
    key, and are the side's part of `Walls.of`."""
    positions = real_game(7, 80)
    finder = Finder(positions[-1], Budget())
    compared = locked = 0
    for salt in (0, 5):
        finder.plan_salt = salt
        for board in positions:
            for color in chess.COLORS:
                plan = finder.side_plan(board, color)
                if plan is None:
                    continue
                pawns = finder.locked(board, color, plan)
                settled = finder.walls.of(board) & board.pawns & board.occupied_co[color]
                assert finder.walls.of_side(board, color) == settled
                assert pawns == locked_pawns(finder, board, color, plan)
                assert pawns & settled == settled
                compared += 1
                locked += pawns != 0
    assert compared >= 100 and locked >= 10     # some positions do lock pawns
    assert finder.locks          # the memo was used
