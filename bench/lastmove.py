"""Time per last-move problem over problems/lastmove: median and max, with and without the
memo tables of the refutation search (the baseline), and the nodes each examined; then the
overhead of the limit mechanism (retrologic.limits.Budget): each problem with no time limit
(baseline) vs a time limit too large to be hit, best of N runs interleaved, with the check that
verdicts, answers and node counts are the same.

    python bench/lastmove.py [--repeat N]
    python bench/lastmove.py --collection [--timeout S] [FILE ...]

`--collection` runs the record problems of bench/lastmove-collection (or the FILEs) one at a
time under `--timeout` (default 30 s, as in bench/lastmove-collection/README.md) and counts
them: *unique* with the published answer, *unknown*, or wrong (a proved answer that is not the
published one: must stay 0); with each file's CPU time. Brandis (Hwa's Figure 1: a game into
the corner cage by the plan finder, issue #19) is `problems/lastmove/brandis.toml`.
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


def nodes_of(details: dict) -> int:
    """The positions a solve examined (a duplex problem: both sides' searches)."""
    if "duplex" in details:
        return sum(side.get("nodes", 0) for side in details["duplex"].values())
    return details["nodes"]


def run(path: Path, memo: bool) -> tuple[float, str, int]:
    prob = problem.load(path)
    t0 = time.perf_counter()
    if memo:
        result = problem.solve(prob)
        nodes = nodes_of(result.details)
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
        nodes = nodes_of(result.details)
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
                    (res.verdict, tuple(sorted(res.answer or [])), nodes_of(res.details)))
    unset, limited = best["unset"], best["set"]
    ratios = [limited[n] / unset[n] for n in unset]
    print(f"limit mechanism (CPU time, best of {repeat}, interleaved): no time limit (baseline) total "
          f"{sum(unset.values()) * 1e3:.1f} ms vs --timeout 1e6 {sum(limited.values()) * 1e3:.1f} ms "
          f"(ratio {sum(limited.values()) / sum(unset.values()):.3f}); per problem median ratio "
          f"{statistics.median(ratios):.3f}, max {max(ratios):.3f}; verdicts, answers and node "
          f"counts identical: {all(len(v) == 1 for v in seen.values())}")


def solve_counted(path: Path, timeout: float, plan: bool) -> tuple[str, float, list[str]]:
    """One record problem under `timeout`, with or without the plan finder (the baseline:
    `plan_tail.find_with_tail` finds nothing): its label, CPU seconds and proved answer."""
    from retrologic.legalgame import plan_tail
    prob = problem.load(path)
    want = sorted((prob.expect or {}).get("answer") or [])
    original = plan_tail.find_with_tail
    if not plan:
        plan_tail.find_with_tail = lambda *a, **kw: None
    try:
        t = time.process_time()
        res = problem.solve(prob, SolveOptions(timeout=timeout))
        took = time.process_time() - t
    finally:
        plan_tail.find_with_tail = original
    got = sorted(res.answer or [])
    if str(res.verdict) != "proved":
        return "unknown", took, []
    if res.facts.get("finding") == "unique" and got == want:
        return "unique-right", took, got
    return "wrong", took, got


def collection(files: list[Path], timeout: float, modes: tuple[str, ...]) -> None:
    """Each record problem under `timeout`, the baseline (no plan finder) and the plan finder
    side by side (their order alternating): unique-right, unknown or wrong, with CPU times."""
    counts = {label: {"unique-right": 0, "unknown": 0, "wrong": 0} for label in modes}
    for i, path in enumerate(files):
        row = {}
        for mode in (modes if i % 2 == 0 else modes[::-1]):
            row[mode] = solve_counted(path, timeout, mode == "plan")
        for label, (verdict, _, _) in row.items():
            counts[label][verdict] += 1
        print(f"{path.name:<34} " + " | ".join(
            f"{mode} {row[mode][0]:<13} {row[mode][1]:6.1f} s {row[mode][2] or ''}"
            for mode in modes), flush=True)
    for label, count in counts.items():
        print(f"{label}: {len(files)} problems, --timeout {timeout:g}: " +
              ", ".join(f"{k} {v}" for k, v in count.items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--collection", action="store_true",
                    help="the record problems of bench/lastmove-collection, counted")
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--modes", default="base,plan",
                    help="base (no plan finder), plan, or both (default base,plan)")
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args()
    if args.collection:
        collection(args.files or sorted((ROOT / "bench" / "lastmove-collection").glob("*.toml")),
                   args.timeout, tuple(args.modes.split(",")))
        return
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
