"""Time per last-move problem over problems/lastmove: median and max, with and without the
memo tables of the refutation search (the baseline), and the nodes each examined.

    python bench/lastmove.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from retrologic import lastmove, problem  # noqa: E402


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


def main() -> None:
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


if __name__ == "__main__":
    main()
