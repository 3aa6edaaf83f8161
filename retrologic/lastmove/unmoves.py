"""The last-move checker's own retractions, found by brute force with python-chess.

Rule: this module imports python-chess alone. It shares no code with the engine's retraction
generator (retrologic.retract): every predecessor board a unit's geometry allows is built and
kept when python-chess finds the forward move legal in it and the move gives back the position
(placement, side to move, castling rights, and the e.p. square when one is stated). So the
completeness of a lastmove-proof's candidate lists and proof trees rests on python-chess's move
generator, not on the engine whose answer is checked (tests/test_retract_oracle.py compares the
two sets over real games).

A predecessor is kept only when it could stand in a game (`_sane`: the side not to move not in
check, possible unit counts for both sides, no two unblockable checks, no triple check, no two
checks on one line with the king, no check a double step just played cannot have given):
these filters only drop boards no game has, so the set found is a subset of the true retractions.
"""

from __future__ import annotations

import chess

UNCAPTURES = (None, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)

Unmove = tuple[str, "int | None", bool]     # (forward move in UCI, uncaptured type, e.p.)


def _counts_ok(board: chess.Board, color: chess.Color) -> bool:
    """Unit counts a side can have: at most 16 units, 8 pawns, one king, and no more promoted
    pieces (beyond 1 Q, 2 R, 2 N, one bishop per square colour) than missing pawns."""
    pawns = len(board.pieces(chess.PAWN, color))
    if pawns > 8 or len(board.pieces(chess.KING, color)) > 1:
        return False
    if chess.popcount(board.occupied_co[color]) > 16:
        return False
    bishops = board.pieces_mask(chess.BISHOP, color)
    light = chess.popcount(bishops & chess.BB_LIGHT_SQUARES)
    dark = chess.popcount(bishops) - light
    extra = (max(0, len(board.pieces(chess.QUEEN, color)) - 1)
             + max(0, len(board.pieces(chess.ROOK, color)) - 2)
             + max(0, len(board.pieces(chess.KNIGHT, color)) - 2)
             + max(0, light - 1) + max(0, dark - 1))
    return extra <= 8 - pawns


def _sane(q: chess.Board, mover: chess.Color) -> bool:
    """The predecessor `q` (`mover` to move) could stand in a game: no pawn on a back rank,
    the other king not in check, possible counts, and at most two checks of `mover`'s king,
    at most one of them unblockable (a check by contact cannot have been discovered), never
    two on one line with the king, and after a double step (an e.p. capture's predecessor)
    no check the step cannot have given (python-chess's impossible check; found in review,
    2026-11-30: e5xd6 e.p. with the king on b4 checked from f8 through d6)."""
    if q.pawns & chess.BB_BACKRANKS:
        return False
    other = q.king(not mover)
    if other is not None and q.is_attacked_by(mover, other):
        return False
    if not (_counts_ok(q, chess.WHITE) and _counts_ok(q, chess.BLACK)):
        return False
    king = q.king(mover)
    if king is not None:
        checkers = list(q.attackers(not mover, king))
        contact = [c for c in checkers if chess.square_distance(c, king) == 1
                   or q.piece_type_at(c) in (chess.KNIGHT, chess.PAWN)]
        if len(checkers) > 2 or len(contact) > 1:
            return False
        if len(checkers) == 2 and chess.ray(*checkers) & chess.BB_SQUARES[king]:
            return False            # two checks on one line with the king: none gives both
        if checkers and q.ep_square is not None and \
                q.status() & chess.STATUS_IMPOSSIBLE_CHECK:
            return False            # a check the double step just played cannot have given
    return True


def _origins(piece_type: int, color: chess.Color, to: chess.Square) -> int:
    """Every square a unit of `piece_type` and `color` could have come from to reach `to` on
    an empty board (a superset: python-chess then judges the real board)."""
    if piece_type == chess.PAWN:
        back = -8 if color == chess.WHITE else 8
        mask = chess.BB_PAWN_ATTACKS[not color][to]
        if 0 <= to + back < 64:
            mask |= chess.BB_SQUARES[to + back]
        if chess.square_rank(to) == (3 if color == chess.WHITE else 4):
            mask |= chess.BB_SQUARES[to + 2 * back]
        return mask
    if piece_type == chess.KNIGHT:
        return chess.BB_KNIGHT_ATTACKS[to]
    if piece_type == chess.KING:
        return chess.BB_KING_ATTACKS[to]
    diagonal = chess.BB_DIAG_ATTACKS[to][0]
    straight = chess.BB_RANK_ATTACKS[to][0] | chess.BB_FILE_ATTACKS[to][0]
    return {chess.BISHOP: diagonal, chess.ROOK: straight}.get(piece_type, diagonal | straight)


def unmoves(after: chess.Board, frozen: int = 0) -> set[Unmove]:
    """(uci, uncaptured type, e.p.) of every retraction of the full position `after` by the
    side not to move, its units on `frozen` squares never moved (typed uncaptures: Q R B N P)."""
    mover = not after.turn
    found: set[Unmove] = set()
    king = after.king(mover)
    if king is not None and after.is_attacked_by(after.turn, king):
        return found                    # the mover cannot have left its king in check
    empty = ~after.occupied & chess.BB_ALL
    last_rank = 7 if mover == chess.WHITE else 0
    for to in chess.scan_forward(after.occupied_co[mover] & ~frozen):
        now = after.piece_type_at(to)
        before_types = [now]
        if chess.square_rank(to) == last_rank and now not in (chess.PAWN, chess.KING):
            before_types.append(chess.PAWN)             # an un-promotion
        for before in before_types:
            for frm in chess.scan_forward(_origins(before, mover, to) & empty):
                promotion = now if before != now else None
                for uncaptured in UNCAPTURES:
                    if uncaptured == chess.PAWN and chess.square_rank(to) in (0, 7):
                        continue
                    q = _predecessor(after, mover, frm, to, before, uncaptured)
                    _keep(after, q, chess.Move(frm, to, promotion=promotion), uncaptured,
                          False, found)
                if before == chess.PAWN == now and chess.square_file(frm) != chess.square_file(to):
                    _en_passant(after, mover, frm, to, found)
    _uncastlings(after, mover, frozen, found)
    return found


def _predecessor(after: chess.Board, mover: chess.Color, frm: chess.Square, to: chess.Square,
                 before: int, uncaptured: int | None) -> chess.Board:
    q = after.copy(stack=False)
    q.remove_piece_at(to)
    q.set_piece_at(frm, chess.Piece(before, mover))
    if uncaptured is not None:
        q.set_piece_at(to, chess.Piece(uncaptured, not mover))
    q.turn = mover
    q.ep_square = None
    return q


def _en_passant(after: chess.Board, mover: chess.Color, frm: chess.Square, to: chess.Square,
                found: set[Unmove]) -> None:
    """The pawn on `to` took e.p. from `frm`: the taken pawn stood beside, and had just
    double-stepped over `to` (its origin empty now)."""
    if chess.square_rank(to) != (5 if mover == chess.WHITE else 2):
        return
    taken = to - 8 if mover == chess.WHITE else to + 8
    origin = to + 8 if mover == chess.WHITE else to - 8
    if after.piece_at(taken) is not None or after.piece_at(origin) is not None:
        return
    q = _predecessor(after, mover, frm, to, chess.PAWN, None)
    q.set_piece_at(taken, chess.Piece(chess.PAWN, not mover))
    q.ep_square = to
    _keep(after, q, chess.Move(frm, to), chess.PAWN, True, found)


def _uncastlings(after: chess.Board, mover: chess.Color, frozen: int,
                 found: set[Unmove]) -> None:
    """The king on g1/c1 (g8/c8) with its rook beside castled: both go home, the right back."""
    back = 0 if mover == chess.WHITE else 56
    for king_to, rook_to, rook_home in ((back + 6, back + 5, back + 7),
                                        (back + 2, back + 3, back)):
        if after.piece_at(king_to) != chess.Piece(chess.KING, mover) or \
                after.piece_at(rook_to) != chess.Piece(chess.ROOK, mover) or \
                (chess.BB_SQUARES[king_to] | chess.BB_SQUARES[rook_to]) & frozen:
            continue
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
        _keep(after, q, chess.Move(back + 4, king_to), None, False, found)


def _keep(after: chess.Board, q: chess.Board, move: chess.Move, uncaptured: int | None,
          ep: bool, found: set[Unmove]) -> None:
    """Add the retraction when `move` is legal in `q` and gives back `after`. The predecessor's
    castling rights are `after`'s, cleaned (and the right a castling used): more rights change
    no other move's legality, and a right the move would lose must not be in `after`."""
    if not q.is_castling(move):
        q.castling_rights &= q.clean_castling_rights()
    if not _sane(q, q.turn) or not q.is_legal(move):
        return
    b = q.copy(stack=False)
    b.push(move)
    if b.board_fen() != after.board_fen() or b.castling_rights != after.castling_rights:
        return
    if after.ep_square is not None and b.ep_square != after.ep_square:
        return
    found.add((move.uci(), uncaptured, ep))
