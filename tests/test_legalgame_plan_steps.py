"""The plan finder's settle steps (issue #19): pawn doors and cage shuffles, and the game they
give for Ceriani 1951 (Kg8xQh8). Oracles: python-chess (attack sets, move legality, replay,
the `legal-game` checker), never the plan modules' own helpers."""

from __future__ import annotations

import chess

from retrologic.legalgame.checker import check_certificate
from retrologic.legalgame.finder import Finder
from retrologic.legalgame.game import LegalGame
from retrologic.legalgame.plan import plan_finder
from retrologic.legalgame.plan_order import OPEN, settle_steps
from retrologic.legalgame.plan_tail import find_with_tail
from retrologic.limits import Budget

# Ceriani 1951 (bench/lastmove-collection/ceriani-1951.toml) before Kg8xQh8, White to play
CERIANI_BEFORE = "3bkNKq/pppprp1p/4p1p1/8/8/8/8/8 w - - 0 1"
CERIANI = "3bkN1K/pppprp1p/4p1p1/8/8/8/8/8 b - - 0 1"


def escapes(board: chess.BaseBoard, square: chess.Square) -> int:
    """Squares the piece on `square` reaches through empty squares, moved on a copy of the
    board with python-chess's attack sets (an enemy king is not barred: the pawns here are
    Black's own)."""
    piece = board.piece_at(square)
    assert piece is not None
    seen, todo = {square}, [square]
    while todo:
        sq = todo.pop()
        probe = board.copy()
        probe.remove_piece_at(square)
        probe.set_piece_at(sq, piece)
        for to in probe.attacks(sq):
            if to not in seen and board.piece_at(to) is None:
                seen.add(to)
                todo.append(to)
    return len(seen) - 1


def board_of(goal: dict[chess.Square, chess.Piece], target: chess.Board) -> chess.BaseBoard:
    """The goal's units, with the target's pawns not in the goal where they stand."""
    board = chess.BaseBoard(None)
    named = {sq for sq, p in goal.items() if p.piece_type == chess.PAWN}
    moved = {chess.square_file(sq) for sq in named}
    for sq in chess.scan_forward(target.pawns):
        if chess.square_file(sq) not in moved:
            board.set_piece_at(sq, target.piece_at(sq))
    for sq, piece in goal.items():
        board.set_piece_at(sq, piece)
    return board


def test_steps_end_on_the_target_and_move_one_thing_at_a_time() -> None:
    """The last step is the target's units (pieces and door pawns) on their squares; each step
    differs from the next by units that arrive, or by one unit's single legal move (checked
    with python-chess on the next step's board played backwards: the move is legal forward)."""
    target = chess.Board(CERIANI_BEFORE)
    steps = settle_steps(target)
    goal, hold = steps[-1]
    assert hold == 0
    assert all(target.piece_at(sq) == piece for sq, piece in goal.items())
    assert {sq for sq in chess.scan_forward(target.occupied & ~target.pawns)} <= set(goal)
    assert any(hold for _, hold in steps)           # a pawn waits (the g-pawn on g7)
    for (now, _), (then, _) in zip(steps, steps[1:]):
        gone = {sq: p for sq, p in now.items() if then.get(sq) != p}
        if not gone:
            continue                                # pieces arrived
        came = {sq: p for sq, p in then.items() if now.get(sq) != p and p in gone.values()}
        assert len(gone) == 1 and len(came) == 1, (now, then)
        (frm, piece), (to, _) = next(iter(gone.items())), next(iter(came.items()))
        board = chess.Board(None)
        for sq, p in board_of(now, target).piece_map().items():
            board.set_piece_at(sq, p)
        board.turn = piece.color
        assert chess.Move(frm, to) in board.pseudo_legal_moves, (frm, to)


def test_a_waiting_pawn_closes_the_knights_door() -> None:
    """While the g-pawn waits (a step holding it), the knight f8 still has its way out over g6
    (python-chess's attacks); on the pawn's target square g6 it would have none."""
    target = chess.Board(CERIANI_BEFORE)
    steps = settle_steps(target)
    waiting = [goal for goal, hold in steps if hold and chess.F8 in goal]
    assert waiting
    board = board_of(waiting[-1], target)
    assert board.piece_at(chess.G7) == chess.Piece(chess.PAWN, chess.BLACK)
    assert escapes(board, chess.F8) >= OPEN
    board.remove_piece_at(chess.G7)
    board.set_piece_at(chess.G6, chess.Piece(chess.PAWN, chess.BLACK))
    assert escapes(board, chess.F8) == 0


def test_a_waiting_pawn_has_no_move() -> None:
    """The plan finder's moves are python-chess's legal moves but the waiting pawn's (and, as
    the plain finder's, those of units that never move: a7 b7 c7 d7 f7 h7 here)."""
    finder = plan_finder(Finder)(chess.Board(CERIANI_BEFORE), Budget(), 10)
    finder.plan()
    assert finder.hold == chess.BB_G7
    board = chess.Board()
    board.push_san("e4")
    still = finder.frozen | chess.BB_G7
    assert not finder.frozen & chess.BB_G7
    want = {m for m in board.legal_moves
            if not (chess.BB_SQUARES[m.from_square] | chess.BB_SQUARES[m.to_square]) & still}
    assert set(finder.legal_moves(board)) == want


def test_ceriani_game_ends_with_kg8xqh8() -> None:
    """Ceriani 1951: the plan finder's game to the position before Kg8xQh8 (measured 3,425
    positions, 3 s CPU; the cap is a tenth of the plan finder's share in a certification),
    then Kg8xQh8, is accepted by the independent `legal-game` checker for the diagram."""
    moves = find_with_tail(Finder, chess.Board(CERIANI_BEFORE), Budget(), 6_000)
    assert moves is not None
    game = LegalGame(tuple(moves) + (chess.Move.from_uci("g8h8"),), chess.Board(CERIANI))
    verdict = check_certificate(game.certificate())
    assert verdict.ok, verdict
