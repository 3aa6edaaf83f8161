"""The e.p. convention in last-move certification (issue #19): a diagram whose FEN states no e.p.
square leaves the e.p. state open (the retro analysis decides it), so a candidate's game must
reach the placement, side to move and castling rights, with whatever e.p. state its own final
move implies; an e.p. square the FEN states stays a hard fact; castling rights are compared
exactly as stated. The engine (`lastmove.search`) and the checker (`lastmove.checker`) apply
the same rule (`checker.diagram_fault`). Oracles: python-chess (replay, e.p. legality,
castling rights), the independent checker; forged certificates must be rejected."""

from __future__ import annotations

import copy

import chess
import pytest

from retrologic.certificate import check
from retrologic.lastmove import search as lastmove
from retrologic.lastmove.checker import Status, diagram_fault
from retrologic.legalgame import find as finder
from retrologic.limits import Budget
from retrologic.position import Position

# Amelung, Düna-Zeitung 1897: Black's last move was g7-g5 (h5xg6 e.p. is then legal)
AMELUNG = "7R/7p/5P1k/4PKpP/8/8/8/8 w - - 0 1"
AMELUNG_G6 = "7R/7p/5P1k/4PKpP/8/8/8/8 w - g6 0 1"
# White's last move was a knight move to g1 (king and rook h1 at home)
KNIGHT_K = "4k3/8/8/8/8/8/8/4K1NR b K - 0 1"


@pytest.fixture(scope="module")
def amelung() -> dict:
    """The engine's certificate of Amelung's diagram as the collection states it ("-")."""
    pos = Position.from_fen(AMELUNG)
    res = lastmove.solve(pos, 1)
    assert (res.verdict, res.finding, res.answer) == ("proved", "unique", ["g7-g5"])
    return lastmove.certificate(pos, 1, res)


def game_of(cert: dict) -> list[str]:
    [entry] = [c for c in cert["candidates"] if c["status"] == "possible"]
    return entry["game"]


def replayed(moves: list[str]) -> chess.Board:
    board = chess.Board()
    for uci in moves:
        move = chess.Move.from_uci(uci)
        assert board.is_legal(move)
        board.push(move)
    return board


def test_unstated_ep_is_open_and_the_game_ends_with_the_double_step(amelung) -> None:
    """Under "-" g7-g5 is certified by a game whose end python-chess says allows h5xg6 e.p.
    (so the old exact reading of "-" could never accept it); the checker accepts it."""
    moves = game_of(amelung)
    board = replayed(moves)
    assert moves[-1] == "g7g5" and board.board_fen() == chess.Board(AMELUNG).board_fen()
    assert board.turn == chess.WHITE and board.has_legal_en_passant()
    assert diagram_fault(board, chess.Board(AMELUNG)) is None
    assert check(amelung).ok
    c = next(c for c in lastmove.candidates(Position.from_fen(AMELUNG), 1)
             if c.notation == "g7-g5")
    assert lastmove.tail_fault(c) is None


def test_a_stated_ep_square_stays_a_fact(amelung) -> None:
    """With g6 stated, the only candidate is g7-g5, certified; a board with the same placement
    not ending with that double step (python-chess: no e.p. square) is not the diagram, and the
    "-" certificate restated with g6 is rejected (its candidate list is not that diagram's)."""
    pos = Position.from_fen(AMELUNG_G6)
    res = lastmove.solve(pos, 1)
    assert [c.notation for c in res.candidates] == ["g7-g5"]
    assert (res.verdict, res.finding) == ("proved", "unique")
    cert = lastmove.certificate(pos, 1, res)
    assert check(cert).ok
    assert diagram_fault(replayed(game_of(cert)), chess.Board(AMELUNG_G6)) is None
    no_double_step = chess.Board(AMELUNG)                  # e.g. after ...g6-g5: no e.p. square
    assert "e.p." in (diagram_fault(no_double_step, chess.Board(AMELUNG_G6)) or "")
    forged = copy.deepcopy(amelung)
    forged["fen"] = Position.from_fen(AMELUNG_G6).fen()
    assert not check(forged).ok
    # the engine spends no finder on a candidate that is not the stated double step
    other = next(c for c in lastmove.candidates(Position.from_fen(AMELUNG), 1)
                 if c.notation == "Kg7-h6")
    other.diagram = pos
    assert "e.p." in (lastmove.tail_fault(other) or "")


def test_forged_games_are_rejected(amelung) -> None:
    """A possible candidate's game that reaches another placement, does not end with the
    candidate, or plays an illegal move is rejected."""
    moves = game_of(amelung)
    board = replayed(moves[:-2])
    others = []
    for m in board.legal_moves:                 # White's other last moves before ...g7-g5
        after = board.copy()
        after.push(m)
        if m.uci() != moves[-2] and after.is_legal(chess.Move.from_uci("g7g5")):
            others.append(m.uci())
    assert others
    for forged_game in (moves[:-2] + [others[0], "g7g5"],      # another placement
                        moves[:-1],                             # not ending with g7-g5
                        moves[:-3] + moves[-2:]):               # a move left out: illegal
        forged = copy.deepcopy(amelung)
        next(c for c in forged["candidates"] if c["status"] == "possible")["game"] = forged_game
        assert not check(forged).ok


def test_side_to_move_is_a_fact() -> None:
    board = replayed(["e2e4"])
    assert diagram_fault(board, chess.Board(board.fen())) is None
    other = chess.Board(board.fen())
    other.turn = chess.WHITE
    assert "other side" in (diagram_fault(board, other) or "")


@pytest.fixture(scope="module")
def knight_game() -> list[str]:
    """A game to the position before Nf3-g1 in KNIGHT_K (White keeping the right to castle
    king-side), by the plain finder, followed by Nf3-g1."""
    head = finder.find_game(chess.Board("4k3/8/8/8/8/5N2/8/4K2R w K - 0 1"),
                            Budget(nodes=20_000), 20_000, plan=False)
    assert head is not None
    return [m.uci() for m in head] + ["f3g1"]


def knight_certificate(fen: str, game: list[str]) -> dict:
    """A hand-made certificate of `fen`: every candidate unresolved but Nf3-g1, marked possible
    with `game` (unresolved candidates are allowed: the claim is then "among these")."""
    pos = Position.from_fen(fen)
    cands = lastmove.candidates(pos, 1)
    for c in cands:
        if c.notation == "Nf3-g1":
            c.status, c.game = Status.POSSIBLE, [chess.Move.from_uci(u) for u in game]
    result = lastmove.LastMoveResult(cands, lastmove.Verdict.UNKNOWN, [], None, [], 0, 0.0)
    return lastmove.certificate(pos, 1, result)


def test_castling_rights_are_compared_as_stated(knight_game) -> None:
    """The castling rights are a fact of the FEN: a game keeping White's K right is accepted for
    the diagram stating K and rejected for the same placement stating "-" (king and rook at
    home, the right not lost); a game whose rook went h1-h2-h1 (right lost) is rejected for K."""
    board = replayed(knight_game)
    assert board.clean_castling_rights() == chess.BB_H1
    assert check(knight_certificate(KNIGHT_K, knight_game)).ok
    assert not check(knight_certificate(KNIGHT_K.replace(" K ", " - "), knight_game)).ok
    # the rook leaves and comes back while the black king steps aside and back
    king = chess.square_name(board.king(chess.BLACK))
    steps = [m for m in replayed(knight_game[:-1]).legal_moves if m.uci() == "h1h2"]
    assert steps
    pre = replayed(knight_game[:-1] + ["h1h2"])
    away = next(m.uci() for m in pre.legal_moves if m.from_square == board.king(chess.BLACK))
    back = away[2:] + king
    lost = knight_game[:-1] + ["h1h2", away, "h2h1", back, "f3g1"]
    end = replayed(lost)
    assert end.board_fen() == board.board_fen() and not end.clean_castling_rights()
    assert not check(knight_certificate(KNIGHT_K, lost)).ok
    assert check(knight_certificate(KNIGHT_K.replace(" K ", " - "), lost)).ok
