"""The victim-visit bound (issue #22, reach on long proof games): every unit of a side that
ends captured must first stand where the opponent can still land a move, so its walk there
counts (`Bound.visit_bound`), and a position whose victims cannot all get there in time has no
prune rule victims-stranded cuts it (`rules.VictimVisits`).

Oracles: the moves really played along published solutions and capture-heavy random games
(the bound never exceeds them, no real position is declared dead), and brute force (python-chess,
every legal move) on small windows of random games where the deduction cuts.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Iterator

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


def target_analysis(start: chess.Board, moves: list[chess.Move]) -> Analysis:
    """The analysis from `start` with the end of `moves` (played from it) as the target."""
    board = start.copy()
    for m in moves:
        board.push(m)
    return Analysis(start.copy(stack=False), board)


def walk(start: chess.Board, moves: list[chess.Move]
         ) -> Iterator[tuple[int, chess.Board, int, chess.Move]]:
    """Along `moves` from `start`: (ply, the board before it, plies left, the move); the one
    board is played on after each step, so a caller reads it before the next."""
    board, n = start.copy(), len(moves)
    for i, move in enumerate(moves):
        yield i, board, n - i, move
        board.push(move)


def _check_along(start: chess.Board, moves: list[chess.Move]) -> int:
    """Take the end of `moves` as the target: at every position, each side's visit bound stays
    within the moves it really makes, and the position is not declared dead. Returns how many
    positions the visit bound raised above the plain bound (so a caller can see it bites)."""
    analysis = target_analysis(start, moves)
    raised = 0
    for i, board, left_plies, move in walk(start, moves):
        w, b = analysis.moves_left(board, left_plies)
        left = {chess.WHITE: w, chess.BLACK: b}
        for color, value in _visit_bounds(analysis, board, left_plies).items():
            assert value <= left[color], (
                f"ply {i} ({board.fen()}): {chess.COLOR_NAMES[color]}'s visit bound {value} "
                f"exceeds the {left[color]} moves it makes")
            raised += value > analysis.side_bound(board, color)
        analysis.visits.tries = analysis.visits.hits = 0  # never given up: every position tried
        keys = (analysis.bound.side_key(board, board.turn),
                analysis.bound.side_key(board, not board.turn))
        assert not analysis.visits.stranded(board, left_plies, keys), f"ply {i} dead"
        assert analysis.cutting_rule(board, left_plies) is None, f"ply {i} pruned"
        assert move in analysis.candidate_moves(board, left_plies)
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
        analysis = target_analysis(chess.Board(), moves)
        for _, board, plies, _ in walk(chess.Board(), moves):
            w, b = analysis.moves_left(board, plies)
            left = {chess.WHITE: w, chess.BLACK: b}
            for color in chess.COLORS:
                theirs = max(left[not color] - 1, 0)
                where = analysis.landing_squares(board, not color, theirs)
                caught += analysis.bound.visit_bound(board, color, where) > left[color]
    assert caught > 0


def _window_searched(seed: int, first: int, plies: int, steps_off: tuple[str, ...] = (
        "fixed_steps",), **options: bool
                     ) -> tuple[Analysis, bool, set[tuple[str, ...]], set[tuple[str, ...]]]:
    """Plies first..first+plies of the random game `seed`, searched with the analysis built
    with `options` and its move filter's `steps_off` switched off (by default the held units
    fixed in place, which drop many moves before the step a test watches sees them): (the
    analysis, whether the search finished, its games as UCI tuples, the brute-force listing
    of the same window)."""
    game = random_game(seed, first + plies + 1)
    start = game[first][0]
    target = start.copy()
    for _, move in game[first:first + plies]:
        target.push(move)
    analysis = Analysis(start.copy(stack=False), target, **options)
    for name in steps_off:
        setattr(analysis.mover, name, False)
    result = Search(start.copy(stack=False), target, plies, analysis.prune, None,
                    Limits(timeout=60), analysis.candidate_moves).run()
    ours = {tuple(m.uci() for m in g) for g in result.games()}
    return analysis, result.complete, ours, all_games(start, target, plies)


# windows (seed, first ply, plies) of random games where the deduction cuts (found by a scan)
CUT_CASES = [(0, 49, 5), (2, 56, 5), (2, 63, 4), (3, 56, 5), (5, 28, 5), (7, 56, 5),
             (8, 49, 5), (9, 49, 5), (10, 49, 5), (12, 56, 5), (13, 21, 5), (14, 49, 4),
             (15, 21, 5), (15, 63, 5)]


@pytest.mark.parametrize("seed,first,plies", CUT_CASES)
def test_search_with_the_cut_equals_brute_force(seed: int, first: int, plies: int) -> None:
    # (visit steps off: they drop most moves into these positions before the rule sees them)
    analysis, complete, ours, brute = _window_searched(seed, first, plies, visit_steps=False)
    assert complete
    assert analysis.visits.hits > 0  # the deduction cut in this search
    assert ours == brute


def tail_searched(name: str, plies: int, analysis_of) -> tuple[set, int, tuple]:
    """The complete search of the last `plies` plies of a published solution, with the analysis
    `analysis_of(start, target)` builds: (the games found, the nodes, the published tail)."""
    moves = dict(PUBLISHED)[name]
    target = chess.Board()
    for m in moves:
        target.push(m)
    start = chess.Board()
    for m in moves[:-plies]:
        start.push(m)
    analysis = analysis_of(start.copy(stack=False), target)
    res = Search(start.copy(stack=False), target, plies, analysis.prune, None,
                 Limits(timeout=60), analysis.candidate_moves).run()
    assert res.complete
    return {tuple(g) for g in res.games()}, res.nodes, tuple(moves[-plies:])


def test_cut_keeps_the_games_and_searches_fewer_nodes() -> None:
    """Heinonen's 16.5 (Probleemblad R311: nine white units captured, 11 spare White moves at
    the start) from 12 plies before the end: the same games with and without the deduction,
    in fewer nodes with it."""
    results = {visits: tail_searched("probleemblad-r311", 12, lambda start, target: Analysis(
        start, target, victim_visits=visits, visit_steps=False)) for visits in (False, True)}
    assert results[True][0] == results[False][0] == {results[True][2]}
    assert results[True][1] * 2 < results[False][1]


# --- visit steps (issue #22, reach): a side whose victim visits need every move it has left
# moves no piece that gets no closer to a row of the visit assignment (`MoveFilter.wasted`)

# windows (seed, first ply, plies) of random games where the filter drops moves (found by a scan)
STEP_CASES = [(0, 14, 5), (0, 49, 4), (0, 56, 5), (2, 14, 5), (2, 21, 4), (2, 49, 4),
              (36, 28, 4), (36, 56, 4), (37, 42, 4), (38, 28, 4), (38, 35, 5), (38, 42, 4),
              (39, 49, 4), (39, 56, 5)]


@pytest.mark.parametrize("seed,first,plies", STEP_CASES)
def test_search_with_visit_steps_equals_brute_force(seed: int, first: int, plies: int) -> None:
    analysis, complete, ours, brute = _window_searched(seed, first, plies)
    assert complete
    assert analysis.mover.visit_cuts > 0  # the filter dropped moves in this search
    assert ours == brute


def _real_moves_dropped(wasted_of=None) -> tuple[int, int]:
    """Along every published solution (its end as the target): (real moves the filter drops,
    other moves it drops). `wasted_of(analysis)`: a replacement for the filter's test."""
    real = other = 0
    for _, moves in PUBLISHED:
        analysis = target_analysis(chess.Board(), moves)
        if wasted_of is not None:
            analysis.mover.wasted = wasted_of(analysis)
        for _, board, plies, move in walk(chess.Board(), moves):
            before = analysis.mover.visit_cuts
            candidates = analysis.candidate_moves(board, plies)
            other += analysis.mover.visit_cuts - before
            real += move not in candidates
    return real, other


def test_visit_steps_keep_every_published_move() -> None:
    real, other = _real_moves_dropped()
    assert real == 0
    assert other > 0  # the filter drops other moves along the published games: it bites


def test_a_mutant_without_the_walk_row_is_caught() -> None:
    """A wrong filter that forgets the victims' walk to the landing squares (a piece that only
    gets closer to where it will be captured counts as wasted) drops real moves."""
    def mutant(analysis: Analysis):
        def wasted(board: chess.Board, move: chess.Move, tight: tuple) -> bool:
            if move.promotion or board.is_capture(move) or board.is_castling(move):
                return False
            ptype = board.piece_type_at(move.from_square)
            if ptype in (None, chess.PAWN, chess.KING) or \
                    board.castling_rights & chess.BB_SQUARES[move.from_square]:
                return False
            where, captures, slots = tight[:3]
            f = analysis.bound.visit_entries
            before = f(board.turn, ptype, move.from_square, captures, slots, where)[:-1]
            after = f(board.turn, ptype, move.to_square, captures, slots, where)[:-1]
            return not any(a < b for a, b in zip(after, before))
        return wasted
    real, _ = _real_moves_dropped(mutant)
    assert real > 0


def test_visit_steps_keep_the_games_and_search_fewer_nodes() -> None:
    """Red Hot Pawn 2008 (Black without a spare move, White's victims walking to Black's
    routes) from 10 plies before the end: the same games with and without the filter, in
    fewer nodes with it."""
    results = {steps: tail_searched("redhotpawn-2008", 10, lambda start, target: Analysis(
        start, target, visit_steps=steps)) for steps in (False, True)}
    assert results[True][0] == results[False][0] == {results[True][2]}
    assert results[True][1] < results[False][1]
