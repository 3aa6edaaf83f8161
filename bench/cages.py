"""Time per cage problem over problems/cages: median and max, side by side with the paper's
algorithm as the baseline (depth-first, pruning only repetitions on the current branch, a depth
cap, no cache), run on the same transitions and rules.

    python bench/cages.py [--repeat 5] [--depth 30] [--baseline-nodes 50000]
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
from retrologic.cages.search import start_position  # noqa: E402
from retrologic.cages.rules import prune_rule, restrictions_from, zone_mask  # noqa: E402
from retrologic.position import Position, all_home  # noqa: E402
from retrologic.retract import apply, retractions  # noqa: E402


class Cap(Exception):
    pass


def paper_search(start: Position, zone: int, model: str, rules, depth: int, cap: int) -> tuple[str, int]:
    """Hwa's section 3 algorithm: True (verified) unless a branch reaches all-home/empty or the
    depth cap; positions repeated on the current branch are pruned. Returns (verdict, nodes)."""
    nodes = 0
    branch: set[Position] = set()

    def rec(pos: Position, d: int) -> bool:
        nonlocal nodes
        nodes += 1
        if nodes > cap:
            raise Cap
        if pos in branch:
            return True
        if d >= depth or all_home(pos.placement):
            return False
        branch.add(pos)
        try:
            for r in retractions(pos, uncaptures="open"):
                q = apply(pos, r)
                if prune_rule(pos, r, q.placement, model, rules) is not None:
                    continue
                gone = q.placement.occupied & ~zone
                child = Position(q.placement.without(gone), None, q.castling, None, q.frozen & ~gone, True)
                if not rec(child, d + 1):
                    return False
            return True
        finally:
            branch.discard(pos)

    try:
        return ("proved" if rec(start, 0) else "refuted"), nodes
    except Cap:
        return "unknown", nodes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--depth", type=int, default=30)
    ap.add_argument("--baseline-nodes", type=int, default=50_000)
    args = ap.parse_args()
    files = sorted((ROOT / "problems" / "cages").glob("*.toml"))
    problem.solve(problem.load(files[0]))            # warm-up: imports, first-call costs
    rows = []
    print(f"{'problem':44s} {'verdict':8s} {'states':>6s} {'ms':>8s} | {'paper DFS':9s} "
          f"{'nodes':>7s} {'ms':>9s} {'ratio':>7s}")
    for path in files:
        prob = problem.load(path)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            res = problem.solve(prob)
            times.append(time.perf_counter() - t0)
        ms = statistics.median(times) * 1000
        q = prob.question
        rules, never = restrictions_from(prob.constraints, prob.position)
        start = start_position(prob.position, q["frozen"])
        start = Position(start.placement, None, start.castling, None, start.frozen | never, True)
        zone = zone_mask(None if q["zone"] == "auto" else q["zone"], start.placement)
        t0 = time.perf_counter()
        base, nodes = paper_search(start, zone, q["model"], rules, args.depth, args.baseline_nodes)
        base_ms = (time.perf_counter() - t0) * 1000
        note = "" if not prob.lemmas and not q["library"] else " (lemmas: not in the baseline)"
        rows.append((ms, base_ms))
        print(f"{path.stem:44s} {res.verdict:8s} {res.facts['states']:6d} {ms:8.2f} | {base:9s} "
              f"{nodes:7d} {base_ms:9.2f} {base_ms / ms:6.1f}x{note}")
    ours = [r[0] for r in rows]
    base = [r[1] for r in rows]
    print(f"\nfiles: {len(rows)}; exact reachability (median of {args.repeat} runs each): "
          f"median {statistics.median(ours):.2f} ms, max {max(ours):.2f} ms")
    print(f"paper's DFS (depth cap {args.depth}, node cap {args.baseline_nodes}): "
          f"median {statistics.median(base):.2f} ms, max {max(base):.2f} ms; "
          f"ratio of medians {statistics.median(base) / statistics.median(ours):.1f}x")
    ok = statistics.median(ours) < 20 and max(ours) < 1000
    print(f"target median < 20 ms and max < 1 s: {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
