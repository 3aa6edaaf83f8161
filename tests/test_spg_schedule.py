"""The CP-SAT schedule model of proof games (spg/schedule.py, listed by spg/listing.py), a
second complete engine: every real game satisfies the model (its steps, fixed as assumptions,
leave the model feasible: published solutions, random games and mid-game windows with castling,
e.p. and promotions), its game sets equal brute force's on small diagrams and the published
answers on problem files, and a mutant model without double steps is caught by the oracle."""

from __future__ import annotations

import json
import threading
import tomllib
from pathlib import Path

import chess
import pytest

from conftest import random_game
from retrologic.spg import solver as spg
from retrologic.spg import schedule as spg_schedule
from retrologic.cli import main
from retrologic.spg.search import Limits
from retrologic.spg.listing import play_out, schedule
from retrologic.spg.schedule import ScheduleModel
from retrologic.spg.status import Listing
from retrologic.spg.strategy import StrategyModel, analyse
from test_spg import OPENING_CASES, SPECIAL_CASES, _window
from test_spg_bounds import PUBLISHED
from test_spg_bruteforce import all_games

ROOT = Path(__file__).resolve().parent.parent


def _target_of(start: chess.Board, moves: list[chess.Move]) -> tuple[chess.Board, int]:
    board = start.copy(stack=False)
    for move in moves:
        board.push(move)
    plies = len(moves)
    target = spg.parse_target(board.board_fen(), plies + (start.turn == chess.BLACK))
    return target, plies


def _admits(start: chess.Board, moves: list[chess.Move], walk_counts: bool = False) -> str:
    """'feasible' when the schedule model of the game's own diagram admits the game."""
    target, plies = _target_of(start, moves)
    report, analysis = analyse(target, plies, start=start, enumerate_strategies=False)
    if report.status != "feasible":
        return f"strategy layer: {report.status} ({report.reason})"
    model = ScheduleModel(StrategyModel(analysis, plies), walk_counts=walk_counts)
    try:
        lits = model.literals_of(moves)
    except KeyError as e:
        return f"no such step: {e}"
    return model.strategy.solve(lits)[1]


def _games(start: chess.Board, target: chess.Board, plies: int,
           walk_counts: bool = False) -> set[tuple[str, ...]]:
    report = schedule(target, plies, start=start, timeout=120, walk_counts=walk_counts)
    assert report.status == "complete", report.reason
    for g in report.games:
        assert play_out(start, g)[0] is None
    return {tuple(m.uci() for m in g) for g in report.games}


ISSUE_CASES = [
    ("r1bknbr1/pppqpppp/3p1n2/8/3B4/1PN5/PKPPPPPP/RQ3BNR", "8.0",
     "1.b3 d6 2.Bb2 Nd7 3.Bd4 Ndf6 4.Nc3 Qd7 5.Qb1 Kd8 6.Kd1 Ne8 7.Kc1 Ngf6 8.Kb2 Rg8"),
    ("rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R", "1.5", "1.f4 f5 2.Nf3"),
    ("rn1qkbnr/ppp1pppp/3p4/8/4P3/8/PPPP1PPP/RNBQKBNR", "3.5",
     "1.e3 d6 2.Qh5 Bg4 3.e4 Bd1 4.Qxd1"),
    ("r1bqkbnr/ppp2ppp/3p4/8/8/8/PPPPPPPP/R1BQKBNR", "4.0",
     "1.Nc3 d6 2.Nd5 Nd7 3.Nxe7 Ndf6 4.Nxg8 Nxg8"),
    ("rnbqkb1r/ppp2ppp/8/8/8/8/PPPPPPPP/RNBQKB1R", "4.0",
     "1.Nf3 e5 2.Nxe5 Ne7 3.Nxd7 Nec6 4.Nxb8 Nxb8"),
    ("r1Bqkbnr/p2ppppp/8/1pp5/4b3/8/P1PPPPPP/RNBQKBNR", "5.0",
     "1.b4 c5 2.b5 Nc6 3.bxc6 b5 4.c7 Bb7 5.c8=B Be4"),
    ("r2qkbnr/p1pppppp/2n5/1p5B/4P3/5N2/PPPP1PPP/RNBQ1b1K", "6.0",
     "1.e4 b5 2.Be2 Bb7 3.Bh5 Bd5 4.Nf3 Nc6 5.O-O Bc4 6.Kh1 Bxf1"),
]


@pytest.mark.parametrize("fen,length,solution", ISSUE_CASES)
def test_issue_cases_unique_by_the_schedule_model(fen: str, length: str, solution: str) -> None:
    plies = spg.parse_moves(length)
    report = schedule(spg.parse_target(fen, plies), plies, timeout=120)
    assert report.status == "complete"
    assert [spg.san_text(g) for g in report.games] == [solution]


# published games whose model takes over 4 s to build and solve (all admitted when measured;
# bench/spg.py solves their files with the schedule model)
SLOW = {"nallusamy-2022", "probleemblad-r346", "dupuis-2001-b", "natch-promotee-switchback",
        "packa-1992", "buchanan-motley-c", "irsigler-2004-c", "wilts-1994-b", "ott-1981",
        "parrinello-2000", "dupuis-2009", "deheer-2002", "heinonen-1996", "wassong-2009"}


ADMITTED = [(name, moves) for name, moves in PUBLISHED if name not in SLOW]


def test_enough_published_solutions_are_checked() -> None:
    assert len(ADMITTED) >= 25


# one case per game: the two test processes share them (together 96 s on the CI machine)
@pytest.mark.parametrize("name,moves", ADMITTED, ids=[name for name, _ in ADMITTED])
def test_published_solutions_are_admitted(name: str, moves: list) -> None:
    assert _admits(chess.Board(), moves) == "feasible", name


@pytest.mark.parametrize("seed", range(30))
def test_random_games_and_windows_are_admitted(seed: int) -> None:
    """Capture-heavy random games (castling, e.p., promotions, captured promoted pieces) and
    windows of them from mid-game starts (short: a capture-heavy model grows fast)."""
    game = random_game(seed, 40)
    assert _admits(chess.Board(), [m for _, m in game[:10 + seed % 6]]) == "feasible", \
        f"seed {seed}"
    for first, length in ((10 + seed % 7, 8), (len(game) // 2, 8), (len(game) - 8, 8)):
        window = game[first:first + length]
        if window:
            assert _admits(window[0][0], [m for _, m in window]) == "feasible", \
                f"seed {seed} window {first}"


@pytest.mark.parametrize("seed,plies", OPENING_CASES)
def test_game_set_equals_brute_force_from_the_array(seed: int, plies: int) -> None:
    start, target = _window(seed, 0, plies)
    assert _games(start, target, plies) == all_games(start, target, plies)


@pytest.mark.parametrize("seed,first,plies", SPECIAL_CASES)
def test_game_set_equals_brute_force_around_special_moves(seed: int, first: int,
                                                         plies: int) -> None:
    start, target = _window(seed, first, plies)
    assert _games(start, target, plies) == all_games(start, target, plies)


# problem files the schedule model decides in a few seconds (the rest: bench/spg.py)
FAST_FILES = ["buchanan-2002", "cooked-a3-h3", "dupuis-2001", "irsigler-2004", "knight-swap-b8",
              "kolcak-1999", "malikovic-fig2", "no-solution-knights", "no-solution-parity",
              "packa-1991", "packa-1995", "promoted-bishop-c8", "queen-return-d1",
              "schweig-1938", "castled-rook-f1", "ubaidullaev-2003", "wilts-1994"]


@pytest.mark.parametrize("name", FAST_FILES)
def test_problem_files_agree_with_their_published_answers(name: str) -> None:
    data = tomllib.loads((ROOT / "problems" / "spg" / f"{name}.toml").read_text())
    plies = spg.parse_moves(data["question"]["moves"])
    report = schedule(spg.parse_target(data["position"]["fen"], plies), plies, timeout=120)
    assert report.status == "complete"
    expect = data["expect"]
    assert len(report.games) == expect["count"]
    if "answer" in expect:
        assert sorted(spg.san_text(g) for g in report.games) == sorted(expect["answer"])


def test_en_passant_is_the_capture_step_itself() -> None:
    """Regression (review): the e.p. literal was not tied to its step, so a double-stepped
    pawn could vanish while another move was made, a schedule off the diagram."""
    start = chess.Board("7k/3p4/8/Q3Pb2/6P1/8/8/7K b - - 0 1")
    target = spg.parse_target("8/7k/4P3/Q7/6b1/8/8/7K", 7)
    games = _games(start, target, 6)
    assert ("d7d5", "a5d5", "f5g4", "d5a5", "h8h7", "e5e6") in games
    assert games == all_games(start, target, 6)


def test_a_mutant_without_double_steps_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = spg_schedule.steps

    def no_double(state, color, walls):
        return [(nxt, kind) for nxt, kind in real(state, color, walls)
                if kind != spg_schedule.DOUBLE]

    monkeypatch.setattr(spg_schedule, "steps", no_double)
    caught = [name for name, moves in PUBLISHED[:10]
              if _admits(chess.Board(), moves) != "feasible"]
    assert caught, "the oracle did not notice that double steps were gone"


# the walk counts (the race's second listing): every real game still admitted, the same game
# sets as brute force, and a mutant that counts one move too many from home is caught
WALKED = ADMITTED[::3]


@pytest.mark.parametrize("name,moves", WALKED, ids=[name for name, _ in WALKED])
def test_published_solutions_are_admitted_with_walk_counts(name: str, moves: list) -> None:
    assert _admits(chess.Board(), moves, walk_counts=True) == "feasible", name


@pytest.mark.parametrize("seed", range(0, 30, 3))
def test_random_windows_are_admitted_with_walk_counts(seed: int) -> None:
    game = random_game(seed, 40)
    for first in (0, 10 + seed % 7, len(game) - 8):
        window = game[first:first + 8]
        assert _admits(window[0][0], [m for _, m in window], walk_counts=True) == "feasible", \
            f"seed {seed} window {first}"


@pytest.mark.parametrize("seed,first,plies", [(0, 0, 4), (5, 0, 5), (20, 0, 6), (37, 0, 6),
                                              (1, 29, 4), (30, 9, 5), (6, 47, 4)])
def test_game_sets_with_walk_counts_equal_brute_force(seed: int, first: int, plies: int) -> None:
    start, target = _window(seed, first, plies)
    assert _games(start, target, plies, walk_counts=True) == all_games(start, target, plies)


def test_a_mutant_walk_count_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ScheduleModel._reach

    def one_more(self, u, budget):
        reach = real(self, u, budget)
        d_from, d_to = self.walks[u]
        self.walks[u] = ({st: d + 1 if d else 0 for st, d in d_from.items()}, d_to)
        return reach

    monkeypatch.setattr(ScheduleModel, "_reach", one_more)
    caught = next((name for name, moves in PUBLISHED[:10]
                   if _admits(chess.Board(), moves, walk_counts=True) != "feasible"), None)
    assert caught, "the oracle did not notice a unit's moves counted one too many"
    assert _admits(chess.Board(), PUBLISHED[0][1]) == "feasible"   # the mutant needs the option


@pytest.mark.parametrize("seed,first,plies", [(5, 0, 5), (1, 29, 4), (30, 9, 5)])
def test_the_solvers_listing_fixes_the_groups_and_counts_walks(monkeypatch, seed: int,
                                                               first: int, plies: int) -> None:
    """Without a race the solver's schedule engine lists with the strategy groups fixed and
    the walk counts (`solver.LISTING`, as the race's second listing) and finds brute force's
    games."""
    start, target = _window(seed, first, plies)
    real, asked = spg.list_games, []

    def recorded(analysis, plies, **kwargs):
        asked.append({k: kwargs.get(k) for k in spg.LISTING})
        return real(analysis, plies, **kwargs)

    monkeypatch.setattr(spg, "list_games", recorded)
    answer = spg.solve(target, plies, start=start, check_shorter=False, max_games=None,
                       engine="schedule")
    assert asked == [{"fixed_groups": True, "walk_counts": True}]
    assert answer.complete
    assert {tuple(m.uci() for m in g) for g in answer.games} == all_games(start, target, plies)


def test_solve_engines_agree_and_auto_falls_back() -> None:
    fen, length, solution = ISSUE_CASES[0]
    plies = spg.parse_moves(length)
    target = spg.parse_target(fen, plies)
    for engine in ("schedule", "search"):
        answer = spg.solve(target, plies, engine=engine)
        assert answer.status == "unique" and [spg.san_text(g) for g in answer.games] == [solution]
        assert answer.searches[0]["engine"] == engine
    # the search stops at its share of the node limit; the schedule model decides the length
    # with the conflicts left (auto under a node limit: a quarter for the search)
    answer = spg.solve(target, plies, Limits(nodes=50))
    assert answer.searches[0]["engine"] == "auto" or answer.searches[0]["engine"] == "schedule"
    assert answer.searches[0]["schedule"]["status"] == "complete"
    assert answer.status == "unique" and [spg.san_text(g) for g in answer.games] == [solution]


def test_schedule_engine_reports_cooks_and_no_solution() -> None:
    cooked = spg.solve(spg.parse_target("rnbq1bnr/ppppkppp/8/4p3/8/P6P/1PPPPPP1/RNBQKBNR", 4),
                       4, engine="schedule")
    assert cooked.status == "cooked" and cooked.count == 2
    none = spg.solve(spg.parse_target("rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R", 4),
                     4, engine="schedule")
    assert none.status == "no solution" and none.count == 0


def test_a_model_too_large_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spg_schedule, "MAX_STEPS", 10)
    fen, length, _ = ISSUE_CASES[0]
    plies = spg.parse_moves(length)
    report = schedule(spg.parse_target(fen, plies), plies)
    assert report.status == "unknown" and "exceeds 10 steps" in report.reason
    answer = spg.solve(spg.parse_target(fen, plies), plies, engine="schedule")
    assert answer.status == "unknown" and "exceeds 10 steps" in answer.reason


def test_cli_engine_option(capsys: pytest.CaptureFixture) -> None:
    fen, length, solution = ISSUE_CASES[6]
    assert main(["spg", fen, "--moves", length, "--engine", "schedule", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["answer"] == [solution]
    assert out["details"]["searches"][0]["schedule"]["status"] == "complete"


def test_a_long_solve_of_the_listing_says_it_is_running(monkeypatch) -> None:
    """`--progress`: a line every `progress.TICK` seconds of one CP-SAT solve, not only after it
    (nallusamy-2022's first solve ran 597 s without a line). Each solve is slowed here to
    outlast a tick made short; the listing and its lines after each solve are unchanged."""
    from retrologic import progress
    from retrologic.spg import listing

    monkeypatch.setattr(listing, "ticking", lambda say: progress.ticking(say, every=0.01))
    target = chess.Board()
    for san in ("e4", "e5", "Ke2", "Ke7"):
        target.push_san(san)
    solve = StrategyModel.solve

    def slow(self, *args, **kwargs):
        threading.Event().wait(0.1)
        return solve(self, *args, **kwargs)

    monkeypatch.setattr(StrategyModel, "solve", slow)
    lines: list[tuple[int, float | None]] = []
    report = schedule(target, 4, progress=lambda rep, running: lines.append((rep.solves,
                                                                             running)))
    assert report.status == Listing.COMPLETE
    assert [[m.uci() for m in g] for g in report.games] == [["e2e4", "e7e5", "e1e2", "e8e7"]]
    # a line after the solve that found the game; the last solve (no model) ends the listing
    assert [n for n, running in lines if running is None] == [1]
    running = [(n, s) for n, s in lines if s is not None]
    assert {n for n, _ in running} == {0, 1}        # both solves, while they run
    assert all(0.0 < s < 5.0 for _, s in running)
