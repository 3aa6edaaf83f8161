"""`Distances.victim_cost` (where a unit walks to be captured, issue #19/#22 bounds) against its
definition computed afresh from `trajectory`'s maps: every promotion (knight, bishop, rook,
queen) tried from every promotion square, so the shortcut of the queen standing for the rook
and the bishop is checked, frozen squares included."""

from __future__ import annotations

import random

import chess
import pytest

from retrologic.spg import trajectory
from retrologic.spg.distances import INF, Distances

PROMOTIONS = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def plain_victim_cost(frozen: int, color: chess.Color, utype: int, usq: int, squares: int,
                      captures: int) -> int:
    """The fewest moves to stand on a square of `squares` (a pawn: or beside it, taken e.p.),
    as the unit itself or, for a pawn, as any piece it promotes to."""
    if utype == chess.KING:
        return INF
    if utype != chess.PAWN:
        distance = trajectory.piece_map(utype, usq, frozen, INF)
        return min([distance[q] for q in chess.scan_forward(squares)], default=INF)
    spots = squares | (((squares << 8) & chess.BB_ALL) if color == chess.WHITE
                       else squares >> 8)
    sweep = trajectory.pawn_sweep(color, usq, frozen, INF)
    counts = range(min(captures, trajectory.MAX_PAWN_CAPTURES) + 1)
    last = chess.BB_RANK_8 if color == chess.WHITE else chess.BB_RANK_1
    best = INF
    for q in chess.scan_forward(spots):
        best = min([best] + [sweep[c][q] for c in counts])
        for p in chess.scan_forward(last):
            to_promote = min(sweep[c][p] for c in counts)
            for ptype in PROMOTIONS:
                best = min(best, to_promote + trajectory.piece_map(ptype, p, frozen, INF)[q])
    return min(best, INF)


@pytest.mark.parametrize("seed", range(3))
def test_victim_cost_equals_its_definition(seed: int) -> None:
    rng = random.Random(300 + seed)
    promoted = 0
    for _ in range(40):
        # about eight frozen squares, sometimes a whole walled rank
        frozen = rng.getrandbits(64) & rng.getrandbits(64) & rng.getrandbits(64)
        if rng.random() < 0.3:
            frozen |= chess.BB_RANKS[rng.randrange(2, 6)] & ~chess.BB_FILES[rng.randrange(8)]
        distances = Distances(frozen)
        for _ in range(15):
            color = rng.choice(chess.COLORS)
            utype = rng.choice((chess.PAWN,) * 3 + PROMOTIONS + (chess.KING,))
            usq = rng.randrange(8, 56) if utype == chess.PAWN else rng.randrange(64)
            squares = rng.getrandbits(64) & rng.getrandbits(64) & rng.getrandbits(64) \
                if rng.random() < 0.7 else chess.BB_SQUARES[rng.randrange(64)]
            if rng.random() < 0.3:  # squares a pawn cannot reach as a pawn
                squares &= chess.BB_RANK_1 | chess.BB_RANK_8 | chess.BB_RANK_2 | chess.BB_RANK_7
            captures = rng.randrange(0, 4)
            got = distances.victim_cost(color, utype, usq, squares, captures)
            assert got == plain_victim_cost(frozen, color, utype, usq, squares, captures), \
                (color, utype, usq, hex(squares), captures, hex(frozen))
            if utype == chess.PAWN and got < INF:
                as_pawn = trajectory.pawn_sweep(color, usq, frozen, INF)
                promoted += got < min(as_pawn[c][q] for c in range(captures + 1)
                                      for q in chess.scan_forward(squares | (squares << 8
                                      if color == chess.WHITE else squares >> 8) & chess.BB_ALL))
    assert promoted > 0  # some costs came from a promotion
