"""The assignment behind the proof-game bound: each target unit (and victim slot) gets a distinct
unit of its side at the least total cost (Natch / Euclide's counting; §10 of
shared/seeds/malikovic-spg-trajectories-coq.txt sums one trajectory per piece). The Hungarian
method, run per connected block of the bipartite graph."""

from __future__ import annotations

from typing import Callable

from retrologic.spg.distances import INF
from retrologic.spg.memo import Memo

# a block's value by its rows (a bitmask) followed by its columns' entries
BlockMemo = Memo[tuple, int]
# a block's minimum total: `hungarian` (ours) or `scipy_hungarian` (the same value)
Solver = Callable[[list[list[int]]], int]


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


def scipy_hungarian(cost: list[list[int]]) -> int:
    """`hungarian`'s value from SciPy's `linear_sum_assignment` (C): about ten times faster on
    the 12-row blocks of a middlegame (70 against 7 microseconds), but SciPy's import costs
    about 0.35 s, so only callers that load SciPy anyway ask for it (the legal-game finder,
    issue #19). INF entries stay INF: an assignment through one is "not allowed"."""
    from scipy.optimize import linear_sum_assignment
    if not cost:
        return 0
    if len(cost[0]) < len(cost):
        return INF
    rows, columns = linear_sum_assignment(cost)
    return min(sum(cost[i][j] for i, j in zip(rows.tolist(), columns.tolist())), INF)


def min_assignment(cost: list[list[int]]) -> int:
    """Minimum cost matching rows to distinct columns (INF: impossible)."""
    if not cost:
        return 0
    columns = list(zip(*cost))
    return column_assignment(columns, [finite_mask(c) for c in columns], len(cost))


def finite_mask(column: tuple) -> int:
    """The rows where the column's entry is allowed (< INF), as a bitmask."""
    mask = 0
    for i, c in enumerate(column):
        if c < INF:
            mask |= 1 << i
    return mask


def column_assignment(columns: list[tuple], masks: list[int], nrows: int,
                      memo: BlockMemo | None = None, solve: Solver = hungarian) -> int:
    """Minimum cost of matching each of `nrows` rows to a distinct column, given the columns
    and their `finite_mask`s: the bipartite graph is split into connected blocks first (most
    are a single row), and the Hungarian method (`solve`) runs on each block. `memo` keeps the
    blocks' values by their rows and columns. The blocks are merged from the distinct masks
    (units of one type and file often share one), then each takes the columns meeting it."""
    if nrows == 0:
        return 0
    blocks: list[int] = []  # the rows of each block, as bitmasks
    covered = 0
    for mask in set(masks):
        if not mask:
            continue
        covered |= mask
        merged = [mask]
        for block_rows in blocks:
            if block_rows & mask:
                merged[0] |= block_rows
            else:
                merged.append(block_rows)
        blocks = merged
    if covered != (1 << nrows) - 1:
        return INF
    total = 0
    for rows_mask in blocks:
        if not rows_mask & (rows_mask - 1):     # a single row: its cheapest entry
            i = rows_mask.bit_length() - 1
            # the columns meeting the row have their entry there, the others INF
            total += min([column[i] for column in columns])
        else:
            cols = [column for column, mask in zip(columns, masks) if mask & rows_mask]
            rows = [i for i in range(nrows) if rows_mask >> i & 1]
            if len(cols) < len(rows):
                return INF
            if memo is None:
                total += solve([[column[i] for column in cols] for i in rows])
            else:
                key = (rows_mask, *cols)  # rows, then the columns (in the units' order)
                value = memo.get(key)
                if value is None:
                    value = memo[key] = solve([[column[i] for column in cols] for i in rows])
                total += value
        if total >= INF:
            return INF
    return total
