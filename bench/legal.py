"""Legality by construction (issue #19): how often, how fast and how long the games are.

    python bench/legal.py [--positions N] [--seed S] [--timeout 10] [--spg] [--csv FILE]

1. Random legal positions: N games of 20-150 plies made with python-chess from fixed seeds
   (uniform random moves, with a bias towards castling, e.p. and promotions, underpromotions
   included, so every kind occurs); each final position is given to `legal` with the time limit.
   Reports the share certified legal, never illegal (a static proof on a position of a real
   game would be a soundness bug: the run exits 1), the distribution of CPU time and of game
   length, and every failure with its FEN.
2. `--spg`: every problems/spg diagram with its published shortest length: certified legal, the
   game found never shorter than the proved shortest length (exits 1 otherwise), and the
   finder's CPU time beside the proof-game solver's on the same position (the baseline).
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
import time
import tomllib
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from retrologic.legalgame.checker import reached_fault  # noqa: E402
from retrologic.legalgame.finder import find_game  # noqa: E402
from retrologic.legality import rules as legality  # noqa: E402
from retrologic.limits import Budget, LimitHit  # noqa: E402
from retrologic.position import Position  # noqa: E402


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


def certify(board: chess.Board, timeout: float) -> tuple[str, float, int | None]:
    """('legal'|'illegal'|'unknown', CPU seconds, game plies) for one position."""
    t0 = time.process_time()
    if legality.reasons(Position.from_board(board)):
        return "illegal", time.process_time() - t0, None
    try:
        moves = find_game(board, Budget(timeout))
    except LimitHit:
        moves = None
    seconds = time.process_time() - t0
    if moves is None:
        return "unknown", seconds, None
    replay = chess.Board()
    for move in moves:
        replay.push(move)
    fault = reached_fault(replay, board)
    if fault:
        raise SystemExit(f"the finder's game is wrong for {board.fen()}: {fault}")
    return "legal", seconds, len(moves)


def percentiles(values: list[float]) -> str:
    if not values:
        return "-"
    q = statistics.quantiles(values, n=100) if len(values) > 1 else [values[0]] * 99
    return (f"median {statistics.median(values):.2f}, p90 {q[89]:.2f}, p99 {q[98]:.2f}, "
            f"max {max(values):.2f}")


def run_random(n: int, seed: int, timeout: float, rows: list[dict]) -> int:
    counts = {"legal": 0, "illegal": 0, "unknown": 0}
    times, lengths, failures = [], [], []
    for i in range(n):
        board, plies = random_position(seed + i)
        verdict, seconds, length = certify(board, timeout)
        counts[verdict] += 1
        times.append(seconds)
        if length is not None:
            lengths.append(length)
        else:
            failures.append((seed + i, plies, verdict, board.fen()))
        rows.append({"set": "random", "seed": seed + i, "plies": plies, "fen": board.fen(),
                     "verdict": verdict, "cpu_s": round(seconds, 3), "game_plies": length})
        print(f"\r{i + 1}/{n}: {counts}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"random positions: {n} (seeds {seed}..{seed + n - 1}, 20-150 plies), limit "
          f"{timeout:g} s each")
    print(f"  legal {counts['legal']} ({100 * counts['legal'] / n:.1f} %), unknown "
          f"{counts['unknown']}, illegal {counts['illegal']}")
    print(f"  CPU s: {percentiles(times)}")
    print(f"  game plies: {percentiles([float(x) for x in lengths])}")
    for s, plies, verdict, fen in failures:
        print(f"  {verdict}: seed {s} ({plies} plies) {fen}")
    return 1 if counts["illegal"] else 0


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--spg", action="store_true", help="also the problems/spg diagrams")
    ap.add_argument("--csv", help="write one row per position here")
    args = ap.parse_args()
    rows: list[dict] = []
    status = run_random(args.positions, args.seed, args.timeout, rows) if args.positions else 0
    if args.spg:
        status |= run_spg(args.timeout, rows)
    if args.csv:
        keys = sorted({k for row in rows for k in row})
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=keys)
            writer.writeheader()
            writer.writerows(rows)
    return status


if __name__ == "__main__":
    sys.exit(main())
