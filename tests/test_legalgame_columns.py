"""The capture searches' proof-kernel check (`legalgame.columns`): a necessary condition, so the
oracle is the game itself (every position a real game passes through reaches its final
position), and the cut is shown on a capture whose columns no longer reach the target's."""

from __future__ import annotations

import chess
import pytest

from conftest import random_game, replayed
from retrologic.legalgame.checker import reached_fault
from retrologic.legalgame.columns import Columns
from retrologic.legalgame.finder import Finder
from retrologic.legality.pawn_columns import Kernel
from retrologic.limits import Budget


@pytest.mark.parametrize("seed", range(24))
def test_the_check_never_cuts_a_position_of_a_real_game(seed):
    """Random games biased towards captures, promotions, castling and e.p. (conftest): each
    position on the way passes, and the kernel search decided most of them (a capped search
    passes without proving anything, so the test counts the decided ones)."""
    game = random_game(80_000 + seed, max_plies=140)
    final = game[-1][0].copy()
    final.push(game[-1][1])
    columns = Columns(final)
    decided = 0
    for board, _ in game:
        assert columns.fit(board), board.fen()
        decided += columns.kernel.reachable(columns.state(board)) is True
    assert columns.fit(final)
    assert decided >= 0.9 * len(game)


# every unit on the board, White's e-pawn on e6 above Black's on e5: the two passed each other
# on the e-file, which takes captures (one leaves the file and comes back), and none was made
TARGET = "rnbqkbnr/pppp1ppp/4P3/4p3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"


def test_the_check_cuts_columns_that_no_capture_can_reorder():
    """The array's e-file reads White below Black and no capture is left to reorder it."""
    target = chess.Board(TARGET)
    columns = Columns(target)
    assert not columns.fit(chess.Board())
    # the check is the kernel's: the same board is refused by the rule's own search
    assert Kernel.towards(target).reachable() is False


def test_a_capture_the_kernel_refuses_is_no_outcome_of_the_capture_search():
    """The finder's capture phase asks the check of every capture it would accept: the
    finder's game to a target one capture away (replayed by python-chess) comes through it, and
    a finder whose check refuses everything finds no capture outcome, so no game at all."""
    target = chess.Board("rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2")
    finder = Finder(target, Budget(None), node_cap=600)
    game = finder.find()
    assert game is not None and reached_fault(replayed(game), target) is None
    refusing = Finder(target, Budget(None), node_cap=600)
    refusing.columns.fit = lambda board: False
    assert refusing.find() is None


def test_the_promotions_a_board_shows_count_as_made():
    """A knight promoted on h8 with no capture left: the board's third knight is a promotion
    made, so the target (the same board) is in reach; counting none made would ask for a
    promotion more and cut a real game (the check's state, `Columns.fit`)."""
    board = chess.Board()
    for san in "h4 g5 hxg5 h6 gxh6 Bg7 hxg7 Nf6 gxh8=N".split():
        board.push_san(san)
        assert Columns(board).fit(board)
    columns = Columns(board)
    replay = chess.Board()
    for move in board.move_stack:
        replay.push(move)
        assert columns.fit(replay), replay.fen()
