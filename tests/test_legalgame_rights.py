"""Castling rights given up by a shuffle (`legalgame.rights`, issue #19): a game that keeps
rights its target lacks is made to lose them by a tour (four plies, eight where a blocker must step
aside first), and the result is what `legalgame.checker` accepts; a right the target states but
the game lost is never made up (checked against the proof-game route's shortest game on
castled-rook-f1, and on random games with python-chess's replay)."""

from __future__ import annotations

import random

import chess

from conftest import replayed
from retrologic.legalgame.checker import reached_fault
from retrologic.legalgame.rights import lose_rights


def game_of(san: str) -> tuple[list[chess.Move], chess.Board]:
    board = chess.Board()
    for token in san.split():
        board.push_san(token)
    return list(board.move_stack), board


def target_with(board: chess.Board, rights: str) -> chess.Board:
    fields = board.fen().split()
    return chess.Board(" ".join([fields[0], fields[1], rights, "-", "0", "1"]))


def test_both_sides_lose_every_right_by_king_shuffles():
    moves, board = game_of("e4 e5 Nf3 Nc6")
    target = target_with(board, "-")
    shuffled = lose_rights(moves, target)
    assert shuffled is not None and len(shuffled) == len(moves) + 8
    assert reached_fault(replayed(shuffled), target) is None
    # each side's king went out and back: the rights are gone, nothing else changed
    assert replayed(shuffled).board_fen() == board.board_fen()


def test_one_right_lost_by_its_rook_the_other_kept():
    moves, board = game_of("Nc3 Nc6 e4 e5")
    target = target_with(board, "Kkq")
    shuffled = lose_rights(moves, target)
    assert shuffled is not None and len(shuffled) == len(moves) + 4
    end = replayed(shuffled)
    assert reached_fault(end, target) is None and end.castling_xfen() == "Kkq"
    assert chess.Move(chess.A1, chess.B1) in shuffled


def test_a_right_the_game_lost_is_not_made_up():
    moves, board = game_of("e4 e5 Ke2 Ke7 Ke1 Ke8")
    assert board.castling_xfen() == "-"
    assert lose_rights(moves, target_with(board, "KQkq")) is None
    assert lose_rights(moves, target_with(board, "-")) == moves


def test_a_game_to_another_placement_is_refused():
    moves, board = game_of("e4 e5")
    other = target_with(game_of("d4 d5")[1], "-")
    assert lose_rights(moves, other) is None


def test_a_blocked_king_and_rook_tour_behind_their_blockers():
    """castled-rook-f1 (problems/spg): the 12-ply solution keeps Black's kq, and neither
    Black's king (boxed in by its queen, bishop and pawns) nor its h8 rook (the g8 knight) can
    step out and back at once; the king goes out after its queen steps aside (a four-move tour:
    eight plies). The route's shortest game without rights has 18 plies (measured,
    bench/README-legal.md), so nothing shorter may come back."""
    moves, board = game_of("e4 b5 Be2 Bb7 Bh5 Bd5 Nf3 Nc6 O-O Bc4 Kh1 Bxf1")
    target = target_with(board, "-")
    assert reached_fault(replayed(moves), target_with(board, "kq")) is None
    toured = lose_rights(moves, target)
    assert toured is not None and len(toured) == len(moves) + 8 >= 18
    assert reached_fault(replayed(toured), target) is None
    assert toured[-len(moves):] != moves or toured[:len(moves)] != moves   # inserted, not appended


def test_a_rook_behind_its_knight_tours_while_the_king_keeps_the_other_right():
    """White keeps K and gives up Q: the a1 rook can move only once the b1 knight stepped
    aside; the king and the h1 rook never move."""
    moves, board = game_of("e4 e5")
    target = target_with(board, "Kkq")
    toured = lose_rights(moves, target)
    assert toured is not None and len(toured) == len(moves) + 8
    end = replayed(toured)
    assert reached_fault(end, target) is None and end.castling_xfen() == "Kkq"
    assert all(move.from_square not in (chess.E1, chess.H1) for move in toured[::2])
    assert chess.Move(chess.A1, chess.B1) in toured


def test_random_games_lose_each_right_in_turn():
    """Oracle: python-chess's replay. For short random games that keep rights, each kept right
    dropped in turn makes a target: what comes back reaches it exactly (placement, side to
    move, rights); only a rare target (a rook with no room in the first plies) may get None."""
    rng = random.Random(19)
    found = tried = 0
    for _ in range(12):
        board = chess.Board()
        for _ in range(rng.randrange(2, 14)):
            quiet = [m for m in board.legal_moves if not board.is_castling(m)]
            board.push(rng.choice(quiet))
        moves, have = list(board.move_stack), board.clean_castling_rights()
        for rook in chess.scan_forward(have):
            target = target_with(board, chess.Board(board.fen()).castling_xfen())
            target.castling_rights = have & ~chess.BB_SQUARES[rook]
            toured = lose_rights(moves, target)
            if toured is not None:
                found += 1
                assert reached_fault(replayed(toured), target) is None
            tried += 1
    assert tried >= 30 and found >= tried - 3
