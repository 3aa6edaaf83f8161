"""The `unreachable` rule (retrologic.legality.reachability): a full position whose proof-game
bound is infinite for one side, or whose pawns of one side need more captures together than
the other side has units missing, is reached by no game. Oracles: python-chess's random games (a
position one reaches is never called unreachable), counting arguments checked by hand, and the
last-move certificates that close leaves with it (accepted by `check`; a forged leaf rejected in
tests/test_forgery.py)."""

from __future__ import annotations

import random

import chess
import pytest

from retrologic.certificate import check
from retrologic.lastmove import search as lastmove
from retrologic.legality import reachability, rules
from retrologic.limits import Budget
from retrologic.position import Position
from retrologic.questions import legal


def _random_positions(seeds: range, every: int) -> tuple[list[chess.Board], int]:
    """Positions of random games of 60-240 plies (captures, castlings, e.p. and promotions
    played with probability 0.6 when legal, so that captures and promotions are common), and
    how many of them come after a promotion."""
    out, promoted = [], 0
    for seed in seeds:
        rng = random.Random(seed)
        board = chess.Board()
        promotions = 0
        for ply in range(rng.randint(60, 240)):
            moves = list(board.legal_moves)
            if not moves:
                break
            special = [m for m in moves if board.is_capture(m) or board.is_castling(m)
                       or m.promotion]
            move = rng.choice(special) if special and rng.random() < 0.6 else rng.choice(moves)
            promotions += move.promotion is not None
            board.push(move)
            if ply % every == 0:
                out.append(board.copy(stack=False))
                promoted += promotions > 0
    return out, promoted


def test_positions_of_real_games_are_never_unreachable() -> None:
    """~460 positions of 12 random games, 40 of them after a promotion (the runs of 2,500
    games in bench/README-legal.md, 102,042 positions, found none either)."""
    boards, promoted = _random_positions(range(12), 4)
    assert len(boards) > 400 and promoted >= 30
    assert sum(chess.popcount(b.occupied) < 20 for b in boards) > 100   # many captures made
    for board in boards:
        assert reachability.reasons(Position.from_board(board)) == [], board.fen()


@pytest.mark.parametrize("fen, says", [
    # the b3 pawn came from a2 or c2 by a capture, but every black unit is on the board
    ("rnbqkbnr/pppppppp/8/8/8/1P6/1PPPPPPP/RNBQKBNR b KQkq - 0 1", "white's units"),
    # a third white knight is a promoted pawn (the a-pawn), but with every black pawn home no
    # white pawn can pass without a capture, and no black unit is missing
    ("rnbqkbnr/pppppppp/8/8/8/2N5/1PPPPPPP/RNBQKBNR b KQkq - 0 1", "white's units"),
    # Black's doubled e-pawns: d7xe6 took the white knight that is missing (reachable)
    ("rnbqkbnr/ppp1pppp/4p3/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1", None),
    # the same with every white unit on the board: no capture was possible
    ("rnbqkbnr/ppp1pppp/4p3/8/8/2N5/PPPPPPPP/R1BQKBNR w KQkq - 0 1", "black's units"),
    # a3/a4 and c3/c4: one of each pair came from the b- or d-file, so White's pawns captured
    # twice all together, though each alone needs no capture (the a- and c-pawns could be
    # either) and the bound, counting each pawn alone, is 4 moves: one black unit is missing
    ("r1bqkbnr/pppppppp/8/8/P1P5/P1P5/4PPPP/RNBQKBNR w KQkq - 0 1",
     "white's pawns need at least 2 captures all together (file changes, promotions) but "
     "only 1 black unit is missing"),
    # with two missing it is reachable
    ("r1bqkb1r/pppppppp/8/8/P1P5/P1P5/4PPPP/RNBQKBNR w KQkq - 0 1", None),
    # the g1 bishop is walled in by f2 and h2, so it never moved, but g1 held a knight
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKNBR w - - 0 1", "a unit that never moved"),
])
def test_counting_arguments(fen: str, says: str | None) -> None:
    found = reachability.reasons(Position.from_fen(fen))
    if says is None:
        assert found == []
    else:
        assert [r.rule for r in found] == ["unreachable"]
        assert found[0].message.startswith(f"no game reaches this position: {says}")


def test_one_missing_unit_makes_the_capture_possible() -> None:
    """The doubled b-pawn with a black knight missing: reachable (a2xb3 took it), and a game
    shows it (`legal` certifies the position legal). With White to move: with Black to move the
    position is illegal by a tempo count the bound does not make (the castling rights pin both
    kings and all rooks, only knights move freely, so White made an odd number of moves and
    Black, whose knight walked from b8 to b3, an odd number too)."""
    fen = "r1bqkbnr/pppppppp/8/8/8/1P6/1PPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert reachability.reasons(Position.from_fen(fen)) == []
    result = legal.answer(Position.from_fen(fen), budget=Budget(60))
    assert result.facts["legal"] is True


def test_legal_names_the_rule() -> None:
    """`legal` proves the doubled pawn without a capture illegal by this rule alone (the
    counting rules see nothing: 8 pawns, 16 units, no promoted piece)."""
    fen = "rnbqkbnr/pppppppp/8/8/8/1P6/1PPPPPPP/RNBQKBNR b KQkq - 0 1"
    pos = Position.from_fen(fen)
    assert rules.state_and_count_reasons(pos) == []
    result = legal.answer(pos)
    assert result.facts["legal"] is False and result.facts["rules"] == ["unreachable"]


def test_partial_and_miscounted_positions_are_left_to_the_other_rules() -> None:
    """A partial position leaves units out; a pawn on a back rank or a missing king is the
    counting rules' (the bound is never asked there: no exception, no verdict)."""
    assert reachability.reasons(Position.partial_from("8/8/8/8/8/1P6/1P6/8")) == []
    assert reachability.reasons(Position.from_fen("P3k3/8/8/8/8/8/8/4K3 b - - 0 1")) == []
    assert reachability.reasons(Position.from_fen("4k3/8/8/8/8/8/8/8 w - - 0 1")) == []


UNCAPTURES = "r1bqkbnr/pppppppp/8/8/8/1P3N2/1PPPPPPP/RNBQKB1R b KQkq - 0 1"


def test_last_move_uncaptures_closed_by_the_bound() -> None:
    """White moved last. Every uncapture of a black knight puts back the one black unit the b3
    pawn's capture needs: each such candidate is impossible by `unreachable` at once (before
    the rule they needed deeper trees); the quiet knight moves and a2xNb3 are possible, with
    games. `check` re-derives each leaf."""
    pos = Position.from_fen(UNCAPTURES)
    result = lastmove.solve(pos, 1, lastmove.Limits(timeout=60))
    cert = lastmove.certificate(pos, 1, result)
    by_status: dict[str, set[str]] = {}
    for c in cert["candidates"]:
        by_status.setdefault(c["status"], set()).add(c["notation"])
    uncaptures = {c["notation"] for c in cert["candidates"] if "xN" in c["notation"]
                  and c["notation"] != "a2xNb3"}
    assert len(uncaptures) == 7
    assert by_status["impossible"] == uncaptures
    assert {c["proof"]["rule"] for c in cert["candidates"]
            if c["status"] == "impossible"} == {"unreachable"}
    assert "a2xNb3" in by_status["possible"] and "Ng1-f3" in by_status["possible"]
    verdict = check(cert)
    assert verdict.ok, verdict.reason
