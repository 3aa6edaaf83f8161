"""Legality by construction (issue #19): how often, how fast and how long the games are.

    python bench/legal.py [--positions N] [--seed S] [--timeout 10] [--spg] [--csv FILE]
                          [--baseline FILE] [--baseline-tree DIR] [--no-calibration]
                          [--seeds LIST | --seeds-file FILE] [--nodes N] [--salt K] [--frozen]
    python bench/legal.py --report CSV [CSV ...] [--timeout 10]
    python bench/legal.py --compare BASE_CSV CHANGE_CSV [--timeout 10]

1. Random legal positions: N games of 20-150 plies made with python-chess from fixed seeds
   (uniform random moves, with a bias towards castling, e.p. and promotions, underpromotions
   included, so every kind occurs); each final position is given to what `legal` runs (the
   static rules, then `find_game(route=True)`: the finders, with the proof-game route and the
   schedule route for a position near the initial array) with the time limit.
   Reports the share certified legal, never illegal (a static proof on a position of a real
   game would be a soundness bug: the run exits 1), the distribution of CPU time and of game
   length, and every failure with its FEN.
2. `--spg`: every problems/spg diagram with its published shortest length: certified legal, the
   game found never shorter than the proved shortest length (exits 1 otherwise), and the
   finder's CPU time beside the proof-game solver's on the same position (the baseline).
3. `--baseline FILE`: another module with a `find_game` (e.g. the committed entry, `git show
   HEAD:retrologic/legalgame/find.py > /tmp/old_find.py`; `finder.py` before 2026-11-26
   13:00 UTC, when the entry moved out of it) run on the same positions in the
   same process, one after the other per position, so both see the same machine load; its
   figures are printed beside ours. The module imports its siblings (`legalgame.kernel`,
   `reach`) from this tree, so it is only a self-consistent baseline when they did not change.
4. `--baseline-tree DIR`: a whole other checkout (`git archive HEAD | tar -x -C DIR`) as the
   baseline, its `find_game` run in a worker process with `PYTHONPATH=DIR` (every module of
   that tree, none of ours), one position at a time alternating with ours; its CPU time is the
   worker's own and its games are replayed here by our checker.
5. `--report CSV...`: no run; the rows of earlier runs (the random positions of one code
   version, run in parts) summed up as one set: the figures of 1., certified within fractions
   of the limit, and the share found by captures in the position and by the game's length.
6. `--compare BASE CHANGE`: no run; two runs of the same seeds (a change and its base, each
   from its own tree) side by side: found by each, by one only, and the exact two-sided sign
   test on the seeds found by one only (McNemar's: with no difference each is a fair coin; a
   change of the search order finds and loses seeds in about equal numbers,
   bench/README-legal.md 2026-12-04), then the CPU of the seeds both found.
7. First, unless `--no-calibration`: the machine's speed for this tree's finder, the CPU
   seconds of the plain finder's first 600 positions on seed 4704 (`machine_speed`; it
   finds no game there within them). The limit is CPU seconds and the share found moves with
   the positions a second, so runs of the same code on other days or machines compare only
   through this figure (2026-11-27: 5.0-5.9 s on a machine where husserl-1966 took 10.2 s).
8. `--nodes N`: each position's limit is N positions with no deadline instead of `--timeout`
   (what `retrologic legal --nodes N` does: the proof-game route's turns are node slices then
   and its schedule turn is skipped), so every machine expands the same positions and finds
   the same games; CPU seconds are still reported. `--salt K` adds K to the salt of every
   jittered try (`finder.SALT`): the same rules, other random tie-breaks. A screen on seeds
   that earlier finders missed (`--seeds-file bench/legal-hard-seeds.txt`) is fair only with
   both arms' salts moved, since those seeds were chosen by the draws the committed finder
   shares (bench/README-legal.md, 2026-12-04 17:17 UTC): `--salt 1000 --nodes 7000` for both
   arms (a `--baseline-tree` worker gets the same salt and limit; a tree without `finder.SALT`
   is refused).
9. `--frozen`: each position with a random non-empty subset of the units its game never touched
   (no move from or onto their squares) stated frozen, as `legal` takes them from a problem
   file: the game found must leave them alone (checked here besides the replay); a position
   whose game touched every unit is run without. Not with a baseline (trees before 2026-12-05
   answer *unknown* for frozen units).
"""

from __future__ import annotations

import argparse
import csv
import gc
import importlib.util
import random
import json
import math
import os
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Callable

import chess

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from retrologic.legalgame import finder as finder_module  # noqa: E402
from retrologic.legalgame.checker import reached_fault  # noqa: E402
from retrologic.legalgame.find import find_game  # noqa: E402
from retrologic.legality import rules as legality  # noqa: E402
from retrologic.limits import Budget, LimitHit  # noqa: E402
from retrologic.position import Position  # noqa: E402
from cpu_budget import position_budget  # noqa: E402  (bench/, on the path as the script's folder)


def frozen_units(board: chess.Board, seed: int) -> int:
    """A random non-empty subset (seeded apart from the game) of the units on `board` that its
    move stack never touched: units that never moved, so the position is legal with them
    frozen (0 when the game touched them all)."""
    touched = 0
    for move in board.move_stack:
        touched |= chess.BB_SQUARES[move.from_square] | chess.BB_SQUARES[move.to_square]
    never = list(chess.scan_forward(board.occupied & ~touched))
    if not never:
        return 0
    rng = random.Random(f"frozen {seed}")
    return sum(chess.BB_SQUARES[s] for s in rng.sample(never, rng.randint(1, len(never))))


def random_position(seed: int) -> tuple[chess.Board, int]:
    """The end of a random game of 20-150 plies (seeded): uniform moves, but a castling, e.p.
    capture or promotion (any piece) is played with probability 0.5 when one is legal."""
    rng = random.Random(seed)
    plies = rng.randint(20, 150)
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves or board.is_insufficient_material():
            break
        special = [m for m in moves if board.is_castling(m) or board.is_en_passant(m) or m.promotion]
        board.push(rng.choice(special) if special and rng.random() < 0.5 else rng.choice(moves))
    return board, board.ply()


Finder = Callable[[chess.Board, Budget], list | None]


def load_finder(path: str) -> Finder:
    """The `find_game` of the finder module at `path` (a baseline to compare with)."""
    spec = importlib.util.spec_from_file_location("baseline_finder", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module     # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module.find_game


# The worker of `--baseline-tree`: reads a FEN and a timeout per line, answers one JSON line
# (verdict, CPU seconds, the game in UCI), with every module from the baseline tree.
WORKER = r"""
import gc, json, os, sys, time
import chess
try:
    from retrologic.legalgame.find import find_game
except ImportError:     # a tree before the entry moved out of finder.py
    from retrologic.legalgame.finder import find_game
from retrologic.legality import rules as legality
from retrologic.limits import LimitHit
from retrologic.position import Position
sys.path.append(os.environ["RETROLOGIC_BENCH"])     # after the baseline tree: cpu_budget only
from cpu_budget import position_budget

salt, cap = int(os.environ["RETROLOGIC_SALT"]), int(os.environ["RETROLOGIC_NODES"])
if salt:
    from retrologic.legalgame import finder
    if not hasattr(finder, "SALT"):
        sys.exit("bench/legal.py: --salt: the baseline tree's finder has no SALT")
    finder.SALT = salt
for line in sys.stdin:
    fen, timeout = json.loads(line)
    board = chess.Board(fen)
    gc.collect()        # the positions before: not on this one's clock (as `certify` does)
    t0 = time.process_time()
    moves, verdict = None, "unknown"
    if legality.reasons(Position.from_board(board)):
        verdict = "illegal"
    else:
        try:
            budget = position_budget(timeout, cap)
            try:
                moves = find_game(board, budget, route=True)
            except TypeError:     # a tree before the proof-game route
                moves = find_game(board, budget)
        except LimitHit:
            moves = None
    print(json.dumps([verdict, time.process_time() - t0,
                      None if moves is None else [m.uci() for m in moves]]), flush=True)
"""


class TreeFinder:
    """`find_game` of another checkout, in a worker process (see `--baseline-tree`)."""

    def __init__(self, tree: str, salt: int = 0, nodes: int | None = None) -> None:
        if not (Path(tree) / "retrologic" / "legalgame" / "finder.py").is_file():
            raise SystemExit(f"{tree}: no retrologic/legalgame/finder.py there")
        env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()),
                   RETROLOGIC_BENCH=str(Path(__file__).resolve().parent),
                   RETROLOGIC_SALT=str(salt), RETROLOGIC_NODES=str(nodes or 0))
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=tree)

    def __call__(self, board: chess.Board, timeout: float) -> tuple[str, float, list | None]:
        assert self.proc.stdin and self.proc.stdout
        # the e.p. square as the board has it (a double step just played, capture or not):
        # the worker must be asked for the same position as our finder
        try:
            self.proc.stdin.write(json.dumps([board.fen(en_passant="fen"), timeout]) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            answer = ""
        else:
            answer = self.proc.stdout.readline()
        if not answer:
            raise SystemExit("bench/legal.py: the baseline tree's worker stopped")
        verdict, seconds, moves = json.loads(answer)
        return verdict, seconds, moves and [chess.Move.from_uci(m) for m in moves]


def certify_tree(board: chess.Board, timeout: float,
                 finder: TreeFinder) -> tuple[str, float, int | None]:
    """`certify` with the baseline tree's worker: its game replayed by our checker."""
    verdict, seconds, moves = finder(board, timeout)
    if moves is None:
        return verdict, seconds, None
    return "legal", seconds, replayed(moves, board, "the baseline")


def legal_finder(board: chess.Board, budget: Budget) -> list | None:
    """What `legal` runs: the finders with the proof-game route (`legalgame.proof_route`)."""
    return find_game(board, budget, route=True)


def certify(board: chess.Board, timeout: float, finder: Finder = legal_finder,
            nodes: int | None = None, frozen: int = 0) -> tuple[str, float, int | None]:
    """('legal'|'illegal'|'unknown', CPU seconds, game plies) for one position. The garbage of
    the positions before is collected before the clock starts, so no position pays for
    another's (the proof-game analysis of trees before 2026-11-26 15:20 UTC is cyclic: only a
    full collection frees it; a baseline tree's worker does the same). `frozen`: the units
    stated never to have moved (`--frozen`), which the game must not touch."""
    gc.collect()
    t0 = time.process_time()
    if legality.reasons(Position.from_board(board, frozen=frozen)):
        return "illegal", time.process_time() - t0, None
    try:
        moves = find_game(board, position_budget(timeout, nodes), route=True, frozen=frozen) \
            if frozen else finder(board, position_budget(timeout, nodes))
    except LimitHit:
        moves = None
    seconds = time.process_time() - t0
    if moves is None:
        return "unknown", seconds, None
    if any((chess.BB_SQUARES[m.from_square] | chess.BB_SQUARES[m.to_square]) & frozen
           for m in moves):
        raise SystemExit(f"the finder's game touches a frozen unit of {board.fen()}")
    return "legal", seconds, replayed(moves, board, "the finder")


def replayed(moves: list[chess.Move], board: chess.Board, who: str) -> int:
    """The plies of a game python-chess replays to `board` exactly; a wrong game stops the
    run (a soundness bug of `who`)."""
    replay = chess.Board()
    for move in moves:
        if not replay.is_legal(move):
            raise SystemExit(f"{who}'s game plays the illegal {move.uci()} in {replay.fen()}")
        replay.push(move)
    fault = reached_fault(replay, board)
    if fault:
        raise SystemExit(f"{who}'s game is wrong for {board.fen(en_passant='fen')}: {fault}")
    return len(moves)


def percentiles(values: list[float]) -> str:
    if not values:
        return "-"
    q = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 \
        else [values[0]] * 99
    return (f"median {statistics.median(values):.2f}, p90 {q[89]:.2f}, p99 {q[98]:.2f}, "
            f"max {max(values):.2f}")


class Rows(list):
    """The CSV rows, each written (and flushed) as it comes, so a run stopped early keeps
    what it measured."""

    KEYS = ("set", "seed", "plies", "fen", "verdict", "cpu_s", "game_plies", "baseline_verdict",
            "baseline_cpu_s", "baseline_game_plies", "spg_cpu_s", "frozen")

    def __init__(self, path: str | None) -> None:
        super().__init__()
        self.file = open(path, "w", newline="") if path else None
        self.writer = csv.DictWriter(self.file, fieldnames=self.KEYS) if self.file else None
        if self.writer:
            self.writer.writeheader()

    def append(self, row: dict) -> None:
        super().append(row)
        if self.writer and self.file:
            self.writer.writerow(row)
            self.file.flush()


class Tally:
    """One finder's verdicts, CPU times, game lengths and failures over the positions."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.counts = {"legal": 0, "illegal": 0, "unknown": 0}
        self.times: list[float] = []
        self.verdicts: list[str] = []
        self.lengths: list[float] = []
        self.failures: list[tuple[int, int, str, str]] = []

    def add(self, seed: int, plies: int, fen: str, verdict: str, seconds: float,
            length: int | None) -> None:
        self.counts[verdict] += 1
        self.times.append(seconds)
        self.verdicts.append(verdict)
        if length is not None:
            self.lengths.append(float(length))
        else:
            self.failures.append((seed, plies, verdict, fen))

    def report(self, n: int) -> None:
        c = self.counts
        print(f"{self.name}: legal {c['legal']} ({100 * c['legal'] / n:.1f} %), unknown "
              f"{c['unknown']}, illegal {c['illegal']}")
        print(f"  CPU s: {percentiles(self.times)} (total {sum(self.times):.0f})")
        print(f"  game plies: {percentiles(self.lengths)}")
        for s, plies, verdict, fen in self.failures:
            print(f"  {verdict}: seed {s} ({plies} plies) {fen}")


def run_random(seeds: list[int], timeout: float, rows: list[dict],
               baseline: Finder | TreeFinder | None = None,
               nodes: int | None = None, frozen: bool = False) -> int:
    ours = Tally("finder")
    old = Tally("baseline") if baseline else None
    n = len(seeds)
    for i, s in enumerate(seeds):
        board, plies = random_position(s)
        mask = frozen_units(board, s) if frozen else 0
        verdict, seconds, length = certify(board, timeout, nodes=nodes, frozen=mask)
        ours.add(s, plies, board.fen(), verdict, seconds, length)
        row = {"set": "random", "seed": s, "plies": plies, "fen": board.fen(),
               "verdict": verdict, "cpu_s": round(seconds, 3), "game_plies": length}
        if frozen:
            row["frozen"] = " ".join(chess.square_name(q) for q in chess.scan_forward(mask))
        if old is not None and baseline is not None:
            verdict, seconds, length = certify_tree(board, timeout, baseline) \
                if isinstance(baseline, TreeFinder) else certify(board, timeout, baseline)
            old.add(s, plies, board.fen(), verdict, seconds, length)
            row.update(baseline_verdict=verdict, baseline_cpu_s=round(seconds, 3),
                       baseline_game_plies=length)
        rows.append(row)
        shown = f"{ours.counts}" + (f" baseline {old.counts}" if old else "")
        print(f"\r{i + 1}/{n}: {shown}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    shown = f"{seeds[0]}..{seeds[-1]}" if seeds == list(range(seeds[0], seeds[0] + n)) \
        else ",".join(map(str, seeds)) if n <= 12 else f"{seeds[0]},{seeds[1]},...,{seeds[-1]}"
    limit = f"{nodes:,} positions" if nodes else f"{timeout:g} s"
    print(f"random positions: {n} (seeds {shown}, 20-150 plies), limit {limit} each"
          + (", never-touched units frozen" if frozen else "")
          + (f", salt {finder_module.SALT}" if finder_module.SALT else ""))
    ours.report(n)
    if old is not None:
        old.report(n)
        ratios = [b / a for a, b in zip(ours.times, old.times) if a > 0]
        if ratios:
            print(f"  CPU ratio baseline/finder per position: median "
                  f"{statistics.median(ratios):.2f}, total "
                  f"{sum(old.times) / max(sum(ours.times), 1e-9):.2f}")
        both = [(a, b) for a, b, x, y in zip(ours.times, old.times, ours.verdicts, old.verdicts)
                if x == y == "legal" and a > 0]
        if both:
            ratios = [b / a for a, b in both]
            print(f"  on the {len(both)} both found: CPU ratio baseline/finder median "
                  f"{statistics.median(ratios):.2f}, geometric mean "
                  f"{statistics.geometric_mean(ratios):.2f}")
        only = [(s, x) for s, x, y in zip(seeds, ours.verdicts, old.verdicts)
                if (x == "legal") != (y == "legal")]
        print("  found by the finder only: "
              + (", ".join(str(s) for s, x in only if x == "legal") or "-")
              + "; by the baseline only: "
              + (", ".join(str(s) for s, x in only if x != "legal") or "-"))
    illegal = ours.counts["illegal"] + (old.counts["illegal"] if old else 0)
    return 1 if illegal else 0


def run_spg(timeout: float, rows: list[dict]) -> int:
    """The problems/spg diagrams: the finder against the proof-game solver (the baseline)."""
    from retrologic.spg.solver import parse_target, solve
    from retrologic.spg.search import Limits
    from retrologic.spg.checker import parse_moves
    bad = 0
    print(f"{'problem':32} {'shortest':>8} {'found':>6} {'finder s':>9} {'spg s':>8}")
    for path in sorted((ROOT / "problems" / "spg").glob("*.toml")):
        data = tomllib.loads(path.read_text())
        fen, moves = data["position"].get("fen"), data["question"].get("moves")
        # the stipulated length of a sound problem (its [expect] status unique): every game to
        # the diagram is at least this long
        if fen is None or moves is None or data.get("expect", {}).get("status") != "unique":
            continue
        plies = parse_moves(moves)
        target = parse_target(fen, plies)
        verdict, seconds, length = certify(target, timeout)
        t0 = time.process_time()
        try:
            solve(target, plies, Limits(timeout=timeout))
        except LimitHit:
            pass
        spg_seconds = time.process_time() - t0
        shown = "-" if length is None else str(length)
        if length is not None and length < plies:
            bad += 1
            shown += " SHORTER THAN PROVED"
        if verdict == "illegal":
            bad += 1
        print(f"{path.stem:32} {plies:>8} {shown:>6} {seconds:>9.2f} {spg_seconds:>8.2f}")
        rows.append({"set": "spg", "seed": path.stem, "plies": plies, "fen": target.fen(),
                     "verdict": verdict, "cpu_s": round(seconds, 3), "game_plies": length,
                     "spg_cpu_s": round(spg_seconds, 3)})
    return 1 if bad else 0


CALIBRATION_SEED = 4704      # a position the plain finder does not solve within the nodes below
CALIBRATION_NODES = 600


def machine_speed() -> tuple[float, int]:
    """CPU seconds this tree's plain finder takes for at most CALIBRATION_NODES positions of
    seed CALIBRATION_SEED, and the positions it expanded (fewer if a finder ever solves it
    sooner): the machine's speed for this code (runs on different days or machines compare
    only through it: the limit is CPU seconds, and the share found moves with the positions a
    second, bench/README-legal.md)."""
    from retrologic.legalgame.finder import Finder as PlainFinder
    board, _ = random_position(CALIBRATION_SEED)
    start = time.process_time()
    finder = PlainFinder(board, Budget(None), CALIBRATION_NODES)
    finder.find()
    return time.process_time() - start, min(finder.nodes, CALIBRATION_NODES)


def random_rows(path: str) -> dict[int, dict[str, str]]:
    """The random-position rows of a run's CSV by seed (a seed met twice: its first row)."""
    rows: dict[int, dict[str, str]] = {}
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if row["set"] == "random":
                rows.setdefault(int(row["seed"]), row)
    return rows


def within(times: list[float], timeout: float) -> str:
    """How many of the CPU `times` are within a tenth, a fifth, half and all of the limit."""
    return ", ".join(f"{f * timeout:g} s: {sum(t <= f * timeout for t in times)}"
                     for f in (0.1, 0.2, 0.5, 1.0))


BANDS = {"captures": (0, 4), "plies": (20, 30)}  # --report's bands: (first start, width)


def report(paths: list[str], timeout: float) -> int:
    """The figures of the random-position rows of earlier runs' CSVs, as one set: the share
    certified, CPU time and game length, certified within fractions of the limit, by the
    captures in the position and by the random game's length, and every failure (a seed met
    twice counts once, its first row)."""
    tally, seen = Tally("finder"), set()
    bands: dict[str, dict[int, list[int]]] = {"captures": {}, "plies": {}}  # by band start
    for path in paths:
        for seed, row in random_rows(path).items():
            if seed in seen:
                continue
            seen.add(seed)
            length = int(row["game_plies"]) if row["game_plies"] else None
            tally.add(seed, int(row["plies"]), row["fen"], row["verdict"],
                      float(row["cpu_s"]), length)
            units = chess.popcount(chess.Board(row["fen"]).occupied)
            for kind, value, (base, width) in (("captures", 32 - units, BANDS["captures"]),
                                               ("plies", int(row["plies"]), BANDS["plies"])):
                low = base + max(value - base, 0) // width * width
                pair = bands[kind].setdefault(low, [0, 0])
                pair[0] += row["verdict"] == "legal"
                pair[1] += 1
    n = len(seen)
    if not n:
        print("no random-position rows")
        return 1
    seeds = sorted(seen)
    print(f"random positions: {n} (seeds {seeds[0]}..{seeds[-1]}) from {len(paths)} file(s)")
    found = [t for t, v in zip(tally.times, tally.verdicts) if v == "legal"]
    tally.report(n)
    print(f"  certified within {within(found, timeout)} (CPU; found ones: "
          f"{percentiles(found)})")
    for kind, what in (("captures", "captures in the position"),
                       ("plies", "plies of the random game")):
        width = BANDS[kind][1]
        print(f"  found by {what}: " + ", ".join(
            f"{low}-{low + width - 1} {a}/{b}" for low, (a, b) in sorted(bands[kind].items())))
    return 1 if tally.counts["illegal"] else 0


def sign_test(wins: int, losses: int) -> float:
    """The exact two-sided sign test's p-value of `wins` against `losses` (ties left out)."""
    n = wins + losses
    if not n:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(wins, losses) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def compare(base_path: str, change_path: str, timeout: float) -> int:
    """`--compare`: the seeds both runs hold, found by each and by one only, the sign test on
    those, and on the seeds both found the CPU ratio (geometric mean of change/base) and how
    many each found within fractions of the limit. Exits 1 when either run has an *illegal*."""
    base, change = random_rows(base_path), random_rows(change_path)
    seeds = sorted(set(base) & set(change))
    if not seeds:
        print("no seed in both runs")
        return 1
    found = [{s for s in seeds if run[s]["verdict"] == "legal"} for run in (base, change)]
    only_base, only_change = sorted(found[0] - found[1]), sorted(found[1] - found[0])
    both = sorted(found[0] & found[1])
    print(f"seeds in both runs: {len(seeds)} ({seeds[0]}..{seeds[-1]})")
    print(f"found: base {len(found[0])}, change {len(found[1])}; neither "
          f"{len(seeds) - len(found[0] | found[1])}")
    print(f"  only base {len(only_base)}: {' '.join(map(str, only_base)) or '-'}")
    print(f"  only change {len(only_change)}: {' '.join(map(str, only_change)) or '-'}")
    p = sign_test(len(only_change), len(only_base))
    print(f"sign test on the {len(only_base) + len(only_change)} found by one only: p = {p:.3f} "
          "(two-sided; above 0.05 no difference is shown beyond a reshuffle)")
    if both:
        cpu = [(float(base[s]["cpu_s"]), float(change[s]["cpu_s"])) for s in both]
        ratio = math.exp(statistics.fmean(math.log(max(c, 0.01) / max(b, 0.01))
                                          for b, c in cpu))
        print(f"CPU on the {len(both)} found by both: change/base {ratio:.3f} (geometric mean), "
              f"total {sum(b for b, _ in cpu):.1f} / {sum(c for _, c in cpu):.1f} s")
    for name, run, ids in (("base", base, found[0]), ("change", change, found[1])):
        print(f"  {name} found within "
              f"{within([float(run[s]['cpu_s']) for s in ids], timeout)}")
    return 1 if any(run[s]["verdict"] == "illegal" for run in (base, change) for s in seeds) \
        else 0


def seed_list(args: argparse.Namespace) -> list[int]:
    """The seeds of the run: `--seeds`, `--seeds-file` or the range from `--seed`."""
    text = args.seeds
    if args.seeds_file:
        try:
            text = Path(args.seeds_file).read_text()
        except OSError as error:
            raise SystemExit(f"bench/legal.py: --seeds-file: {error}")
    if text is None:
        return list(range(args.seed, args.seed + args.positions))
    try:
        return [int(x) for x in text.replace(",", " ").split()]
    except ValueError as error:
        raise SystemExit(f"bench/legal.py: seeds: {error}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--spg", action="store_true", help="also the problems/spg diagrams")
    ap.add_argument("--csv", help="write one row per position here")
    ap.add_argument("--seeds", help="only these seeds (comma-separated), e.g. past failures")
    ap.add_argument("--seeds-file", help="only the seeds in this file (whitespace- or "
                    "comma-separated), e.g. bench/legal-hard-seeds.txt")
    ap.add_argument("--nodes", type=int, help="a limit of N positions per position instead "
                    "of --timeout, no deadline: every machine expands the same")
    ap.add_argument("--salt", type=int, default=0, help="added to every jittered try's salt "
                    "(finder.SALT), in both arms: other random tie-breaks, the same rules")
    ap.add_argument("--baseline", help="another finder module, run on the same positions")
    ap.add_argument("--baseline-tree", help="another checkout whose finder (with its own "
                    "modules) runs in a worker process on the same positions")
    ap.add_argument("--frozen", action="store_true", help="state a random subset of the "
                    "units each game never touched frozen (never moved)")
    ap.add_argument("--no-calibration", action="store_true", help="skip the machine-speed "
                    "figure printed first (a few seconds)")
    ap.add_argument("--report", nargs="+", metavar="CSV", help="no run: the figures of the "
                    "random positions in these CSV files of earlier runs (one code version), "
                    "as one set")
    ap.add_argument("--compare", nargs=2, metavar=("BASE", "CHANGE"), help="no run: two runs "
                    "of the same seeds side by side, with the sign test on the seeds found by "
                    "one only")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare, args.timeout)
    if args.report:
        return report(args.report, args.timeout)
    if args.nodes is not None and args.nodes < 1:
        raise SystemExit(f"bench/legal.py: --nodes {args.nodes}: at least 1")
    if args.baseline and (args.salt or args.nodes):
        raise SystemExit("bench/legal.py: --salt and --nodes apply to --baseline-tree, "
                         "not --baseline")
    if args.frozen and (args.baseline or args.baseline_tree):
        raise SystemExit("bench/legal.py: --frozen has no baseline (older trees answer "
                         "unknown for frozen units)")
    finder_module.SALT = args.salt
    rows = Rows(args.csv)
    baseline: Finder | TreeFinder | None = load_finder(args.baseline) if args.baseline else None
    if args.baseline_tree:
        baseline = TreeFinder(args.baseline_tree, args.salt, args.nodes)
    seeds = seed_list(args)
    if not args.no_calibration:
        seconds, nodes = machine_speed()
        print(f"machine: {nodes:,} positions of the plain finder on seed {CALIBRATION_SEED} "
              f"in {seconds:.2f} s CPU ({nodes / seconds:.0f} positions/s)", flush=True)
    status = run_random(seeds, args.timeout, rows, baseline, args.nodes, args.frozen) \
        if seeds else 0
    if args.spg:
        status |= run_spg(args.timeout, rows)
    return status


if __name__ == "__main__":
    sys.exit(main())
