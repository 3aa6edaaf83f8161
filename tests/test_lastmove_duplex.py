"""Duplex last-move problems (issue #19): each side answered separately in one budget, each
side's certificate a normal `lastmove-proof` of that side's diagram, checked independently."""

from __future__ import annotations

import json
import subprocess
import sys

import chess

from retrologic.certificate import check
from retrologic.position import Position
from retrologic.questions import lastmove as question

A2A3 = "8/8/8/8/1k6/P7/1K6/8 b - - 0 1"


def test_each_side_answered_and_certified(tmp_path):
    result = question.answer(Position.from_fen(A2A3), duplex=True, timeout=60,
                             certificate_dir=tmp_path)
    assert str(result.verdict) == "proved"
    assert result.facts["white_finding"] == "unique"
    assert result.facts["white_possible"] == ["a2-a3+"]
    # with White to move the black king stands in check from a3: no last move of Black's
    assert result.facts["black_finding"] == "none possible"
    assert result.answer == ["white: a2-a3+"]
    for name, turn in (("white", chess.BLACK), ("black", chess.WHITE)):
        path = result.details["duplex"][name]["certificate"]
        cert = json.loads(open(path).read())
        assert cert["type"] == "lastmove-proof"
        assert chess.Board(cert["fen"]).turn == turn
        assert check(cert).ok, name
    # the white side's game replays (python-chess) to the diagram, ending in a2-a3
    game = result.details["duplex"]["white"]["candidates"][0]["game"]
    board = chess.Board()
    for uci in game:
        board.push_uci(uci)
    assert board.board_fen() == chess.Board(A2A3).board_fen() and board.turn == chess.BLACK
    assert game[-1] == "a2a3"


def test_a_side_certificate_stating_the_other_diagram_is_rejected(tmp_path):
    result = question.answer(Position.from_fen(A2A3), duplex=True, timeout=60,
                             certificate_dir=tmp_path)
    cert = json.loads(open(result.details["duplex"]["black"]["certificate"]).read())
    # the black side's certificate says Black moved last: stating the diagram with Black to
    # move (White moved last) instead must be rejected
    forged = dict(cert, position={"fen": A2A3})
    assert not check(forged).ok


def test_one_budget_for_both_sides():
    """A node limit is shared: hit on the first side, the second is not decided either."""
    result = question.answer(Position.from_fen("k1K5/8/8/8/8/8/7P/6B1 w - - 0 1"),
                             duplex=True, nodes=50)
    assert str(result.verdict) == "unknown"
    assert result.facts["white_verdict"] == "unknown"
    assert result.facts["black_verdict"] == "unknown"


def test_cli_flag():
    out = subprocess.run([sys.executable, "-m", "retrologic", "lastmove", A2A3, "--duplex",
                          "--timeout", "60", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["facts"]["white_possible"] == ["a2-a3+"]
    assert record["facts"]["black_finding"] == "none possible"
