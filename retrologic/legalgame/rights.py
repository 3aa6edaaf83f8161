"""Castling rights a game keeps that its target has lost, given up by a tour (issue #19): the
side's king (or the rook of that wing) steps out and back -- after a blocker steps aside and
before it returns, where one stands in the way -- while one of the opponent's pieces steps out
and back as often, plies that leave the placement and the side to move as they were.

Why: the proof-game engines (`spg.search`, the schedule model of `spg.listing`) reach a
placement and a side to move; castling rights are no part of a proof-game stipulation, so a game
they find to a diagram whose FEN states no rights may keep a king and rook that never moved
(castled-rook-f1: the 12-ply solution keeps Black's `kq`, with the king boxed in and the h8
rook behind its knight). A right still held can always be lost; a right lost cannot come back,
so such a game only fits a target whose rights are a subset of its own. Whatever this module
builds is replayed here and again by `legalgame.checker`: it never has to be right to be safe,
only to be useful.
"""

from __future__ import annotations

from typing import Iterator

import chess

from retrologic.legalgame.checker import reached_fault
from retrologic.spg.targets import BACK_RANK

KING_HOME = {chess.WHITE: chess.E1, chess.BLACK: chess.E8}
TOUR_MOVES = (2, 4)     # own moves of a tour, shortest first: out and back; a blocker aside too
TOURS_TRIED = 12        # own tours tried per insertion point (each with every opponent shuffle)


def lose_rights(game: list[chess.Move], target: chess.Board) -> list[chess.Move] | None:
    """`game` (from the initial array to `target`'s placement and side to move) with a tour
    inserted for each side that keeps a castling right `target` lacks: a king tour when the side
    keeps none of its rights in `target` (else, or when none fits, a tour of each extra right's
    rook, the king and the kept rights' rooks never moving). None when the game keeps fewer
    rights than `target` states, or no tour fits."""
    board = _replay(game)
    if board is None or board.board_fen() != target.board_fen() or board.turn != target.turn:
        return None
    want = target.clean_castling_rights()
    have = board.clean_castling_rights()
    if want & ~have:
        return None                       # a right once lost never comes back
    moves: list[chess.Move] | None = list(game)
    for color in chess.COLORS:
        extra = have & ~want & BACK_RANK[color]
        if extra and moves is not None:
            moves = _lose_side_rights(moves, color, extra, want & BACK_RANK[color])
    if moves is None:
        return None
    end = _replay(moves)
    if end is None or reached_fault(end, target) is not None:
        return None
    return moves


def _lose_side_rights(moves: list[chess.Move], color: chess.Color, extra: chess.Bitboard,
                      kept: chess.Bitboard) -> list[chess.Move] | None:
    """`moves` with tours that make `color` give up the rights of the rooks on `extra` and keep
    those of `kept` (None: no tour fits)."""
    king = KING_HOME[color]
    if not kept:
        toured = _insert_tour(moves, color, king, 0)
        if toured is not None:
            return toured
    for rook in chess.scan_forward(extra):
        toured = _insert_tour(moves, color, rook, chess.BB_SQUARES[king] | kept)
        if toured is None:
            return None
        moves = toured
    return moves


def _replay(moves: list[chess.Move]) -> chess.Board | None:
    """The board after `moves` from the initial array (None: an illegal move)."""
    board = chess.Board()
    for move in moves:
        if not board.is_legal(move):
            return None
        board.push(move)
    return board


def _insert_tour(moves: list[chess.Move], color: chess.Color, square: chess.Square,
                 still: chess.Bitboard) -> list[chess.Move] | None:
    """`moves` with a tour inserted at the first point where one fits: `color`'s unit on
    `square` (a king or rook that never moved) moves and every unit is back in place after it,
    no unit on `still` moving; the rest of the game replays unchanged after it. Shorter tours
    are tried at every point first. None when no point fits."""
    for length in TOUR_MOVES:
        board = chess.Board()
        for index in range(len(moves) + 1):
            if board.turn == color and (index == len(moves) or
                                        not board.is_en_passant(moves[index])):
                for tour in _tours_at(board, square, still, length):
                    candidate = moves[:index] + tour + moves[index:]
                    if _replay(candidate) is not None:
                        return candidate
            if index < len(moves):
                board.push(moves[index])
    return None


def _tours_at(board: chess.Board, square: chess.Square, still: chess.Bitboard,
              length: int) -> Iterator[list[chess.Move]]:
    """Tours of `length` own moves from `board` (the side to move's: quiet piece moves, the
    unit on `square` among them, every unit back in place), each interleaved with an opponent's
    piece stepping out and back as often; the placement after it is `board`'s."""
    placement = board.board_fen()
    for count, own in enumerate(_own_tours(board, square, still, length)):
        if count >= TOURS_TRIED:
            return
        for shuffle in _opponent_shuffles(board, own):
            probe = board.copy(stack=False)
            plies = [ply for pair in zip(own, shuffle) for ply in pair]
            if all(_push_legal(probe, ply) for ply in plies) and probe.board_fen() == placement:
                yield plies
                break


def _own_tours(board: chess.Board, square: chess.Square, still: chess.Bitboard,
               length: int) -> Iterator[list[chess.Move]]:
    """Sequences of `length` moves of the side to move (the opponent passing) that move the
    unit on `square` and bring every unit back: no pawn moves, captures or castling, nothing
    from `still`. Pruned by the squares the side occupies that it did not at the start (the
    unit on each must move again) and by the unit on `square` still to go out and back."""
    color, placement = board.turn, board.board_fen()
    home = board.occupied_co[color]

    def extend(current: chess.Board, path: list[chess.Move],
               unmoved: bool) -> Iterator[list[chess.Move]]:
        left = length - len(path)
        if chess.popcount(current.occupied_co[color] & ~home) > left or (unmoved and left < 2):
            return
        if left == 0:
            if current.board_fen() == placement:
                yield path
            return
        for move in list(current.legal_moves):
            if chess.BB_SQUARES[move.from_square] & still or current.is_capture(move) or \
                    current.is_castling(move) or \
                    current.piece_type_at(move.from_square) == chess.PAWN:
                continue
            after = current.copy(stack=False)
            after.push(move)
            after.push(chess.Move.null())
            yield from extend(after, path + [move], unmoved and move.from_square != square)

    yield from extend(board, [], True)


def _opponent_shuffles(board: chess.Board, own: list[chess.Move]) -> Iterator[list[chess.Move]]:
    """The opponent's replies to the tour `own` from `board`: one piece out and back, as often
    as the tour has moves in pairs (no pawn, no capture, nothing that gives up a right the
    opponent still holds)."""
    after = board.copy(stack=False)
    after.push(own[0])
    opponent = after.turn
    held = after.clean_castling_rights() & BACK_RANK[opponent]
    for out in list(after.legal_moves):
        origin = chess.BB_SQUARES[out.from_square]
        if after.piece_type_at(out.from_square) == chess.PAWN or after.is_capture(out) or \
                after.is_castling(out) or origin & held or \
                (held and out.from_square == after.king(opponent)):
            continue
        yield [out, chess.Move(out.to_square, out.from_square)] * (len(own) // 2)


def _push_legal(board: chess.Board, move: chess.Move) -> bool:
    """Plays `move` on `board` when it is legal there; whether it was."""
    if not board.is_legal(move):
        return False
    board.push(move)
    return True


__all__ = ["TOUR_MOVES", "lose_rights"]
