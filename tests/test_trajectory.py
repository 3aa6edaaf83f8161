"""Distance maps and shortest bundles against the paper's figures, python-chess's move generator,
breadth-first search and exhaustive enumeration of walks."""

from __future__ import annotations

import random

import chess
import pytest

from retrologic.spg import trajectory as T
from trajectory_oracle import (bfs, geometric_moves, pawn_state_bfs, python_chess_moves,
                                    walks)

U = T.UNREACHABLE
PIECES = (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)

# Maliković §6: Sum (MAP 3 2 (MAP_start k)) (MAP 5 8 (MAP_start k)) as printed, rows y = 1 … 8
# (rank 8 … rank 1), columns x = 1 … 8 (a … h). In our copy of the paper four rows print only
# seven numbers: ranks 8, 5 and 4 lost one of a run of equal values (8 8 8 → 8 8, 6 6 6 6 6 →
# 6 6 6 6), rank 6 lost its last value (h6 = 10).
PAPER_SUM = [
    [9, 8, 8, 9, 10, 11, 12],
    [8, 7, 6, 7, 8, 9, 10, 11],
    [7, 6, 6, 6, 7, 8, 9],
    [6, 6, 6, 6, 7, 8, 9],
    [7, 6, 6, 6, 6, 7, 8],
    [8, 7, 6, 6, 6, 6, 6, 8],
    [9, 8, 7, 6, 6, 6, 7, 8],
    [10, 9, 8, 7, 6, 7, 8, 9],
]


def _drop_one(row: list[int]) -> list[list[int]]:
    """Every row obtained by deleting one element."""
    return [row[:i] + row[i + 1:] for i in range(len(row))]


def test_paper_king_c7_e1_distance_and_sum_map() -> None:
    assert T.paper_coordinates(chess.C7) == (3, 2) and T.paper_coordinates(chess.E1) == (5, 8)
    assert T.from_paper(3, 2) == chess.C7
    assert T.distance(chess.KING, chess.WHITE, chess.C7, chess.E1) == 6
    ours = T.grid(T.sum_map(chess.KING, chess.WHITE, chess.C7, chess.E1))
    complete = 0
    for printed, row in zip(PAPER_SUM, ours):
        if len(printed) == 8:
            assert printed == row
            complete += 1
        else:
            assert printed in _drop_one(row), (printed, row)
    assert complete == 4


def test_paper_first_moves_c7_e1() -> None:
    first = T.first_moves(chess.KING, chess.WHITE, chess.C7, chess.E1)
    assert first == [chess.B6, chess.C6, chess.D6]
    bundle = T.shortest_bundle(chess.KING, chess.WHITE, chess.C7, chess.E1)
    assert {t[1] for t in bundle} == set(first)
    assert all(len(t) == 7 and t[0] == chess.C7 and t[-1] == chess.E1 for t in bundle)
    assert len(bundle) == T.count_shortest(chess.KING, chess.WHITE, chess.C7, chess.E1)


def test_paper_problem2_king_bundle_b2_e1() -> None:
    """§6 prints bt 1 k W 2 7 5 8: the white king's bundle b2 → e1; three of its trajectories
    survive intact in the text, the bundle has five."""
    bundle = T.shortest_bundle(chess.KING, chess.WHITE, chess.B2, chess.E1)
    paper = [[(2, 7), (3, 6), (4, 7), (5, 8)], [(2, 7), (3, 7), (4, 7), (5, 8)],
             [(2, 7), (3, 7), (4, 8), (5, 8)]]
    for route in paper:
        assert tuple(T.from_paper(x, y) for x, y in route) in bundle
    assert len(bundle) == 5


def test_known_counts() -> None:
    """Independent figures: king a1 → a8 = Motzkin number M7 = 127; a rook corner to corner: 2;
    king a1 → h8: 1; knight a1 → b2: 4 moves … counted by formula, not by the code."""
    assert T.count_shortest(chess.KING, chess.WHITE, chess.A1, chess.A8) == 127
    assert T.count_shortest(chess.KING, chess.WHITE, chess.A1, chess.H8) == 1
    assert T.count_shortest(chess.ROOK, chess.BLACK, chess.A1, chess.H8) == 2
    assert T.count_shortest(chess.QUEEN, chess.WHITE, chess.A1, chess.H8) == 1
    assert T.distance(chess.KNIGHT, chess.WHITE, chess.A1, chess.B2) == 4
    assert T.distance(chess.KNIGHT, chess.WHITE, chess.A1, chess.H8) == 6
    assert T.distance(chess.BISHOP, chess.WHITE, chess.A1, chess.A2) == U


def test_empty_board_maps_every_piece_colour_square() -> None:
    """64 × 12 maps against BFS on python-chess's move generator (pieces) and on two pawn
    generators (python-chess with victims placed, and plain geometry), per capture count."""
    for piece in PIECES:
        nbr = {sq: python_chess_moves(piece, chess.WHITE, set())(sq) for sq in range(64)}
        for color in chess.COLORS:
            for sq in range(64):
                want = bfs(lambda s: nbr[s], sq)
                got = T.distance_map(piece, color, sq)
                assert got == tuple(want.get(s, U) for s in range(64)), (piece, color, sq)
    for color in chess.COLORS:
        pc, geo = python_chess_moves(chess.PAWN, color, set()), geometric_moves(chess.PAWN, color,
                                                                              set(), set())
        for sq in range(64):
            assert pc(sq) == sorted(geo(sq)), sq
            if chess.square_rank(sq) in (0, 7):
                with pytest.raises(ValueError):
                    T.distance_map(chess.PAWN, color, sq)
                continue
            _check_pawn(color, sq, geo, set(), set())


def _check_pawn(color: bool, sq: int, moves, no_entry: set[int], no_cross: set[int]) -> None:
    states = pawn_state_bfs(moves, color, sq)
    maps = T.pawn_maps(color, sq, no_entry=no_entry, no_cross=no_cross)
    for c in range(7):
        want = [min((d for (s, cc, _), d in states.items() if s == t and cc == c), default=U)
                for t in range(64)]
        assert list(maps[c]) == want, (color, sq, c)
        assert T.distance_map(chess.PAWN, color, sq, no_entry=no_entry, no_cross=no_cross,
                              captures=c) == maps[c]
    best = [min((d for (s, _, _), d in states.items() if s == t), default=U) for t in range(64)]
    assert list(T.distance_map(chess.PAWN, color, sq, no_entry=no_entry, no_cross=no_cross)) == best
    fewest = [min((cc for (s, cc, _) in states if s == t), default=U) for t in range(64)]
    assert list(T.min_captures_map(color, sq, no_entry=no_entry, no_cross=no_cross)) == fewest


def _random_mask(rng: random.Random, density: float, keep: tuple[int, ...] = ()) -> set[int]:
    return {s for s in range(64) if rng.random() < density and s not in keep}


def test_random_obstacles_blocked_against_python_chess() -> None:
    rng = random.Random(6)
    for _ in range(60):
        piece = rng.choice(PIECES + (chess.PAWN,))
        color = rng.choice(chess.COLORS)
        start = rng.randrange(8, 56) if piece == chess.PAWN else rng.randrange(64)
        blocked = _random_mask(rng, rng.choice([0.1, 0.25, 0.4]), (start,))
        moves = python_chess_moves(piece, color, blocked)
        if piece == chess.PAWN:
            _check_pawn(color, start, moves, blocked, blocked)
            assert T.pawn_sweep(color, start, T.mask_of(blocked)) == \
                T.pawn_maps(color, start, blocked)
            continue
        want = bfs(moves, start)
        got = T.distance_map(piece, color, start, blocked)
        assert got == tuple(want.get(s, U) for s in range(64))
        assert got == T.distance_map(piece, color, start, T.mask_of(blocked))
        assert got == T.piece_map(piece, start, T.mask_of(blocked))


def test_bitboard_sweeps_equal_the_move_graph() -> None:
    """The graph-free sweeps the proof-game bounds use (`piece_map`, `pawn_sweep`) give the
    move graph's maps, over many random obstacle sets (the graph is itself checked above)."""
    rng = random.Random(11)
    for _ in range(1500):
        piece = rng.choice(PIECES + (chess.PAWN,))
        color = rng.choice(chess.COLORS)
        start = rng.randrange(8, 56) if piece == chess.PAWN else rng.randrange(64)
        blocked = T.mask_of(_random_mask(rng, rng.choice([0.05, 0.2, 0.4]), (start,)))
        if piece == chess.PAWN:
            assert T.pawn_sweep(color, start, blocked) == T.pawn_maps(color, start, blocked)
        else:
            assert T.piece_map(piece, start, blocked) == T.distance_map(piece, color, start, blocked)
    walled = chess.BB_A2 | chess.BB_B1  # a rook in the corner, walled in; a pawn facing a wall
    assert T.piece_map(chess.ROOK, chess.A1, walled, 999) == (0,) + (999,) * 63
    assert T.pawn_sweep(chess.WHITE, chess.E2, chess.BB_E3, 999)[0][chess.E4] == 999
    with pytest.raises(ValueError):
        T.pawn_sweep(chess.WHITE, chess.E8)
    with pytest.raises(ValueError):
        T.piece_map(chess.ROOK, 64)


def test_random_enter_only_and_cross_only_obstacles() -> None:
    """Squares that may be crossed but not entered, or entered but not crossed (geometry oracle)."""
    rng = random.Random(7)
    for _ in range(80):
        piece = rng.choice((chess.QUEEN, chess.ROOK, chess.BISHOP, chess.PAWN, chess.KING))
        color = rng.choice(chess.COLORS)
        start = rng.randrange(8, 56) if piece == chess.PAWN else rng.randrange(64)
        no_entry = _random_mask(rng, 0.15, (start,))
        no_cross = _random_mask(rng, 0.2, (start,))
        moves = geometric_moves(piece, color, no_entry, no_cross)
        if piece == chess.PAWN:
            _check_pawn(color, start, moves, no_entry, no_cross)
            continue
        want = bfs(moves, start)
        got = T.distance_map(piece, color, start, no_entry=no_entry, no_cross=no_cross)
        assert got == tuple(want.get(s, U) for s in range(64))


def test_distance_to_map_is_the_reverse_map() -> None:
    rng = random.Random(8)
    for _ in range(40):
        piece = rng.choice(PIECES + (chess.PAWN, chess.PAWN))
        color = rng.choice(chess.COLORS)
        blocked = _random_mask(rng, 0.15)
        target = rng.randrange(64)
        back = T.distance_to_map(piece, color, target, blocked)
        for s in range(64):
            if piece == chess.PAWN and chess.square_rank(s) in (0, 7):
                assert back[s] == (0 if s == target else U)
                continue
            assert back[s] == T.distance(piece, color, s, target, blocked)
    assert T.distance_to_map(chess.PAWN, chess.WHITE, chess.G8)[chess.F7] == 1


def test_promotion_continues_into_the_promoted_piece() -> None:
    rng = random.Random(9)
    for _ in range(16):
        color = rng.choice(chess.COLORS)
        start = rng.randrange(8, 56)
        promote = rng.choice(T.PROMOTION_PIECES)
        blocked = _random_mask(rng, 0.12, (start,))
        pawn = python_chess_moves(chess.PAWN, color, blocked)
        piece = python_chess_moves(promote, color, blocked)
        states = pawn_state_bfs(pawn, color, start, promoted=piece)
        for c in (None, 0, 1, 2):
            want = [min((d for (s, cc, prom), d in states.items()
                         if s == t and prom and (c is None or cc == c)), default=U)
                    for t in range(64)]
            got = T.distance_map(chess.PAWN, color, start, blocked, captures=c, promote=promote)
            assert list(got) == want, (color, start, promote, c)


def test_promoted_queen_example() -> None:
    """White pawn e2 promotes on e8 in five moves (e2-e4 first); e8 → a4 and e8 → e2 are one queen
    move more. h1 takes six by promoting with captures on a8 (then the long diagonal) or h8 (then
    the h-file), seven without captures (e8 and two queen moves)."""
    m = T.distance_map(chess.PAWN, chess.WHITE, chess.E2, promote=chess.QUEEN)
    assert m[chess.E8] == 5 and m[chess.A4] == 6 and m[chess.E2] == 6
    assert m[chess.H1] == 6
    assert T.distance_map(chess.PAWN, chess.WHITE, chess.E2, promote=chess.QUEEN,
                          captures=0)[chess.H1] == 7   # e8 then two queen moves
    assert T.distance_map(chess.PAWN, chess.WHITE, chess.E2)[chess.E8] == 5


def _random_query(rng: random.Random, caps: dict[int, int]):
    """A random (piece, colour, start, target, obstacles) whose shortest length is drawn from
    1 … the piece's cap (long routes are favoured; the cap keeps exhaustive enumeration small)."""
    while True:
        piece = rng.choice(list(caps))
        color = rng.choice(chess.COLORS)
        start = rng.randrange(8, 56) if piece == chess.PAWN else rng.randrange(64)
        density = rng.choice([0.0, 0.0, 0.1, 0.2])
        no_entry = _random_mask(rng, density, (start,))
        no_cross = no_entry | _random_mask(rng, density / 2, (start,))
        moves = geometric_moves(piece, color, no_entry, no_cross)
        dist = bfs(moves, start)
        want = rng.randint(1, caps[piece])
        targets = sorted(s for s, d in dist.items() if d == want)
        if targets:
            return piece, color, start, rng.choice(targets), no_entry, no_cross, moves, want


def test_random_bundles_equal_exhaustive_search() -> None:
    rng = random.Random(10)
    caps = {chess.KING: 7, chess.KNIGHT: 5, chess.BISHOP: 4, chess.ROOK: 4, chess.QUEEN: 3,
            chess.PAWN: 6}
    sizes = []
    for _ in range(300):
        piece, color, start, target, ne, nc, moves, d = _random_query(rng, caps)
        want = sorted(walks(moves, start, d, target))
        kw = dict(no_entry=ne, no_cross=nc)
        got = T.shortest_bundle(piece, color, start, target, **kw)
        assert got == want, (piece, color, start, target)
        assert T.count_shortest(piece, color, start, target, **kw) == len(want)
        on = 0
        for t in want:
            for s in t:
                on |= chess.BB_SQUARES[s]
        assert T.bundle_squares(piece, color, start, target, **kw) == on
        assert T.first_moves(piece, color, start, target, **kw) == sorted({t[1] for t in want}
                                                                          if d else set())
        sizes.append(len(want))
    assert max(sizes) > 100 and min(sizes) >= 1 and sum(sizes) > 1000  # not a vacuous test


def test_pawn_bundles_with_exact_captures() -> None:
    rng = random.Random(11)
    checked = 0
    while checked < 30:
        color = rng.choice(chess.COLORS)
        start = rng.randrange(8, 56)
        target = rng.randrange(64)
        blocked = _random_mask(rng, 0.1, (start,))
        moves = geometric_moves(chess.PAWN, color, blocked, blocked)
        states = pawn_state_bfs(moves, color, start)
        for c in range(4):
            d = min((dd for (s, cc, _), dd in states.items() if s == target and cc == c),
                    default=None)
            if d is None:
                continue
            want = sorted(w for w in walks(moves, start, d, target)
                          if sum(chess.square_file(a) != chess.square_file(b)
                                 for a, b in zip(w, w[1:])) == c)
            got = T.shortest_bundle(chess.PAWN, color, start, target, blocked, captures=c)
            assert got == want
            assert T.count_shortest(chess.PAWN, color, start, target, blocked,
                                    captures=c) == len(want)
            for w in got:
                assert len(T.capture_squares(chess.PAWN, color, w)) == c
            checked += 1


def test_bundle_limit_and_counts_without_enumeration() -> None:
    n = T.count_shortest(chess.KING, chess.WHITE, chess.A1, chess.A8)
    with pytest.raises(T.BundleTooLarge) as info:
        T.shortest_bundle(chess.KING, chess.WHITE, chess.A1, chess.A8, limit=100)
    assert info.value.count == n == 127
    assert sum(1 for _ in T.iter_shortest(chess.KING, chess.WHITE, chess.A1, chess.A8)) == 127
    # a queen promoted from a2 with any captures, to h1: counted, far too many to list by hand
    assert T.count_shortest(chess.PAWN, chess.WHITE, chess.A2, chess.H1, promote=chess.QUEEN) > 0
    assert T.shortest_bundle(chess.ROOK, chess.WHITE, chess.A1, chess.B2,
                             blocked=[chess.A2, chess.B1]) == []


def test_unmovable_obstacles_remove_trajectories() -> None:
    """§9: removing the empty-board trajectories that meet an unmovable obstacle leaves exactly
    the bundle computed with the obstacle, whenever any empty-board trajectory survives."""
    rng = random.Random(12)
    survived = 0
    for _ in range(150):
        piece = rng.choice(PIECES)
        start, target = rng.randrange(64), rng.randrange(64)
        if start == target:
            continue
        unmovable = _random_mask(rng, 0.1, (start, target))
        free = T.shortest_bundle(piece, chess.WHITE, start, target)
        if not free or len(free) > 5000:
            continue
        kept = [t for t in free if not T.route_blocked(piece, chess.WHITE, t, unmovable)]
        if kept:
            survived += 1
            assert kept == T.shortest_bundle(piece, chess.WHITE, start, target, unmovable)
        else:
            assert T.distance(piece, chess.WHITE, start, target, unmovable) != len(free[0]) - 1
    assert survived > 30


def test_movable_obstacles_replayed_on_python_chess() -> None:
    """A route reports no movable obstacle exactly when python-chess can play it with the other
    units (own colour, not capturable) standing still."""
    rng = random.Random(13)
    for _ in range(200):
        piece = rng.choice((chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.KING))
        start, target = rng.randrange(64), rng.randrange(64)
        if start == target:
            continue
        bundle = T.shortest_bundle(piece, chess.WHITE, start, target, limit=10**6)
        if not bundle:
            continue
        route = rng.choice(bundle)
        occupied = _random_mask(rng, 0.15, (start,))
        report = T.movable_obstacles(piece, chess.WHITE, route, occupied)
        board = chess.Board(None)
        for s in occupied:
            board.set_piece_at(s, chess.Piece(chess.PAWN, chess.WHITE))
        board.set_piece_at(start, chess.Piece(piece, chess.WHITE))
        playable = True
        for a, b in zip(route, route[1:]):
            board.turn = chess.WHITE
            move = chess.Move(a, b)
            if not board.is_pseudo_legal(move):
                playable = False
                break
            board.push(move)
        assert playable == (report == []), (route, report)
        passed = set(T.passed_squares(piece, chess.WHITE, route))
        assert set(report) == passed & occupied
        # capturable units on a stopping square are victims, not obstacles
        stops = set(route[1:])
        assert set(T.movable_obstacles(piece, chess.WHITE, route, occupied, capturable=stops)) \
            == (passed - stops) & occupied


def test_pawn_movable_obstacles_and_captures() -> None:
    route = (chess.E2, chess.E4, chess.D5, chess.D6)
    assert T.passed_squares(chess.PAWN, chess.WHITE, route) == [chess.E3, chess.E4, chess.D5,
                                                                 chess.D6]
    assert T.capture_squares(chess.PAWN, chess.WHITE, route) == [chess.D5]
    occ = [chess.E3, chess.D5, chess.D6]
    assert T.movable_obstacles(chess.PAWN, chess.WHITE, route, occ, capturable=occ) == \
        [chess.E3, chess.D6]
    promo = (chess.G7, chess.H8, chess.A1)
    assert T.passed_squares(chess.PAWN, chess.WHITE, promo, promote=chess.BISHOP) == \
        [chess.H8, chess.G7, chess.F6, chess.E5, chess.D4, chess.C3, chess.B2, chess.A1]


def test_bad_arguments() -> None:
    for call in (lambda: T.distance_map(chess.PAWN, chess.WHITE, chess.E1),
                 lambda: T.distance_map(chess.PAWN, chess.BLACK, chess.E1),
                 lambda: T.distance_map(chess.KING, chess.WHITE, 64),
                 lambda: T.distance_map(chess.KING, chess.WHITE, chess.E1, captures=1),
                 lambda: T.distance_map(chess.KING, chess.WHITE, chess.E1, promote=chess.QUEEN),
                 lambda: T.distance_map(chess.PAWN, chess.WHITE, chess.E2, promote=chess.KING),
                 lambda: T.distance_map(chess.PAWN, chess.WHITE, chess.E2, captures=7),
                 lambda: T.distance_map(9, chess.WHITE, chess.E2),
                 lambda: T.admissible_bundle(chess.KING, chess.WHITE, chess.E2, chess.E4, 3, 0),
                 # API review 2026-11-30: "black" was read as White (bool of a string), square
                 # names and None were TypeErrors
                 lambda: T.distance(chess.PAWN, "black", chess.C7, chess.C5),
                 lambda: T.distance_map(chess.KING, 2, chess.E1),
                 lambda: T.distance(chess.KING, chess.WHITE, "c7", chess.E1),
                 lambda: T.distance(chess.KING, chess.WHITE, chess.C7, None),
                 lambda: T.distance_to_map(chess.KING, chess.WHITE, "e1"),
                 lambda: T.count_shortest(chess.KING, chess.WHITE, chess.C7, "e1")):
        with pytest.raises(ValueError):
            call()
