"""Benchmark of the deduce question and the static cage rules, figures side by side with their
baselines in the same run:

  1. time per query over problems/deduce: pysat without cores (baseline) vs with MUS cores, vs
     CP-SAT deciding (pysat certifying its UNSATs), vs both cross-checked; median and max;
  2. certificates: writing (a fresh solve with proof) and checking with our own DRUP checker;
  3. the CLI's start-up for a deduce query vs `retrologic --version` (baseline), and whether
     ortools was imported (it must not be for the default engine);
  4. static_rules.reasons per position vs legality's counting rules (baseline), over random
     and closed games, with how often each cage structure occurred (coverage);
  5. the overhead of the limit mechanism (retrologic.limits.Budget): each query with no limit
     set (baseline) vs a time limit and a conflict budget too large to be hit (a timer per
     solver call, conflicts counted), runs interleaved so a busy machine loads both alike.

    python bench/deduce.py [--repeat N] [--games N] [--only limits]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from retrologic import problem  # noqa: E402
from retrologic.problem import SolveOptions  # noqa: E402

D_TO_E = "r1bqkbnr/pppppppp/8/8/4P3/4P3/PPP2PPP/RNBQKBNR b KQkq - 0 1"


def _queries():
    from retrologic.history.deduce import Constraint
    from retrologic.questions import deduce as dq
    out = []
    for path in sorted((ROOT / "problems" / "deduce").glob("*.toml")):
        prob = problem.load(path)
        a, c = [], []
        for t in prob.constraints:
            (c if t["role"] == "claim" else a).append(Constraint(t["name"], t["expr"], t["parsed"]))
        for key, target in (("assume", a), ("claim", c)):
            for i, text in enumerate(prob.question[key]):
                target.append(dq._constraint(text, f"{key}{i + 1}", key, None))
        out.append((path.stem, prob.position, a, c))
    return out


def _time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def bench_queries(repeat: int) -> None:
    from retrologic.history.deduce import deduce
    import ortools.sat.python.cp_model  # noqa: F401  (imported once, outside the timings)
    queries = _queries()
    modes = [("sat, no cores (baseline)", dict(engine="sat", explain=False)),
             ("sat + MUS cores", dict(engine="sat", explain=True)),
             ("cp-sat (+pysat on UNSAT)", dict(engine="cp-sat", explain=False)),
             ("both, cross-checked", dict(engine="both", explain=False))]
    times = {m: [] for m, _ in modes}
    print("1. time per problem file (best of %d), seconds" % repeat)
    print(f"   {'problem':38} " + " ".join(f"{m[:22]:>24}" for m, _ in modes))
    for name, pos, a, c in queries:
        row = []
        for m, kw in modes:
            t = _time(lambda: deduce(pos, a, c, **kw), repeat)
            times[m].append(t / max(1, len(c)))
            row.append(t)
        print(f"   {name:38} " + " ".join(f"{t:24.3f}" for t in row))
    base = statistics.median(times[modes[0][0]])
    print("   per claim (a file's time / its claims):")
    for m, _ in modes:
        med, mx = statistics.median(times[m]), max(times[m])
        print(f"   {m:30} median {med * 1000:8.1f} ms   max {mx * 1000:8.1f} ms   "
              f"median ratio to baseline {med / base:6.2f}")


def bench_certificates() -> None:
    from retrologic.certificate import check_file
    with tempfile.TemporaryDirectory() as tmp:
        plain, with_cert, checks, lemmas = [], [], [], []
        for path in sorted((ROOT / "problems" / "deduce").glob("*.toml")):
            prob = problem.load(path)
            t = time.perf_counter()
            problem.solve(prob)
            plain.append(time.perf_counter() - t)
            t = time.perf_counter()
            res = problem.solve(prob, SolveOptions(certificate_dir=f"{tmp}/{path.stem}"))
            with_cert.append(time.perf_counter() - t)
            for cert in res.details["certificates"]:
                t = time.perf_counter()
                v = check_file(cert)
                checks.append(time.perf_counter() - t)
                assert v.ok, (cert, v.reason)
                lemmas.append(int(re.search(r"(\d+) lemmas", v.reason).group(1)))
        print(f"\n2. certificates: {len(checks)} written and accepted")
        print(f"   solve per file: {statistics.median(plain):.3f} s median (baseline) vs "
              f"{statistics.median(with_cert):.3f} s with certificates "
              f"(ratio {statistics.median(with_cert) / statistics.median(plain):.2f})")
        print(f"   DRUP check per certificate: median {statistics.median(checks):.3f} s, max "
              f"{max(checks):.3f} s; lemmas median {statistics.median(lemmas):.0f}, max {max(lemmas)}")


def bench_startup(repeat: int) -> None:
    def run(args: list[str]) -> float:
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "retrologic", *args], capture_output=True,
                               text=True, cwd=ROOT)
            best = min(best, time.perf_counter() - t)
            assert r.returncode in (0, 1), r.stderr
        return best
    base = run(["--version"])
    query = run(["deduce", D_TO_E, "--claim", "captures(black) == 0"])
    cp = run(["deduce", D_TO_E, "--claim", "captures(black) == 0", "--engine", "cp-sat"])
    code = ("import sys; from retrologic.cli import main; "
            f"main(['deduce', {D_TO_E!r}, '--claim', 'captures(black) == 0']); "
            "print('ortools imported' if 'ortools' in sys.modules else 'ortools not imported')")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    print(f"\n3. CLI start-up (best of {repeat}): `retrologic --version` {base:.3f} s (baseline); "
          f"`retrologic deduce FEN --claim ...` {query:.3f} s (ratio {query / base:.2f}); "
          f"with --engine cp-sat {cp:.3f} s (ratio {cp / base:.2f}); default engine: "
          f"{r.stdout.strip().splitlines()[-1]}")


def bench_static(games: int) -> None:
    import chess

    from conftest import random_game
    from retrologic.legality import rules as legality
    from retrologic.legality import static_cages as static_rules
    from retrologic.position import Position
    from test_static_rules import closed_game
    for label, make in (("random games", random_game), ("closed games", closed_game)):
        positions = []
        for seed in range(games):
            for board, move in make(seed):
                positions.append(Position.from_board(board))
        t = time.perf_counter()
        fired = sum(bool(static_rules.reasons(p)) for p in positions)
        ours = (time.perf_counter() - t) / len(positions)
        t = time.perf_counter()
        for p in positions:
            legality.count_reasons(p)
        base = (time.perf_counter() - t) / len(positions)
        cover = Counter()
        for p in positions:
            frozen = static_rules.frozen_units(p)
            if frozen & ~p.placement.pawns & ~static_rules.castling_frozen(p.castling):
                cover["piece frozen by the fixpoint"] += 1
            if static_rules.sealed_homes(p, frozen):
                cover["sealed home"] += 1
            for c in chess.COLORS:
                for _, kind, _ in static_rules._regions(p, c, frozen):
                    cover[f"{kind} cage"] += 1
        print(f"\n4. static rules over {len(positions)} positions of {games} {label}: "
              f"{ours * 1e6:.0f} us per position vs legality.count_reasons {base * 1e6:.0f} us "
              f"(ratio {ours / base:.1f}); fired on {fired} (must be 0)")
        print("   structures met: " + ", ".join(f"{k} {v}" for k, v in sorted(cover.items())))


def bench_limits(repeat: int) -> None:
    from retrologic.history.deduce import deduce
    queries = _queries()
    unset = {name: float("inf") for name, *_ in queries}
    limited = dict(unset)
    conflicts = {}
    for i in range(repeat):
        for name, pos, a, c in queries:
            runs = [("unset", {}), ("set", dict(timeout=1e6, conflicts=10**12))]
            for label, kw in (runs if i % 2 == 0 else runs[::-1]):
                t = time.process_time()         # CPU time (timer threads included): a busy
                d = deduce(pos, a, c, explain=True, **kw)   # machine barely moves it
                took = time.process_time() - t
                table = unset if label == "unset" else limited
                table[name] = min(table[name], took)
                conflicts.setdefault(name, set()).add(d.stats["conflicts"])
    ratios = [limited[n] / unset[n] for n in unset]
    print(f"\n5. limit mechanism (CPU time, best of {repeat}, interleaved): no limit set (baseline) total "
          f"{sum(unset.values()):.3f} s vs --timeout 1e6 --nodes 1e12 {sum(limited.values()):.3f} s "
          f"(ratio {sum(limited.values()) / sum(unset.values()):.3f}); per query median ratio "
          f"{statistics.median(ratios):.3f}, max {max(ratios):.3f}; conflicts per query the "
          f"same in every run: {all(len(v) == 1 for v in conflicts.values())}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--only", choices=["limits"], help="run one section only")
    args = ap.parse_args()
    if args.only == "limits":
        bench_limits(args.repeat)
        return
    bench_queries(args.repeat)
    bench_certificates()
    bench_startup(args.repeat)
    bench_static(args.games)
    bench_limits(args.repeat)


if __name__ == "__main__":
    main()
