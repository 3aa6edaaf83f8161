"""A king's distance maps avoid the squares the other side's frozen units always attack
(`targets.frozen_attacks`, `Distances.blocked`; issue #19): the squares against python-chess's
attacks on a board where every other square is occupied, and the bound with them against real
games (it never exceeds the moves each side plays, and it is stronger somewhere)."""

from __future__ import annotations

import random

import chess

from conftest import game_targets, random_game
from retrologic.legalgame.walls import Walls
from retrologic.spg import trajectory
from retrologic.spg.analysis import Analysis
from retrologic.spg.distances import INF
from retrologic.spg.targets import frozen_attacks


def full_board_attacks(board: chess.BaseBoard, frozen: int, color: chess.Color) -> int:
    """python-chess's attacks of each of `color`'s units on `frozen`, every other square of the
    board filled (a line piece then attacks its neighbours along its lines only)."""
    out = 0
    for sq in chess.scan_forward(frozen & board.occupied_co[color]):
        full = chess.BaseBoard(None)
        for other in chess.SQUARES:
            full.set_piece_at(other, chess.Piece(chess.PAWN, chess.WHITE))
        full.set_piece_at(sq, board.piece_at(sq))
        out |= int(full.attacks(sq))
    return out


def test_frozen_attacks_are_python_chess_attacks_on_a_full_board() -> None:
    rng = random.Random(91)
    kinds = set()
    for seed in range(40):
        game = random_game(7100 + seed, max_plies=rng.randint(10, 120))
        board = game[-1][0]
        frozen = rng.getrandbits(64) & board.occupied
        for color in chess.COLORS:
            assert frozen_attacks(board, frozen, color) == \
                full_board_attacks(board, frozen, color), (board.fen(), frozen, color)
        kinds |= {board.piece_type_at(sq) for sq in chess.scan_forward(frozen)}
    assert kinds == set(chess.PIECE_TYPES)       # every piece type was met


def test_the_walled_king_bound_holds_along_real_games() -> None:
    """Targets every 10 plies of 20 random games, each earlier position with its settled pawns
    as walls (`legalgame.walls`): the real game is the oracle. No king stands on its walls after
    its own move; each side plays at least the bound's moves; and the king's walls lengthen
    some king's distance to its target square (the check is not vacuous)."""
    positions = longer = 0
    for boards, k in game_targets(range(5000, 5020), max_plies=100):
        target = boards[k]
        walls_of = Walls(chess.Board(), target, 0)
        for i in range(k):
            board = boards[i]
            view = walls_of.view(walls_of.of(board))
            positions += 1
            for color in chess.COLORS:
                walls = view.targets.king_walls[color]
                for later in boards[i + 1:k + 1]:
                    if later.turn != color:    # after the king's side moved
                        assert not later.kings & later.occupied_co[color] & walls
                played = sum(1 for m in range(i, k) if boards[m].turn == color)
                assert view.side_bound(board, color) <= played, \
                    (target.fen(), i, k, color, board.fen())
                king, goal = board.king(color), target.king(color)
                walled = view.distances.piece_map(chess.KING, color, king)[goal]
                plain = trajectory.piece_map(chess.KING, king, view.targets.frozen, INF)[goal]
                assert walled >= plain
                longer += walled > plain
    assert positions > 10_000 and longer > 10
