"""Brute-force retractions with python-chess alone: try every predecessor board and keep those
from which a legal forward move gives back the position. An oracle for tests and the baseline
of bench/retract.py; it shares no code with retrologic.retract."""

from __future__ import annotations

import chess

UNC = (None, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)


def _counts_ok(board: chess.Board, color: chess.Color) -> bool:
    pawns = len(board.pieces(chess.PAWN, color))
    if pawns > 8 or len(board.pieces(chess.KING, color)) > 1:
        return False
    if bin(board.occupied_co[color]).count("1") > 16:
        return False
    bishops = board.pieces(chess.BISHOP, color)
    light = len([s for s in bishops if (chess.square_file(s) + chess.square_rank(s)) % 2 == 1])
    dark = len(bishops) - light
    extra = (max(0, len(board.pieces(chess.QUEEN, color)) - 1) + max(0, len(board.pieces(chess.ROOK, color)) - 2)
             + max(0, len(board.pieces(chess.KNIGHT, color)) - 2) + max(0, light - 1) + max(0, dark - 1))
    return extra <= 8 - pawns


def _sane(q: chess.Board, mover: chess.Color) -> bool:
    """Q with `mover` to move: the other king safe, counts possible, checks not impossible."""
    if q.pawns & chess.BB_BACKRANKS:
        return False
    other_king = q.king(not mover)
    if other_king is not None and q.is_attacked_by(mover, other_king):
        return False
    if not (_counts_ok(q, chess.WHITE) and _counts_ok(q, chess.BLACK)):
        return False
    k = q.king(mover)
    if k is not None:
        checkers = list(q.attackers(not mover, k))
        if len(checkers) > 2:
            return False
        contact = [c for c in checkers if chess.square_distance(c, k) == 1
                   or q.piece_type_at(c) in (chess.KNIGHT, chess.PAWN)]
        if len(contact) > 1:
            return False
    return True


def brute_retractions(after: chess.Board) -> set[tuple[str, int | None, bool]]:
    """(uci, uncaptured type, en passant) of every retraction of `after` (full position)."""
    mover = not after.turn
    found: set[tuple[str, int | None, bool]] = set()
    if after.king(mover) is not None and after.is_attacked_by(after.turn, after.king(mover)):
        return found
    for to in chess.scan_forward(after.occupied_co[mover]):
        piece = after.piece_at(to)
        for frm in chess.SQUARES:
            if after.piece_at(frm) is not None:
                continue
            types = [piece.piece_type]
            last = chess.square_rank(to) == (7 if mover else 0)
            if last and piece.piece_type not in (chess.PAWN, chess.KING):
                types.append(chess.PAWN)
            for qtype in types:
                for unc in UNC:
                    if unc == chess.PAWN and chess.square_rank(to) in (0, 7):
                        continue
                    q = after.copy(stack=False)
                    q.remove_piece_at(to)
                    q.set_piece_at(frm, chess.Piece(qtype, mover))
                    if unc:
                        q.set_piece_at(to, chess.Piece(unc, not mover))
                    q.turn = mover
                    q.ep_square = None
                    promo = piece.piece_type if qtype != piece.piece_type else None
                    _try(after, q, chess.Move(frm, to, promotion=promo), unc, False, found)
                    # en passant: the captured pawn stood beside, not on `to`
                    if (unc is None and piece.piece_type == chess.PAWN and qtype == chess.PAWN
                            and chess.square_rank(to) == (5 if mover else 2)
                            and chess.square_file(frm) != chess.square_file(to)):
                        cap = to - 8 if mover else to + 8
                        origin = to + 8 if mover else to - 8   # where the pawn double-stepped from
                        if after.piece_at(cap) is None and after.piece_at(origin) is None:
                            q2 = q.copy(stack=False)
                            q2.set_piece_at(cap, chess.Piece(chess.PAWN, not mover))
                            q2.ep_square = to
                            _try(after, q2, chess.Move(frm, to), chess.PAWN, True, found)
    # castling: king on g/c file of its back rank, rook beside
    back = 0 if mover else 56
    for king_to, rook_to, rook_home in ((back + 6, back + 5, back + 7), (back + 2, back + 3, back)):
        if after.piece_at(king_to) == chess.Piece(chess.KING, mover) and \
                after.piece_at(rook_to) == chess.Piece(chess.ROOK, mover):
            q = after.copy(stack=False)
            q.remove_piece_at(king_to)
            q.remove_piece_at(rook_to)
            if q.piece_at(back + 4) or q.piece_at(rook_home):
                continue
            q.set_piece_at(back + 4, chess.Piece(chess.KING, mover))
            q.set_piece_at(rook_home, chess.Piece(chess.ROOK, mover))
            q.turn = mover
            q.ep_square = None
            q.castling_rights = after.castling_rights | chess.BB_SQUARES[rook_home]
            _try(after, q, chess.Move(back + 4, king_to), None, False, found)
    return found


def _try(after: chess.Board, q: chess.Board, move: chess.Move, unc, ep: bool, found: set) -> None:
    if not ep:
        q.castling_rights = q.castling_rights | after.castling_rights
    if not q.is_castling(move):
        q.castling_rights &= q.clean_castling_rights()
        if q.castling_rights != after.castling_rights:
            return
    if not _sane(q, q.turn):
        return
    if not q.is_legal(move):
        return
    b = q.copy(stack=False)
    b.push(move)
    if b.board_fen() != after.board_fen() or b.castling_rights != after.castling_rights:
        return
    if after.ep_square is not None and b.ep_square != after.ep_square:
        return
    found.add((move.uci(), unc, ep))
