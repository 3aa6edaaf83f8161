"""A check of the target given too early (`legalgame.last_check`, issue #19). Oracle:
python-chess's real games: the position before a checking move never has the check's unit on
its square with an open line (the guide's two extra moves never fall on the one position every
game to a checked target passes through), and hand-made positions for the three ways a check
stands: too early, blocked (a discovered check to come), or the checker not yet there."""

from __future__ import annotations

import chess

from conftest import random_game
from retrologic.legalgame.last_check import check_lines, early_check


def test_the_position_before_a_check_never_has_it_early() -> None:
    checks = 0
    for seed in range(8):
        for before, move in random_game(seed):
            target = before.copy(stack=False)
            target.push(move)
            lines = check_lines(target)
            assert len(lines) == chess.popcount(target.checkers_mask())
            if not lines:
                continue
            checks += 1
            assert not early_check(before, lines), (before.fen(), move.uci())
            assert early_check(target, lines)   # the target itself: every check is on
    assert checks >= 20


def test_a_checker_on_its_square_with_an_open_line_is_early() -> None:
    # the target: Black in check from the rook on f8 (king on e8)
    target = chess.Board("4kR2/8/8/8/8/8/8/4K3 b - - 0 1")
    lines = check_lines(target)
    assert [(line.square, line.piece.symbol()) for line in lines] == [(chess.F8, "R")]
    # the rook there with the king elsewhere: the king can never step onto e8
    assert early_check(chess.Board("3k1R2/8/8/8/8/8/8/4K3 w - - 0 1"), lines)
    # a unit between them (a discovered check to come) or the rook elsewhere: not early
    wide = check_lines(chess.Board("4k2R/8/8/8/8/8/8/4K3 b - - 0 1"))
    assert wide[0].between == chess.BB_F8 | chess.BB_G8
    assert not early_check(chess.Board("4kn1R/8/8/8/8/8/8/4K3 w - - 0 1"), wide)
    assert not early_check(chess.Board("4k3/8/8/8/8/8/8/4K2R w - - 0 1"), lines)
    # another unit on the checker's square does not count
    assert not early_check(chess.Board("4kB2/8/8/8/8/8/8/4K3 w - - 0 1"), lines)


def test_a_position_out_of_check_has_no_lines() -> None:
    assert check_lines(chess.Board()) == ()
    knight = check_lines(chess.Board("4k3/8/3N4/8/8/8/8/4K3 b - - 0 1"))
    assert [(line.square, line.between) for line in knight] == [(chess.D6, 0)]
