"""Time per last-move problem over problems/lastmove: median and max, with and without the
memo tables of the refutation search (the baseline), and the nodes each examined; then the
overhead of the limit mechanism (retrologic.limits.Budget): each problem with no time limit
(baseline) vs a time limit too large to be hit, best of N runs interleaved, with the check that
verdicts, answers and node counts are the same.

    python bench/lastmove.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from retrologic import problem  # noqa: E402
from retrologic.lastmove import search as lastmove
from retrologic.problem import SolveOptions  # noqa: E402


class NoMemo(dict):
    """A memo table that forgets everything: the baseline search."""

    def __setitem__(self, key, value) -> None:
        pass


def run(path: Path, memo: bool) -> tuple[float, str, int]:
    prob = problem.load(path)
    t0 = time.perf_counter()
    if memo:
        result = problem.solve(prob)
        nodes = result.details["nodes"]
    else:
        original = lastmove.Search.__init__

        def patched(self, *a, **kw):
            original(self, *a, **kw)
            self.refuted, self.unrefuted = NoMemo(), NoMemo()
        lastmove.Search.__init__ = patched
        try:
            result = problem.solve(prob)
        finally:
            lastmove.Search.__init__ = original
        nodes = result.details["nodes"]
    return time.perf_counter() - t0, result.verdict, nodes


def bench_limits(files: list[Path], repeat: int) -> None:
    """Each problem without a time limit (baseline) and with --timeout 1e6, interleaved."""
    best = {"unset": {}, "set": {}}
    seen: dict[str, set] = {}
    for i in range(repeat):
        for path in files:
            prob = problem.load(path)
            runs = [("unset", SolveOptions()), ("set", SolveOptions(timeout=1e6))]
            for label, options in (runs if i % 2 == 0 else runs[::-1]):
                t = time.process_time()         # CPU time: a busy machine barely moves it
                res = problem.solve(prob, options)
                took = time.process_time() - t
                best[label][path.stem] = min(best[label].get(path.stem, took), took)
                seen.setdefault(path.stem, set()).add(
                    (res.verdict, tuple(sorted(res.answer or [])), res.details["nodes"]))
    unset, limited = best["unset"], best["set"]
    ratios = [limited[n] / unset[n] for n in unset]
    print(f"limit mechanism (CPU time, best of {repeat}, interleaved): no time limit (baseline) total "
          f"{sum(unset.values()) * 1e3:.1f} ms vs --timeout 1e6 {sum(limited.values()) * 1e3:.1f} ms "
          f"(ratio {sum(limited.values()) / sum(unset.values()):.3f}); per problem median ratio "
          f"{statistics.median(ratios):.3f}, max {max(ratios):.3f}; verdicts, answers and node "
          f"counts identical: {all(len(v) == 1 for v in seen.values())}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    files = sorted((ROOT / "problems" / "lastmove").glob("*.toml"))
    run(files[0], True)  # warm-up: imports and first-call costs are not a problem's time
    rows = []
    print(f"{'problem':<34} {'verdict':<8} {'ms':>8} {'nodes':>8} {'no-memo ms':>11} {'nodes':>8}")
    for path in files:
        t, verdict, nodes = run(path, True)
        tb, verdict_b, nodes_b = run(path, False)
        assert verdict == verdict_b, f"{path.name}: memo changes the verdict"
        rows.append((t, tb))
        print(f"{path.stem:<34} {verdict:<8} {t * 1e3:8.1f} {nodes:8d} {tb * 1e3:11.1f} {nodes_b:8d}")
    times = [r[0] for r in rows]
    base = [r[1] for r in rows]
    print(f"median {statistics.median(times) * 1e3:.1f} ms, max {max(times) * 1e3:.1f} ms "
          f"over {len(times)} problems; baseline (no memo) median {statistics.median(base) * 1e3:.1f} ms, "
          f"max {max(base) * 1e3:.1f} ms; total ratio {sum(base) / sum(times):.2f}x")
    bench_limits(files, args.repeat)


if __name__ == "__main__":
    main()
