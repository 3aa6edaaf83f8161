"""`legal` with frozen units (issue #19): a game that never moves nor takes them, certified, and a
`legal-game` checker that rejects a game touching one. Oracles: python-chess replays, and real
games whose untouched units are the frozen ones (the position is legal with them frozen)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import chess
import pytest

from conftest import random_game
from retrologic.certificate import check
from retrologic.cli import main
from retrologic.limits import Budget
from retrologic.position import Position
from retrologic.questions import legal

# Seeds of conftest.random_game chosen for speed (each under a second here). Of the first 40
# seeds with the same recipe (16-70 plies, a random non-empty subset of the never-touched units
# frozen, 20,000 positions each), 38 were proved legal, 1 unknown at the node limit, 0 illegal.
SEEDS = [1, 6, 9, 12, 14, 15, 18, 19, 20, 22]


def _real_position(seed: int) -> tuple[chess.Board, int]:
    """The end of a random real game and a random non-empty set of units it never touched."""
    rng = random.Random(seed)
    pairs = random_game(seed, max_plies=rng.randint(16, 70))
    board = pairs[-1][0].copy()
    board.push(pairs[-1][1])
    touched = 0
    for _, move in pairs:
        touched |= chess.BB_SQUARES[move.from_square] | chess.BB_SQUARES[move.to_square]
    never = list(chess.scan_forward(board.occupied & ~touched))
    mask = 0
    for square in rng.sample(never, rng.randint(1, len(never))):
        mask |= chess.BB_SQUARES[square]
    return board, mask


def _touches(ucis: list[str], mask: int) -> bool:
    return any((chess.BB_SQUARES[m.from_square] | chess.BB_SQUARES[m.to_square]) & mask
               for m in map(chess.Move.from_uci, ucis))


@pytest.mark.parametrize("seed", SEEDS)
def test_real_positions_with_frozen_units_are_proved_legal(seed, tmp_path) -> None:
    """Never illegal; the game found replays to the position with python-chess, never touches
    a frozen square, and its certificate (listing the frozen units) is accepted."""
    board, mask = _real_position(seed)
    res = legal.answer(Position.from_board(board, frozen=mask), budget=Budget(nodes=20_000),
                       certificate_dir=str(tmp_path))
    assert res.facts["legal"] is True, (board.fen(), res.reason)
    replayed = chess.Board()
    for uci in res.details["uci"]:
        replayed.push_uci(uci)          # raises on an illegal move
    assert replayed.board_fen() == board.board_fen() and replayed.turn == board.turn
    assert not _touches(res.details["uci"], mask)
    assert "never moving nor taking" in res.lines[0]
    cert = json.loads(open(res.details["certificate"]).read())
    assert cert["frozen"] == [chess.square_name(s) for s in chess.scan_forward(mask)]
    verdict = check(cert)
    assert verdict.ok and "stated frozen" in verdict.reason, verdict.reason


@pytest.fixture(scope="module")
def frozen_cert(tmp_path_factory) -> dict:
    """The certificate of problems/legal/legal-with-frozen-units.toml (seven units frozen)."""
    out = tmp_path_factory.mktemp("frozen")
    assert main(["solve", "problems/legal/legal-with-frozen-units.toml", "--certificate-dir",
                 str(out)]) == 0
    [path] = out.glob("*.legal-game.json")
    return json.loads(path.read_text())


def test_the_problem_file_certificate_names_its_frozen_units(frozen_cert) -> None:
    assert frozen_cert["frozen"] == ["a1", "c1", "d1", "a8", "c8", "d8", "e8"]
    assert frozen_cert["position"]["frozen"] == frozen_cert["frozen"]
    assert check(frozen_cert).ok


def _forged(cert: dict, **changes) -> dict:
    out = json.loads(json.dumps(cert))
    out.update(changes)
    return out


def test_a_game_that_moves_or_takes_a_frozen_unit_is_rejected(frozen_cert) -> None:
    """Every square the game touches, stated frozen (its unit standing there at the end), is
    rejected naming the ply; so are an empty frozen square, a malformed list and a stated
    position whose frozen units differ."""
    board = chess.Board(frozen_cert["fen"])
    moves = [chess.Move.from_uci(u) for u in frozen_cert["moves"]]
    touched = {s for m in moves for s in (m.from_square, m.to_square)} & set(
        chess.scan_forward(board.occupied))
    assert touched
    for square in touched:
        names = frozen_cert["frozen"] + [chess.square_name(square)]
        verdict = check(_forged(frozen_cert, frozen=names, position={"fen": frozen_cert["fen"],
                                                                     "frozen": names}))
        assert not verdict.ok and "moves or takes the frozen unit on" in verdict.reason
    empty = next(s for s in chess.SQUARES if not board.piece_at(s))
    for bad, words in [(frozen_cert["frozen"] + [chess.square_name(empty)], "empty"),
                       ("a1", "list of distinct square names"),
                       (["a1", "a1"], "list of distinct square names"),
                       (["z9"], "list of distinct square names")]:
        verdict = check(_forged(frozen_cert, frozen=bad))
        assert not verdict.ok and words in verdict.reason, (bad, verdict.reason)
    fewer = _forged(frozen_cert, frozen=["a1"])
    verdict = check(fewer)              # the problem's position states seven frozen units
    assert not verdict.ok and "frozen units" in verdict.reason
    fewer["position"]["frozen"] = ["a1"]
    assert check(fewer).ok


def test_frozen_units_that_went_out_and_back_leave_a_shorter_game() -> None:
    """Knights that went out and came back, stated frozen: the same diagram has a game that
    never moves them (1.e4 alone), and it is the one found; a frozen king likewise."""
    board = chess.Board()
    for uci in "g1f3 g8f6 f3g1 f6g8 e2e4".split():
        board.push_uci(uci)
    pos = Position.from_board(board, frozen=chess.BB_G1 | chess.BB_G8)
    res = legal.answer(pos, budget=Budget(nodes=5_000))
    assert res.facts["legal"] is True       # 1.e4 alone reaches it
    assert res.details["uci"] == ["e2e4"]
    pos = replace(pos, frozen=chess.BB_E1)
    with_king = legal.answer(pos, budget=Budget(nodes=5_000))
    assert with_king.facts["legal"] is True and not _touches(with_king.details["uci"], chess.BB_E1)


RUY = "r1bqkbnr/1pp3pp/p1p2p2/4p3/4P3/5N2/PPPP1PPP/RNBQ1RK1 w kq - 0 6"


def test_the_command_line_states_frozen_units(capsys) -> None:
    """`legal --frozen` and `lastmove --frozen` take the units as a problem file does; a unit that
    cannot have stood still there, or a bad square, is bad input naming --frozen (exit 3)."""
    assert main(["legal", RUY, "--frozen", "a1,c1,d8", "--nodes", "20000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["facts"]["legal"] is True
    assert not _touches(out["details"]["uci"], chess.BB_A1 | chess.BB_C1 | chess.BB_D8)
    for bad in ("f3", "zz", ""):
        assert main(["legal", RUY, "--frozen", bad]) == 3
        err = capsys.readouterr().err
        assert "'--frozen'" in err and len(err.strip().splitlines()) == 1, err
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert main(["lastmove", after_e4, "--frozen", "b8,g8", "--timeout", "60", "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)["facts"]
    # White's knights and pieces cannot have moved last: Black, knights frozen, had no move
    assert facts["finding"] == "unique" and facts["answer"] == ["e2-e4"], facts
