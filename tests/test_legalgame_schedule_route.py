"""The schedule route of the legal-game finder (`legalgame.schedule_route`, issue #19): the CP-SAT
schedule model asked for one game of a length at a time, castling rights the game keeps given up
by a shuffle. Oracles: python-chess's replay (`legalgame.checker.reached_fault`), the published
shortest length of a problems/spg diagram (no game may be shorter) and its published game."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from conftest import replayed
from retrologic import problem
from retrologic.legalgame.checker import reached_fault
from retrologic.legalgame.schedule_route import ScheduleRoute
from retrologic.limits import Budget, LimitHit
from retrologic.spg.checker import parse_moves
from retrologic.spg.solver import parse_target

ROOT = Path(__file__).resolve().parent.parent


def diagram(stem: str) -> tuple[chess.Board, int, str]:
    """A problems/spg diagram as `legal` reads it (no castling right, no e.p.), its
    stipulated length and its published game."""
    prob = problem.load(ROOT / "problems" / "spg" / f"{stem}.toml")
    plies = parse_moves(prob.question["moves"])
    return parse_target(prob.position.fen(), plies), plies, prob.expect["answer"][0]


def test_packa_1991_gets_a_game_that_gives_up_blacks_rights() -> None:
    """Packa 1991 (28 plies): the published game keeps Black's rights kq, so the diagram
    without rights needs more; the route lists a 28-ply game and inserts a king shuffle."""
    target, plies, answer = diagram("packa-1991")
    published = chess.Board()
    for token in answer.split():
        if not token[0].isdigit() or "." not in token:
            published.push_san(token)
        else:
            published.push_san(token.split(".", 1)[1])
    assert published.board_fen() == target.board_fen() and published.castling_xfen() == "kq"
    route = ScheduleRoute(target)
    game = route.run(Budget(timeout=120))
    assert game is not None
    end = replayed(game)
    assert reached_fault(end, target) is None
    assert len(game) >= plies + 2 and len(game) % 2 == plies % 2


def test_the_route_needs_a_deadline_and_stops_at_it() -> None:
    target, _, _ = diagram("bell-2000")
    with pytest.raises(ValueError):
        ScheduleRoute(target).run(Budget())
    with pytest.raises(LimitHit):
        ScheduleRoute(target).run(Budget(timeout=1.5))


def test_a_position_with_an_ep_square_has_no_lengths() -> None:
    board = chess.Board()
    board.push_san("e4")
    assert ScheduleRoute(board).lengths == []
