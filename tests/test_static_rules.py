"""Retractor 2's static cage rules: each fires where it must, and never on positions of real
games (python-chess random games, plain and 'closed' ones full of cages), even with the units
that never moved declared frozen."""

from __future__ import annotations

import random

import chess
import pytest

from conftest import random_game
from retrologic.legality import rules as legality
from retrologic.legality import static_cages as static_rules
from retrologic.position import Position


def _rules(fen: str, frozen: str | None = None) -> set[str]:
    pos = Position.from_fen(fen)
    if frozen:
        mask = 0
        for name in frozen.split():
            mask |= chess.BB_SQUARES[chess.parse_square(name)]
        pos = Position(pos.placement, pos.turn, pos.castling, pos.ep_square, mask, False)
    return {r.rule for r in static_rules.reasons(pos)}


# (fen, frozen squares, the rule that must fire) -- each with its hand argument.
ILLEGAL = [
    # Retractor: White pawns on a2 and c2, a White bishop on b1: b1 is no bishop's home and its
    # only ways in (a2, c2) always held pawns.
    ("4k3/8/8/8/8/8/P1P5/1B2K3 w - - 0 1", None, "bishop-cage"),
    # Retractor: a Black bishop on c1 behind b2, d2 must have promoted there, but the pawn would
    # have come from c2 (or b2/d2), where White pawns always stood.
    ("4k3/8/8/8/8/8/1PPP4/2b1K3 w - - 0 1", None, "bishop-cage"),
    # Retractor: pawns b2, c3, d2 with a bishop on c1 and a rook on c2 (either colour): the
    # rook can never have entered c2.
    ("4k3/8/8/8/8/2P5/1PRP4/2B1K3 w - - 0 1", None, "bishop-cage"),
    ("4k3/8/8/8/8/2P5/1PrP4/2b1K3 w - - 0 1", None, "bishop-cage"),
    # Generalised: a White pawn on e3 came from d2, e2 or f2, but pawns that never moved stand
    # on all three.
    ("4k3/8/8/8/8/4P3/3PPP2/4K3 w - - 0 1", None, "sealed-square"),
    # A declared-frozen unit is a wall too: with the knight on b1 declared unmoved, the queen
    # on a1 (no queen's home) can only have come through a2, b2 or b1, all held all game.
    ("4k3/8/8/8/8/8/PP6/QN2K3 w - - 0 1", "b1", "sealed-square"),
    # Strong cage: all White pawns on the second rank seal the first rank; a Black rook inside.
    ("4k3/8/8/8/8/8/PPPPPPPP/3r1K2 w - - 0 1", None, "strong-first-rank-cage"),
    # Strong cage: the king started on e1 inside it and cannot have left.
    ("4k3/8/8/8/8/4K3/PPPPPPPP/8 w - - 0 1", None, "strong-first-rank-cage"),
    # Strong cage between the frozen king (castling right) and h1: a White bishop on g1 cannot
    # have got in, nor started there.
    ("4k3/8/8/8/8/8/4PPPP/4K1BR w K - 0 1", None, "strong-first-rank-cage"),
    # Strong cage a1..h1: rooks, queen and king out of order (queen right of the h-rook).
    ("4k3/8/8/8/8/8/PPPPPPPP/R3K1RQ w - - 0 1", None, "strong-first-rank-cage"),
    # Weak cage f1-g1 between the castling-frozen king and rook, pawns e2 f3 g2 h2: sealed for
    # rooks, no rook starts inside, yet a White rook stands on g1.
    ("4k3/8/8/8/8/5P2/4P1PP/4K1RR w K - 0 1", None, "weak-first-rank-cage"),
    # Weak cage: a Black rook inside was promoted there after a pawn capture, but Black has all
    # eight pawns (no promotion possible).
    ("4k3/pppppppp/8/8/8/5P2/4P1PP/4Kr1R w K - 0 1", None, "weak-first-rank-cage"),
    # Rook count: the a1-rook is sealed in a1-d1 (pawns a2-e2, frozen king e1), so the rook on
    # d4 besides the h1-rook is promoted, but no White pawn is missing.
    ("4k3/8/8/8/3R4/8/PPPPPPPP/4K2R w K - 0 1", None, "rook-count"),
    # King behind its own pawns: Black's pawns never left the 7th rank, so the king never left
    # the 8th.
    ("8/pppppppp/8/6k1/8/8/8/4K3 w - - 0 1", None, "king-behind-pawn-cage"),
    # King behind an enemy pawn cage: the Black king on d3 stands where the unmoved pawns c2
    # and e2 have always attacked.
    ("8/8/8/8/8/3k4/2P1P3/4K3 w - - 0 1", None, "king-behind-pawn-cage"),
    # The Black king on b1 behind eight unmoved White pawns never had a way back to e8.
    ("8/8/8/8/8/8/PPPPPPPP/1k2K3 w - - 0 1", None, "king-behind-pawn-cage"),
]


@pytest.mark.parametrize("fen,frozen,rule", ILLEGAL, ids=[f"{i}-{r}" for i, (_, _, r) in enumerate(ILLEGAL)])
def test_rule_fires(fen, frozen, rule):
    fired = _rules(fen, frozen)
    assert fired, fen
    if rule is not None:
        assert rule in fired, (fen, fired)


LEGAL = [
    "4k3/8/8/8/8/8/PP6/QN2K3 w - - 0 1",                            # the b1-knight may have moved
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",     # everything frozen, no rule
    "4k3/8/8/8/8/8/1P1P4/2B1K3 w - - 0 1",                          # a bishop caged at home
    "4k3/8/8/8/8/8/1P1P4/2b1K3 w - - 0 1",                          # a Black bishop promoted on c1
    "4k3/8/8/8/8/3P4/PPP1PPPP/3R1K2 w - - 0 1",                     # weak cage a1-h1 holds a rook home
    "4k3/8/8/8/8/8/PPPPPPPP/1n2K3 w - - 0 1",                       # knights may jump in
    "4k3/8/8/8/8/8/PPPPPPPP/RQ2K2R w - - 0 1",                      # queen left of king, right of a-rook
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w kq - 0 1",             # castled: h-rook left of king
]


@pytest.mark.parametrize("fen", LEGAL)
def test_rule_does_not_fire_on_legal_cages(fen):
    assert _rules(fen) == set()


def test_doubled_pawn_square_is_closed_to_the_enemy_king():
    """Pawns e2 and e3: the e3-pawn came from d2 or f2 by capturing, so e3 was attacked before
    and occupied after: the Black king never stood there (even though nothing attacks it now)."""
    pos = Position.from_fen("4k3/8/8/8/8/4P3/4P3/4K3 w - - 0 1")
    frozen = static_rules.frozen_units(pos)
    bad = static_rules.forbidden_for_king(pos, chess.BLACK, frozen)
    assert bad & chess.BB_E3 and bad & chess.BB_D3 and bad & chess.BB_F3
    assert not static_rules.forbidden_for_king(pos, chess.WHITE, frozen) & chess.BB_E3


def test_frozen_units_fixpoint():
    """Pawns on the 2nd rank, castling units, and to a fixpoint pieces whose exits are frozen."""
    pos = Position.from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    frozen = static_rules.frozen_units(pos)
    # all but the knights (they can jump out) never moved
    assert frozen == pos.placement.occupied & ~pos.placement.knights
    pos = Position.from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1")
    frozen = static_rules.frozen_units(pos)
    assert frozen & chess.BB_C1 and frozen & chess.BB_F1 and not frozen & chess.BB_E1


def test_legality_reports_the_rule():
    """The `legal` question (retrologic.legality.rules) reports these rules by name."""
    reasons = legality.reasons(Position.from_fen("4k3/8/8/8/8/8/P1P5/1B2K3 w - - 0 1"))
    assert "bishop-cage" in {r.rule for r in reasons}


def _unmoved_after(board: chess.Board, move: chess.Move, still: set[int]) -> set[int]:
    """Squares whose units never moved, after `move` (python-chess tells what moved)."""
    still = set(still) - {move.from_square, move.to_square}
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        still.discard(chess.square(7 if chess.square_file(move.to_square) > 4 else 0, rank))
    if board.is_en_passant(move):
        still.discard(move.to_square + (-8 if board.turn else 8))
    return still


def closed_game(seed: int, plies: int = 120) -> list[tuple[chess.Board, chess.Move]]:
    """A random legal game that rarely moves pawns: first ranks stay caged, pieces shuffle
    behind pawn walls, kings and rooks castle -- the positions where cage rules could misfire."""
    rng = random.Random(seed)
    board = chess.Board()
    out = []
    pawn_rate = rng.choice([0.03, 0.08, 0.15])
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        pawn = [m for m in moves if board.piece_type_at(m.from_square) == chess.PAWN]
        other = [m for m in moves if m not in pawn]
        special = [m for m in moves if board.is_castling(m) or m.promotion]
        if special and rng.random() < 0.3:
            move = rng.choice(special)
        elif pawn and (rng.random() < pawn_rate or not other):
            move = rng.choice(pawn)
        else:
            move = rng.choice(other)
        out.append((board.copy(stack=False), move))
        board.push(move)
    return out


def _never_fires(games) -> int:
    n = 0
    for seed, game in games:
        rng = random.Random(seed)
        still = set(chess.SQUARES[:16]) | set(chess.SQUARES[48:])
        for board, move in game:
            pos = Position.from_board(board)
            frozen = sum(chess.BB_SQUARES[s] for s in still if rng.random() < 0.7)
            for p in (pos, Position(pos.placement, pos.turn, pos.castling, pos.ep_square, frozen, False)):
                fired = static_rules.reasons(p)
                assert not fired, (p.fen(), chess.SquareSet(p.frozen), fired)
                n += 1
            still = _unmoved_after(board, move, still)
    return n


def test_never_fires_on_random_games():
    assert _never_fires((s, random_game(s)) for s in range(30)) > 5000


def test_never_fires_on_closed_games():
    """Closed games reach strong and weak cages, sealed homes and frozen pieces thousands of
    times (see bench/deduce.py for the coverage counts)."""
    assert _never_fires((s, closed_game(s)) for s in range(40)) > 5000
