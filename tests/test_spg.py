"""Proof games: completeness against plain exhaustive search, soundness of the bound along real
games, the verdicts, the certificate checker, the CLI and bad input."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from conftest import random_game
from retrologic.spg import solver as spg
from retrologic.certificate import check
from retrologic.cli import main
from retrologic.errors import InputError
from retrologic.spg.analysis import Analysis, frozen_units, min_assignment, INF
from retrologic.spg.search import Limits
from retrologic.spg.status import Feasibility, SpgStatus
from test_spg_bruteforce import all_games

ROOT = Path(__file__).resolve().parent.parent


def _window(seed: int, first: int, plies: int) -> tuple[chess.Board, chess.Board]:
    """The positions before ply `first` and after `plies` more plies of a random game."""
    game = random_game(seed, first + plies + 1)
    start = game[first][0]
    board = start.copy()
    for _, move in game[first:first + plies]:
        board.push(move)
    return start, board


def _solver_games(start: chess.Board, target: chess.Board, plies: int) -> set[tuple[str, ...]]:
    answer = spg.solve(target, plies, start=start, check_shorter=False)
    assert answer.complete
    assert answer.count == len(answer.games)
    return {tuple(m.uci() for m in g) for g in answer.games}


# random diagrams reached by random games of up to 6 plies (brute force stays a few seconds each)
OPENING_CASES = [(seed, k) for seed, k in
                 [(0, 4), (5, 5), (6, 5), (9, 4), (10, 5), (17, 5), (20, 6), (24, 6), (27, 6),
                  (37, 6), (42, 6), (11, 4), (12, 4), (13, 3), (7, 3), (3, 2), (2, 1)]]


@pytest.mark.parametrize("seed,plies", OPENING_CASES)
def test_solution_set_equals_brute_force_from_the_array(seed: int, plies: int) -> None:
    start, target = _window(seed, 0, plies)
    assert _solver_games(start, target, plies) == all_games(start, target, plies)


# windows of random games around castling (C), en passant (E) and promotion (P) moves
SPECIAL_CASES = [(0, 22, 4), (1, 29, 4), (3, 22, 4), (5, 16, 4), (11, 13, 4), (30, 9, 5),
                 (4, 15, 4), (6, 47, 4), (7, 19, 4), (12, 4, 4), (19, 5, 4),
                 (1, 40, 4), (3, 32, 4), (12, 10, 4), (19, 15, 4), (25, 23, 4), (37, 21, 4)]


@pytest.mark.parametrize("seed,first,plies", SPECIAL_CASES)
def test_solution_set_equals_brute_force_around_special_moves(seed: int, first: int,
                                                             plies: int) -> None:
    start, target = _window(seed, first, plies)
    assert _solver_games(start, target, plies) == all_games(start, target, plies)


@pytest.mark.parametrize("seed", range(24))
def test_bound_never_prunes_a_real_game(seed: int) -> None:
    """Along a random legal game (captures, promotions, castling, e.p.), no position is pruned
    and no move is filtered when the game's own end is the target."""
    rng = random.Random(seed)
    game = random_game(seed, 120)
    n = rng.randint(len(game) // 2, len(game))
    final = game[n - 1][0].copy()
    final.push(game[n - 1][1])
    analysis = Analysis(chess.Board(), final)
    assert not analysis.impossible
    for i in range(n):
        board, move = game[i]
        assert not analysis.prune(board, n - i), f"ply {i} pruned"
        assert analysis.move_filter(board, move, n - i), f"ply {i}: {move} filtered"


def test_frozen_units_of_figure_2() -> None:
    target = chess.BaseBoard("r1bknbr1/pppqpppp/3p1n2/8/3B4/1PN5/PKPPPPPP/RQ3BNR")
    frozen, impossible = frozen_units(chess.BaseBoard(), target)
    names = sorted(chess.square_name(s) for s in chess.scan_forward(frozen))
    # pawns on their home ranks, and the bishops walled in by them (f1 by e2/g2, f8 by e7/g7)
    assert names == sorted(["a2", "c2", "d2", "e2", "f2", "g2", "h2", "a7", "b7", "c7", "e7",
                            "f7", "g7", "h7", "f1", "f8"])
    assert not impossible


def test_assignment_matches_brute_force() -> None:
    from itertools import permutations
    rng = random.Random(7)
    for _ in range(200):
        n, m = rng.randint(1, 5), rng.randint(1, 6)
        if n > m:
            n, m = m, n
        cost = [[rng.choice([INF, rng.randint(0, 9)]) for _ in range(m)] for _ in range(n)]
        best = min((sum(cost[i][p[i]] for i in range(n)) for p in permutations(range(m), n)),
                   default=0)
        assert min_assignment(cost) == min(best, INF)


# ---------------------------------------------------------------------------------------------
# verdicts


def test_figure_2_is_unique_and_no_shorter() -> None:
    target = spg.parse_target("r1bknbr1/pppqpppp/3p1n2/8/3B4/1PN5/PKPPPPPP/RQ3BNR", 16)
    answer = spg.solve(target, 16)
    assert answer.status == "unique"
    assert spg.san_text(answer.games[0]) == ("1.b3 d6 2.Bb2 Nd7 3.Bd4 Ndf6 4.Nc3 Qd7 5.Qb1 Kd8 "
                                            "6.Kd1 Ne8 7.Kc1 Ngf6 8.Kb2 Rg8")


def test_cooked_by_the_other_move_order() -> None:
    target = spg.parse_target("rnbq1bnr/ppppkppp/8/4p3/8/P6P/1PPPPPP1/RNBQKBNR", 4)
    answer = spg.solve(target, 4)
    assert answer.status == "cooked"
    assert sorted(spg.san_text(g) for g in answer.games) == ["1.a3 e5 2.h3 Ke7",
                                                             "1.h3 e5 2.a3 Ke7"]


def test_a_longer_stipulation_than_needed_is_refuted_with_the_shorter_game() -> None:
    # 1.f4 f5 2.Nf3 reaches the diagram in 1.5; in 2.5 the pawns can lose a tempo each
    # (f2-f3-f4, f7-f6-f5), so 2.5 games exist too and the shorter 1.5 game is reported.
    target = spg.parse_target("rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R", 5)
    answer = spg.solve(target, 5)
    assert answer.count >= 1 and answer.status in ("cooked", "shorter")
    assert answer.shorter == 3
    assert spg.san_text(answer.shorter_game) == "1.f4 f5 2.Nf3"


def test_the_array_itself_and_knight_parity() -> None:
    # the initial array after 2.0: knights out and back in many orders; no game of 1.0 (a knight
    # cannot come back in one move), and the empty game (0 plies) is shorter
    answer = spg.solve(spg.parse_target(chess.STARTING_BOARD_FEN, 4), 4)
    assert answer.status == "cooked" and answer.count == 16 and answer.shorter == 0  # 4 x 4 knight trips
    # a lone Nf3 after 1.5: Black cannot move and come back in one move; 0.5 (1.Nf3) is shorter
    single = spg.solve(spg.parse_target("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R", 3), 3)
    assert single.status == "no solution" and single.shorter == 1


def test_limits_give_unknown_with_the_reason() -> None:
    target = spg.parse_target("r1bqkbnr/ppp2ppp/3p4/8/8/8/PPPPPPPP/R1BQKBNR", 8)
    answer = spg.solve(target, 8, Limits(nodes=50), engine="search")
    assert answer.status == "unknown"
    assert "node limit" in answer.reason
    # auto: the node limit counts CP-SAT's conflicts too, and a limit that stops both engines
    # names both; with more nodes the schedule model takes over from the search and decides
    both = spg.solve(target, 8, Limits(nodes=50))
    assert both.status == "unknown"
    assert "search: node limit 50" in both.reason
    assert "schedule model: node limit 50" in both.reason
    roomy = spg.solve(target, 8, Limits(nodes=200))
    assert roomy.status == "unique" and roomy.searches[0]["engine"] == "schedule"
    # and a time limit that stops both names both
    bell = spg.parse_target("2bq1r2/1pp1bppp/2Bp2n1/p3p1K1/1k2nN1P/2R1QrP1/PPPPPP2/RNB5", 34)
    answer = spg.solve(bell, 34, Limits(timeout=0.5))
    assert answer.status == "unknown"
    assert "search: time limit" in answer.reason and "schedule model:" in answer.reason


# ---------------------------------------------------------------------------------------------
# certificates


def test_certificate_round_trip_and_rejections() -> None:
    target = spg.parse_target("r1Bqkbnr/p2ppppp/8/1pp5/4b3/8/P1PPPPPP/RNBQKBNR", 10)
    answer = spg.solve(target, 10)
    cert = spg.certificate(answer.games[0], target, 10)
    assert check(cert).ok
    bad = dict(cert, moves=cert["moves"][:-1], plies=9)
    assert not check(bad).ok
    swapped = dict(cert, moves=[cert["moves"][1], cert["moves"][0]] + cert["moves"][2:])
    assert not check(swapped).ok
    other = dict(cert, target=chess.STARTING_BOARD_FEN)
    assert not check(other).ok
    assert not check(dict(cert, plies=11)).ok


def test_the_checker_imports_nothing_of_the_engine() -> None:
    """spg/checker.py's rule: python-chess and the flat core only, so a certificate is checked
    without the search, the bounds or the CP-SAT models that found the game."""
    code = ("import sys, retrologic.spg.checker; print(' '.join(sorted(m for m in sys.modules "
            "if m.startswith(('retrologic.', 'ortools', 'pysat')))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    # the one module inside a subpackage is the checker (flat core modules have one dot)
    assert [m for m in out if m.count(".") > 1] == ["retrologic.spg.checker"]
    assert not [m for m in out if m.startswith(("ortools", "pysat"))]


def test_statuses_are_strings_to_json_and_expect(monkeypatch) -> None:
    """Statuses are StrEnum members: equal to their strings, printed by json as plain strings."""
    monkeypatch.setattr(spg, "QUICK", False)   # the full path: with its strategy report
    answer = spg.solve(spg.parse_target("rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R", 3), 3)
    assert answer.status is SpgStatus.UNIQUE and answer.status == "unique"
    assert json.dumps({"status": answer.status}) == '{"status": "unique"}'
    assert f"{answer.status}" == "unique"
    assert answer.strategy is not None and answer.strategy.status is Feasibility.FEASIBLE
    assert json.dumps(answer.searches[0]["strategies"]) == '"feasible"'


# ---------------------------------------------------------------------------------------------
# input and CLI


@pytest.mark.parametrize("value,plies", [(8.0, 16), (3.5, 7), ("1.5", 3), (0, 0), ("12.0", 24),
                                         ("8", 16), ("dia8", 16), ("dia 7.5", 15),
                                         ("PG 8.0", 16)])
def test_parse_moves(value: object, plies: int) -> None:
    assert spg.parse_moves(value) == plies


@pytest.mark.parametrize("value", [2.7, -1.0, "8.25", "x", "dia", "PG 8.2", True, [8]])
def test_parse_moves_rejects(value: object) -> None:
    with pytest.raises(InputError) as e:
        spg.parse_moves(value, field="question.moves")
    assert e.value.field == "question.moves"


def test_parse_target_rejects_wrong_side_to_move_and_kings() -> None:
    with pytest.raises(InputError, match="disagrees"):
        spg.parse_target("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1", 1)
    with pytest.raises(InputError, match="king"):
        spg.parse_target("8/8/8/8/8/8/8/K7", 2)
    with pytest.raises(InputError, match="malformed"):
        spg.parse_target("rnbqkbnr/ppp/8", 2)


def test_cli_text_json_and_bad_input(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    fen = "rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R"
    assert main(["spg", fen, "--moves", "1.5", "--certificate-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "unique" in out and "1.f4 f5 2.Nf3" in out and "[Event" in out
    [cert] = tmp_path.glob("*.spg-game-1.json")
    assert main(["check", str(cert)]) == 0
    capsys.readouterr()
    assert main(["spg", fen, "--moves", "1.5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["facts"]["status"] == "unique" and data["answer"] == ["1.f4 f5 2.Nf3"]
    assert main(["spg", fen, "--moves", "1.7"]) == 3
    assert "--moves" in capsys.readouterr().err
    assert main(["spg", "rnbqkbnr/ppp/8", "--moves", "1.5"]) == 3
    assert main(["spg", "r1bqkbnr/ppp2ppp/3p4/8/8/8/PPPPPPPP/R1BQKBNR", "--moves", "4.0",
                 "--nodes", "20", "--engine", "search"]) == 4


def test_a_listing_past_the_cap_says_how_many_it_lists(capsys: pytest.CaptureFixture[str]) -> None:
    """The initial array at 4.0: 2,700 games of 8 plies (counted by brute force with
    python-chess), the shortest 0.0; the answer keeps 1,000 and says so, in JSON too."""
    assert main(["spg", chess.STARTING_BOARD_FEN, "--moves", "4.0", "--all", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["facts"]["count"] == 2700 and data["facts"]["shorter"] == 0
    assert len(data["answer"]) == data["details"]["games_listed"] == 1000


def test_problem_file_errors_name_the_field(tmp_path) -> None:
    from retrologic import problem
    path = tmp_path / "bad.toml"
    path.write_text('format = "retrologic/1"\nposition = { fen = "8/8/8/8/8/8/8/K6k w - - 0 1" }\n'
                    'question = { kind = "spg", moves = 0.5 }\n')
    prob = problem.load(path)
    with pytest.raises(InputError) as e:
        problem.solve(prob)
    assert e.value.field == "position.fen" and str(path) in str(e.value)
    path.write_text('format = "retrologic/1"\nposition = { fen = "8/8/8/8/8/8/8/K6k" }\n'
                    'question = { kind = "spg", moves = 1.25 }\n')
    with pytest.raises(InputError) as e:
        problem.solve(problem.load(path))
    assert e.value.field == "question.moves"
