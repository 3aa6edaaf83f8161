"""Legality by construction (issue #19): the game finder's games replay with python-chess (the
oracle) to the exact position, the `legal-game` checker accepts them and rejects tampered
ones, and last-move candidates are certified possible by a game ending in them."""

from __future__ import annotations

import copy
import json
import random

import chess
import pytest

from retrologic.certificate import check
from retrologic.lastmove import search as lastmove
from retrologic.legalgame.bounds import plies_needed
from retrologic.legalgame.checker import check_certificate, reached_fault
from retrologic.legalgame.find import find_game
from retrologic.legalgame.game import LegalGame
from retrologic.limits import Budget
from retrologic.position import Position
from retrologic.questions import legal
from conftest import random_walk

KNIGHT = "k1K5/8/8/8/8/8/7P/6B1 w - - 0 1"


def replayed(moves: list[chess.Move]) -> chess.Board:
    board = chess.Board()
    for move in moves:
        assert board.is_legal(move)
        board.push(move)
    return board


def same_position(board: chess.Board, target: chess.Board) -> bool:
    return (board.board_fen() == target.board_fen() and board.turn == target.turn
            and board.clean_castling_rights() == target.clean_castling_rights())


def test_plies_needed_counts_moves_and_the_side_to_move():
    assert plies_needed(chess.WHITE, 0, 0, chess.WHITE) == 0
    assert plies_needed(chess.WHITE, 0, 0, chess.BLACK) == 1
    assert plies_needed(chess.WHITE, 2, 0, chess.WHITE) == 4     # W . W . : Black moves between
    assert plies_needed(chess.BLACK, 1, 3, chess.WHITE) == 5


@pytest.mark.parametrize("fen", [
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2",     # e.p.: d2-d4 last
    "4k3/8/8/8/8/8/8/R3K2R w - - 0 1",                                  # rights lost at home
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4",  # castled
])
def test_found_games_reach_the_position_exactly(fen):
    target = chess.Board(fen)
    moves = find_game(target, Budget(60))
    assert moves is not None
    board = replayed(moves)
    assert same_position(board, target)
    if target.ep_square is not None:
        assert board.ep_square == target.ep_square
        assert board.peek() == chess.Move(target.ep_square - 8, target.ep_square + 8)
    cert = LegalGame(tuple(moves), target).certificate()
    assert check_certificate(json.loads(json.dumps(cert))).ok



def test_no_game_ends_with_an_en_passant_capture_the_position_does_not_state():
    """FEN "-" with a pawn beside a foe pawn that could have just double-stepped: the shortest
    games (1.e4 d5 2.e5 f5, or ...f5 then ...d5) leave e.p. legal, so they reach another
    position. The finder once returned one (seed 725 of bench/legal.py); the checker's fault
    is the oracle."""
    target = chess.Board("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3")
    moves = find_game(target, Budget(60))
    assert moves is not None
    board = replayed(moves)
    assert reached_fault(board, target) is None
    assert not board.has_legal_en_passant() and len(moves) > 4

@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_game_positions_are_certified_by_python_chess(seed):
    """Ends of short random games (python-chess moves): every game found replays to them; a
    static proof of illegality never fires on them."""
    target = random_walk(random.Random(seed), 24)
    result = legal.answer(Position.from_board(target), budget=Budget(60))
    assert result.facts["legal"] is not False
    if result.facts["legal"]:
        board = replayed([chess.Move.from_uci(m) for m in result.details["uci"]])
        assert same_position(board, target)


def test_a_position_with_no_game_is_never_legal():
    """The initial array with Black to move has no game (White cannot lose a tempo with only
    knights out): the finders find none within their cap (the static rules aside, unknown), and
    `legal` proves it illegal by the tempo-parity rule."""
    target = chess.Board(chess.STARTING_FEN.replace(" w ", " b "))
    assert find_game(target, Budget(nodes=5_000), node_cap=2_000) is None
    result = legal.answer(Position.from_board(target), budget=Budget(nodes=2_000))
    assert str(result.verdict) == "proved" and result.facts["legal"] is False
    assert result.facts["rules"] == ["tempo-parity"]


def _cert() -> dict:
    target = chess.Board("rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2")
    moves = find_game(target, Budget(60))
    return LegalGame(tuple(moves), target).certificate()


@pytest.mark.parametrize("tamper, why", [
    (lambda c: c["moves"].pop(), "ends on"),                             # last move dropped
    (lambda c: c.update(fen=c["fen"].replace("KQkq", "Qkq")), "castling"),
    (lambda c: c.update(fen=c["fen"].replace(" d3 ", " - ")), "e.p."),
    (lambda c: c.update(fen=c["fen"].replace(" b ", " w ")), "other side"),
    (lambda c: c["moves"].insert(0, "e2e5"), "illegal"),
    (lambda c: c.update(plies=c["plies"] + 2), "plies"),
    (lambda c: c.update(plies=float(c["plies"])), "plies"),     # 4.0 == 4 (audit, 2026-12-05)
    (lambda c: c.update(moves="e2e4"), "list"),
    (lambda c: c.update(fen="8/8/8/8/8/8/8/8 w - - 0 1"), ""),
])
def test_tampered_legal_games_are_rejected(tamper, why):
    cert = _cert()
    assert check_certificate(cert).ok
    bad = copy.deepcopy(cert)
    tamper(bad)
    verdict = check_certificate(bad)
    assert not verdict.ok and why in verdict.reason


def test_a_right_the_fen_keeps_must_still_stand():
    """A game that moved the king and came back reaches the placement, but not the rights."""
    moves = [chess.Move.from_uci(u) for u in ("e2e4", "e7e5", "e1e2", "e8e7", "e2e1", "e7e8")]
    target = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 4")
    cert = LegalGame(tuple(moves), target).certificate()
    cert["fen"] = target.fen()
    verdict = check_certificate(cert)
    assert not verdict.ok and "castling" in verdict.reason
    cert["fen"] = target.fen().replace("KQkq", "-")
    assert check_certificate(cert).ok


def test_legal_command_writes_a_certificate_that_check_accepts(tmp_path):
    pos = Position.from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    result = legal.answer(pos, budget=Budget(60), certificate_dir=tmp_path)
    assert result.answer == "legal" and result.facts["legal"] is True
    path = result.details["certificate"]
    assert check(json.loads(open(path).read())).ok


def test_the_initial_array_is_legal_by_the_empty_game_printed_without_a_blank_line():
    """The empty game reaches the initial array: the text says so and prints no empty move
    line (it did); one move's game prints its SAN."""
    start = legal.answer(Position.from_fen(chess.STARTING_FEN), budget=Budget(10))
    assert start.answer == "legal" and start.facts["plies"] == 0
    assert start.lines == ["legal: a game of 0 plies reaches it"]
    after = legal.answer(Position.from_fen(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"), budget=Budget(10))
    assert after.lines == ["legal: a game of 1 ply reaches it", "1.e4"]


def test_last_move_possible_by_a_game_and_its_certificate():
    """Smullyan's Ka7xNa8: the one candidate not impossible is certified possible by a game
    ending in it; the certificate holds both sides and rejects a changed or missing game."""
    pos = Position.from_fen(KNIGHT)
    res = lastmove.solve(pos, 1)
    assert res.verdict == "proved" and res.answer == ["Ka7xNa8"] and res.finding == "unique"
    (c,) = [c for c in res.candidates if c.status == "possible"]
    board = replayed(c.game)
    assert board.fen().split()[:3] == KNIGHT.split()[:3]
    assert c.game[-1].uci() == "a7a8"
    cert = json.loads(json.dumps(lastmove.certificate(pos, 1, res)))
    assert check(cert).ok and "unique" in check(cert).reason
    entry = next(e for e in cert["candidates"] if e["status"] == "possible")
    dropped = copy.deepcopy(cert)
    next(e for e in dropped["candidates"] if e["status"] == "possible").pop("game")
    assert not check(dropped).ok
    short = copy.deepcopy(cert)
    next(e for e in short["candidates"] if e["status"] == "possible")["game"] = entry["game"][:-1]
    assert not check(short).ok
    other = copy.deepcopy(cert)
    game = next(e for e in other["candidates"] if e["status"] == "possible")["game"]
    game[:] = game[2:]                      # the first moves dropped: it no longer replays
    assert not check(other).ok


def test_a_problem_file_certificate_names_its_position(tmp_path):
    """The certificate of a problem file states the problem's position (clocks aside); another
    position stated there is rejected."""
    from retrologic.options import SolveOptions
    from retrologic.problem import load, solve
    problem = load("problems/legal/legal-by-game-castled.toml")
    result = solve(problem, SolveOptions(timeout=60, certificate_dir=str(tmp_path)))
    assert result.facts["legal"] is True
    cert = json.loads(open(result.details["certificate"]).read())
    assert check(cert).ok
    cert["position"]["fen"] = cert["position"]["fen"].replace(" kq ", " k ")
    assert not check(cert).ok


def test_frozen_units_are_never_moved_by_a_possible_game():
    """A diagram whose frozen units a candidate's game would move: the candidate cannot be shown
    possible by such a game, and a certificate whose game moves a frozen unit is rejected."""
    from dataclasses import replace
    pos = Position.from_fen(KNIGHT)
    res = lastmove.solve(pos, 1)
    cert = json.loads(json.dumps(lastmove.certificate(pos, 1, res)))
    entry = next(e for e in cert["candidates"] if e["status"] == "possible")
    moved = {chess.Move.from_uci(u).from_square for u in entry["game"]}
    still = next(sq for sq in chess.scan_forward(pos.placement.occupied) if sq in moved)
    cert["frozen"] = [chess.square_name(still)]
    verdict = check(cert)
    assert not verdict.ok and "frozen" in verdict.reason
    frozen = replace(pos, frozen=chess.BB_SQUARES[still])
    again = lastmove.solve(frozen, 1)
    for c in again.candidates:
        if c.status == "possible":
            assert all(m.from_square != still and m.to_square != still for m in c.game)
    # `legal` builds games that leave frozen units alone (tests/test_legal_frozen.py): never one
    # that moves this unit
    res = legal.answer(frozen, budget=Budget(nodes=1_000))
    assert res.facts["legal"] is not False
    if res.facts["legal"]:
        moves = [chess.Move.from_uci(u) for u in res.details["uci"]]
        assert all(still not in (m.from_square, m.to_square) for m in moves)
