"""Soundness of the CP-SAT strategy model of proof games: every real game's own strategy (each
unit's fate, moves and captures, the castlings, the victims of its pawns' captures, read off by
replaying it with python-chess) satisfies the model, over the published solutions of
problems/spg, random games and windows of them; the units it proves still never move in any of
them; and on small diagrams its strategy list holds the strategy of every game brute force
finds, and it says "no strategy" only where brute force finds no game."""

from __future__ import annotations

import json

import chess
import pytest

from conftest import random_game
from retrologic.spg import solver as spg
from retrologic.spg.analysis import Analysis
from retrologic.spg.strategy import StrategyModel, analyse
from retrologic.vocabulary import Unit
from test_spg import OPENING_CASES, SPECIAL_CASES, _window
from test_spg_bounds import PUBLISHED
from test_spg_bruteforce import all_games


class Realised:
    """A game's own strategy: per original unit (by start square) its moves, its captures,
    whether it was captured and where it ended; the castlings; each pawn's victims in order."""

    def __init__(self, start: chess.Board, moves: list[chess.Move]) -> None:
        board = start.copy(stack=False)
        where = {sq: Unit(p.color, sq, p.piece_type) for sq, p in board.piece_map().items()}
        self.moves = {u: 0 for u in where.values()}
        self.captures = dict(self.moves)
        self.captured: set[Unit] = set()
        self.castled: set[chess.Square] = set()
        self.victims: dict[Unit, list[Unit]] = {}
        for move in moves:
            mover = where.pop(move.from_square)
            if board.is_castling(move):
                short = chess.square_file(move.to_square) > chess.square_file(move.from_square)
                rank = chess.square_rank(move.from_square)
                rook_from = chess.square(7 if short else 0, rank)
                rook = where.pop(rook_from)
                self.castled.add(rook.home)
                self.moves[rook] += 1
                where[chess.square(5 if short else 3, rank)] = rook
            elif board.is_capture(move):
                vsq = move.to_square
                if board.is_en_passant(move):
                    vsq = chess.square(chess.square_file(move.to_square),
                                       chess.square_rank(move.from_square))
                victim = where.pop(vsq)
                self.captured.add(victim)
                self.captures[mover] += 1
                if board.piece_type_at(move.from_square) == chess.PAWN:
                    self.victims.setdefault(mover, []).append(victim)
            self.moves[mover] += 1
            where[move.to_square] = mover
            board.push(move)
        self.end = {u: sq for sq, u in where.items()}
        self.board = board

    def still(self) -> int:
        """Squares of the units that never moved and were never captured."""
        return sum(chess.BB_SQUARES[u.home] for u, n in self.moves.items()
                   if n == 0 and u not in self.captured)


def _fits(model: StrategyModel, game: Realised) -> str:
    """The model's status with every variable fixed to the game's own values."""
    cp = model.model
    for color in chess.COLORS:
        for u in model.units[color]:
            cp.add(model.moves[u] == game.moves[u])
            cp.add(model.captures[u] == game.captures[u])
            if u in model.captured:
                cp.add(model.captured[u] == int(u in game.captured))
            elif u in game.captured:
                return f"{u.name()} is captured but the model cannot capture it"
    for (u, tsq), x in model.becomes.items():
        cp.add(x == int(game.end.get(u) == tsq))
    for (u, tsq, c), y in model.routes.items():
        cp.add(y == int(game.end.get(u) == tsq and game.captures[u] == c))
    for rook, flag in model.castles.items():
        cp.add(flag == int(rook in game.castled))
    for u, tsq, j, v, z in model.takes:
        victims = game.victims.get(u, [])
        cp.add(z == int(game.end.get(u) == tsq and j < len(victims) and victims[j] == v))
    return model.solve()[1]


def _check_game(start: chess.Board, moves: list[chess.Move], where: str) -> None:
    game = Realised(start, moves)
    target = spg.parse_target(game.board.board_fen(), len(moves) + (start.turn == chess.BLACK))
    plies = len(moves)
    plain = Analysis(start, target)
    frozen_moved = plain.frozen & ~game.still()
    assert not frozen_moved, f"{where}: structurally frozen units moved"
    status = _fits(StrategyModel(plain, plies), game)
    assert status == "feasible", f"{where}: the game's own strategy is {status}"
    report, analysis = analyse(target, plies, start=start, enumerate_strategies=False)
    assert report.status == "feasible", f"{where}: {report.reason}"
    moved = report.frozen & ~game.still()
    assert not moved, f"{where}: units proved still moved: {chess.SquareSet(moved)}"
    status = _fits(StrategyModel(analysis, plies), game)
    assert status == "feasible", f"{where}: with the still units frozen the game is {status}"


def test_published_solutions_fit_their_strategy_models() -> None:
    assert len(PUBLISHED) >= 40
    for name, moves in PUBLISHED:
        _check_game(chess.Board(), moves, name)


@pytest.mark.parametrize("seed", range(40))
def test_random_games_and_windows_fit(seed: int) -> None:
    """Whole capture-heavy random games, and windows of them from mid-game starts (castling,
    e.p. and promotions are common in this corpus)."""
    game = random_game(seed, 30 + 3 * seed)
    _check_game(chess.Board(), [m for _, m in game], f"seed {seed}")
    for first, length in ((seed % 7, 12), (len(game) // 2, 9)):
        window = game[first:first + length]
        if window:
            _check_game(window[0][0], [m for _, m in window], f"seed {seed} window {first}")


def _brute_force_check(start: chess.Board, target: chess.Board, plies: int) -> None:
    games = all_games(start, target, plies)
    report, _ = analyse(target, plies, start=start, limit=None)
    if report.status == "infeasible":
        assert not games, "no strategy, yet brute force finds a game"
        return
    assert report.status == "feasible" and report.complete
    listed = {s.key() for s in report.strategies}
    for uci in games:
        moves = [chess.Move.from_uci(u) for u in uci]
        game = Realised(start, moves)
        assert not report.frozen & ~game.still(), f"{uci}: a unit proved still moved"
        own = next(s for s in report.strategies if all(
            game.end.get(f.unit) == f.square for f in s.fates)
            and set(s.castled) == game.castled
            and all(f.captures is None or f.captures == game.captures[f.unit] for f in s.fates))
        assert own.key() in listed


@pytest.mark.parametrize("seed,plies", OPENING_CASES)
def test_strategies_cover_brute_force_from_the_array(seed: int, plies: int) -> None:
    start, target = _window(seed, 0, plies)
    _brute_force_check(start, spg.parse_target(target.board_fen(), plies), plies)


@pytest.mark.parametrize("seed,first,plies", SPECIAL_CASES)
def test_strategies_cover_brute_force_around_special_moves(seed: int, first: int,
                                                          plies: int) -> None:
    start, target = _window(seed, first, plies)
    board = spg.parse_target(target.board_fen(), plies + (start.turn == chess.BLACK))
    _brute_force_check(start, board, plies)


@pytest.mark.parametrize("fen,plies", [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", 2),   # one move there and back: none
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", 3),   # White's two moves, Black's one
    ("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R", 4),  # Nf3 in two moves: parity
])
def test_tempo_and_parity_without_search(fen: str, plies: int) -> None:
    """No strategy: a unit that leaves and comes back needs two moves, and a knight's moves
    have the parity of its colour change (Black's 1 move in 2 plies cannot be spent)."""
    target = spg.parse_target(fen, plies)
    report, _ = analyse(target, plies)
    assert report.status == "infeasible"
    assert spg.solve(target, plies, check_shorter=False, strategies=False).count == 0


def test_the_oracle_catches_a_wrong_victim_square(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mutant whose pawn captures land nowhere (so no unit can be their victim) is refuted by
    the games above: the oracle can fail."""
    monkeypatch.setattr(Analysis, "capture_landings", lambda self, *args: 0)
    with pytest.raises(AssertionError, match="own strategy is infeasible"):
        for seed in range(40):
            game = random_game(seed, 30 + 3 * seed)
            _check_game(chess.Board(), [m for _, m in game], f"seed {seed}")


FIGURE_2 = "r1bknbr1/pppqpppp/3p1n2/8/3B4/1PN5/PKPPPPPP/RQ3BNR"


def test_figure_2_strategies_and_still_units(capsys: pytest.CaptureFixture[str]) -> None:
    """Figure 2: neither side has a move to spare, so White's Ng1 and Rh1 and Black's Ra8 and
    Bc8 never move. Four strategies: Black's knights end on e8 and f6 one way or the other, and
    White's king walks to b2 or castles long (then the rook goes back to a1: 2 + 2 - 1 moves,
    as many as the king's three; the model does not see that Qb1 and O-O-O exclude each
    other). The published game follows the first."""
    from retrologic.cli import main
    assert main(["spg", FIGURE_2, "--moves", "8.0", "--list-strategies", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["facts"]["status"] == "unique"
    assert data["details"]["strategy"]["still"] == ["g1", "h1", "a8", "c8"]
    listed = data["details"]["strategies"]
    assert listed["complete"] and listed["count"] == 4
    texts = listed["strategies"]
    for castles in (False, True):
        mine = [t for t in texts if ("w castles long" in t) == castles]
        assert any("bNb8 -> e8 (3 moves)" in t and "bNg8 -> f6 (1 move)" in t for t in mine)
        assert any("bNb8 -> f6 (2 moves)" in t and "bNg8 -> e8 (2 moves)" in t for t in mine)
    game = Realised(chess.Board(), [chess.Move.from_uci(u) for u in (
        "b2b3 d7d6 c1b2 b8d7 b2d4 d7f6 b1c3 d8d7 d1b1 e8d8 e1d1 f6e8 d1c1 g8f6 c1b2 h8g8".split())])
    assert game.board.board_fen() == FIGURE_2
    still = int(chess.SquareSet([chess.G1, chess.H1, chess.A8, chess.C8]))
    assert game.still() & still == still  # the published game leaves them where they are


def test_a_length_without_strategy_is_not_searched(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch) -> None:
    """The array after 1.5 moves: no strategy, so 'no solution' with no node searched, and the
    0.5 length below is excluded too."""
    from retrologic.spg import solver
    monkeypatch.setattr(solver, "QUICK", False)   # the full path, where the strategy layer runs
    from retrologic.cli import main
    array = chess.STARTING_BOARD_FEN
    assert main(["spg", array, "--moves", "1.5", "--json"]) == 0  # answered: refuted
    data = json.loads(capsys.readouterr().out)
    assert data["facts"]["status"] == "no solution" and data["details"]["nodes"] == 0
    assert data["details"]["searches"][0]["strategies"] == "infeasible"
    assert data["details"]["searches"][0]["searched"] is False
    assert main(["spg", array, "--moves", "1.5", "--no-strategies", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["facts"]["status"] == "no solution" and data["details"]["nodes"] > 0
    assert "strategy" not in data["details"]


def test_listing_keeps_a_castling_variant_of_a_listed_strategy() -> None:
    """After 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.O-O Nf6 (12 plies), the strategy without castling
    (king and rook walk) and the one with it share every fate: blocking the first must not
    block the second, so both are listed, and the list is complete."""
    board = chess.Board()
    for uci in "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 e1g1 g8f6".split():
        board.push_uci(uci)
    target = spg.parse_target(board.board_fen(), 12)
    model = StrategyModel(Analysis(chess.Board(), target), 12)
    flag = model.castles[chess.H1]
    solver, status = model.solve([flag.negated()])
    assert status == "feasible"
    model.block(solver)
    assert model.solve([flag])[1] == "feasible"
    report, _ = analyse(target, 12, limit=None)
    assert report.complete
    assert {s.castled for s in report.strategies} == {(), (chess.H1,)}


def test_no_strategy_names_the_constraints_at_fault() -> None:
    """The UNSAT core names the side total at fault, with the fewest moves it needs."""
    report, _ = analyse(spg.parse_target("rnbqkbnr/pppppppp/8/4P3/8/8/PPPP1PPP/RNBQKBNR", 2), 2)
    assert report.status == "infeasible"
    assert "White makes exactly 1 move" in report.reason
    assert "White's units need at least 2 moves" in report.reason
    report, _ = analyse(spg.parse_target("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R", 4), 4)
    assert "White makes exactly 2 moves" in report.reason and "cannot make exactly 2" in report.reason


def _listed(model: StrategyModel) -> set:
    """Every strategy of `model`, listed by solving and blocking until it has none."""
    keys = set()
    while True:
        solver, status = model.solve()
        if status == "infeasible":
            return keys
        assert status == "feasible"
        keys.add(model.strategy(solver).key())
        model.block(solver)


@pytest.mark.parametrize("fen,plies", [
    ("2bq1r2/1pp1bppp/2Bp2n1/p3p1K1/1k2nN1P/2R1QrP1/PPPPPP2/RNB5", 34),   # Bell 2000
    ("r1bqkbnr/ppp2ppp/3p4/8/8/8/PPPPPPPP/R1BQKBNR", 8),                   # Schweig 1938
])
def test_fixed_groups_list_the_same_strategies(fen: str, plies: int) -> None:
    """`fix_groups` (the groups as hard constraints, for CP-SAT's presolve) lists exactly the
    strategies the assumed groups list, and a fixed model no longer claims to name a core."""
    target = spg.parse_target(fen, plies)
    analysis = Analysis(chess.Board(), target)
    assumed = StrategyModel(analysis, plies)
    fixed = StrategyModel(analysis, plies)
    fixed.fix_groups()
    keys = _listed(assumed)
    assert keys and _listed(fixed) == keys
    assert "none can be named" in fixed.explain()
