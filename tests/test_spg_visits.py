"""The victim-visit bound (issue #22, reach on long proof games): every unit of a side that
ends captured must first stand where the opponent can still land a move, so its walk there
counts (`Bound.visit_bound`), and a position whose victims cannot all get there in time has no
candidate move (`MoveFilter.victims_stranded`).

Oracles: the moves really played along published solutions and capture-heavy random games
(the bound never exceeds them, no real position is declared dead), and brute force (python-chess,
every legal move) on small windows of random games where the deduction cuts.
"""

from __future__ import annotations

import random
from pathlib import Path

import chess
import pytest

from conftest import published_games, random_game
from test_spg_bruteforce import all_games
from retrologic.spg.analysis import Analysis
from retrologic.spg.search import Limits, Search

ROOT = Path(__file__).resolve().parent.parent


PUBLISHED = published_games(ROOT / "problems" / "spg") + published_games(ROOT / "bench" / "spg-published")


def _visit_bounds(analysis: Analysis, board: chess.Board, plies: int) -> dict[bool, int]:
    """Each side's visit bound against the opponent's landing squares for its moves left."""
    w, b = analysis.moves_left(board, plies)
    left = {chess.WHITE: w, chess.BLACK: b}
    return {color: analysis.bound.visit_bound(
        board, color, analysis.landing_squares(board, not color, left[not color]))
        for color in chess.COLORS}


def _check_along(start: chess.Board, moves: list[chess.Move]) -> int:
    """Take the end of `moves` as the target: at every position, each side's visit bound stays
    within the moves it really makes, and the position is not declared dead. Returns how many
    positions the visit bound raised above the plain bound (so a caller can see it bites)."""
    board = start.copy()
    for m in moves:
        board.push(m)
    analysis = Analysis(start.copy(stack=False), board)
    board = start.copy()
    n, raised = len(moves), 0
    for i, move in enumerate(moves):
        w, b = analysis.moves_left(board, n - i)
        left = {chess.WHITE: w, chess.BLACK: b}
        for color, value in _visit_bounds(analysis, board, n - i).items():
            assert value <= left[color], (
                f"ply {i} ({board.fen()}): {chess.COLOR_NAMES[color]}'s visit bound {value} "
                f"exceeds the {left[color]} moves it makes")
            raised += value > analysis.side_bound(board, color)
        keys = (analysis.bound.side_key(board, board.turn),
                analysis.bound.side_key(board, not board.turn))
        assert not analysis.mover.victims_stranded(board, n - i, keys), f"ply {i} dead"
        assert move in analysis.candidate_moves(board, n - i)
        board.push(move)
    return raised


def test_visit_bound_holds_along_the_published_solutions() -> None:
    names = {name for name, _ in PUBLISHED}
    assert {"probleemblad-r311", "dawson-1913", "ott-1981", "nallusamy-2022"} <= names
    raised = sum(_check_along(chess.Board(), moves) for _, moves in PUBLISHED)
    assert raised >= 20  # the bound is above the plain one on real positions: the check bites


@pytest.mark.parametrize("seed", range(30))
def test_visit_bound_holds_along_random_windows(seed: int) -> None:
    """Windows of capture-heavy random games (castling, e.p., promotions) and the whole game."""
    rng = random.Random(2200 + seed)
    game = random_game(seed, 120)
    for _ in range(4):
        length = rng.randint(2, 12)
        if len(game) <= length:
            break
        first = rng.randint(0, len(game) - length)
        _check_along(game[first][0], [m for _, m in game[first:first + length]])
    _check_along(chess.Board(), [m for _, m in game])


def test_a_mutant_with_too_few_landing_squares_is_caught() -> None:
    """The real-game oracle bites: landing squares for one move fewer than the opponent has
    (too few squares, so victims seem further away) make the bound exceed real games."""
    caught = 0
    for _, moves in PUBLISHED:
        board = chess.Board()
        for m in moves:
            board.push(m)
        analysis = Analysis(chess.Board(), board)
        board, n = chess.Board(), len(moves)
        for i, move in enumerate(moves):
            w, b = analysis.moves_left(board, n - i)
            left = {chess.WHITE: w, chess.BLACK: b}
            for color in chess.COLORS:
                theirs = max(left[not color] - 1, 0)
                where = analysis.landing_squares(board, not color, theirs)
                caught += analysis.bound.visit_bound(board, color, where) > left[color]
            board.push(move)
    assert caught > 0


# windows (seed, first ply, plies) of random games where the deduction cuts (found by a scan)
CUT_CASES = [(0, 49, 5), (2, 56, 5), (2, 63, 4), (3, 56, 5), (5, 28, 5), (7, 56, 5),
             (8, 49, 5), (9, 49, 5), (10, 49, 5), (12, 56, 5), (13, 21, 5), (14, 49, 4),
             (15, 21, 5), (15, 63, 5)]


@pytest.mark.parametrize("seed,first,plies", CUT_CASES)
def test_search_with_the_cut_equals_brute_force(seed: int, first: int, plies: int) -> None:
    game = random_game(seed, first + plies + 1)
    start = game[first][0]
    target = start.copy()
    for _, move in game[first:first + plies]:
        target.push(move)
    analysis = Analysis(start.copy(stack=False), target)
    result = Search(start.copy(stack=False), target, plies, analysis.prune, None,
                    Limits(timeout=60), analysis.candidate_moves).run()
    assert result.complete
    assert analysis.mover.visit_hits > 0  # the deduction cut in this search
    ours = {tuple(m.uci() for m in g) for g in result.games()}
    assert ours == all_games(start, target, plies)


def test_cut_keeps_the_games_and_searches_fewer_nodes() -> None:
    """Heinonen's 16.5 (Probleemblad R311: nine white units captured, 11 spare White moves at
    the start) from 12 plies before the end: the same games with and without the deduction,
    in fewer nodes with it."""
    moves = dict(PUBLISHED)["probleemblad-r311"]
    target = chess.Board()
    for m in moves:
        target.push(m)
    start = chess.Board()
    for m in moves[:-12]:
        start.push(m)
    results = {}
    for visits in (False, True):
        analysis = Analysis(start.copy(stack=False), target)
        analysis.mover.visits = visits
        res = Search(start.copy(stack=False), target, 12, analysis.prune, None,
                     Limits(timeout=60), analysis.candidate_moves).run()
        assert res.complete
        results[visits] = ({tuple(g) for g in res.games()}, res.nodes)
    assert results[True][0] == results[False][0] == {tuple(moves[-12:])}
    assert results[True][1] * 2 < results[False][1]
