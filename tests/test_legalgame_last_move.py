"""A target whose last move took a unit, promoted or checked by pawn, reached through the
positions before that move (`legalgame.last_move`, issue #19). Oracles: python-chess (each
predecessor's move is legal there and ends on the target; a real game's position before its
last move is among them; a target whose real last move was a plain one is never bound, unless
a pawn checks: then that pawn made it) and the checker's replay
(`legalgame.checker.reached_fault`)."""

from __future__ import annotations

import chess
import pytest

from conftest import random_game, replayed
from retrologic.legalgame import last_move
from retrologic.legalgame.checker import reached_fault
from retrologic.legalgame.find import Finders, find_game
from retrologic.legalgame.proof_route import near_initial_array
from retrologic.limits import Budget, LimitHit

# seed 10569 of bench/legal.py: White in check from the rook on f4 along an open f-file, so the
# rook took the unit that stood on f4 (every retraction uncaptures there); the finder on the
# target, which makes its captures before it places the units, found no game within 10 s
ROOK_TOOK_THE_BLOCKER = "1n2n3/2p3rQ/3bk3/R7/3PNrP1/7B/2P5/2n1QKN1 w - - 0 38"
# seed 27145: White in check from the pawn on f6, so that pawn moved last; the finder on the
# target alone needed 41,290 positions (93 s), the turns with its predecessors 852
PAWN_GAVE_CHECK = "2k4r/6r1/1p1P1pP1/p3K3/P1P1P2n/B7/3N4/R1Q2B1R w - - 0 45"
# seed 52775: Black in check from the bishop on f7, which took there (every retraction
# uncaptures on f7); 12 units on their squares of the initial array
BISHOP_TOOK_ON_F7 = "1n2kbnr/r1Q2Bp1/1p2p3/p2q3p/b1pP4/PP3PPP/2P5/R1B1KNNR b KQ - 0 24"


def test_bound_targets_of_real_games_and_their_predecessors(monkeypatch) -> None:
    monkeypatch.setattr(last_move, "MOST_BEFORE", 1000)
    bound = plain = pawn_checks = 0
    for seed in range(5):
        for before, move in random_game(seed):
            target = before.copy(stack=False)
            special = before.is_capture(move) or move.promotion is not None
            target.push(move)
            if target.ep_square is not None or target.is_game_over():
                continue
            found = last_move.bound_last_move(target)
            pawn_check = last_move.checked_by_pawn(target)
            if pawn_check:              # the checking pawn made the last move
                assert before.piece_type_at(move.from_square) == chess.PAWN
                assert target.checkers_mask() & chess.BB_SQUARES[move.to_square]
                pawn_checks += 1
            if not special and not pawn_check:  # a plain last move fits: never bound
                assert found is None, (target.fen(), move.uci())
                plain += 1
                continue
            if found is None:
                continue
            bound += 1
            for board, last in found:
                assert board.is_legal(last), (target.fen(), board.fen(), last.uci())
                after = board.copy(stack=False)
                after.push(last)
                assert after.board_fen() == target.board_fen() and after.turn == target.turn
                assert board.is_capture(last) or last.promotion is not None or \
                    (pawn_check and board.piece_type_at(last.from_square) == chess.PAWN)
            assert any(board.board_fen() == before.board_fen() and last == move
                       for board, last in found), (target.fen(), move.uci())
    assert bound >= 3 and plain >= 300 and pawn_checks >= 1


def test_the_order_tries_the_pawns_taken_first_and_no_extra_promotion() -> None:
    found = last_move.bound_last_move(chess.Board(ROOK_TOOK_THE_BLOCKER))
    assert found is not None and len(found) == last_move.MOST_BEFORE
    # every retraction uncaptures on f4; White has three pawns left of eight: a pawn first
    first, move = found[0]
    assert move.to_square == chess.F4
    assert first.piece_at(chess.F4) == chess.Piece(chess.PAWN, chess.WHITE)
    # a second queen stands on the board: an uncaptured queen (another promotion) comes last
    assert all(board.piece_at(chess.F4) != chess.Piece(chess.QUEEN, chess.WHITE)
               for board, _ in found)


def test_a_check_given_by_a_capture_is_reached_through_the_position_before_it() -> None:
    target = chess.Board(ROOK_TOOK_THE_BLOCKER)
    game = find_game(target, Budget(nodes=6_000), route=True)
    assert game is not None
    assert_ends_taking_on(game, chess.F4, target)


def assert_ends_taking_on(game: list[chess.Move], square: chess.Square,
                          target: chess.Board) -> None:
    """`game` replays legally, its last move a capture on `square`, to `target` exactly."""
    board = replayed(game[:-1])
    assert board.is_legal(game[-1])
    assert board.is_capture(game[-1]) and game[-1].to_square == square
    board.push(game[-1])
    assert reached_fault(board, target) is None


def test_a_pawns_check_is_reached_through_the_positions_before_it() -> None:
    target = chess.Board(PAWN_GAVE_CHECK)
    assert last_move.checked_by_pawn(target)
    assert not last_move.checked_by_pawn(chess.Board(ROOK_TOOK_THE_BLOCKER))
    before = last_move.bound_last_move(target)
    assert before is not None and before[0][1] == chess.Move(chess.F7, chess.F6)  # plain first
    game = find_game(target, Budget(nodes=5_000), route=True)
    assert game is not None
    board = replayed(game)
    assert game[-1].to_square == chess.F6 and board.piece_type_at(chess.F6) == chess.PAWN
    assert reached_fault(board, target) is None


def test_a_capture_with_check_near_the_initial_array_goes_through_its_predecessors() -> None:
    # seed 52775 of bench/legal.py: Bg6xf7+ was the last move; a position the proof-game route
    # takes turns on, where only a pawn's check went through its predecessors until
    # 2026-12-05 (unknown at 20,000 positions then; 228 now)
    target = chess.Board(BISHOP_TOOK_ON_F7)
    assert near_initial_array(target) and not last_move.checked_by_pawn(target)
    assert last_move.bound_last_move(target) is not None
    budget = Budget(nodes=3_000)
    game = find_game(target, budget, route=True)
    assert game is not None and budget.spent <= 3_000
    assert_ends_taking_on(game, chess.F7, target)


def test_the_turns_keep_to_their_cap_and_the_node_limit() -> None:
    target = chess.Board(ROOK_TOOK_THE_BLOCKER)
    before = last_move.bound_last_move(target)
    turns = last_move.Turns(target, before, 300, lambda board, cap: Finders(board, cap))
    budget = Budget()
    turns.run(budget)
    assert 0 < budget.spent <= 300
    with pytest.raises(LimitHit, match="node limit 200"):
        last_move.Turns(target, before, 60_000,
                            lambda board, cap: Finders(board, cap)).run(Budget(nodes=200))


def test_the_turns_resume_after_a_limit_within_their_cap() -> None:
    target = chess.Board(ROOK_TOOK_THE_BLOCKER)
    before = last_move.bound_last_move(target)
    turns = last_move.Turns(target, before, 2_000, lambda board, cap: Finders(board, cap))
    finders = turns.live[0][0]
    first = Budget(nodes=100)   # stops inside the first start's first turn
    with pytest.raises(LimitHit):
        turns.run(first)
    assert turns.spent == first.spent == finders.spent and len(turns.live) == len(before)
    finder, nodes = finders.finder, finders.finder.nodes
    second = Budget()
    game = turns.run(second)    # goes on where it stopped: the cap counts both calls
    assert second.spent > 0 and turns.spent == first.spent + second.spent <= 2_000
    assert game is not None and turns.ending(game[:-1], game[-1]) == game
    # the first start's finder was kept and went on from its positions (not built afresh)
    assert finders.finder is finder and finder.nodes > nodes
