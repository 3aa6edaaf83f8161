"""Soundness of the proof-game lower bounds: along real games (random ones and the published
solutions of problems/spg) no side's bound ever exceeds the moves that side really makes in the
rest of the game, with every option of the bound switched on or off; and the victim slots of
forced pawn captures on hand-checked positions."""

from __future__ import annotations

import random
import re
import tomllib
from pathlib import Path

import chess
import pytest

from conftest import random_game
from retrologic import spg
from retrologic.spg_analysis import INF, Analysis

ROOT = Path(__file__).resolve().parent.parent
OPTIONS = [dict(victim_slots=True, capture_accounting=False),
           dict(victim_slots=True, capture_accounting=True),
           dict(victim_slots=False, capture_accounting=True)]
# the two published games of the Kirtley & Caillaud problem (its file has no [expect])
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
        assert analysis.move_filter(board, move, n - i)
        board.push(move)


def _published_games() -> list[tuple[str, list[chess.Move]]]:
    out = []
    for path in sorted((ROOT / "problems" / "spg").glob("*.toml")):
        data = tomllib.loads(path.read_text())
        texts = list(data.get("expect", {}).get("answer", []))
        notes = data.get("meta", {}).get("notes", "")
        if notes.startswith("published: "):
            texts.append(notes[len("published: "):])
        if path.stem.startswith("kirtley"):
            texts += KIRTLEY
        for text in texts:
            board = chess.Board()
            for token in text.split():
                token = re.sub(r"^\d+\.(\.\.)?", "", token)
                if token:
                    board.push_san(token)
            out.append((path.stem, list(board.move_stack)))
    return out


PUBLISHED = _published_games()


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
    for options in OPTIONS + [dict(victim_slots=False, capture_accounting=False)]:
        answer = spg.solve(target, plies, check_shorter=False, bound_options=options)
        assert answer.complete
        seen.append(sorted(spg.san_text(g) for g in answer.games))
    assert all(s == seen[0] for s in seen) and len(seen[0]) == 1
