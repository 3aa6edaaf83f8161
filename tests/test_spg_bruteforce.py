"""The independent oracle of the proof-game tests: plain exhaustive search with python-chess.

Every legal move is tried; the only pruning is a counting argument that needs no chess insight:
a move changes the contents of at most two of its own side's squares (four when castling), and
an opponent's move changes at most one (a capture), so a side whose squares differ from the
target in more places than its remaining moves can fix is hopeless.
"""

from __future__ import annotations

import chess


def _diff(board: chess.BaseBoard, target: chess.BaseBoard, color: chess.Color) -> int:
    squares = board.occupied_co[color] | target.occupied_co[color]
    n = 0
    for sq in chess.scan_forward(squares):
        a, b = board.piece_at(sq), target.piece_at(sq)
        if a is None or a.color != color:
            a = None
        if b is None or b.color != color:
            b = None
        if a != b:
            n += 1
    return n


def _hopeless(board: chess.Board, target: chess.BaseBoard, plies: int) -> bool:
    first, second = (plies + 1) // 2, plies // 2
    for color in chess.COLORS:
        mine = first if board.turn == color else second
        theirs = plies - mine
        lost = chess.popcount(board.occupied_co[color]) - chess.popcount(target.occupied_co[color])
        if lost < 0:
            return True
        castle = 2 if board.castling_rights & (chess.BB_RANK_1 if color else chess.BB_RANK_8) else 0
        if _diff(board, target, color) > 2 * mine + castle + min(theirs, lost):
            return True
    return False


def all_games(start: chess.Board, target: chess.BaseBoard, plies: int) -> set[tuple[str, ...]]:
    """Every game of exactly `plies` plies from `start` ending on `target`'s placement (UCI)."""
    memo: dict[tuple[str, int], frozenset[tuple[str, ...]]] = {}
    goal = target.board_fen()

    def rec(board: chess.Board, left: int) -> frozenset[tuple[str, ...]]:
        key = (" ".join(board.fen().split()[:4]), left)
        hit = memo.get(key)
        if hit is not None:
            return hit
        if left == 0:
            out = frozenset({()}) if board.board_fen() == goal else frozenset()
        elif _hopeless(board, target, left):
            out = frozenset()
        else:
            acc = set()
            for move in list(board.legal_moves):
                board.push(move)
                for tail in rec(board, left - 1):
                    acc.add((move.uci(),) + tail)
                board.pop()
            out = frozenset(acc)
        memo[key] = out
        return out

    return set(rec(start.copy(stack=False), plies))
