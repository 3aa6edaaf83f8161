"""The shared distance maps (spg.shared_maps) and the distances read off a target's map
(`Distances.piece_distance`) against maps computed afresh by `trajectory` (issue #19)."""

from __future__ import annotations

import random

import chess
import pytest

from retrologic.spg import shared_maps, trajectory
from retrologic.spg.distances import INF, Distances

PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)


def sparse(rng: random.Random) -> int:
    """A random set of about eight frozen squares."""
    return rng.getrandbits(64) & rng.getrandbits(64) & rng.getrandbits(64)


@pytest.mark.parametrize("seed", range(4))
def test_a_pawn_sweep_depends_only_on_its_cone(seed: int) -> None:
    """Frozen squares outside a pawn's forward cone never change its sweep: the sweep of the
    frozen squares plus any outside ones equals the sweep of the frozen squares alone."""
    rng = random.Random(seed)
    for _ in range(200):
        color = rng.choice(chess.COLORS)
        square = rng.choice([sq for sq in chess.SQUARES if chess.square_rank(sq) not in (0, 7)])
        frozen = sparse(rng)
        outside = rng.getrandbits(64) & ~shared_maps.cone(color, square)
        assert trajectory.pawn_sweep(color, square, frozen | outside, INF) == \
            trajectory.pawn_sweep(color, square, frozen, INF)


def test_the_cone_is_the_squares_a_pawn_can_reach() -> None:
    """Brute force on the move rules: the cone is every square a pawn reaches by pushes,
    double steps and captures over any number of moves on an empty board."""
    for color in chess.COLORS:
        for square in chess.SQUARES:
            if chess.square_rank(square) in (0, 7):
                continue
            reached, frontier = 0, [square]
            while frontier:
                sq = frontier.pop()
                for step, _ in trajectory.pawn_steps(color, sq):
                    if not reached & chess.BB_SQUARES[step]:
                        reached |= chess.BB_SQUARES[step]
                        frontier.append(step)
            assert reached == shared_maps.cone(color, square), chess.square_name(square)


@pytest.mark.parametrize("seed", range(4))
def test_shared_maps_equal_fresh_ones(seed: int) -> None:
    """Whatever was shared before, every map handed out is the map of its own frozen squares:
    a bishop's keyed by its colour's squares only, a pawn's by its cone, so frozen squares
    added outside those hit maps made for other sets and must not change them."""
    rng = random.Random(100 + seed)
    base = [sparse(rng) for _ in range(3)]  # few frozen sets and squares, so keys repeat
    squares = [rng.randrange(8, 56) for _ in range(4)]
    pieces, sweeps = shared_maps._piece_map.cache_info(), shared_maps._pawn_sweep.cache_info()
    for _ in range(300):
        square, piece, color = rng.choice(squares), rng.choice(PIECES), rng.choice(chess.COLORS)
        light = chess.BB_LIGHT_SQUARES if chess.BB_SQUARES[square] & chess.BB_LIGHT_SQUARES \
            else chess.BB_DARK_SQUARES
        frozen = rng.choice(base)
        if piece == chess.BISHOP:
            frozen |= rng.getrandbits(64) & ~light
        assert shared_maps.piece_map(piece, square, frozen, INF) == \
            trajectory.piece_map(piece, square, frozen, INF)
        frozen = rng.choice(base) | (rng.getrandbits(64) & ~shared_maps.cone(color, square))
        assert shared_maps.pawn_sweep(color, square, frozen, INF) == \
            trajectory.pawn_sweep(color, square, frozen, INF)
    assert shared_maps._piece_map.cache_info().hits > pieces.hits + 100
    assert shared_maps._pawn_sweep.cache_info().hits > sweeps.hits + 100


@pytest.mark.parametrize("seed", range(4))
def test_piece_distance_equals_the_forward_map(seed: int) -> None:
    """`Distances.piece_distance` reads the map from the target when neither square is blocked:
    equal to the distance on the map from the unit's square, frozen squares included, and for
    a king its colour's king walls too (a king may start on one, in check, and leave it)."""
    rng = random.Random(200 + seed)
    for _ in range(60):
        frozen = sparse(rng)
        walls = {chess.WHITE: sparse(rng), chess.BLACK: sparse(rng)}
        distances = Distances(frozen, walls)
        for _ in range(20):
            piece, color = rng.choice(PIECES), rng.choice(chess.COLORS)
            blocked = frozen | (walls[color] if piece == chess.KING else 0)
            occupied = list(chess.scan_forward(blocked))
            square, target = rng.randrange(64), rng.randrange(64)
            if occupied and rng.random() < 0.2:  # sometimes a blocked end
                square = rng.choice(occupied)
            elif occupied and rng.random() < 0.2:
                target = rng.choice(occupied)
            assert distances.piece_distance(piece, color, square, target) == \
                trajectory.piece_map(piece, square, blocked, INF)[target]
