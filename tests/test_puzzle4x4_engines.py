"""The 4x4 puzzle's other engines: the retrograde table against the forward search, the rating
against exact and brute-force values, the symmetry-reduced index, and the census runners."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from functools import lru_cache
from itertools import permutations

import numpy as np
import pytest

from conftest import puzzle_walk as walk
from retrologic.puzzle4x4 import game as p4
from retrologic.puzzle4x4.checker import check_certificate
from retrologic.puzzle4x4 import census
from retrologic.puzzle4x4 import index as idx
from retrologic.puzzle4x4 import rate
from retrologic.puzzle4x4 import retro
from retrologic.tablebase import retrograde as rg




# --- retrograde engine vs forward search --------------------------------------------------------

def test_retrograde_agrees_with_forward_search_on_every_reachable_position() -> None:
    total = won = 0
    for seed, plies in [(1, 3), (2, 4), (3, 5), (4, 6), (5, 6), (6, 7), (7, 8), (9, 9)]:
        start = walk(seed, plies)
        game, sol = retro.solve(start, limit=200_000)
        assert sol.complete
        failed: set[int] = set()
        for i, key in enumerate(game.keys.tolist()):
            solvable = p4.solvable(key, failed)
            assert (sol.outcome[i] == rg.WIN) == solvable, p4.to_string(key)
            if solvable:   # every line has one capture per unit but the king
                assert sol.dist[i] == sum(1 for s in range(16) if p4.piece_at(key, s)) - 1
        line = retro.winning_line(game, sol)
        assert (line is None) == (sol.outcome[int(game.index([start])[0])] != rg.WIN)
        if line is not None:
            assert check_certificate(p4.certificate(start, line)).ok
        total += game.size
        won += int((sol.outcome == rg.WIN).sum())
    assert total > 50_000 and 0 < won < total


def test_reachable_game_is_closed_and_predecessors_match_successors() -> None:
    game = retro.ReachableGame(walk(12, 6))
    every = np.arange(game.size, dtype=np.int64)
    row, child = game.successors(every)
    edges = set(zip(row.tolist(), child.tolist()))
    for c in range(0, game.size, max(1, game.size // 300)):
        parents = set(game.predecessors(np.array([c])).tolist())
        assert parents == {p for p, q in edges if q == c}


def test_retrograde_limit_gives_unknown() -> None:
    with pytest.raises(p4.LimitReached):
        retro.ReachableGame(p4.parse("Nbrn/kqQB/nNRR/rbBK"), limit=1000)


# --- rating -------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def brute_probability(key: int) -> Fraction:
    if p4.is_solved(key):
        return Fraction(1)
    ms = p4.moves(key)
    if not ms:
        return Fraction(0)
    return sum((brute_probability(p4.play(key, m)) for m in ms), Fraction(0)) / len(ms)


def test_exact_probability_matches_brute_force() -> None:
    for seed in range(40):
        key = walk(seed, 6 + seed % 6)
        assert rate.exact_probability(key) == brute_probability(key)


def test_playout_estimate_covers_the_exact_value() -> None:
    misses = 0
    keys = [k for k in (walk(s, 6) for s in range(60)) if brute_probability(k) > 0][:12]
    for n, key in enumerate(keys):
        r = rate.rate(key, playouts=3000, seed=n)
        exact = float(brute_probability(key))
        misses += not r["p_low"] <= exact <= r["p_high"]
        if r["p"] > 0:
            assert r["difficulty_bits"] == pytest.approx(-np.log2(r["p"]))
    assert misses <= 2          # a 95% interval: about 0.6 misses expected among 12


def test_rate_reports_first_moves_and_unsolvable() -> None:
    r = rate.rate(p4.parse("4/2qn/1K2/2N1"), playouts=100)
    assert r["first_moves"] == 2 and r["good_first_moves"] == 0 and not r["solvable"]
    assert r["p"] == 0 and r["difficulty_bits"] == float("inf")
    r = rate.rate(p4.parse("K3/k3/4/4"), exact=True)
    assert r["p"] == 1 and r["difficulty_bits"] == 0


def test_generate_hits_the_target() -> None:
    got = rate.generate(6.0, tolerance=0.5, seed=3, playouts=1000, attempts=200)
    assert got is not None
    key, r = got
    assert abs(r["difficulty_bits"] - 6.0) <= 0.5
    again = rate.rate(key, playouts=20000, seed=99)
    assert abs(again["difficulty_bits"] - 6.0) <= 0.5 + 0.3


# --- the symmetry-reduced index -----------------------------------------------------------------

def test_symmetries_preserve_the_rules() -> None:
    for seed in range(60):
        key = walk(seed, seed % 10)
        for image in idx.SYMMETRIES:
            moved = idx.transform(key, image)
            assert sorted(idx.transform(p4.play(key, m), image) for m in p4.moves(key)) == \
                sorted(p4.play(moved, m) for m in p4.moves(moved))


def test_each_orbit_has_exactly_one_representative() -> None:
    rng = random.Random(4)
    for _ in range(300):
        key = p4.random_start(rng)
        images = {idx.transform(key, image) for image in idx.SYMMETRIES}
        reps = [k for k in images if idx.is_representative(k)]
        assert len(reps) == 1 and reps[0] == idx.canonical(key)
        i = idx.index_of(key)
        assert dict(idx.starts(i, i + 1)) == {i: reps[0]}


def test_rank_unrank_and_lexicographic_stepping() -> None:
    rng = random.Random(5)
    for _ in range(200):
        r = rng.randrange(idx.BLOCK)
        a = idx.unrank(r)
        assert idx.rank_of(a) == r and sorted(a) == idx.OTHERS
        if idx.next_arrangement(a):
            assert idx.rank_of(a) == r + 1
    assert idx.unrank(0) == idx.OTHERS and idx.unrank(idx.BLOCK - 1) == idx.OTHERS[::-1]


def test_mirror_symmetric_count() -> None:
    """Brute force over the diagonal-symmetric starts with the king on a4: the unique units sit
    on the diagonal, the six pairs on the six mirrored square pairs."""
    pairs = [(s, idx.DIAGONAL[s]) for s in range(16) if s < idx.DIAGONAL[s]]
    diag = [s for s in range(16) if idx.DIAGONAL[s] == s and s != 0]
    twins = sorted({c for c in idx.OTHERS if idx.OTHERS.count(c) == 2})
    singles = [c for c in idx.OTHERS if idx.OTHERS.count(c) == 1]
    found = set()
    for d in permutations(singles):
        for t in permutations(twins):
            key = p4.WK
            for s, c in zip(diag, d):
                key |= c << (4 * s)
            for (a, b), c in zip(pairs, t):
                key |= (c << (4 * a)) | (c << (4 * b))
            assert idx.transform(key, idx.DIAGONAL) == key
            found.add(key)
    assert len(found) == idx.SYMMETRIC_PER_BLOCK == 4320
    assert idx.CANONICAL == 40_864_828_320
    # Burnside: the identity fixes all 16 * BLOCK starts, each diagonal reflection 4 * 4320
    assert idx.CANONICAL * 8 == 16 * idx.BLOCK + 2 * 4 * idx.SYMMETRIC_PER_BLOCK


def test_index_block_counts_on_a_slice() -> None:
    """Block 0 keeps every index; the diagonal blocks keep an arrangement or its mirror image."""
    assert sum(1 for _ in idx.starts(1000, 3000)) == 2000
    kept = dict(idx.starts(idx.BLOCK + 5_000_000, idx.BLOCK + 5_004_000))
    for i, key in kept.items():
        assert idx.is_representative(key) and idx.index_of(key) == i


# --- census -------------------------------------------------------------------------------------

def test_census_local_resumes_and_summarises(tmp_path) -> None:
    tasks = census.index_tasks(idx.BLOCK, idx.BLOCK + 1200, 400, engine="python")
    assert len(tasks) == 3
    first = census.run(tasks[:2], tmp_path, workers=1)
    assert first["complete"] and first["starts"] > 0
    summary = census.run(tasks, tmp_path, workers=2)
    assert summary["run"]["new_starts"] == summary["starts"] - first["starts"]
    direct = sum(1 for _ in idx.starts(idx.BLOCK, idx.BLOCK + 1200))
    assert summary["starts"] == direct and summary["solvable"] + summary["unsolvable_count"] == direct
    again = census.run(tasks, tmp_path, workers=2)
    assert again["run"]["new_starts"] == 0 and again["starts"] == direct
    shard = json.loads((tmp_path / census._name(tasks[0])).read_text())
    assert shard["lo"] == tasks[0][1] and shard["hi"] == tasks[0][2]


def test_census_sample_is_reproducible(tmp_path) -> None:
    a = census.run(census.sample_tasks(300, 7, 100, "python"), tmp_path / "a", workers=1)
    b = census.run(census.sample_tasks(300, 7, 100, "auto"), tmp_path / "b", workers=1)
    assert a["starts"] == b["starts"] == 300 and a["solvable"] == b["solvable"] == 300


def test_census_finds_unsolvable_starts(monkeypatch, tmp_path) -> None:
    """Make the solver see an unsolvable start: the census must list it with its index."""
    task = ("index", 0, 50)
    real = p4.Solver.solve
    target = dict(idx.starts(0, 50))[17]
    monkeypatch.setattr(p4.Solver, "solve", lambda self, key: None if key == target else real(self, key))
    res = census.index_shard(0, 50)
    assert res["unsolvable"] == [{"index": 17, "board": p4.to_string(target)}]


def test_census_cli(tmp_path, capsys) -> None:
    from retrologic.cli import main
    out = tmp_path / "c"
    assert main(["puzzle4x4", "census", "--range", "0:300", "--shard-size", "150", "--workers",
                 "1", "--engine", "python", "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["starts"] == 300 and summary["complete"]
    assert json.loads((out / "summary.json").read_text())["starts"] == 300
    assert main(["puzzle4x4", "census", "--range", "5:2", "--out", str(out)]) == 3


def test_census_on_dask_local_cluster(tmp_path) -> None:
    pytest.importorskip("dask.distributed", reason="the optional extra 'cluster' is not installed")
    tasks = census.index_tasks(0, 400, 200, engine="python")
    summary = census.run(tasks, tmp_path, workers=2, dask="local")
    assert summary["complete"] and summary["starts"] == 400 and summary["run"]["runner"] == "dask local"


# --- the compiled kernel (extra 'fast') -----------------------------------------------------------

def _fast():
    pytest.importorskip("numba", reason="the optional extra 'fast' (numba) is not installed")
    from retrologic.puzzle4x4 import fast
    return fast


def test_fast_kernel_agrees_with_the_solver() -> None:
    fast = _fast()
    keys = [walk(seed, seed % 13) for seed in range(1500)]
    for bits in (21, 6):                    # a tiny memo table is cleared again and again
        ok, nodes = fast.FastSolver(table_bits=bits).solve(keys)
        assert ok.tolist() == [p4.solve(k) is not None for k in keys]
    assert 0 < sum(ok) < len(keys)


def test_fast_census_matches_the_index(tmp_path) -> None:
    fast = _fast()
    kernel = fast.FastSolver(table_bits=10)
    for lo in (0, idx.BLOCK - 300, 2 * idx.BLOCK + 12345):
        got = kernel.census(lo, lo + 900)
        direct = list(idx.starts(lo, lo + 900))
        assert got["starts"] == len(direct) == got["solvable"]
    tasks = census.index_tasks(idx.BLOCK, idx.BLOCK + 2000, 1000, engine="numba")
    summary = census.run(tasks, tmp_path, workers=1)
    assert summary["starts"] == sum(1 for _ in idx.starts(idx.BLOCK, idx.BLOCK + 2000))


def test_fast_census_confirms_unsolvable_starts(monkeypatch) -> None:
    """A start the kernel calls unsolvable is re-solved by the Python solver before it is listed."""
    _fast()
    kernel = census._fast()
    target = dict(idx.starts(0, 50))[17]
    monkeypatch.setattr(type(kernel), "census", lambda self, lo, hi: {
        "starts": 50, "solvable": 49, "nodes": 0, "unsolvable_indices": [17]})
    with pytest.raises(AssertionError, match="disagree"):
        census.index_shard(0, 50, "numba")
    real = p4.Solver.solve
    monkeypatch.setattr(p4.Solver, "solve", lambda self, key: None if key == target else real(self, key))
    assert census.index_shard(0, 50, "numba")["unsolvable"] == [{"index": 17, "board": p4.to_string(target)}]
