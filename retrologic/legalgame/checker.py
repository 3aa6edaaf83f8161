"""The independent checker of `legal-game` certificates: a legal game from the initial array
that reaches a full position exactly, the proof that the position is legal (issue #19).

Rule: this module imports python-chess, the flat core (retrologic.certformat) and the SAN text
of the proof-game checker (retrologic.spg.checker.san_text) only; never the finder nor the
proof-game analysis. Every move is replayed with python-chess, and the final
position is compared field by field with the one stated: placement, side to move, castling
rights (a right the FEN gives must still be available, a right it lacks must be lost) and the
e.p. square (stated: the last move is that double step; not stated: no e.p. capture is legal).
"""

from __future__ import annotations

from typing import Any

import chess

from retrologic.certformat import Rejected, Verdict, same_stated_position, shown, verdict_of

MAX_GAME_PLIES = 5_000     # a legal game is never longer (the 50-move rule aside): refused beyond


def target_board(fen: Any) -> chess.Board:
    """The stated full position as a python-chess board; Rejected when it is not a full FEN."""
    if not isinstance(fen, str) or len(fen) > 256:
        raise Rejected(f"'fen' must be a FEN string, not {shown(fen)}")
    try:
        board = chess.Board(fen)
    except ValueError as e:
        raise Rejected(f"bad fen: {str(e)[:80]}") from None
    return board


def reached_fault(board: chess.Board, target: chess.Board, *, ep_open: bool = False
                  ) -> str | None:
    """Why `board` (the end of a game) is not the position `target` (None: it is): placement,
    side to move, castling rights and e.p. square, as the FEN states them. With `ep_open` (a
    retro diagram: the e.p. convention) a FEN that states no e.p. square leaves the e.p. state
    open, to be whatever the game's last move implies; a stated e.p. square stays a fact."""
    if board.board_fen() != target.board_fen():
        return f"the game ends on {board.board_fen()}, not {target.board_fen()}"
    if board.turn != target.turn:
        return "the game ends with the other side to move"
    have, want = board.clean_castling_rights(), target.castling_rights
    if have != want:
        shown_have = board.castling_xfen() if have else "-"
        return (f"the game ends with castling rights {shown_have}, the position states "
                f"{target.fen().split()[2]}")
    if target.ep_square is not None:
        if board.ep_square != target.ep_square:
            return (f"the position's e.p. square {chess.square_name(target.ep_square)} needs the "
                    "game's last move to be that double step")
    elif not ep_open and board.ep_square is not None and board.has_legal_en_passant():
        return "the game ends with an e.p. capture legal that the position does not state"
    return None


def reaches(moves: list[chess.Move], target: chess.Board) -> bool:
    """Whether `moves`, played from the initial array by python-chess, are all legal and end on
    `target` exactly (`reached_fault`): the engines' test of a game they built (the finder's
    tails, the positions before a target's last move) before they hand it on."""
    board = chess.Board()
    for move in moves:
        if not board.is_legal(move):
            return False
        board.push(move)
    return reached_fault(board, target) is None


def replay(moves: Any, target: chess.Board, *, ep_open: bool = False) -> chess.Board:
    """Replay UCI `moves` from the initial array with python-chess; Rejected at an illegal move or
    when the end is not `target` (`ep_open`: as in `reached_fault`). Returns the final board."""
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise Rejected("'moves' must be a list of UCI strings")
    if len(moves) > MAX_GAME_PLIES:
        raise Rejected(f"longer than {MAX_GAME_PLIES} plies")
    board = chess.Board()
    for i, uci in enumerate(moves):
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            raise Rejected(f"ply {i + 1}: not a UCI move: {shown(uci)}") from None
        if not board.is_legal(move):
            raise Rejected(f"ply {i + 1}: {uci} is illegal in {board.fen()}")
        board.push(move)
    fault = reached_fault(board, target, ep_open=ep_open)
    if fault:
        raise Rejected(fault)
    return board


def frozen_squares(names: Any, target: chess.Board) -> int:
    """The `frozen` field (square names of units stipulated never to have moved) as a mask;
    Rejected unless every name is a square and a unit stands on each in `target`."""
    if not isinstance(names, list) or not all(isinstance(n, str) and n in chess.SQUARE_NAMES
                                              for n in names) or len(set(names)) != len(names):
        raise Rejected(f"'frozen' must be a list of distinct square names, not {shown(names)}")
    mask = 0
    for name in names:
        mask |= chess.BB_SQUARES[chess.parse_square(name)]
    if mask & ~target.occupied:
        raise Rejected("a frozen square is empty in the position")
    return mask


def untouched(moves: list[str], frozen: int) -> None:
    """Rejected when a move (UCI, replayed already) starts or ends on a frozen square: it moves
    or takes that unit. A unit standing at the end on a square no move touched has stood there
    since the initial array (a castling's rook leaves its corner empty, refilled only by a move
    onto it; an e.p. victim has moved before), so this is "never moved" exactly."""
    for i, uci in enumerate(moves):
        move = chess.Move.from_uci(uci)
        for square in (move.from_square, move.to_square):
            if chess.BB_SQUARES[square] & frozen:
                raise Rejected(f"ply {i + 1}: {uci} moves or takes the frozen unit on "
                               f"{chess.square_name(square)}")


def _body(cert: dict[str, Any]) -> str:
    target = target_board(cert.get("fen"))
    if target.castling_rights != target.clean_castling_rights():
        raise Rejected("the FEN's castling rights need a king or rook that is not at home")
    moves = cert.get("moves")
    replay(moves, target)
    frozen = frozen_squares(cert["frozen"], target) if "frozen" in cert else 0
    untouched(moves, frozen)
    same_stated_position(cert.get("position"), target, frozen=frozen)
    if "plies" in cert and (type(cert["plies"]) is not int or cert["plies"] != len(moves)):
        raise Rejected(f"'plies' {shown(cert['plies'])} is not the game's length {len(moves)}")
    if "san" in cert:
        from retrologic.spg.checker import san_text
        if cert["san"] != san_text([chess.Move.from_uci(m) for m in moves]):
            raise Rejected("'san' is not the game's moves")
    never = ", ".join(chess.square_name(s) for s in chess.scan_forward(frozen))
    return (f"legal: a game of {len(moves)} plies from the initial array reaches "
            f"{' '.join(_fields(target))}"
            + (f", never moving nor taking the unit(s) on {never} (stated frozen)"
               if never else ""))


def _fields(board: chess.Board) -> list[str]:
    """The fields a position is (placement, side to move, castling rights, e.p. square as
    stated): the move clocks are no part of it."""
    return board.fen(en_passant="fen").split()[:4]


def check_certificate(cert: dict[str, Any]) -> Verdict:
    """Check a `legal-game` certificate: the claim accepted is "the position is legal", proved
    by the game replayed from the initial array; `plies` and the SAN text (`san`), when given,
    must be the game's."""
    return verdict_of("legal-game", _body, cert)
