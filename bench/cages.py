"""Time per cage problem over problems/cages: median and max, side by side with the paper's
algorithm as the baseline (depth-first, pruning only repetitions on the current branch, a depth
cap, no cache), run on the same transitions and rules.

    python bench/cages.py [--repeat 5] [--depth 30] [--baseline-nodes 50000]

A whole collection (bench/cages-collection.txt) verified in order three ways, side by side:
no learning, learning each cage's start board only (the old `--learn`), and learning every
board of each closed set (Hwa's bootstrapping); time, positions and verdicts per board:

    python bench/cages.py --collection [FILE] [--nodes 20000]
    python bench/cages.py --make-collection      # rewrite bench/cages-collection.txt

Library lookup cost with thousands of entries (indexed against testing every entry):

    python bench/cages.py --lookup [--entries 2000]

Positions per second of the explicit engines on big cages (bench/cages-big.txt, 10^3-10^5
reachable positions, lines model), side by side in the same run: the fast engine
(cages.fast, the default) on the whole set, the reference engine (cages.search's own loop,
`engine="explicit"`) on the whole set or its first --old-nodes positions; both wall-clock and
CPU-time rates (the machine is shared: CPU time is the one-core figure), and with --memory
the traced memory per position of the fast engine's search (a separate run under tracemalloc):

    python bench/cages.py --speed [FILE] [--old-nodes 20000] [--memory]

The SAT engine (cages.sat, k-induction with pysat) beside both explicit engines (fast and
reference) on every problem file and library entry, in one run: CPU times, verdicts, the
induction depth k or the BMC depth that found the escape, and the line's length; with
--sat-old also the SAT engine's former schedule (bounded model checking at every k <= 30),
side by side (--sat-timeout per board each):

    python bench/cages.py --sat [--sat-timeout 120] [--sat-old]

The collection verified with one engine (--engine sat: every board by the SAT engine, which
uses no known cages; with learning, what it learns is each proved board alone):

    python bench/cages.py --collection [FILE] --engine sat [--sat-timeout 120]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

import chess

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


COLLECTION = ROOT / "bench" / "cages-collection.txt"
NO_DXE = 'pawn_captures(either, from_file="d", to_file="e") == 0'


def _line(board: str, *, frozen=(), restrict=(), zone=None, model="lines", name=None) -> str:
    words = [board]
    if zone:
        words.append("zone=" + ",".join(zone))
    if frozen:
        words.append("frozen=" + ",".join(frozen))
    words += [f"restrict='{r}'" for r in restrict]
    if model != "lines":
        words.append(f"model={model}")
    if name:
        words.append(f"name={name}")
    return " ".join(words)


def make_collection(nodes: int) -> str:
    """The collection: the library's cages and the problem files' boards, then variants (boards
    of their closed sets, colour swaps, other holes, two cages on one board, an extra unit, and
    non-cages); expect= from a run without learning (omitted where that run hits `nodes`)."""
    from retrologic.cages.library import load_library
    from retrologic.cages.rules import squares_of
    from retrologic.cages.search import verify
    lib = load_library()
    lines: list[tuple[str, str]] = []       # (comment, line)

    def add(comment: str, line: str) -> None:
        if line not in {x for _, x in lines}:
            lines.append((comment, line))
    for e in lib.entries:
        add(f"library: {e.name}", _line(e.board, frozen=squares_of(e.frozen),
                                         restrict=[r.expr() for r in e.restrictions],
                                         zone=squares_of(e.zone)))
    for path in sorted((ROOT / "problems" / "cages").glob("*.toml")):
        prob = problem.load(path)
        q = prob.question
        frozen = sorted(set(q["frozen"]) | set(squares_of(prob.position.frozen)))
        restrict = [c["expr"] for c in prob.constraints]
        add(f"problem: {path.stem}", _line(prob.position.placement.board_fen(), frozen=frozen,
                                            restrict=restrict, model=q["model"],
                                            zone=None if q["zone"] == "auto" else q["zone"]))
    for e in lib.entries:                   # boards of closed sets, some colour-swapped
        proof = lib.proof(e)
        for k, m in enumerate(proof.members[1:4], 1):
            pl = m.placement.colour_swapped() if k == 2 else m.placement
            frozen = chess.flip_vertical(m.frozen) if k == 2 else m.frozen
            rs = [(r.swapped() if k == 2 else r).expr() for r in e.restrictions]
            add(f"closed-set board of {e.name}" + (", colours swapped" if k == 2 else ""),
                _line(pl.board_fen(), frozen=squares_of(frozen), restrict=rs))
    top = ["7K/pppp1ppp/4p3", "K7/pppp1ppp/4p3", "3K4/pppp1ppp/4p3", "8/ppppKppp/4p3",
           "1K6/pppppppp/8"]
    for f in "abcdefgh":                    # the king behind pawns with the hole elsewhere
        rank7 = "".join("1" if c == f else "p" for c in "abcdefgh")
        rank6 = "".join("p" if c == f else "1" for c in "abcdefgh")
        fix = lambda r: re.sub("1+", lambda m: str(len(m.group())), r)   # noqa: E731
        for king in ("7K", "K7"):
            add(f"king behind pawns, hole on {f}",
                f"{king}/{fix(rank7)}/{fix(rank6)}/8/8/8/8/8")
    bottoms = {"fig3 swapped": "8/8/6P1/5PPB/8", "bishop b1": "8/8/8/P1P5/1B6",
               "bishop c1 + rook": "8/8/2P5/1PrP4/2B5", "knight g1 free": "8/8/8/6PP/6Nr",
               "black bishop c1": "8/8/8/1PPP4/2b5", "knight d4": "8/3N4/8/8/8"}
    for t in top:
        for what, bottom in bottoms.items():
            add(f"two cages (or one and a free unit): king behind pawns and {what}",
                f"{t}/{bottom}")
    for what, board in {"two holes": "7K/pp1pp1pp/2p2p2/8/8/8/8/8",
                        "hole on g, no g6": "K7/pppppp1p/8/8/8/8/8/8",
                        "fig3 without g6": "6b1/5pp1/8/8/8/8/8/8",
                        "fig2 without d2": "8/8/8/8/8/8/PPk1P3/KR1b4",
                        "corner bishop, no d7": "4B1rk/4pKpp/8/8/8/8/8/8",
                        "knight g1 free, no h2": "8/8/8/8/8/8/6P1/6Nr"}.items():
        add(f"not a cage? {what}", board)
    out = ["# A collection of cage boards for `retrologic cage --collection FILE --learn` and",
           "# `python bench/cages.py --collection` (made by `python bench/cages.py --make-collection`).",
           "# One board per line: BOARD [zone=SQ,...] [frozen=SQ,...] [restrict=EXPR]... [model=plain]",
           f"# [expect=proved|refuted]; expect= is the verdict without learning (node limit {nodes}),",
           "# left out where that run stops undecided. Order matters: later boards may be cut by",
           "# cages (and boards of their closed sets) learned from earlier ones."]
    for comment, line in lines:
        from retrologic.cages import collection
        item = collection.parse(line)[0]
        r = verify(item.board, item.zone, item.restrict, model=item.model,
                   frozen=list(item.frozen) or None, nodes=nodes)
        # a plain-model refutation may become a proof once a lines-model cage is known (Hwa's
        # bootstrapping across models, as tests/test_cage_library.py checks): no expect= there
        plain_refuted = item.model == "plain" and r.verdict == "refuted"
        expect = "" if r.verdict == "unknown" or plain_refuted else f" expect={r.verdict}"
        out.append(f"{line}{expect}  # {comment}")
    return "\n".join(out) + "\n"


def run_collection(path: Path, nodes: int | None) -> None:
    """The collection three ways: no learning, start boards only, every closed-set board."""
    from retrologic.cages import collection
    items = collection.load(path)
    modes = {"none": dict(learn=False), "start": dict(learn=True, members=False),
             "members": dict(learn=True, members=True)}
    runs = {k: collection.run(items, nodes=nodes, **kw) for k, kw in modes.items()}
    print(f"{'line':>5} {'board':44s} | {'no learning':>22s} | {'start boards':>22s} | "
          f"{'closed-set boards':>22s}")
    for i, item in enumerate(items):
        cells = []
        for k in modes:
            r = runs[k].outcomes[i].result
            cells.append(f"{r.verdict:8s}{r.states:>6d}{r.elapsed * 1000:8.1f}")
        print(f"{item.line:>5} {item.board[:44]:44s} | " + " | ".join(cells))
    print()
    for k, run in runs.items():
        s = run.summary()
        print(f"{k:8s}: {s['boards']} boards, {s['proved']} proved, {s['refuted']} refuted, "
              f"{s['unknown']} unknown; {s['positions']} positions, {s['elapsed_s']:.2f} s; "
              f"learned {s['learned']} cages + {s['members']} members; expect not met: {s['not_met']}")
    base = runs["none"].outcomes
    for k in ("start", "members"):
        changed = [(o.item.line, b.result.verdict, o.result.verdict)
                   for o, b in zip(runs[k].outcomes, base) if o.result.verdict != b.result.verdict]
        wrong = [c for c in changed if c[1] != "unknown"]
        print(f"{k}: verdicts changed from no learning: {len(changed)} "
              f"(unknown -> decided: {len(changed) - len(wrong)}; other: {wrong or 'none'})")


def lookup_cost(entries: int, probes: int = 2000) -> None:
    """Lookups in a library of `entries` entries and members: the index against testing every
    entry. The library: what the collection run learns (real cages and their members), filled
    up with those boards shifted along the board (not cages: cached as unverified, so they are
    tested as candidates like any entry but never reported)."""
    import random
    from retrologic.cages import collection
    from retrologic.cages.entry import CageEntry
    from retrologic.cages.library import Library
    from retrologic.cages.search import CageResult
    from retrologic.position import Placement
    from retrologic.result import Verdict
    lib = Library()
    collection.run(collection.load(COLLECTION), lib, nodes=20_000)
    real = lib.size
    base = [lib.get(n) for n in list(lib._names)]
    shift = 1
    while lib.size < entries and shift < 64:
        for e in base:
            pl = Placement(*(((m << shift if shift < 32 else m >> (shift - 31)) & chess.BB_ALL)
                             for m in e.placement))
            if chess.popcount(pl.occupied) == chess.popcount(e.placement.occupied) \
                    and f"{e.name}>{shift}" not in lib._names:
                filler = CageEntry(f"{e.name}>{shift}", pl, chess.BB_ALL)
                lib.add(filler)
                lib._proofs[filler.name] = CageResult(Verdict.UNKNOWN, filler.position(),
                                                      chess.BB_ALL, "lines", (), reason="filler")
            if lib.size >= entries:
                break
        shift += 1
    rng = random.Random(1)
    positions = []
    for _ in range(probes):
        board = chess.Board()
        for _ in range(rng.randrange(10, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        pl = Placement.from_board(board)
        keep = sum(1 << sq for sq in chess.scan_forward(pl.occupied) if rng.random() < 0.5)
        positions.append(Position(pl.without(~keep & chess.BB_ALL), None, 0, None, 0, True))
    items = collection.load(COLLECTION)
    positions += [start_position(i.board, list(i.frozen) or None) for i in items]
    print(f"library: {lib.size} entries and members ({real} learned from the collection, the "
          f"rest filler); {len(positions)} lookups (random partial positions and the "
          f"collection's boards)")
    for name, fn in (("index", lib.matches), ("every entry", lib._matches_linear)):
        t0 = time.perf_counter()
        found = [fn(p) for p in positions]
        us = (time.perf_counter() - t0) / len(positions) * 1e6
        print(f"{name:12s}: {us:9.1f} us per lookup, {sum(f is not None for f in found)} found")
    assert [lib.matches(p) for p in positions] == [lib._matches_linear(p) for p in positions]


BIG = ROOT / "bench" / "cages-big.txt"


def _timed(item, engine: str, nodes: int | None):
    """One verification of a collection item: (result, wall seconds, CPU seconds)."""
    from retrologic.cages.search import verify
    t0, c0 = time.perf_counter(), time.process_time()
    res = verify(item.board, item.zone, item.restrict, None, model=item.model,
                 frozen=list(item.frozen) or None, nodes=nodes, engine=engine)
    return res, time.perf_counter() - t0, time.process_time() - c0


def _memory(item) -> float:
    """Peak traced bytes of a fast-engine verification, per position reached."""
    import gc
    import tracemalloc
    from retrologic.cages.search import verify
    gc.collect()
    tracemalloc.start()
    res = verify(item.board, item.zone, item.restrict, None, model=item.model,
                 frozen=list(item.frozen) or None, engine="fast")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / max(1, res.states)


def speed(path: Path, old_nodes: int, memory: bool) -> None:
    """Positions per second, fast engine against the reference engine, per cage of `path`.
    Each row is a dict and each engine a column group, so another engine adds a column."""
    from retrologic.cages import collection
    items = collection.load(path)
    _timed(items[0], "fast", 100)                   # warm-up: imports, first-call costs
    rows = []
    for item in items:
        fast, fw, fc = _timed(item, "fast", None)
        old, ow, oc = _timed(item, "explicit", old_nodes)
        row = {"name": item.name or item.board, "verdict": fast.verdict, "states": fast.states,
               "fast_s": fw, "fast_wall": fast.states / fw, "fast_cpu": fast.states / max(fc, 1e-9),
               "old_states": old.states, "old_wall": old.states / ow,
               "old_cpu": old.states / max(oc, 1e-9), "complete": old.verdict != "unknown"}
        if row["complete"] and (old.verdict, old.states) != (fast.verdict, fast.states):
            raise SystemExit(f"engines disagree on {item.board}: {old.verdict}/{old.states} "
                             f"against {fast.verdict}/{fast.states}")
        if item.expect and fast.verdict != item.expect:
            raise SystemExit(f"{item.board}: expected {item.expect}, got {fast.verdict}")
        if memory:
            row["bytes"] = _memory(item)
        rows.append(row)
        print(f"{row['name']:34s} {row['verdict']:8s} {row['states']:8d} | fast {row['fast_s']:7.2f} s "
              f"{row['fast_wall']:8.0f}/s wall {row['fast_cpu']:8.0f}/s cpu | reference "
              f"{row['old_states']:6d}{'' if row['complete'] else '+'} {row['old_wall']:6.0f}/s wall "
              f"{row['old_cpu']:6.0f}/s cpu | x{row['fast_cpu'] / row['old_cpu']:5.1f} cpu"
              + (f" | {row['bytes']:.0f} B/position" if memory else ""), flush=True)
    total = sum(r["states"] for r in rows)
    fast_cpu = total / sum(r["states"] / r["fast_cpu"] for r in rows)
    old_cpu = sum(r["old_states"] for r in rows) / sum(r["old_states"] / r["old_cpu"] for r in rows)
    print(f"\n{len(rows)} cages, {total} positions; fast engine {fast_cpu:.0f} positions/s CPU "
          f"(target >= 20,000: {'met' if fast_cpu >= 20000 else 'NOT met'}), reference "
          f"{old_cpu:.0f}/s CPU ({'+' if not all(r['complete'] for r in rows) else ''}first "
          f"{old_nodes} positions at most), ratio {fast_cpu / old_cpu:.1f}x")
    if memory:
        print(f"memory per position (fast, traced peak / positions): "
              f"{min(r['bytes'] for r in rows):.0f}-{max(r['bytes'] for r in rows):.0f} bytes")


def sat_engine_collection(path: Path, timeout: float) -> None:
    """The collection with every board verified by the SAT engine, learning and not, beside the
    fast engine's verdicts (no learning) in the same run."""
    from retrologic.cages import collection
    items = collection.load(path)
    c0 = time.process_time()
    fast = collection.run(items, learn=False, nodes=20_000)
    c1 = time.process_time()
    sat = collection.run(items, learn=True, engine="sat", timeout=timeout)
    c2 = time.process_time()
    differ = [(o.item.line, f.result.verdict, o.result.verdict)
              for o, f in zip(sat.outcomes, fast.outcomes) if o.result.verdict != f.result.verdict]
    for o, f in zip(sat.outcomes, fast.outcomes):
        print(f"{o.item.line:>5} {o.item.board[:44]:44s} fast {f.result.verdict:8s} "
              f"{f.result.elapsed * 1000:8.1f} ms | sat {o.result.verdict:8s} "
              f"{o.result.elapsed * 1000:9.1f} ms" + (f" learned {o.entry.name}" if o.entry else ""))
    s = sat.summary()
    print(f"\nfast (no learning): CPU {c1 - c0:.2f} s; sat (learning boards): CPU {c2 - c1:.2f} s, "
          f"{s['proved']} proved, {s['refuted']} refuted, {s['unknown']} unknown, learned "
          f"{s['learned']}; verdicts differing: {len(differ)} "
          f"({sum(d[2] == 'unknown' for d in differ)} unknown by SAT) {differ[:8]}")


def sat_column(timeout: float, old: bool = False) -> None:
    """The SAT engine (cages.sat, k-induction) against both explicit engines on every problem
    file and library entry: verdicts and CPU times side by side, one run each (`timeout`
    seconds per board); `old`: also the SAT engine with the former BMC schedule (every k up
    to 30) for the before/after comparison."""
    import tomllib
    from retrologic.cages import sat as sat_engine
    from retrologic.cages.sat import verify_sat
    from retrologic.cages.search import verify
    rows = []
    olds = []
    for path in sorted((ROOT / "problems" / "cages").glob("*.toml")) + sorted((ROOT / "encodings" / "cages").glob("*.toml")):
        d = tomllib.loads(path.read_text())
        if "question" in d:
            q, pos = d["question"], d["position"]
            board, zone, model = pos["board"], q.get("zone", "auto"), q.get("model", "lines")
            frozen = list(pos.get("frozen", [])) + list(q.get("frozen", []))
            rules, fen = d.get("constraint", []), q.get("with_position")
        else:
            board, zone, model = d["board"], d.get("zone", "auto"), d.get("model", "lines")
            frozen, rules, fen = list(d.get("frozen", [])), d.get("restrictions", []), None
        zone = None if zone == "auto" else zone
        c0 = time.process_time()
        e = verify(board, zone, rules, model=model, frozen=frozen or None, engine="fast") \
            if fen is None else None
        c1 = time.process_time()
        x = verify(board, zone, rules, model=model, frozen=frozen or None, engine="explicit") \
            if fen is None else None
        c2 = time.process_time()
        r = verify_sat(board, zone, rules, model=model, frozen=frozen or None, with_position=fen,
                       timeout=timeout)
        c3 = time.process_time()
        how = f"k={r.k}" if r.k is not None else (
            f"bmc k={r.stats.get('bmc_k')}, line {len(r.explicit.line)}" if r.explicit else "")
        name = path.parent.name + "/" + path.stem
        rows.append((name, e.verdict if e else "-", r.verdict, (c1 - c0) * 1000, (c3 - c2) * 1000,
                     x.verdict if x else "-"))
        print(f"{name:48s} fast {rows[-1][1]:8s} {rows[-1][3]:6.1f} ms | explicit {rows[-1][5]:8s} "
              f"{(c2 - c1) * 1000:6.1f} ms | sat {r.verdict:8s} {(c3 - c2) * 1000:8.1f} ms {how} "
              f"{r.reason or ''}", flush=True)
        if old and r.explicit is not None:
            saved = sat_engine.BMC_DEPTHS
            sat_engine.BMC_DEPTHS = tuple(range(31))
            try:
                c4 = time.process_time()
                o = verify_sat(board, zone, rules, model=model, frozen=frozen or None,
                               timeout=timeout)
                c5 = time.process_time()
            finally:
                sat_engine.BMC_DEPTHS = saved
            olds.append((name, o.verdict, (c5 - c4) * 1000, (c3 - c2) * 1000))
            print(f"{'':48s} former schedule (every k <= 30): {o.verdict:8s} {(c5 - c4) * 1000:9.1f} ms "
                  f"{o.reason or ''}", flush=True)
    same = sum(1 for row in rows if row[1] in ("-", row[2]) and row[5] in ("-", row[2]))
    print(f"\n{len(rows)} boards: same verdict (fast, explicit, sat) {same}, SAT unknown "
          f"{sum(r[2] == 'unknown' for r in rows)}, disagreeing otherwise "
          f"{sum((r[1] not in ('-', r[2]) or r[5] not in ('-', r[2])) and r[2] != 'unknown' for r in rows)}")
    if olds:
        print("refutations, former BMC schedule against the new one (CPU ms): " + "; ".join(
            f"{n.split('/')[-1]} {v} {a:.0f} -> {b:.0f}" for n, v, a, b in olds))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--depth", type=int, default=30)
    ap.add_argument("--baseline-nodes", type=int, default=50_000)
    ap.add_argument("--collection", nargs="?", const=str(COLLECTION), metavar="FILE")
    ap.add_argument("--make-collection", action="store_true")
    ap.add_argument("--nodes", type=int, default=20_000, help="per board (collection runs)")
    ap.add_argument("--lookup", action="store_true")
    ap.add_argument("--entries", type=int, default=2000)
    ap.add_argument("--speed", nargs="?", const=str(BIG), metavar="FILE")
    ap.add_argument("--old-nodes", type=int, default=20_000,
                    help="positions the reference engine runs per cage (--speed)")
    ap.add_argument("--memory", action="store_true", help="memory per position (--speed)")
    ap.add_argument("--sat", action="store_true",
                    help="the SAT engine's verdicts and times beside the explicit engine's")
    ap.add_argument("--sat-timeout", type=float, default=120.0)
    ap.add_argument("--sat-old", action="store_true",
                    help="with --sat: also the former BMC schedule, side by side")
    ap.add_argument("--engine", choices=("auto", "sat"), default="auto",
                    help="with --collection: sat verifies every board with the SAT engine")
    args = ap.parse_args()
    if args.sat:
        sat_column(args.sat_timeout, args.sat_old)
        return
    if args.collection and args.engine == "sat":
        sat_engine_collection(Path(args.collection), args.sat_timeout)
        return
    if args.speed:
        speed(Path(args.speed), args.old_nodes, args.memory)
        return
    if args.make_collection:
        COLLECTION.write_text(make_collection(args.nodes))
        print(f"wrote {COLLECTION}")
        return
    if args.collection:
        run_collection(Path(args.collection), args.nodes)
        return
    if args.lookup:
        lookup_cost(args.entries)
        return
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
