"""Castling rights a game keeps that its target has lost, given up by a shuffle (issue #19):
the side's king (or the rook of that wing) steps out and back while the opponent's piece does
the same, four plies that leave the placement and the side to move as they were.

Why: the proof-game engines (`spg.search`, the schedule model of `spg.listing`) reach a
placement and a side to move; castling rights are no part of a proof-game stipulation, so a game
they find to a diagram whose FEN states no rights may keep a king and rook that never moved
(castled-rook-f1: the 12-ply solution keeps Black's `kq`). A right still held can always be
lost; a right lost cannot come back, so such a game only fits a target whose rights are a
subset of its own. Whatever this module builds is replayed here and again by
`legalgame.checker`: it never has to be right to be safe, only to be useful.
"""

from __future__ import annotations

import chess

from retrologic.legalgame.checker import reached_fault

BACK_RANK = {chess.WHITE: chess.BB_RANK_1, chess.BLACK: chess.BB_RANK_8}


def lose_rights(game: list[chess.Move], target: chess.Board) -> list[chess.Move] | None:
    """`game` (from the initial array to `target`'s placement and side to move) with a shuffle
    inserted for each side that keeps a castling right `target` lacks: one king shuffle when the
    side keeps none of its rights in `target`, else a shuffle of each extra right's rook. None
    when the game keeps fewer rights than `target` states, or no shuffle fits."""
    board = _replay(game)
    if board is None or board.board_fen() != target.board_fen() or board.turn != target.turn:
        return None
    want = target.clean_castling_rights()
    have = board.clean_castling_rights()
    if want & ~have:
        return None                       # a right once lost never comes back
    moves = list(game)
    for color in chess.COLORS:
        extra = have & ~want & BACK_RANK[color]
        if not extra:
            continue
        king = chess.E1 if color == chess.WHITE else chess.E8
        units = [king] if not want & BACK_RANK[color] else list(chess.scan_forward(extra))
        for square in units:
            shuffled = _insert_shuffle(moves, color, square)
            if shuffled is None:
                return None
            moves = shuffled
    end = _replay(moves)
    if end is None or reached_fault(end, target) is not None:
        return None
    return moves


def _replay(moves: list[chess.Move]) -> chess.Board | None:
    """The board after `moves` from the initial array (None: an illegal move)."""
    board = chess.Board()
    for move in moves:
        if not board.is_legal(move):
            return None
        board.push(move)
    return board


def _insert_shuffle(moves: list[chess.Move], color: chess.Color,
                    square: chess.Square) -> list[chess.Move] | None:
    """`moves` with four plies inserted at the first point where `color`'s unit on `square`
    (a king or rook that never moved) steps to an empty square and back, and the opponent
    moves a piece (not its king, not a rook in its corner) out and back in between; the rest
    of the game replays unchanged after it. None when no point fits."""
    board = chess.Board()
    for index in range(len(moves) + 1):
        if board.turn == color and (index == len(moves) or not board.is_en_passant(moves[index])):
            shuffle = _shuffle_at(board, square)
            if shuffle is not None:
                candidate = moves[:index] + shuffle + moves[index:]
                if _replay(candidate) is not None:
                    return candidate
        if index < len(moves):
            board.push(moves[index])
    return None


def _shuffle_at(board: chess.Board, square: chess.Square) -> list[chess.Move] | None:
    """Four plies from `board` that move the unit on `square` out and back, the opponent's
    piece out and back between, and leave the placement as it was (None: none fits)."""
    placement = board.board_fen()
    corners = chess.BB_CORNERS
    for out in list(board.legal_moves):
        if out.from_square != square or board.is_castling(out) or board.is_capture(out):
            continue
        after = board.copy(stack=False)
        after.push(out)
        for reply in list(after.legal_moves):
            piece = after.piece_at(reply.from_square)
            if piece is None or piece.piece_type in (chess.PAWN, chess.KING) or \
                    after.is_capture(reply) or \
                    (piece.piece_type == chess.ROOK and chess.BB_SQUARES[reply.from_square] & corners):
                continue
            probe = after.copy(stack=False)
            probe.push(reply)
            back = chess.Move(out.to_square, out.from_square)
            if not probe.is_legal(back):
                continue
            probe.push(back)
            home = chess.Move(reply.to_square, reply.from_square)
            if not probe.is_legal(home):
                continue
            probe.push(home)
            if probe.board_fen() == placement:
                return [out, reply, back, home]
    return None


__all__ = ["lose_rights"]
