"""The `pawn-columns` rule (retrologic/legality/pawn_columns.py, Texel's proof kernel): soundness
on real games, cost, and what it adds to the other static rules.

    python bench/pawn_columns.py [--games 200] [--seed 0] [--every 3]

1. Real games (`legal.random_position`: python-chess, 20-150 plies, castlings, e.p. and
   promotions played with probability 0.5 when legal): every `--every`-th position's kernel search towards the
   game's last position, started from the initial array and, with the promotions really made,
   from the position itself. A search that finds no kernel on a real game is a soundness bug
   (the run exits 1). Reports CPU per search (median, 99th percentile, max) and capped ones.
2. Swapped pawns: each of those positions with the lowest White pawn of a file and the Black
   pawn above it swapped (the first file where both stand), when the result has no pawn on a back rank
   and no side in check it could not be: how many the other static rules prove illegal
   (`legality.rules.reasons` apart from this rule, which it asks last) and how many with it. A swap can leave a legal
   position (captures enough to go round), so the share is what the rule adds, not a bound.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retrologic.legality import pawn_columns, rules  # noqa: E402
from retrologic.position import Position  # noqa: E402
from legal import random_position  # noqa: E402  (bench/, on the path as the script's folder)


def swapped(board: chess.Board) -> chess.Board | None:
    """The board with one file's lowest White pawn and the Black pawn above it swapped."""
    for file in range(8):
        squares = [chess.square(file, r) for r in range(8)]
        white = [s for s in squares if board.piece_at(s) == chess.Piece(chess.PAWN, chess.WHITE)]
        black = [s for s in squares if board.piece_at(s) == chess.Piece(chess.PAWN, chess.BLACK)]
        above = [s for s in black if white and s > white[0]]
        if white and above:
            out = board.copy(stack=False)
            out.set_piece_at(white[0], chess.Piece(chess.PAWN, chess.BLACK))
            out.set_piece_at(above[0], chess.Piece(chess.PAWN, chess.WHITE))
            if out.pawns & (chess.BB_RANK_1 | chess.BB_RANK_8) or out.was_into_check():
                return None
            return out
    return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--every", type=int, default=3)
    args = ap.parse_args()
    times: list[float] = []
    capped = wrong = 0
    proved = {"others": 0, "with": 0}
    tried = 0
    for seed in range(args.seed, args.seed + args.games):
        final, _ = random_position(seed)
        moves = final.move_stack
        kernel = pawn_columns.Kernel.towards(final)
        board = chess.Board()
        made = {chess.WHITE: 0, chess.BLACK: 0}
        for ply, move in enumerate(moves):
            made[board.turn] += move.promotion is not None
            board.push(move)
            if ply % args.every:
                continue
            for state in (pawn_columns.INITIAL,
                          pawn_columns.state_of(board, made[chess.WHITE], made[chess.BLACK])):
                start = time.process_time()
                found = kernel.reachable(state)
                times.append(time.process_time() - start)
                capped += found is None
                if found is False:
                    wrong += 1
                    print(f"SOUNDNESS: seed {seed} ply {ply + 1}: {board.fen()} -> {final.fen()}")
            other = swapped(board)
            if other is not None:
                tried += 1
                found_rules = {r.rule for r in rules.reasons(Position.from_board(other))}
                proved["others"] += bool(found_rules - {rules.PAWN_COLUMNS})
                proved["with"] += bool(found_rules)
        print(f"\r{seed - args.seed + 1}/{args.games} games", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    times.sort()
    print(f"real games: {args.games} (seeds {args.seed}..{args.seed + args.games - 1}), "
          f"{len(times)} kernel searches: {wrong} found no kernel, {capped} capped; CPU per "
          f"search median {statistics.median(times) * 1000:.1f} ms, 99th percentile "
          f"{times[int(0.99 * (len(times) - 1))] * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms")
    print(f"swapped pawns: {tried} positions; proved illegal by the other static rules "
          f"{proved['others']}, with pawn-columns {proved['with']}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
