"""Games a user gives for the possible side (issue #19, `legalgame.given`, `lastmove.given`):
`legal --game` and `lastmove --game` (and `question.games`) replay the game, prove the position
legal or show the candidate it ends with possible, with a certificate `check` accepts; a game
that does not reach the position is bad input naming the field. Oracles: real random games
(conftest.random_game: the game given is the one that was played, so its last move is a true
last move and its end a legal position) and python-chess replays."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import chess
import pytest

from conftest import random_game
from retrologic.certificate import check_file
from retrologic.cli import main
from retrologic.lastmove.given import mark_shown
from retrologic.lastmove.search import candidates
from retrologic.legalgame.given import GivenGame, given_games
from retrologic.limits import Budget
from retrologic.position import Position
from retrologic.questions import lastmove, legal
from retrologic.spg.checker import san_text

# a2-a3-check (problems/lastmove): White Kb2, Pa3, Black Kb4, Black to move; a game of 73 plies
# ending with a2-a3+ (found by the engine once, replayed by python-chess in the tests below)
A3_FEN = "8/8/8/8/1k6/P7/1K6/8 b - - 0 1"
A3_GAME = ("1.Nh3 d6 2.Ng5 Kd7 3.Nxh7 Rxh7 4.Rg1 Rxh2 5.Rh1 Rxg2 6.Bxg2 Nh6 7.Bxb7 Bxb7 8.Rxh6 "
           "gxh6 9.f3 Bxf3 10.exf3 Bg7 11.Kf2 Bxb2 12.Bxb2 Qh8 13.Bxh8 Nc6 14.Bf6 exf6 15.Qh1 "
           "Rh8 16.Qxh6 Rxh6 17.d4 Nxd4 18.Kg3 Nxf3 19.Kxf3 Rh2 20.Kg4 Rxc2 21.Kf5 Kc6 22.Kxf6 "
           "Kd7 23.Kxf7 Rc3 24.Nxc3 d5 25.Nxd5 Kd6 26.Nc7 Kxc7 27.Rh1 Kd7 28.Rh7+ Kc7 29.Kf6 "
           "Kd6 30.Rxa7 Kc6 31.Rd7 Kxd7 32.Kf5 Kd6 33.Ke4 Kc5 34.Kd3 Kb4 35.Kc2 Kc5 36.Kb2 Kb4 "
           "37.a3+")
SEEDS = [3, 8, 21, 34, 55]


def _real(seed: int) -> tuple[chess.Board, list[chess.Move]]:
    pairs = random_game(seed, max_plies=40 + seed % 50)
    board = pairs[-1][0].copy()
    board.push(pairs[-1][1])
    return board, [move for _, move in pairs]


def _given(moves: list[chess.Move], field: str = "--game") -> GivenGame:
    return GivenGame(tuple(moves), field)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_real_game_given_proves_its_end_legal(seed: int, tmp_path: Path) -> None:
    """With a budget of one node (no finder can run) the game played proves its end legal;
    the answer's game is that game and its `legal-game` certificate is accepted."""
    board, moves = _real(seed)
    res = legal.answer(Position.from_board(board), budget=Budget(nodes=1),
                       certificate_dir=str(tmp_path), games=[_given(moves)])
    assert res.facts["legal"] is True and res.verdict == "proved"
    assert res.details["game_source"] == "given"
    assert res.details["uci"] == [m.uci() for m in moves]
    assert "the game given: --game" in res.lines[0]
    verdict = check_file(res.details["certificate"])
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize("seed", SEEDS + list(range(100, 111)))
def test_a_real_game_given_shows_its_last_move_possible(seed: int) -> None:
    """The candidate the real game ends with is possible with that game, never impossible
    (`mark_shown` cross-checks it with a depth-0 proof), and its JSON says the game was given."""
    board, moves = _real(seed)
    res = lastmove.answer(Position.from_board(board), budget=Budget(nodes=300),
                          games=[_given(moves)])
    mine = [c for c in res.details["candidates"] if c["game_source"] == "given"]
    assert len(mine) == 1, [c["notation"] for c in mine]
    assert mine[0]["status"] == "possible" and mine[0]["game"] == [m.uci() for m in moves]
    assert mine[0]["notation"] in res.known_in


def test_a_given_game_decides_what_the_engine_alone_leaves_unknown(tmp_path: Path) -> None:
    """a2-a3-check at a budget of 3 nodes: alone, its one candidate waits for a game (unknown);
    with the game given, unique a2-a3+, and the `lastmove-proof` certificate (holding the given
    game) passes `check`."""
    pos = Position.from_board(chess.Board(A3_FEN))
    alone = lastmove.answer(pos, budget=Budget(nodes=3))
    assert alone.verdict == "unknown"
    game = GivenGame(tuple(chess.Move.from_uci(m) for m in _ucis(A3_GAME)), "question.games[0]")
    res = lastmove.answer(pos, budget=Budget(nodes=3), games=[game], certificate_dir=str(tmp_path))
    assert res.verdict == "proved" and res.answer == ["a2-a3+"]
    assert res.facts["finding"] == "unique"
    assert "(the game given: question.games[0], replayed)" in "\n".join(res.lines)
    assert check_file(res.details["certificate"]).ok


def _ucis(text: str) -> list[str]:
    board = chess.Board()
    out = []
    for token in text.split():
        san = token.split(".")[-1]
        move = board.parse_san(san)
        out.append(move.uci())
        board.push(move)
    return out


def test_a_problem_file_gives_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`question.games` in a problem file: the same verdict as `--game`, `[expect]` met, for
    `last-move` and, on the same diagram, `legal`, at a budget of 3 nodes."""
    for kind, expect in (("last-move", 'finding = "unique", answer = ["a2-a3+"]'),
                         ("legal", "legal = true")):
        path = tmp_path / f"{kind}.toml"
        path.write_text('format = "retrologic/1"\n'
                        f'position = {{ fen = "{A3_FEN}" }}\n'
                        f'question = {{ kind = "{kind}", games = ["{A3_GAME}"] }}\n'
                        f"expect = {{ {expect} }}\n", encoding="utf-8")
        assert main(["solve", str(path), "--nodes", "3"]) == 0, capsys.readouterr()
        assert "expect: met" in capsys.readouterr().out


BAD_GAMES = [
    # (FEN, game, what the one-line error must say)
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "1.d4", "does not reach"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "1.e4 e5 2.Ke3",
     "does not replay"),
    # the right placement, the other side to move
    ("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1",
     "1.Nf3", "other side to move"),
    # the castling rights the FEN states are lost in the game (the kings walked out and back)
    ("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1",
     "1.e4 e5 2.Ke2 Ke7 3.Ke1 Ke8", "castling rights"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "1.e4 --", "does not replay"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
     '[Variant "Crazyhouse"]\n\n1.e4', "not orthodox"),
]


@pytest.mark.parametrize("command", ["legal", "lastmove"])
@pytest.mark.parametrize("fen,game,why", BAD_GAMES)
def test_a_game_that_does_not_reach_the_position_is_bad_input(
        command: str, fen: str, game: str, why: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 3, one line naming `--game` and the fault; nothing decided from it."""
    assert main([command, fen, "--game", game, "--nodes", "50"]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "field '--game'" in err and why in err, err


def test_given_games_refused_where_they_prove_nothing(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A frozen unit the game moves, a partial position, a directory, a non-string in
    `question.games`: each bad input (exit 3) naming its field."""
    start = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    cases = [
        (["legal", start, "--frozen", "g1", "--game", "1.Nf3 Nf6 2.Ng1 Ng8 3.e4"], "--game",
         "frozen"),
        (["legal", "8/8/8/8/4P3/8/8/8", "--game", "1.e4"], "--game", "partial"),
        (["legal", start, "--game", str(tmp_path)], "--game", "directory"),
    ]
    bad = tmp_path / "bad.toml"
    bad.write_text('format = "retrologic/1"\n'
                   f'position = {{ fen = "{start}" }}\n'
                   'question = { kind = "legal", games = [1] }\n', encoding="utf-8")
    cases.append((["solve", str(bad)], "question.games", "string"))
    for argv, field, why in cases:
        assert main(argv) == 3, argv
        err = capsys.readouterr().err.strip()
        assert f"field '{field}'" in err and why in err, err


def test_a_game_file_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--game FILE`: a PGN file (tags, comments, result) is read as the game."""
    pgn = tmp_path / "game.pgn"
    pgn.write_text('[Event "given"]\n\n1. Nf3 {out} Nf6 2. Ng1 Ng8 3. e4 *\n', encoding="utf-8")
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert main(["legal", fen, "--game", str(pgn), "--json", "--nodes", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["details"]["game"] == "1.Nf3 Nf6 2.Ng1 Ng8 3.e4"


def test_a_duplex_problem_takes_the_game_for_its_side(capsys: pytest.CaptureFixture[str]) -> None:
    """Duplex: the game (White moved last) shows White's a2-a3+; Black's side is decided as
    without it (no candidate: illegal if Black moved last)."""
    assert main(["lastmove", A3_FEN, "--duplex", "--game", A3_GAME, "--json", "--nodes",
                 "100"]) == 0
    out = json.loads(capsys.readouterr().out)
    white = out["details"]["duplex"]["white"]["candidates"]
    assert [(c["notation"], c["game_source"]) for c in white] == [("a2-a3+", "given")]
    assert out["facts"]["black_finding"] == "none possible"


def test_a_contradiction_is_an_internal_error() -> None:
    """A game that ends on the diagram but with no candidate listed, or a candidate shown by a
    game that a proof calls impossible: AssertionError (exit 5), never a verdict."""
    board, moves = _real(3)
    pos = Position.from_board(board)
    side = not board.turn
    cands = candidates(pos.with_turn(board.turn), 1)
    with pytest.raises(AssertionError, match="no candidate listed"):
        mark_shown([], [_given(moves)], 1, side, lambda q: None)
    with pytest.raises(AssertionError, match="proved impossible"):
        mark_shown(cands, [_given(moves)], 1, side, lambda q: {"rule": "invented"})
    assert san_text(moves)      # the game replays (python-chess)


def test_a_limit_in_the_cross_check_leaves_the_answer_unknown() -> None:
    """dawson-record-pxb-game (problems/lastmove, 11 nodes in all): at 6 nodes the limit falls
    in the depth-0 cross-check of the candidate the game shows: unknown with the five
    candidates listed (before, the limit escaped the solve: "unknown: node limit 6", no list);
    at 11 nodes unique b6xBa7."""
    path = Path(__file__).resolve().parent.parent / "problems/lastmove/dawson-record-pxb-game.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    pos = Position.from_board(chess.Board(data["position"]["fen"]))
    games = given_games(data["question"]["games"])
    cut = lastmove.answer(pos, budget=Budget(nodes=6), games=games)
    assert cut.verdict == "unknown" and len(cut.details["candidates"]) == 5
    assert "node limit 6" in cut.reason
    whole = lastmove.answer(pos, budget=Budget(nodes=11), games=games)
    assert whole.verdict == "proved" and whole.answer == ["b6xBa7"]
