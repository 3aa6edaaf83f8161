"""The independent checker of 4x4 capture-puzzle certificates ("puzzle4x4-line",
"puzzle4x4-unsolvable").

Rule: this module imports python-chess and the flat core (retrologic.certformat, .errors) only,
nothing of retrologic.puzzle4x4: it parses the board strings itself and takes the capture
geometry from python-chess's attack tables on the squares a1..d4 of a chess board, so a
certificate is checked independently of the engine (puzzle4x4.game's bitboards) that made it.
The rules checked are the puzzle's (see puzzle4x4.game): alternating captures, White first, the
white king never captured, solved when the white king is alone.
"""

from __future__ import annotations

from typing import Any

import chess

from retrologic.certformat import Verdict, tick
from retrologic.errors import shown

SQUARES = frozenset(f"{file}{rank}" for file in "abcd" for rank in "1234")   # the 4x4 board


def _chess_board(text: str):
    """The 4x4 board on squares a1..d4 of a python-chess board (the square region is convex, so
    lines between its squares stay inside it and chess attacks on it are the puzzle's)."""
    ranks = text.split("/")
    if len(ranks) != 4:
        raise ValueError(f"not a 4x4 board: {shown(text)}")
    board = chess.BaseBoard(None)
    for r, rank in enumerate(ranks):
        file = 0
        for ch in rank:
            if ch in "1234":            # the engine's digits (a '0' was accepted: review)
                file += int(ch)
                continue
            if ch not in "KQRBNkqrbn" or file > 3:
                raise ValueError(f"not a 4x4 board: {shown(text)}")
            board.set_piece_at(chess.square(file, 3 - r), chess.Piece.from_symbol(ch))
            file += 1
        if file != 4:
            raise ValueError(f"not a 4x4 board: {shown(text)}")
    return board


def _moves(board) -> list[tuple[int, int]]:
    """Captures of the side to move (White when the counts are equal), never of the white king."""
    white = chess.popcount(board.occupied_co[chess.WHITE]) == chess.popcount(board.occupied_co[chess.BLACK])
    out = []
    for sq in chess.scan_forward(board.occupied_co[white]):
        for to in chess.scan_forward(board.attacks_mask(sq) & board.occupied_co[not white]):
            if board.piece_at(to) != chess.Piece(chess.KING, chess.WHITE):
                out.append((sq, to))
    return out


def _solved(board) -> bool:
    kings = board.pieces_mask(chess.KING, chess.WHITE)
    return chess.popcount(kings) == 1 and board.occupied == kings


def _isolated(board) -> bool:
    """The white king has no occupied neighbour square: it can never capture again."""
    kings = board.pieces_mask(chess.KING, chess.WHITE)
    if chess.popcount(kings) != 1 or board.occupied == kings:
        return False
    return not chess.BB_KING_ATTACKS[chess.lsb(kings)] & board.occupied


def _board(text: Any, what: str):
    """A puzzle position: the 4x4 board, one white king, at most K Q R R B B N N a side, and
    unit counts that alternating captures can leave (White has as many as Black, or one more)."""
    if not isinstance(text, str):
        return None, f"{what} is not a board string"
    try:
        board = _chess_board(text)
    except ValueError as e:
        return None, str(e)[:100]
    if chess.popcount(board.pieces_mask(chess.KING, chess.WHITE)) != 1:
        return None, f"{what}: not exactly one white king"
    for color in chess.COLORS:
        for piece_type, most in ((chess.KING, 1), (chess.QUEEN, 1), (chess.ROOK, 2),
                                 (chess.BISHOP, 2), (chess.KNIGHT, 2)):
            if chess.popcount(board.pieces_mask(piece_type, color)) > most:
                return None, f"{what}: more than {most} {chess.piece_name(piece_type)}(s) of a side"
    w, b = chess.popcount(board.occupied_co[chess.WHITE]), chess.popcount(board.occupied_co[chess.BLACK])
    if w - b not in (0, 1):
        return None, f"{what}: {w} white and {b} black units cannot alternate"
    return board, ""


def _key(board) -> frozenset:
    return frozenset((sq, p.symbol()) for sq, p in board.piece_map().items())


def _play(board, move: tuple[int, int]):
    after = board.copy()
    after.set_piece_at(move[1], after.remove_piece_at(move[0]))
    return after


def _question_fault(cert: dict[str, Any], board) -> str | None:
    """The problem's question (when stated) must ask about the certificate's board."""
    q = cert.get("question")
    if not isinstance(q, dict) or "board" not in q:
        return None
    stated, why = _board(q["board"], "question.board")
    if stated is None:
        return f"the question's board is malformed: {why}"
    if _key(stated) != _key(board):
        return "the question's board is not the certificate's"
    return None


def _certified_board(cert: dict[str, Any]):
    """The certificate's board and, when a question is stated, the check that it asks about
    that board: (board, None), or (None, the reason to reject)."""
    board, why = _board(cert.get("board"), "board")
    if board is None:
        return None, why
    why = _question_fault(cert, board)
    return (None, why) if why else (board, None)


def check_certificate(cert: dict[str, Any]) -> Verdict:
    """Check a 'puzzle4x4-line': every move is a capture by the side to move, geometrically
    legal on the 4x4 board and not of the white king, and the white king is left alone. The
    claim accepted: "the board is solvable, by this line"."""
    kind = "puzzle4x4-line"
    board, why = _certified_board(cert)
    if board is None:
        return Verdict(kind, False, why)
    start = cert["board"]
    moves = cert.get("moves")
    if not isinstance(moves, list):
        return Verdict(kind, False, "'moves' must be a list of moves like 'c3b4'")
    for n, text in enumerate(moves, 1):
        if not isinstance(text, str) or len(text) != 4 or text[:2] not in SQUARES or \
                text[2:] not in SQUARES:
            return Verdict(kind, False, f"move {n}: {str(text)[:20]!r} is not like 'c3b4'")
        move = (chess.parse_square(text[:2]), chess.parse_square(text[2:]))
        if move not in _moves(board):
            return Verdict(kind, False, f"move {n}: {text} is not a legal capture")
        board = _play(board, move)
    if not _solved(board):
        return Verdict(kind, False, f"the line ends with {chess.popcount(board.occupied)} units, "
                                    "not the white king alone")
    return Verdict(kind, True, f"{start} is solvable: {len(moves)} captures leave the white king alone")


def check_unsolvable(cert: dict[str, Any]) -> Verdict:
    """Check a 'puzzle4x4-unsolvable' proof: a set of positions holding the start, none solved,
    and every move from a member reaching a member or a position whose white king has no occupied
    neighbour square (it can never move again, since vacated squares stay empty, so it cannot
    make the last capture). Every move removes a unit, so no member can ever be solved. The
    claim accepted: "the board is unsolvable"."""
    kind = "puzzle4x4-unsolvable"
    start, why = _certified_board(cert)
    if start is None:
        return Verdict(kind, False, why)
    positions = cert.get("positions")
    if not isinstance(positions, list):
        return Verdict(kind, False, "'positions' must be a list of board strings")
    members = {}
    for n, text in enumerate(positions):
        board, why = _board(text, f"positions[{n}]")
        if board is None:
            return Verdict(kind, False, why)
        members[_key(board)] = board
    if _key(start) not in members:
        return Verdict(kind, False, "the start is not in the set")
    for n, board in enumerate(members.values()):
        if n % 256 == 0:
            tick()                          # the check's time limit and Ctrl-C
        if _solved(board):
            return Verdict(kind, False, "a member is solved")
        for move in _moves(board):
            child = _play(board, move)
            if _key(child) not in members and not _isolated(child):
                return Verdict(kind, False, f"a move leaves the set: {move} from {board.board_fen()}")
    return Verdict(kind, True, f"{cert['board']} is unsolvable: a closed set of {len(members)} "
                               "position(s), none solved")
