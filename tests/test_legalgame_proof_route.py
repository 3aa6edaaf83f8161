"""The proof-game route of the legal-game finder (`legalgame.proof_route`, issue #19): lengths
from the bound upwards, the first game on the full position. Oracles: the published unique
proof games of problems/spg (the route's game must be that one, of that length), a castling
count argued by hand, python-chess's replay (`legalgame.checker.reached_fault`), and the
limits."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from retrologic import problem
from retrologic.legalgame import proof_route
from retrologic.legalgame.checker import reached_fault
from retrologic.legalgame.find import find_game
from retrologic.limits import Budget, LimitHit
from retrologic.spg.checker import parse_moves
from retrologic.spg.solver import parse_target

ROOT = Path(__file__).resolve().parent.parent


def replayed(moves: list[chess.Move]) -> chess.Board:
    board = chess.Board()
    for move in moves:
        assert board.is_legal(move), (move, board.fen())
        board.push(move)
    return board


def san_line(moves: list[chess.Move]) -> str:
    return chess.Board().variation_san(moves).replace(". ", ".")


@pytest.mark.parametrize("stem", ["malikovic-fig2", "wilts-1994", "irsigler-2004"])
def test_route_finds_the_published_unique_game(stem: str) -> None:
    """A diagram proved unique in N plies (its [expect]) with no castling right left to keep:
    the route's first game is that game, no shorter (the lengths below N have none)."""
    prob = problem.load(ROOT / "problems" / "spg" / f"{stem}.toml")
    plies = parse_moves(prob.question["moves"])
    target = parse_target(prob.position.fen(), plies)
    game = proof_route.find_by_proof_route(target, Budget())
    assert game is not None
    assert reached_fault(replayed(game), target) is None
    assert len(game) == plies
    assert san_line(game) == prob.expect["answer"][0]


def test_castling_rights_lost_count_in_the_length(monkeypatch: pytest.MonkeyPatch) -> None:
    """The initial array with only the queenside rights: each side must move its king's rook
    away and back, which needs the g-knight out and back, four moves each: 8 plies, no fewer
    (the search alone, no game handed to a tour). With tours, a game that keeps rights is made
    to give them up: longer, never shorter, and it reaches the target."""
    target = chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Qq - 0 5")
    toured = proof_route.find_by_proof_route(target, Budget())
    assert toured is not None and len(toured) >= 8
    assert reached_fault(replayed(toured), target) is None
    monkeypatch.setattr(proof_route, "TOURS_ASKED", 0)
    game = proof_route.find_by_proof_route(target, Budget())
    assert game is not None and len(game) == 8
    assert reached_fault(replayed(game), target) is None


def test_castled_rook_losing_black_rights_by_a_tour() -> None:
    """castled-rook-f1 as a full position without rights: the 12-ply game keeps Black's kq
    (boxed king, knight before the h8 rook); a tour (the queen aside, the king out and back)
    gives them up in a 20-ply game, found at the first length."""
    target = chess.Board("r2qkbnr/p1pppppp/2n5/1p5B/4P3/5N2/PPPP1PPP/RNBQ1b1K w - - 0 11")
    route = proof_route.ProofRoute(target)
    game = route.run(Budget(), 20_000)
    assert game is not None and reached_fault(replayed(game), target) is None
    assert len(game) == 20 and route.plies == 12


def test_castled_rook_keeps_black_rights() -> None:
    """castled-rook-f1 with Black's rights kept: the published 12-ply game (castling rights
    stated in the FEN are part of the target: stating none would need Black's rook moves)."""
    target = chess.Board("r2qkbnr/p1pppppp/2n5/1p5B/4P3/5N2/PPPP1PPP/RNBQ1b1K w kq - 0 7")
    game = proof_route.find_by_proof_route(target, Budget())
    assert game is not None and len(game) == 12
    assert san_line(game) == "1.e4 b5 2.Be2 Bb7 3.Bh5 Bd5 4.Nf3 Nc6 5.O-O Bc4 6.Kh1 Bxf1"


def test_en_passant_target_through_find_game() -> None:
    """An e.p. square stated: find_game retracts the double step, the route finds the empty
    game before it."""
    target = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
    game = find_game(target, Budget(), route=True)
    assert game == [chess.Move.from_uci("e2e4")]


def test_route_cap_is_not_a_user_limit_and_user_limits_hold() -> None:
    target = chess.Board("r2qkbnr/p1pppppp/2n5/1p5B/4P3/5N2/PPPP1PPP/RNBQ1b1K w kq - 0 7")
    assert proof_route.find_by_proof_route(target, Budget(), node_cap=50) is None
    with pytest.raises(LimitHit):
        proof_route.find_by_proof_route(target, Budget(nodes=50))


def test_loose_positions_go_to_the_finders_alone() -> None:
    """A position far from the initial array (its bound is 30 plies, but 20 units are gone):
    the finders get the caller's own budget, untouched."""
    target = chess.Board("4Q3/1r5k/4p3/2Q3P1/p1P1p3/1PB5/8/b4K2 w - - 0 52")
    assert not proof_route.near_initial_array(target)
    budget = Budget(timeout=30)
    seen: list[Budget] = []

    def finders(inner: Budget) -> None:
        seen.append(inner)
        return None

    assert proof_route.with_route(target, budget, finders) is None
    assert seen == [budget] and budget.spent == 0


@pytest.fixture
def no_tours(monkeypatch: pytest.MonkeyPatch) -> None:
    """The route without tours (`TOURS_ASKED` 0): on `queen_return` it then needs thousands of
    nodes, which the tests of the turns' order rely on."""
    monkeypatch.setattr(proof_route, "TOURS_ASKED", 0)


def queen_return() -> chess.Board:
    """queen-return-d1's diagram, Black to move with no castling right: without tours the
    route needs about 8,500 nodes (its game is 9 plies: the 7-ply proof game keeps Black's
    rights); with them it hands the first 7-ply game to a tour."""
    return chess.Board("rn1qkbnr/ppp1pppp/3p4/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 5")


@pytest.mark.usefixtures("no_tours")
def test_short_positions_take_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    """A position near the initial array the route's first turn cannot settle: the finders
    get a short first turn and then the time left (child budgets), their nodes are charged to
    the caller's budget, and when they stop early the route's second turn finds the game."""
    monkeypatch.setattr(proof_route, "ROUTE_FIRST", 1_000)
    monkeypatch.setattr(proof_route, "_schedule_turn", lambda _target: lambda _inner: None)
    target = queen_return()
    budget = Budget(timeout=600)
    seen: list[Budget] = []

    def finders(inner: Budget) -> list[chess.Move] | None:
        seen.append(inner)
        inner.spent += 7
        return None

    game = proof_route.with_route(target, budget, finders, first=finders)
    assert len(seen) == 2 and budget not in seen
    assert budget.deadline is not None
    assert all(inner.deadline is not None and inner.deadline <= budget.deadline
               for inner in seen)
    # the first turn ends at a tenth of the time left (60 s of 600), the second after
    # FINDER_SECONDS (the schedule route, stubbed out here, would get the rest)
    assert seen[0].deadline < seen[0].started + 61
    assert seen[1].deadline == pytest.approx(seen[1].started + proof_route.FINDER_SECONDS,
                                             abs=0.5)
    assert game is not None and reached_fault(replayed(game), target) is None
    assert budget.spent > 1_000 + 2 * 7


@pytest.mark.usefixtures("no_tours")
def test_without_a_deadline_the_finders_get_a_turn_of_nodes(monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """No time limit: the finders' turns end after FINDER_FIRST_NODES and FINDER_NODES
    positions (child node limits, no deadline), so the route's turns are not left waiting for
    the finders' whole node cap, and what is found does not depend on the machine's speed."""
    monkeypatch.setattr(proof_route, "ROUTE_FIRST", 1_000)
    monkeypatch.setattr(proof_route, "_schedule_turn", lambda _target: lambda _inner: None)
    budget = Budget()
    seen: list[Budget] = []

    def finders(inner: Budget) -> None:
        seen.append(inner)
        inner.check(5)
        return None

    game = proof_route.with_route(queen_return(), budget, finders, first=finders)
    assert game is not None and len(game) == 9
    assert len(seen) == 2 and budget.deadline is None
    assert [(inner.deadline, inner.nodes) for inner in seen] == \
        [(None, proof_route.FINDER_FIRST_NODES), (None, proof_route.FINDER_NODES)]
    assert budget.spent > 1_000 + 2 * 5          # the turns' positions are charged


@pytest.mark.usefixtures("no_tours")
def test_under_a_node_limit_alone_the_turns_are_node_slices(monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """A node limit alone: each finders' turn gets its slice of positions, at most what the
    limit leaves; a turn that uses its slice up ends and the next one starts; the limit is
    named when the whole figure is spent. Two runs charge the same count (no clock in it)."""
    monkeypatch.setattr(proof_route, "ROUTE_FIRST", 1_000)
    monkeypatch.setattr(proof_route, "ROUTE_NODES", 1_000)
    monkeypatch.setattr(proof_route, "_schedule_turn", lambda _target: lambda _inner: None)
    figure = proof_route.FINDER_FIRST_NODES + 1_000 + proof_route.FINDER_NODES // 2

    def run() -> tuple[list[tuple[float | None, int | None]], int, str]:
        seen: list[Budget] = []

        def finders(inner: Budget) -> None:
            seen.append(inner)
            while True:
                inner.check(1)              # a finder that never finds: its slice runs out

        budget = Budget(nodes=figure)
        with pytest.raises(LimitHit) as hit:
            proof_route.with_route(queen_return(), budget, finders, first=finders)
        return [(inner.deadline, inner.nodes) for inner in seen], budget.spent, str(hit.value)

    turns, spent, reason = run()
    # the first turn and the route's each stop one node past their slice
    left = figure - (proof_route.FINDER_FIRST_NODES + 1) - (1_000 + 1)
    assert turns[:2] == [(None, proof_route.FINDER_FIRST_NODES), (None, left)]
    assert reason == f"node limit {figure}" and spent == figure + 1
    assert run() == (turns, spent, reason)


def recorded_turns(monkeypatch: pytest.MonkeyPatch):
    """Short route turns, the schedule route stubbed out, and finders that find nothing: the
    turns in order as (name, budget), and the finders."""
    monkeypatch.setattr(proof_route, "ROUTE_FIRST", 1_000)
    monkeypatch.setattr(proof_route, "ROUTE_NODES", 1_000)
    seen: list[tuple[str, Budget]] = []

    def make(_target: chess.Board):
        def turn(inner: Budget) -> None:
            seen.append(("schedule", inner))
            return None
        return turn

    def finders(inner: Budget) -> None:
        seen.append(("finders", inner))
        return None

    monkeypatch.setattr(proof_route, "_schedule_turn", make)
    return seen, finders


@pytest.mark.usefixtures("no_tours")
def test_the_schedule_route_takes_the_time_the_finders_leave(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With a deadline, the finders' turn after the route's first one ends after
    FINDER_SECONDS, and the schedule route's turn gets all the time left; with less than
    SCHEDULE_LEAST left it does not run."""
    seen, finders = recorded_turns(monkeypatch)
    budget = Budget(timeout=600)
    proof_route.with_route(queen_return(), budget, finders, first=finders)
    assert [name for name, _ in seen][:3] == ["finders", "finders", "schedule"]
    finders_turn, schedule = seen[1][1], seen[2][1]
    assert finders_turn.deadline == pytest.approx(
        finders_turn.started + proof_route.FINDER_SECONDS, abs=0.5)
    assert schedule.deadline == budget.deadline
    seen.clear()
    monkeypatch.setattr(proof_route, "SCHEDULE_LEAST", 10_000.0)
    proof_route.with_route(queen_return(), Budget(timeout=600), finders, first=finders)
    assert seen and all(name == "finders" for name, _ in seen)


@pytest.mark.usefixtures("no_tours")
def test_without_a_deadline_the_schedule_route_follows_the_finders(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """No time limit: the finders' turn first, then the schedule route for SCHEDULE_SECONDS;
    under a node limit alone it does not run (it counts no nodes: the limit must hold)."""
    seen, finders = recorded_turns(monkeypatch)
    proof_route.with_route(queen_return(), Budget(), finders, first=finders)
    assert [name for name, _ in seen][:3] == ["finders", "finders", "schedule"]
    schedule = seen[2][1]
    assert schedule.deadline is not None
    assert round(schedule.deadline - schedule.started, 3) == proof_route.SCHEDULE_SECONDS
    seen.clear()
    try:
        proof_route.with_route(queen_return(), Budget(nodes=50_000), finders, first=finders)
    except LimitHit:
        pass
    assert seen and all(name == "finders" for name, _ in seen)


@pytest.mark.usefixtures("no_tours")
def test_a_game_of_the_finders_first_turn_skips_the_route(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """The finders' first round comes before the route: a game it finds is returned at once,
    without a search node of the route or the finders' long turn (the latency of easy
    positions, bench/README-legal.md)."""
    target = queen_return()
    budget = Budget(timeout=600)
    game = [chess.Move.from_uci("e2e4")]     # the finders' answer is passed on as it is

    def finders(inner: Budget) -> list[chess.Move]:
        inner.spent += 3
        return game

    def no_route(*_args: object) -> None:
        raise AssertionError("the route ran")

    monkeypatch.setattr(proof_route.ProofRoute, "run", no_route)
    assert proof_route.with_route(target, budget, no_route, first=finders) == game
    assert budget.spent == 3


@pytest.mark.usefixtures("no_tours")
def test_resumed_route_finds_what_one_run_finds() -> None:
    """Runs in small turns go on where they stopped: the same game, the same node count."""
    target = queen_return()
    whole = proof_route.ProofRoute(target)
    game = whole.run(Budget(), 10**6)
    turns = proof_route.ProofRoute(target)
    for _ in range(10**4):
        found = turns.run(Budget(), 500)
        if found is not None:
            break
    assert game is not None and len(game) == 9 and found == game
    assert reached_fault(replayed(game), target) is None
    assert whole.nodes > 2_000 and turns.nodes >= whole.nodes
