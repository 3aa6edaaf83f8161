"""A check of the target given too early (`legalgame.last_check`, issue #19). Oracle:
python-chess's real games: the position before a checking move never has the check's unit on
its square with an open line (the guide's two extra moves never fall on the one position every
game to a checked target passes through), and hand-made positions for the three ways a check
stands: too early, blocked (a discovered check to come), or the checker not yet there."""

from __future__ import annotations

import chess

from conftest import random_game
from retrologic.legalgame import finder as finder_module
from retrologic.legalgame.finder import Finder
from retrologic.legalgame.last_check import check_lines, early_check, late_arrival
from retrologic.limits import Budget
from retrologic.retract import unit_attacks


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


# seed 79597 of bench/legal.py: Black in check from the bishop on f7 that moved last; a board
# the finder reached with every capture made, the bishop on g8 and the king on g7
SEED_79597 = "1r3qk1/p1pp1B1p/2b3p1/1p6/1n1P1P2/bN6/1PPB2rP/R4R1K b - - 0 26"
TANGLED = "1r3qB1/p1pp2kp/2b3p1/1p6/1n1P1P2/bN6/1PPB2rP/R4R1K b - - 25 30"


def test_the_squares_covering_a_square_are_a_units_attacks_from_it() -> None:
    """What `late_arrival` takes for the squares from which a unit of a type would attack a
    square (`retract.unit_attacks` from that square: a piece's attacks are symmetric), against
    python-chess's attacks of that unit put on each empty square of real positions."""
    tried = 0
    for seed in range(3):
        for before, _ in random_game(seed)[::9]:
            for king in (chess.E8, chess.G1, chess.D4):
                for piece_type in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
                    got = unit_attacks(piece_type, chess.WHITE, king, before.occupied, False)
                    for square in chess.scan_forward(~before.occupied & chess.BB_ALL):
                        board = before.copy(stack=False)
                        board.set_piece_at(square, chess.Piece(piece_type, chess.WHITE))
                        attacks = bool(board.attacks_mask(square) & chess.BB_SQUARES[king])
                        assert attacks == bool(got & chess.BB_SQUARES[square])
                        tried += 1
    assert tried > 10_000


def test_a_checker_standing_in_the_kings_way_goes_round() -> None:
    """Seed 79597's target: Black's king on g8 in check from White's bishop on f7. On a board
    with the bishop on g8 and the king on g7, the bishop's way to f7 is one move, but the king
    can step onto g8 only while f7 (and every square covering g8) is free of it: the bishop
    leaves by f7 to e8 and comes back, two moves more. With the king on g8: none; a rook on a1
    that must give Rf8+ to a king still on e7: none (a1 covers no square the king needs)."""
    target = chess.Board(SEED_79597)
    lines = check_lines(target)
    distance = Finder(target, Budget()).analysis.distances.piece_distance
    board = chess.Board(TANGLED)
    assert late_arrival(board, lines, chess.G8, 0, distance, {}) == 2
    home = chess.Board("1r2Bqk1/p1pp3p/2b3p1/1p6/1n1P1P2/bN6/1PPB2rP/R4R1K w - - 0 30")
    assert late_arrival(home, lines, chess.G8, 0, distance, {}) == 0
    rook = check_lines(chess.Board("4kR2/8/8/8/8/8/8/4K3 b - - 0 1"))
    assert late_arrival(chess.Board("8/4k3/8/8/8/8/8/R3K3 w - - 0 1"), rook, chess.E8, 0,
                        distance, {}) == 0
    pawn = check_lines(chess.Board("4k3/3P4/8/8/8/8/8/4K3 b - - 0 1"))
    assert late_arrival(chess.Board("8/4k3/3P4/8/8/8/8/4K3 w - - 0 1"), pawn, chess.E8, 0,
                        distance, {}) == 0


def test_the_placement_search_takes_the_checker_round(monkeypatch) -> None:
    """Seed 79597's tangled board: with the checker's way round counted (and the checker there
    too early not held on its square), the placement search finds the target within 100
    positions (Bf7, Be8, Kg8 and Bf7+ with Black's waiting moves; python-chess replays it);
    with the guide before (the bishop one move away, then held on f7), not within 3,000."""
    target = chess.Board(SEED_79597)
    finder = Finder(target, Budget(), 10_000)
    board = chess.Board(TANGLED)
    assert finder.placement_moves(board) == finder.moves_left(board) + 2
    moves = next(finder.search(board.copy(), finder.placement_phase(3.0, 100)), None)
    assert moves is not None
    for move in moves:
        assert board.is_legal(move)
        board.push(move)
    assert finder.is_target(board) and board.board_fen() == target.board_fen()
    monkeypatch.setattr(finder_module, "LATE_ARRIVAL", False)
    before = Finder(target, Budget(), 10_000)
    tangled = chess.Board(TANGLED)
    assert before.placement_moves(tangled) == before.moves_left(tangled)
    assert next(before.search(chess.Board(TANGLED), before.placement_phase(3.0, 3_000)),
                None) is None
