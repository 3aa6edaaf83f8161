"""Soundness of the proof-game lower bounds: along real games (random ones and the published
solutions of problems/spg) no side's bound ever exceeds the moves that side really makes in the
rest of the game, with every option of the bound switched on or off; and the victim slots of
forced pawn captures on hand-checked positions."""

from __future__ import annotations

import dataclasses
import random
import tomllib
from pathlib import Path

import chess
import pytest

from conftest import published_games, random_game
from retrologic.spg import solver as spg
from retrologic.spg.analysis import INF, SWITCHES, Analysis
from retrologic.spg.search import Limits, Search

ROOT = Path(__file__).resolve().parent.parent
OPTIONS = [dict(victim_slots=True, capture_accounting=False),
           dict(victim_slots=True, capture_accounting=True),
           dict(victim_slots=False, capture_accounting=True)]
# the two published games of the Kirtley & Caillaud problem (also its [expect] answers)
KIRTLEY = ["1.g4 h5 2.g5 Rh6 3.gxh6 e5 4.hxg7 Ke7 5.gxf8=Q+ Kf6 6.Qg7+ Ke6 7.Qg6+ fxg6",
           "1.g3 e5 2.g4 Be7 3.g5 Bf6 4.gxf6 h5 5.fxg7 Ke7 6.gxh8=N Ke6 7.Ng6 fxg6"]


def _assert_bounds_hold(start: chess.Board, moves: list[chess.Move], options: dict) -> None:
    """Take the end of `moves` (played from `start`) as the target; check every position."""
    board = start.copy()
    for m in moves:
        board.push(m)
    analysis = Analysis(start.copy(stack=False), board, **options)
    assert not analysis.impossible
    board = start.copy()
    n = len(moves)
    for i, move in enumerate(moves):
        w, b = analysis.moves_left(board, n - i)
        bw, bb = analysis.side_bound(board, chess.WHITE), analysis.side_bound(board, chess.BLACK)
        assert bw <= w and bb <= b, (f"ply {i} ({board.fen()}): bounds {bw}/{bb} exceed the "
                                     f"moves played {w}/{b}")
        # the coupled bound: when one side has no spare move, the other's stays within its moves
        for color, mine, theirs in ((chess.WHITE, w, b), (chess.BLACK, b, w)):
            if analysis._no_spare(board, not color, theirs):
                coupled = analysis.coupled_bound(board, color)
                assert coupled <= mine, (f"ply {i} ({board.fen()}): coupled bound {coupled} of "
                                         f"{chess.COLOR_NAMES[color]} exceeds {mine}")
        # every capture still to come lands on a landing square of its side
        for color, mine in ((chess.WHITE, w), (chess.BLACK, b)):
            landing = analysis.landing_squares(board, color, mine)
            later = board.copy(stack=False)
            for future in moves[i:]:
                if later.turn == color and later.is_capture(future):
                    assert landing & chess.BB_SQUARES[future.to_square], (
                        f"ply {i} ({board.fen()}): {chess.COLOR_NAMES[color]} captures on "
                        f"{chess.square_name(future.to_square)}, not a landing square")
                later.push(future)
        _assert_obstruction_holds(analysis, board, moves[i:], w, b, f"ply {i} ({board.fen()})")
        assert not analysis.prune(board, n - i), f"ply {i} ({board.fen()}) pruned"
        assert analysis.move_filter(board, move, n - i)
        board.push(move)


def _disturbed(board: chess.Board, rest: list[chess.Move], held: int) -> int:
    """The squares of `held` whose unit moves (castling rooks too) or is captured (en passant
    too) during `rest`."""
    out = 0
    later = board.copy(stack=False)
    for move in rest:
        touched = chess.BB_SQUARES[move.from_square] | chess.BB_SQUARES[move.to_square]
        if later.is_castling(move):
            touched |= later.rooks & later.occupied_co[later.turn] & chess.BB_SQUARES[
                (chess.H1 if chess.square_file(move.to_square) == 6 else chess.A1)
                ^ (0 if later.turn == chess.WHITE else 56)]
        if later.is_en_passant(move):
            touched |= chess.BB_SQUARES[move.to_square ^ 8]
        out |= touched & held & ~out
        later.push(move)
    return out


def _assert_obstruction_holds(analysis: Analysis, board: chess.Board, rest: list[chess.Move],
                              w: int, b: int, where: str) -> None:
    """The obstruction split: if the game leaves the held units alone, their view's bounds
    hold; if it disturbs one of a side's, that side's disturbed bound holds."""
    held = analysis.held_units(board)
    if not held:
        return
    hit = _disturbed(board, rest, held)
    if not hit:
        view = analysis.view(held)
        vw, vb = view.side_bound(board, chess.WHITE), view.side_bound(board, chess.BLACK)
        assert vw <= w and vb <= b, f"{where}: undisturbed view bounds {vw}/{vb} exceed {w}/{b}"
        assert not view.prune(board, len(rest)), f"{where}: undisturbed view prunes"
    for color, mine in ((chess.WHITE, w), (chess.BLACK, b)):
        if hit & board.occupied_co[color]:
            value = analysis.disturbed_bound(board, color, held & board.occupied_co[color])
            assert value <= mine, (f"{where}: {chess.COLOR_NAMES[color]} disturbs a unit of "
                                   f"{chess.SquareSet(hit)}; disturbed bound {value} > {mine}")


PUBLISHED = published_games(ROOT / "problems" / "spg", {"kirtley": KIRTLEY})


def test_the_published_corpus_is_there() -> None:
    names = {name for name, _ in PUBLISHED}
    assert {"nallusamy-2022", "probleemblad-r346", "ott-1981", "buchanan-motley-c",
            "kirtley-caillaud-2-solutions", "malikovic-fig2"} <= names
    assert len(PUBLISHED) >= 13


@pytest.mark.parametrize("options", OPTIONS, ids=["victims", "victims+lagrange", "lagrange"])
def test_bounds_hold_along_the_published_solutions(options: dict) -> None:
    for name, moves in PUBLISHED:
        _assert_bounds_hold(chess.Board(), moves, options)


@pytest.mark.parametrize("seed", range(120))
def test_bounds_hold_along_random_windows(seed: int) -> None:
    """Short windows of capture-heavy random games (a forced pawn capture then often has one
    possible victim, which is where a wrong victim square would show), and one whole game."""
    rng = random.Random(1000 + seed)
    game = random_game(seed, 140)
    options = OPTIONS[seed % len(OPTIONS)]
    for _ in range(6):
        length = rng.randint(2, 12)
        if len(game) <= length:
            break
        first = rng.randint(0, len(game) - length)
        start = game[first][0]
        _assert_bounds_hold(start, [m for _, m in game[first:first + length]], options)
    _assert_bounds_hold(chess.Board(), [m for _, m in game], options)


def test_victim_slot_of_a_forced_pawn_capture() -> None:
    """Kirtley & Caillaud after 5.gxf8=Q+: Black's f-pawn can reach its target g6 only by
    capturing on g6, so one white unit must get there; the queen f8 needs two moves (g7, g6)."""
    target = spg.parse_target("rnbq2n1/pppp4/4k1p1/4p2p/8/8/PPPPPP1P/RNBQKBNR", 14)
    board = chess.Board()
    text = "g4 h5 g5 Rh6 gxh6 e5 hxg7 Ke7 gxf8=Q+"
    for san in text.split():
        board.push_san(san)
    analysis = Analysis(chess.Board(), target)
    assert analysis.capture_slots(board, chess.BLACK) == (chess.BB_G6,)
    assert analysis.capture_slots(board, chess.WHITE) == ()
    assert analysis.side_bound(board, chess.WHITE) == 2       # Qg7, Qg6
    plain = Analysis(chess.Board(), target, victim_slots=False)
    assert plain.side_bound(board, chess.WHITE) == 0          # the plain assignment sees nothing


def test_victim_slot_taken_en_passant() -> None:
    """A black pawn that must capture on h3 may take a white pawn standing on h4 en passant:
    that pawn costs nothing as a victim (and the bound must allow it)."""
    board = chess.Board("rnbqkbnr/p1p1p2p/1p1p4/5P2/6pP/P4N2/1PPPPPB1/RNBQK2R b KQkq h3 0 6")
    board.push_san("gxh3")
    target = board.copy()
    analysis = Analysis(board, target)
    before = chess.Board("rnbqkbnr/p1p1p2p/1p1p4/5P2/6pP/P4N2/1PPPPPB1/RNBQK2R b KQkq h3 0 6")
    assert analysis.capture_slots(before, chess.BLACK) == (chess.BB_H3,)
    assert analysis.victim_cost(chess.WHITE, chess.PAWN, chess.H4, chess.BB_H3, 1) == 0
    assert analysis.side_bound(before, chess.WHITE) == 0
    assert analysis.prune(before, 1) is False


def test_more_forced_captures_than_victims_is_impossible() -> None:
    """Black's new pawns e6 and e5 can come only from d7 and f7, one capture each (e7 never
    moved), but White has a single unit to lose: two victims are needed, so White's bound is
    INF, while each side's plain assignment (one capture per pawn allowed) sees nothing."""
    target = chess.Board("rnbqkbnr/ppp1p1pp/4p3/4p3/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1")
    analysis = Analysis(chess.Board(), target)
    slots = analysis.capture_slots(chess.Board(), chess.BLACK)
    assert len(slots) == 2 and all(s & chess.BB_E6 for s in slots)
    assert analysis.side_bound(chess.Board(), chess.WHITE) == INF
    plain = Analysis(chess.Board(), target, victim_slots=False)
    assert plain.side_bound(chess.Board(), chess.WHITE) < INF
    assert plain.side_bound(chess.Board(), chess.BLACK) < INF
    # with no White unit to lose at all, Black's pawns cannot change file: Black's bound is INF
    target = chess.Board("rnbqkbnr/pppp1ppp/3p4/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    analysis = Analysis(chess.Board(), target)
    assert analysis.capture_slots(chess.Board(), chess.BLACK) == ()
    assert analysis.side_bound(chess.Board(), chess.BLACK) == INF


@pytest.mark.parametrize("fen,plies", [
    ("r1bqkbnr/ppp2ppp/3p4/8/8/8/PPPPPPPP/R1BQKBNR", 8),        # Schweig: captures on e7, g8
    ("r1Bqkbnr/p2ppppp/8/1pp5/4b3/8/P1PPPPPP/RNBQKBNR", 10),    # pawn captures, promotion
    ("rnbqkb1r/ppp2ppp/8/8/8/8/PPPPPPPP/RNBQKB1R", 8),          # knight swap
])
def test_every_bound_option_gives_the_same_games(fen: str, plies: int) -> None:
    target = spg.parse_target(fen, plies)
    seen = []
    for options in OPTIONS + [dict(victim_slots=False, capture_accounting=False),
                              dict(coupling=False, route_steps=False),
                              dict(coupling=False, landings=False, capacity=False),
                              dict(obstruction=False), dict(pawn_walls=False),
                              dict(obstruction=True, coupling=False, landings=False)]:
        answer = spg.solve(target, plies, check_shorter=False, bound_options=options)
        assert answer.complete
        seen.append(sorted(spg.san_text(g) for g in answer.games))
    assert all(s == seen[0] for s in seen) and len(seen[0]) == 1


def test_capture_capacity_of_the_cheapest_plans() -> None:
    """Black must play e7-e6 and capture White's missing h-pawn: the only cheapest plan (e6,
    one move) cannot capture (a capture onto e6 would empty the frozen d7 or f7), so Black
    needs a second move; the count of captures alone says 1."""
    target = chess.Board("rnbqkbnr/pppp1ppp/4p3/8/8/8/PPPPPPP1/RNBQKBNR w KQkq - 0 1")
    analysis = Analysis(chess.Board(), target)
    plans = analysis._plans(chess.Board(), chess.BLACK)
    assert plans.captures == 1 and plans.scenarios[0][:2] == (1, 0)   # 1 move, no capture
    assert min(p[0] for p in plans.scenarios) == 1
    assert analysis.side_bound(chess.Board(), chess.BLACK) == 2
    # and 1.h4 e6 2.h5 ... is indeed no proof game in 2.0: the solver agrees
    assert spg.solve(spg.parse_target(target.board_fen(), 4), 4, check_shorter=False).count == 0


def test_coupled_bound_when_the_other_side_has_no_spare_move() -> None:
    """Ott's 9.0 with 6 plies left, both sides' plain bounds exactly 3 of 3: White's surplus
    pawns a3 and d4 can reach no target, so Black must capture them; but Black, with no move
    to spare, can capture only along its cheapest routes (the f3 pawn to the first rank, a new
    queen onwards), which never touch a3, and the a3 pawn cannot walk to one of those squares
    in the moves White has: White would need moves it lacks."""
    target = spg.parse_target("rnbqkbnr/pppppqpp/8/8/4PP2/3B4/1PP1Q1PP/RNB1K2R", 18)
    board = chess.Board("rnbqkbnr/ppppp1pp/8/6N1/2BPP3/P4p2/1PP2PPP/RNBQK2R w KQkq - 0 1")
    analysis = Analysis(chess.Board(), target)
    assert analysis.moves_left(board, 6) == (3, 3)
    assert analysis.side_bound(board, chess.WHITE) == 3
    assert analysis.side_bound(board, chess.BLACK) == 3
    assert {sq for sq, _ in analysis.forced_victims(board, chess.WHITE)} == {chess.A3, chess.D4}
    squares = analysis.capture_squares(board, chess.BLACK)
    assert not squares & chess.BB_A3 and squares & chess.BB_F7 and squares & chess.BB_E2
    assert analysis.coupled_bound(board, chess.WHITE) > 3
    assert analysis.prune(board, 6)
    assert not Analysis(chess.Board(), target, coupling=False, landings=False,
                        victim_visits=False).prune(board, 6)
    # and White, with no spare move either, leaves a3 and d4 standing: Black cannot land there
    assert Analysis(chess.Board(), target, coupling=False).prune(board, 6)
    assert not analysis.landing_squares(board, chess.BLACK, 3) & (chess.BB_A3 | chess.BB_D4)


def test_a_side_without_spare_moves_keeps_to_its_cheapest_routes() -> None:
    """After 1.e4 (White's only move) the only candidate is e2-e4; for 1.Nf3 Nc6 2.Ng5 White's
    first move must be Nf3 or Nh3 (both start a shortest route g1-g5)."""
    target = spg.parse_target("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", 1)
    analysis = Analysis(chess.Board(), target)
    assert [m.uci() for m in analysis.candidate_moves(chess.Board(), 1)] == ["e2e4"]
    target = spg.parse_target("r1bqkbnr/pppppppp/2n5/6N1/8/8/PPPPPPPP/RNBQKB1R", 4)
    analysis = Analysis(chess.Board(), target)
    assert {m.uci() for m in analysis.candidate_moves(chess.Board(), 4)} == {"g1f3", "g1h3"}
    plain = Analysis(chess.Board(), target, route_steps=False)
    plain.mover.fixed_steps = False
    assert len(plain.candidate_moves(chess.Board(), 4)) == 4   # every knight move (pawns frozen)
    # without the route steps, the fixed-unit step alone (issue #22) still keeps Nb1 home: White
    # has no spare move, and Nb1 away and back would cost two
    fixed = Analysis(chess.Board(), target, route_steps=False)
    assert {m.uci() for m in fixed.candidate_moves(chess.Board(), 4)} == {"g1f3", "g1h3"}


def test_pawn_walls_prune_only_dead_positions() -> None:
    """A pawn on its own target square is, in the games that leave it there, a wall the other
    units must have passed already. Every child of the published game's positions that the walls prune (and the split without
    them does not) has no game to the diagram: a complete search without the walls finds none."""
    path = ROOT / "problems" / "spg" / "heinonen-1996.toml"  # Black's pawns end on rank 6
    fen = tomllib.loads(path.read_text())["position"]["fen"]
    game = dict(PUBLISHED)["heinonen-1996"]
    plies = len(game)
    target = spg.parse_target(fen, plies)
    walls = Analysis(chess.Board(), target)
    plain = Analysis(chess.Board(), target, pawn_walls=False)
    board, bitten = chess.Board(), 0
    for i, played in enumerate(game):
        left = plies - i - 1
        for move in board.legal_moves:
            child = board.copy(stack=False)
            child.push(move)
            if walls.prune(child, left) and not plain.prune(child, left):
                bitten += 1
                result = Search(child, target, left, plain.prune, limits=Limits(),
                                candidates=plain.candidate_moves).run()
                assert result.complete and result.count() == 0, (board.fen(), move.uci())
        board.push(played)
    assert board.board_fen() == fen and bitten >= 30


def test_views_copy_every_switch() -> None:
    """SWITCHES (what a view copies) names every on/off field of Analysis, and a view keeps
    each one but the split itself."""
    fields = {f.name for f in dataclasses.fields(Analysis)
              if isinstance(f.default, bool) and not f.name.startswith("_")} - {"impossible"}
    assert set(SWITCHES) == fields
    options = {name: False for name in SWITCHES} | {"obstruction": True}
    analysis = Analysis(chess.Board(), chess.Board(), **options)
    view = analysis.view(chess.BB_E2)
    assert view.extra_frozen == chess.BB_E2 and view.frozen & chess.BB_E2
    assert all(getattr(view, name) is False for name in SWITCHES)


@pytest.mark.parametrize("seed", range(6))
def test_a_units_column_is_its_routes_at_every_capture_count(seed: int) -> None:
    """`Bound.column` keys a piece's column without the capture count and a pawn's with at most
    `MAX_PAWN_CAPTURES` of it: each column handed out, for every capture count 0..9, equals
    the entries made afresh from the unit's routes and victim costs at that very count (the
    formula before the key was narrowed), with the frozen walls of a random game's target."""
    from retrologic.spg.bound import CAPW
    from retrologic.spg.bound import _capacity_weighted as weighted
    game = random_game(500 + seed, 90)
    target = game[-1][0]
    analysis = Analysis(chess.Board(), target)
    bound, distances = analysis.bound, analysis.distances
    rng = random.Random(seed)
    checked = 0
    for board, _ in game[::7]:
        for color in chess.COLORS:
            slots = bound.capture_slots(board, not color)
            for usq in chess.scan_forward(board.occupied_co[color] & ~analysis.frozen):
                utype = board.piece_type_at(usq)
                for captures in rng.sample(range(10), 4):
                    entries = tuple(weighted(distances.unit_routes(color, utype, usq, ttype, tsq,
                                                                   captures))
                                    for tsq, ttype in analysis.target_units[color])
                    for squares in slots:
                        v = distances.victim_cost(color, utype, usq, squares, captures)
                        entries += (CAPW * v - v if v < INF else INF,)
                    assert bound.column(color, utype, usq, captures, slots)[0] == entries
                    checked += 1
    assert checked > 100
