"""4x4 capture puzzle: random starting positions solved per second on one core and on all cores,
side by side with the original solver's algorithm (depth-first search with the isolated-king
prune, no memo) in the same run; the compiled kernel (numba, when installed); the census rate over
the symmetry-reduced index and what it implies for the whole set; the retrograde engine against
the forward search on one table.

    python bench/puzzle4x4.py [--starts 3000] [--census 20000] [--workers N]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retrologic.puzzle4x4 import game as p4  # noqa: E402
from retrologic.puzzle4x4 import census  # noqa: E402
from retrologic.puzzle4x4 import index as idx  # noqa: E402


class NoMemo(set):
    """A memo that remembers nothing: the original solver's plain depth-first search."""

    def __contains__(self, key: object) -> bool:
        return False

    def add(self, key: object) -> None:
        pass


def solve_batch(args: tuple[list[int], bool]) -> tuple[int, int]:
    """Solve each start with a fresh memo (or none); (solved, nodes)."""
    keys, memo = args
    solved = nodes = 0
    for key in keys:
        s = p4.Solver(failed=set() if memo else NoMemo())
        solved += s.solve(key) is not None
        nodes += s.nodes
    return solved, nodes


def timed(fn, *a):
    """(result, CPU seconds of this process): robust to other jobs sharing the machine."""
    t0 = time.process_time()
    out = fn(*a)
    return out, time.process_time() - t0


def parallel(keys: list[int], memo: bool, workers: int) -> float:
    """Wall seconds to solve `keys` split over `workers` processes (pool start-up excluded)."""
    chunks = [(keys[i::workers * 8], memo) for i in range(workers * 8)]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        pool.map(solve_batch, [([], memo)] * workers)          # warm the workers up
        t0 = time.perf_counter()
        res = pool.map(solve_batch, chunks)
        dt = time.perf_counter() - t0
    assert sum(r[0] for r in res) == len(keys)
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=3000)
    ap.add_argument("--census", type=int, default=20000, help="indices per census measurement")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    keys = [p4.random_start(rng) for _ in range(args.starts)]
    w = args.workers
    print(f"4x4 capture puzzle bench: {args.starts} random starts (seed {args.seed}), "
          f"{w} worker(s) on {os.cpu_count()} core(s)")

    (solved, nodes), t_memo = timed(solve_batch, (keys, True))
    (solved0, nodes0), t_plain = timed(solve_batch, (keys, False))
    assert solved == solved0 == len(keys), "a random start was unsolvable: report it!"
    print("\nrandom starts, one core (per CPU second)   starts/s   nodes/start")
    print(f"  original algorithm (no memo)           {len(keys) / t_plain:9.0f}   {nodes0 / len(keys):10.1f}")
    print(f"  memoised solver                        {len(keys) / t_memo:9.0f}   {nodes / len(keys):10.1f}"
          f"   x{t_plain / t_memo:.2f}")
    t_par = parallel(keys, True, w)
    print(f"  memoised solver, {w} processes (wall)   {len(keys) / t_par:9.0f}                "
          f"x{t_memo / t_par:.2f} of one core")

    from retrologic.puzzle4x4 import fast
    engines = ["python"] + (["numba"] if fast.available() else [])
    if "numba" in engines:
        kernel = fast.FastSolver()
        kernel.solve(keys[:10])                                   # compile (or load the cache)
        (ok, knodes), t_fast = timed(kernel.solve, keys)
        assert ok.all()
        print(f"  compiled kernel (numba)                {len(keys) / t_fast:9.0f}   {knodes.mean():10.1f}"
              f"   x{t_plain / t_fast:.0f} (x{t_memo / t_fast:.0f} of the memoised solver)")
    else:
        print("  compiled kernel: numba is not installed (pip install 'retrologic[fast]')")

    # census: consecutive indices share deep positions, so the memo is kept along a shard
    lo_a4 = idx.BLOCK + 7_777_777_777        # a slice of the a4 block (half its indices are mirrors)
    lo_b4 = 3_333_333_333                    # a slice of the b4 block (every index kept)
    whole = idx.CANONICAL
    print(f"\nthe symmetry-reduced set: {whole:,} starts ({idx.SIZE:,} indices)")
    print("census (shard files, summary)        indices     starts   CPU s   starts/CPU s  wall starts/s")
    print("  (CPU s: process time of the workers' shards; wall: the whole run, process start-up included)")
    for engine in engines:
        n = args.census * (50 if engine == "numba" else 1)
        rates = []
        for label, a, workers in [("b4 block, 1 process", lo_b4, 1), ("a4 block, 1 process", lo_a4, 1),
                                  (f"b4 block, {w} processes", lo_b4 + n, w)]:
            shard = max(1, n // (4 * workers)) if workers > 1 else n
            tasks = census.index_tasks(a, a + n, shard, engine)
            with tempfile.TemporaryDirectory() as d:
                t0 = time.perf_counter()
                s = census.run(tasks, d, workers=workers)
                wall = time.perf_counter() - t0
            assert s["complete"] and s["unsolvable_count"] == 0, s["unsolvable"]
            rates.append((label, s["starts"] / wall, s["starts_per_cpu_second"]))
            print(f"  {engine:6s} {label:24s} {n:9d} {s['starts']:9d} {s['cpu_seconds']:8.1f}"
                  f" {s['starts_per_cpu_second']:13.0f} {s['starts'] / wall:13.0f}")
        per_cpu = sum(r[2] for r in rates[:2]) / 2
        print(f"  {engine}: {per_cpu:,.0f} starts per CPU second -> the whole set takes "
              f"{whole / per_cpu / 86400:,.1f} CPU days; this machine ({w} processes, "
              f"{rates[2][1]:,.0f}/s): {whole / rates[2][1] / 86400:,.1f} days; cores for 24 h: "
              f"{whole / per_cpu / 86400:,.0f}, for 6 h: {whole / per_cpu / 21600:,.0f}")

    # retrograde engine against the forward search on one table
    from retrologic.puzzle4x4 import retro
    from retrologic.tablebase import retrograde as rg
    start = None
    for s_ in range(200):
        r = random.Random(s_)
        k = p4.random_start(r)
        for _ in range(4):
            ms = p4.moves(k)
            k = p4.play(k, r.choice(ms)) if ms else k
        n = len(retro.reachable(k))
        if 20_000 < n < 80_000:
            start = k
            break
    if start is not None:
        (game, sol), t_retro = timed(retro.solve, start)
        failed: set[int] = set()
        t0 = time.process_time()
        agree = all((sol.outcome[i] == rg.WIN) == p4.solvable(key, failed)
                    for i, key in enumerate(game.keys.tolist()))
        t_fwd = time.process_time() - t0
        print(f"\nretrograde table of {p4.to_string(start)}: {game.size} reachable positions (CPU s)")
        for label, t in (("retrograde engine (enumerate + cycles)", t_retro),
                         ("forward search on every position (memo)", t_fwd)):
            print(f"  {label:40s} {t:6.2f} s  {game.size / t:9.0f} positions/s")
        print(f"  agree on every position: {agree}")


if __name__ == "__main__":
    main()
