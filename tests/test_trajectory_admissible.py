"""Admissible trajectories of degree k (Maliković §11) against exhaustive enumeration of walks."""

from __future__ import annotations

import random

import chess

from retrologic.spg import trajectory as T
from trajectory_oracle import bfs, geometric_moves, min_pieces, walks


def test_section_11_bishop_c7_c1_degree_2_length_3() -> None:
    """The white bishop from (3,2) = c7 to (3,8) = c1 in three moves: docks are the squares with
    MAP c7 + MAP c1 = 3; the bundle built via docks is every 3-move bishop route c7 → c1."""
    B, W = chess.BISHOP, chess.WHITE
    assert (T.from_paper(3, 2), T.from_paper(3, 8)) == (chess.C7, chess.C1)
    assert T.distance(B, W, chess.C7, chess.C1) == 2
    assert T.shortest_bundle(B, W, chess.C7, chess.C1) == [(chess.C7, chess.F4, chess.C1)]
    from_c7 = T.distance_map(B, W, chess.C7)
    from_c1 = T.distance_map(B, W, chess.C1)
    dock_set = T.docks(B, W, chess.C7, chess.C1, 3)
    assert dock_set == [s for s in range(64) if from_c7[s] + from_c1[s] == 3]
    moves = geometric_moves(B, W, set(), set())
    every = sorted(walks(moves, chess.C7, 3, chess.C1))
    got = T.admissible_bundle(B, W, chess.C7, chess.C1, 3, degree=2)
    assert got == every
    assert T.count_admissible(B, W, chess.C7, chess.C1, 3, degree=2) == len(every) == 14
    assert {t[1] for t in got} | {t[2] for t in got} >= set(dock_set)
    # each trajectory is a shortest route to a dock joined to a shortest route from it
    for t in got:
        assert any(t[i] in dock_set and from_c7[t[i]] == i and from_c1[t[i]] == 3 - i
                   for i in range(4))


def test_degree_one_is_the_shortest_bundle() -> None:
    K, W = chess.KING, chess.WHITE
    assert T.admissible_bundle(K, W, chess.C7, chess.E1, 6, degree=1) == \
        T.shortest_bundle(K, W, chess.C7, chess.E1)
    assert T.admissible_bundle(K, W, chess.C7, chess.E1, 7, degree=1) == []
    assert T.count_admissible(K, W, chess.C7, chess.E1, 6, degree=1) == 90
    assert T.admissible_bundle(K, W, chess.C7, chess.E1, 5, degree=3) == []


def test_random_admissible_bundles_equal_exhaustive_search() -> None:
    """For random obstacles, degree k and length ℓ: the dock construction and the counting
    programme both equal the walks of ℓ moves that cut into at most k shortest pieces (every cut
    tried), with shortest distances from the oracle's own BFS."""
    rng = random.Random(14)
    caps = {chess.KING: 5, chess.KNIGHT: 4, chess.BISHOP: 4, chess.ROOK: 3, chess.QUEEN: 3,
            chess.PAWN: 5}
    nonempty = 0
    for _ in range(45):
        piece = rng.choice(list(caps))
        color = rng.choice(chess.COLORS)
        start = rng.randrange(8, 56) if piece == chess.PAWN else rng.randrange(64)
        target = rng.randrange(64)
        blocked = {s for s in range(64) if rng.random() < 0.15 and s != start}
        moves = geometric_moves(piece, color, blocked, blocked)
        dist_cache: dict[int, dict[int, int]] = {}

        def dist(a: int, b: int) -> int:
            if a not in dist_cache:
                dist_cache[a] = bfs(moves, a)
            return dist_cache[a].get(b, 10**9)

        d = dist(start, target)
        if d > caps[piece]:
            continue
        length = rng.randint(d, caps[piece])
        degree = rng.choice([2, 2, 3])
        every = list(walks(moves, start, length, target))
        want = sorted(w for w in every if min_pieces(w, dist) <= degree)
        got = T.admissible_bundle(piece, color, start, target, length, degree, blocked)
        assert got == want, (piece, color, start, target, length, degree)
        assert T.count_admissible(piece, color, start, target, length, degree, blocked) == len(want)
        nonempty += bool(want)
    assert nonempty >= 10


def _pruned_admissible_count(piece: int, start: int, target: int, length: int, degree: int,
                             blocked: set[int]) -> int:
    """Walks of `length` moves (pruned only by the oracle's distance to the target) that cut into
    at most `degree` shortest pieces, every cut tried."""
    moves = geometric_moves(piece, chess.WHITE, blocked, blocked)
    cache: dict[int, dict[int, int]] = {}

    def dist(a: int, b: int) -> int:
        if a not in cache:
            cache[a] = bfs(moves, a)
        return cache[a].get(b, 10**9)

    found = 0
    path = [start]

    def rec() -> None:
        nonlocal found
        i = len(path) - 1
        if i == length:
            found += path[-1] == target and min_pieces(tuple(path), dist) <= degree
            return
        for y, _ in moves(path[-1]):
            if dist(y, target) <= length - i - 1:
                path.append(y)
                rec()
                path.pop()
    rec()
    return found


def test_admissible_counts_beyond_listing() -> None:
    """Counts in the thousands, against pruned enumeration with the every-cut oracle."""
    wall = {chess.C3, chess.D3, chess.E3, chess.F3}
    for piece, start, target, length, degree, blocked in (
            (chess.KING, chess.C7, chess.E1, 8, 2, set()),
            (chess.KING, chess.C7, chess.E1, 8, 3, set()),
            (chess.KING, chess.A1, chess.H8, 9, 3, set()),
            (chess.KNIGHT, chess.A1, chess.H8, 8, 2, set()),
            (chess.QUEEN, chess.A1, chess.B3, 4, 3, set()),
            (chess.KING, chess.D1, chess.D5, 6, 2, wall)):
        want = _pruned_admissible_count(piece, start, target, length, degree, blocked)
        assert T.count_admissible(piece, chess.WHITE, start, target, length, degree,
                                  blocked) == want
    small = T.admissible_bundle(chess.KING, chess.WHITE, chess.C7, chess.E1, 7, degree=2)
    assert len(small) == T.count_admissible(chess.KING, chess.WHITE, chess.C7, chess.E1, 7, 2)
