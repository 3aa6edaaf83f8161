"""Retractions generated per second over a fixed set of varied positions, side by side with a
brute-force baseline (python-chess only: retrologic/lastmove/unmoves.py, the last-move
checker's own generator, through tests/bruteforce.py) that must find the same sets.

    python bench/retract.py [--positions 60] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from bruteforce import brute_retractions  # noqa: E402
from conftest import random_game  # noqa: E402

from retrologic.position import Position  # noqa: E402
from retrologic.retract import retractions  # noqa: E402

HAND = [
    "8/8/8/8/1k6/P7/1K6/8 b - - 0 1",
    "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 0 1",
    "8/8/8/8/8/1P6/1PkPP3/KR1b4 b - - 0 1",
    "k1K5/8/8/8/8/8/7P/6B1 w - - 0 1",
    "8/8/8/1r1b4/B7/2K5/8/3k4 b - - 0 1",
    "7R/7p/5P1k/4PKpP/8/8/8/8 w - - 0 1",
    "1Q5k/8/8/8/8/8/8/K7 b - - 0 1",
    "4k3/8/8/8/8/2p5/8/4K3 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
]


def corpus(n: int) -> list[chess.Board]:
    """Hand-picked retro positions plus positions from seeded random games (varied phases)."""
    boards = [chess.Board(f) for f in HAND]
    rng = random.Random(2026)
    seed = 0
    while len(boards) < n:
        game = random_game(seed)
        seed += 1
        before, move = game[rng.randrange(len(game))]
        after = before.copy(stack=False)
        after.push(move)
        boards.append(after)
    return boards


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    boards = corpus(args.positions)
    positions = [Position.from_board(b) for b in boards]

    t0 = time.perf_counter()
    total = 0
    for _ in range(args.repeat):
        for pos in positions:
            total += len(retractions(pos))
    ours = time.perf_counter() - t0
    per_rep = total // args.repeat

    t0 = time.perf_counter()
    partial_total = 0
    partials = [Position(p.placement, None, 0, None, 0, True) for p in positions]
    for _ in range(args.repeat):
        for pos in partials:
            partial_total += len(retractions(pos, uncaptures="open"))
    partial_time = time.perf_counter() - t0

    t0 = time.perf_counter()
    brute_total = 0
    for b, pos in zip(boards, positions):
        found = brute_retractions(b)
        brute_total += len(found)
        mine = {(r.move().uci(), r.uncapture, r.en_passant) for r in retractions(pos)}
        assert mine == found, f"generator and brute force differ on {b.fen()}"
    brute = time.perf_counter() - t0

    rate = total / ours
    brute_rate = brute_total / brute
    print(f"positions: {len(positions)} (full), retractions per pass: {per_rep}")
    print(f"retrologic.retract, full positions: {rate:10.0f} retractions/s "
          f"({ours / (args.repeat * len(positions)) * 1e6:.0f} us/position)")
    print(f"retrologic.retract, partial (open): {partial_total / partial_time:10.0f} retractions/s")
    print(f"brute force (python-chess):         {brute_rate:10.0f} retractions/s (same sets: yes)")
    print(f"ratio generator / brute force:      {rate / brute_rate:10.1f}x")
    print(f"target >= 20,000 retractions/s:     {'met' if rate >= 20000 else 'NOT met'}")


if __name__ == "__main__":
    main()
