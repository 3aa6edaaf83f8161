"""The tempo-parity rule (retrologic/legality/tempo.py) against real games: it never fires on
a position a python-chess game reached, and it decides the side to move of positions whose
moves all have a known parity (the initial array with Black to move, the classic)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import chess
import pytest

from retrologic.cli import main
from retrologic.legality import tempo
from retrologic.legality.rules import reasons
from retrologic.position import Position


def quiet_games(seeds: range):
    """Positions of random games without captures, pawns stepping now and then (rarely a double
    step) and the pieces shuffling (rooks, kings, queens and bishops half the time): positions
    whose moves all have a known parity, where the rule has something to say."""
    for seed in seeds:
        rng = random.Random(seed)
        board = chess.Board()
        for _ in range(rng.randint(1, 80)):
            moves = [m for m in board.legal_moves if not board.is_capture(m) and not (
                board.piece_type_at(m.from_square) == chess.PAWN
                and rng.random() < (0.97 if abs(m.to_square - m.from_square) == 16 else 0.85))]
            pieces = [m for m in moves if board.piece_type_at(m.from_square) in
                      (chess.ROOK, chess.KING, chess.QUEEN, chess.BISHOP)]
            if pieces and rng.random() < 0.5:
                moves = pieces
            if not moves:
                break
            board.push(rng.choice(moves))
            yield board


def test_never_fires_on_positions_of_real_games_and_decides_the_other_side():
    real = decided = lost_rights = 0
    for board in quiet_games(range(400)):
        pos = Position.from_board(board)
        assert tempo.reasons(pos) == [], board.fen()       # a game reached it: never illegal
        real += 1
        other = replace(pos.with_turn(not board.turn), ep_square=None)
        if tempo.reasons(other):
            decided += 1
            lost_rights += board.castling_rights != chess.BB_CORNERS
    # not vacuous: the rule decides the side to move of about a quarter of these positions,
    # most of them with castling rights lost (rooks' and kings' regions, not walls)
    assert real > 10_000 and decided > real // 6 and lost_rights > decided // 2


@pytest.mark.parametrize("fen, illegal", [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", True),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", False),
    ("rnbqkbnr/pppppppp/8/8/8/7P/PPPPPPP1/RNBQKBNR w KQkq - 0 1", True),   # h3: one move
    ("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1", True),  # Nf3: odd
    ("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 0 1", False),
    # the a1 rook free on a1-b1 (its right lost): an even number of moves back on a1, White's
    # even in all, Black's odd (the knight on c6): White cannot be to move, Black can
    ("r1bqkbnr/pppppppp/2n5/8/8/8/PPPPPPPP/RNBQKBNR w Kkq - 0 1", True),
    ("r1bqkbnr/pppppppp/2n5/8/8/8/PPPPPPPP/RNBQKBNR b Kkq - 0 1", False),
    # a pawn on h4 (a double step or two single steps): open, the rule says nothing
    ("rnbqkbnr/pppppppp/8/8/7P/8/PPPPPPP1/RNBQKBNR b KQkq - 0 1", False),
    ("rnbqkbnr/pppppppp/8/8/7P/8/PPPPPPP1/RNBQKBNR w KQkq - 0 1", False),
    # the h1 rook without its right, the h-pawn on h3: h3 is no wall (the pawn moved there),
    # so the rook's region runs up the h-file, a graph with odd cycles: the rule says nothing
    ("rnbqkbnr/pppppppp/8/8/8/7P/PPPPPPP1/RNBQKBNR w Qkq - 0 1", False),
    # a capture happened (Black has 15 units): out of the rule's reach
    ("rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1", False),
])
def test_known_positions(fen, illegal):
    assert bool(tempo.reasons(Position.from_fen(fen))) is illegal


def test_legal_and_lastmove_use_it_and_the_checker_re_derives_it(tmp_path, capsys):
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"
    assert [r.rule for r in reasons(Position.from_fen(fen))] == [tempo.RULE]
    assert main(["legal", fen, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["answer"] == "illegal"
    assert main(["lastmove", fen, "--certificate-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    [cert] = tmp_path.iterdir()
    assert main(["check", str(cert)]) == 0
    text = cert.read_text()
    assert text.count('"tempo-parity"') == 4                 # one leaf per knight's retraction
    # a possible candidate rewritten as impossible by a tempo-parity leaf at its predecessor,
    # where the rule does not hold (1.c3 Nh6 with White to move: both counts odd): rejected
    other = tmp_path / "other"
    assert main(["lastmove", "rnbqkb1r/pppppppp/7n/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 2",
                 "--certificate-dir", str(other)]) == 0
    capsys.readouterr()
    [real] = other.iterdir()
    data = json.loads(real.read_text())
    cand = next(c for c in data["candidates"] if c["notation"] == "c3-c4")
    assert cand["status"] == "possible"
    before = "rnbqkb1r/pppppppp/7n/8/8/2P5/PP1PPPPP/RNBQKBNR w KQkq - 0 1"
    assert tempo.reasons(Position.from_fen(before)) == []
    cand.update(status="impossible", game=None,
                proof={"fen": before, "rule": "tempo-parity", "message": "forged"})
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    assert main(["check", str(forged)]) == 1
    assert "rule tempo-parity does not hold" in capsys.readouterr().out
