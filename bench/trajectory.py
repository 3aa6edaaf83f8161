"""Benchmark of retrologic.spg.trajectory, each figure beside a baseline run in the same process.

1. all 64 × 12 empty-board distance maps: ours (state graph + BFS) against a BFS that asks
   python-chess for each square's moves (pawns: plain geometry);
2. 1,000 random (piece, colour, start, target, obstacles) queries: count_shortest, and the bundle
   enumerated when it holds at most 10,000 trajectories, against the paper's generation (§6 GM:
   for each partial trajectory scan all 64 squares against MAP conditions);
3. 200 random admissible queries (degree 2, one move longer than the shortest): the counting
   programme, and the dock construction when the bundle holds at most 10,000.

Run: python bench/trajectory.py [--queries N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import deque
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from retrologic.spg import trajectory as T  # noqa: E402

PIECES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)
U = T.UNREACHABLE
ENUMERATE_LIMIT = 10_000


def baseline_map(piece: int, color: bool, start: int) -> tuple[int, ...]:
    """BFS asking python-chess (a board with the unit alone) for every square's moves."""
    dist = [U] * 64
    dist[start] = 0
    queue = deque([start])
    while queue:
        x = queue.popleft()
        if piece == chess.PAWN:
            nxt = [s for s, _ in T.pawn_steps(color, x)] if chess.square_rank(x) not in (0, 7) \
                else []
        else:
            board = chess.BaseBoard(None)
            board.set_piece_at(x, chess.Piece(piece, color))
            nxt = list(board.attacks(x))
        for y in nxt:
            if dist[y] == U:
                dist[y] = dist[x] + 1
                queue.append(y)
    return tuple(dist)


def paper_bundle(piece: int, color: bool, start: int, target: int, blocked: int) -> list[tuple]:
    """§6's GM, transcribed: extend every partial trajectory by scanning all 64 squares for those
    one move away (MAP from the last square = 1), on a shortest route (MAP from the start = i+1,
    MAP from the target = L-i-1). Maps are computed once per square, like the paper's MAP calls."""
    maps: dict[int, tuple[int, ...]] = {}

    def MAP(sq: int) -> tuple[int, ...]:
        if sq not in maps:
            maps[sq] = T.distance_map(piece, color, sq, blocked)
        return maps[sq]

    to_target = T.distance_to_map(piece, color, target, blocked)
    L = MAP(start)[target]
    if L >= U:
        return []
    bundle = [(start,)]
    for i in range(L):
        nxt = []
        for t in bundle:
            here = MAP(t[-1])
            for y in range(64):
                if here[y] == 1 and MAP(start)[y] == i + 1 and to_target[y] == L - i - 1:
                    nxt.append(t + (y,))
        bundle = nxt
    return sorted(bundle)


def random_query(rng: random.Random) -> tuple[int, bool, int, int, int]:
    piece = rng.choice(PIECES)
    color = rng.choice(chess.COLORS)
    start = rng.randrange(8, 56) if piece == chess.PAWN else rng.randrange(64)
    target = rng.randrange(64)
    density = rng.choice((0.0, 0.05, 0.1, 0.2, 0.3))
    blocked = 0
    for s in range(64):
        if s not in (start, target) and rng.random() < density:
            blocked |= chess.BB_SQUARES[s]
    return piece, color, start, target, blocked


def clear_caches() -> None:
    T._graph.cache_clear()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()

    print("1. all 64 x 12 empty-board distance maps")
    clear_caches()
    t0 = time.perf_counter()
    ours = {(p, c, s): T.distance_map(p, c, s) for p in PIECES for c in chess.COLORS
            for s in range(64) if not (p == chess.PAWN and chess.square_rank(s) in (0, 7))}
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    base = {k: baseline_map(*k) for k in ours}
    t_base = time.perf_counter() - t0
    same = sum(ours[k] == base[k] for k in ours)
    print(f"   maps: {len(ours)} (pawns on ranks 1 and 8 have none: 64 x 12 - 32)")
    print(f"   ours (cold caches): {t_ours * 1000:8.1f} ms   baseline (python-chess BFS): "
          f"{t_base * 1000:8.1f} ms   ratio {t_base / t_ours:5.1f}x   identical maps: "
          f"{same}/{len(ours)}")

    print(f"2. {args.queries} random shortest-bundle queries (blocked squares 0-30 %)")
    rng = random.Random(args.seed)
    queries = [random_query(rng) for _ in range(args.queries)]
    clear_caches()
    t0 = time.perf_counter()
    counts = [T.count_shortest(p, c, s, t, b) for p, c, s, t, b in queries]
    t_count = time.perf_counter() - t0
    small = [i for i, n in enumerate(counts) if 0 < n <= ENUMERATE_LIMIT]
    t0 = time.perf_counter()
    bundles = {i: T.shortest_bundle(*queries[i]) for i in small}
    t_enum = time.perf_counter() - t0
    t0 = time.perf_counter()
    paper = {i: paper_bundle(*queries[i]) for i in small}
    t_paper = time.perf_counter() - t0
    agree = sum(bundles[i] == paper[i] for i in small)
    total = sum(len(b) for b in bundles.values())
    print(f"   reachable: {sum(1 for n in counts if n)}   unreachable: "
          f"{sum(1 for n in counts if not n)}   enumerated (<= {ENUMERATE_LIMIT}): {len(small)}   "
          f"counted only: {sum(1 for n in counts if n > ENUMERATE_LIMIT)}")
    print(f"   largest count: {max(counts):,}   trajectories enumerated: {total:,}")
    print(f"   count_shortest, all queries (cold caches): {t_count * 1000:8.1f} ms "
          f"({t_count / len(queries) * 1e6:6.0f} us/query)")
    print(f"   shortest_bundle, enumerated: {t_enum * 1000:8.1f} ms   paper's GM scan: "
          f"{t_paper * 1000:8.1f} ms   ratio {t_paper / t_enum:5.1f}x   identical bundles: "
          f"{agree}/{len(small)}")

    print("3. 200 random admissible queries (degree 2, length = shortest + 1)")
    adm = []
    while len(adm) < 200:
        p, c, s, t, b = random_query(rng)
        d = T.distance(p, c, s, t, b)
        if d < U:
            adm.append((p, c, s, t, d + 1, 2, b))
    t0 = time.perf_counter()
    acounts = [T.count_admissible(*q) for q in adm]
    t_acount = time.perf_counter() - t0
    asmall = [i for i, n in enumerate(acounts) if n <= ENUMERATE_LIMIT]
    t0 = time.perf_counter()
    abundles = {i: T.admissible_bundle(*adm[i]) for i in asmall}
    t_aenum = time.perf_counter() - t0
    agree = sum(len(abundles[i]) == acounts[i] for i in asmall)
    print(f"   nonempty: {sum(1 for n in acounts if n)}   largest count: {max(acounts):,}   "
          f"enumerated: {len(asmall)} ({sum(len(v) for v in abundles.values()):,} trajectories)")
    print(f"   count_admissible: {t_acount * 1000:8.1f} ms   admissible_bundle (docks): "
          f"{t_aenum * 1000:8.1f} ms   count == len(bundle): {agree}/{len(asmall)}")

    print("4. large bundles, counted without enumeration")
    big = [("K a1-h8, 14 moves, degree 3", (chess.KING, True, chess.A1, chess.H8, 14, 3), {}),
           ("K c7-e1, 10 moves, degree 4", (chess.KING, True, chess.C7, chess.E1, 10, 4), {}),
           ("Q a1-b3, 6 moves, degree 3", (chess.QUEEN, True, chess.A1, chess.B3, 6, 3), {}),
           ("N a1-h8, 12 moves, degree 3", (chess.KNIGHT, True, chess.A1, chess.H8, 12, 3), {}),
           ("P a2=Q-h1, 12 moves, degree 3", (chess.PAWN, True, chess.A2, chess.H1, 12, 3),
            {"promote": chess.QUEEN})]
    for name, q, kw in big:
        t0 = time.perf_counter()
        n = T.count_admissible(*q, **kw)
        print(f"   {name:32s} {n:>22,}   {(time.perf_counter() - t0) * 1000:7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
