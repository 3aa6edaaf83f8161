"""The move filter's issue #22 steps for reach (`retrologic.spg.moves.MoveFilter`): a side with
one spare move makes no move (quiet, or a capture of a piece) that raises its cheapest plans'
moves (`spent`), no castling its castling scenario cannot afford (`castling_spent`), and a side
whose victim visits need every move it has left makes no single pawn push that brings the pawn
no closer (`wasted`, pawns), and no side moves or captures a held unit whose disturbance alone
would cost more than the moves left (`fixed_units`).

Oracles: the moves really played along the published solutions of problems/spg and
bench/spg-published (none is dropped, while other moves are), brute force (python-chess, every
legal move) on small windows of random games where each step drops moves, the search with the
steps off on a real tail (same games), and wrong variants of each step that the oracles catch.
"""

from __future__ import annotations

from typing import Callable

import chess
import pytest

from test_spg_visits import PUBLISHED, _window_searched, tail_searched, target_analysis, walk
from retrologic.spg.analysis import Analysis
from retrologic.spg.moves import MoveFilter

# windows (seed, first ply, plies) of random games where each step drops moves (found by a scan)
SPARE_CASES = [(0, 56, 5), (2, 21, 4), (2, 42, 5), (4, 49, 5), (6, 14, 5), (25, 49, 4)]
SPARE_CAPTURE_CASES = [(1, 56, 5), (2, 21, 5), (3, 35, 5), (6, 28, 5)]
CASTLING_CASES = [(0, 56, 4), (5, 14, 4), (12, 35, 5), (17, 42, 4), (21, 35, 4), (25, 49, 5)]
FIXED_CASES = [(0, 91, 5), (3, 91, 5), (4, 70, 5), (2, 42, 5), (11, 70, 5), (11, 91, 5)]
PAWN_CASES = [(0, 14, 5), (2, 49, 4), (3, 7, 5), (4, 14, 5), (5, 21, 5), (5, 28, 5)]


@pytest.mark.parametrize("seed,first,plies", SPARE_CASES)
def test_search_with_spare_steps_equals_brute_force(seed: int, first: int, plies: int) -> None:
    analysis, complete, ours, brute = _window_searched(seed, first, plies)
    assert complete
    assert analysis.mover.spare_cuts > 0  # `spent` dropped moves in this search
    assert ours == brute


@pytest.mark.parametrize("seed,first,plies", SPARE_CAPTURE_CASES)
def test_search_with_spare_steps_on_captures_equals_brute_force(seed: int, first: int,
                                                                plies: int) -> None:
    analysis, complete, ours, brute = _window_searched(seed, first, plies)
    assert complete
    assert analysis.mover.spare_capture_cuts > 0  # `spent` dropped captures of pieces
    assert ours == brute


@pytest.mark.parametrize("seed,first,plies", CASTLING_CASES)
def test_search_with_castling_steps_equals_brute_force(seed: int, first: int,
                                                       plies: int) -> None:
    analysis, complete, ours, brute = _window_searched(seed, first, plies)
    assert complete
    assert analysis.mover.castling_cuts > 0  # `castling_spent` dropped castlings
    assert ours == brute


@pytest.mark.parametrize("seed,first,plies", FIXED_CASES)
def test_search_with_fixed_units_equals_brute_force(seed: int, first: int, plies: int) -> None:
    analysis, complete, ours, brute = _window_searched(seed, first, plies, steps_off=())
    assert complete
    assert analysis.mover.fixed_nodes > 0  # `fixed_units` held units in place in this search
    assert ours == brute


@pytest.mark.parametrize("seed,first,plies", PAWN_CASES)
def test_search_with_pawn_visit_steps_equals_brute_force(seed: int, first: int,
                                                         plies: int) -> None:
    analysis, complete, ours, brute = _window_searched(seed, first, plies)
    assert complete
    assert analysis.mover.pawn_cuts > 0  # `wasted` dropped pawn pushes
    assert ours == brute


def _published_drops(monkeypatch: pytest.MonkeyPatch | None = None,
                     name: str | None = None, wrong: Callable | None = None
                     ) -> tuple[int, dict[str, int]]:
    """Along every published solution (its end as the target): (real moves dropped, the
    other moves each step dropped). `wrong`: a replacement for MoveFilter's method `name`."""
    if wrong is not None:
        assert monkeypatch is not None and name is not None
        monkeypatch.setattr(MoveFilter, name, wrong)
    real, other = 0, {"spare": 0, "castling": 0, "pawn": 0, "fixed": 0}
    for _, moves in PUBLISHED:
        analysis = target_analysis(chess.Board(), moves)
        for _, board, plies, move in walk(chess.Board(), moves):
            real += move not in analysis.candidate_moves(board, plies)
        mover = analysis.mover
        other["spare"] += mover.spare_cuts
        other["castling"] += mover.castling_cuts
        other["pawn"] += mover.pawn_cuts
        other["fixed"] += mover.fixed_nodes
    return real, other


def test_the_steps_keep_every_published_move() -> None:
    real, other = _published_drops()
    assert real == 0
    assert min(other.values()) > 0  # each step drops other moves along them: it bites


def test_a_spare_step_that_forgets_units_standing_aside_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Wrong: a unit that may be left out of a cheapest plan (a surplus unit, spending the
    spare move) counted as needed in its rows, so its off-route moves are dropped."""
    spent = MoveFilter.spent

    def wrong(self: MoveFilter, board: chess.Board, move: chess.Move, loose: tuple) -> bool:
        captures, slots, rows = loose
        return spent(self, board, move, (captures, slots,
                                         {sq: (False,) + r[1:] for sq, r in rows.items()}))
    assert _published_drops(monkeypatch, "spent", wrong)[0] > 0


def test_a_castling_step_one_move_short_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wrong: a castling dropped when its scenario needs one move fewer than it may."""
    spent = MoveFilter.castling_spent

    def wrong(self: MoveFilter, board: chess.Board, move: chess.Move, plies: int,
              key: tuple) -> bool:
        return spent(self, board, move, plies - 2, key)
    assert _published_drops(monkeypatch, "castling_spent", wrong)[0] > 0


def test_a_pawn_step_without_the_walk_row_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wrong: a single pawn push that only gets closer to where the pawn will be captured
    (its walk row) counted as wasted."""
    wasted = MoveFilter.wasted

    def wrong(self: MoveFilter, board: chess.Board, move: chess.Move, tight: tuple) -> bool:
        frm, to = move.from_square, move.to_square
        if board.piece_type_at(frm) != chess.PAWN or board.is_capture(move) or \
                move.promotion or abs(to - frm) != 8:
            return wasted(self, board, move, tight)
        where, captures, slots, rows, _ = tight
        if frm not in rows:
            return False
        f = self.bound.visit_entries
        before = f(board.turn, chess.PAWN, frm, captures, slots, where)[:-1]
        after = f(board.turn, chess.PAWN, to, captures, slots, where)[:-1]
        return not any(after[r] < before[r] for r in rows[frm] if r < len(before))
    assert _published_drops(monkeypatch, "wasted", wrong)[0] > 0


def test_fixed_units_one_move_short_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wrong: a held unit taken as fixed when its disturbance costs exactly the moves left."""
    fixed_units = MoveFilter.fixed_units

    def wrong(self: MoveFilter, board: chess.Board, plies: int, keys: tuple) -> int:
        return fixed_units(self, board, plies - 2, keys)
    assert _published_drops(monkeypatch, "fixed_units", wrong)[0] > 0


def test_spare_steps_keep_the_games_and_search_fewer_nodes() -> None:
    """Faybish 2005's last 18 plies (White with one spare move, castling still allowed): the
    same games with and without the steps, in fewer nodes with them."""
    def analysis_of(on: bool) -> Callable[[chess.Board, chess.Board], Analysis]:
        def build(start: chess.Board, target: chess.Board) -> Analysis:
            analysis = Analysis(start, target)
            analysis.mover.spare_steps = analysis.mover.castling_steps = on
            return analysis
        return build
    results = {on: tail_searched("faybish-2005", 18, analysis_of(on)) for on in (False, True)}
    assert results[True][0] == results[False][0] == {results[True][2]}
    assert results[True][1] * 3 < results[False][1] * 2
