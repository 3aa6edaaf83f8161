"""Duplex last-move problems (issue #19): each side answered separately in one budget, each
side's certificate a normal `lastmove-proof` of that side's diagram, checked independently."""

from __future__ import annotations

import json
import re
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
    # each side's block states its own reason, not only the header that joins them
    black = result.lines[result.lines.index("Black moved last (Black's last move?):"):]
    assert any(line.startswith("  why: no candidate last move: black made the last move")
               for line in black)
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


MANY = "2kr1bnr/7P/n3b3/2PP1p2/4pP2/pNP1P3/Q2BK2p/R6R w - - 3 38"    # 121 + 181 candidates


def test_a_hard_first_side_leaves_the_second_its_half():
    """White's side gets half the budget: on this position of a random game (review of
    2026-11-30) it spent all 6 s and Black's side, the real mover's, listed no candidate and
    read "0 candidate(s) unresolved"."""
    result = question.answer(Position.from_fen(MANY), duplex=True, timeout=3)
    assert str(result.verdict) == "unknown"
    black = result.details["duplex"]["black"]["candidates"]
    assert len(black) == 121 and {"h3-h2", "g3xQh2"} <= {c["notation"] for c in black}
    # how many Black decides in its 1.5 s depends on the machine (CI once refuted one): the
    # reason's count is the candidates still unresolved, and most are
    open_ = sum(str(c["status"]) == "unresolved" for c in black)
    assert open_ > 100
    reasons = result.reason.split("; ")
    assert reasons[0].startswith("white: time limit 3 s") and \
        reasons[1].startswith(f"black: time limit 3 s: {open_} candidate(s) unresolved")


def test_the_sides_share_a_problem_files_node_limit(tmp_path):
    """Without --nodes, the question's own limit (here a problem file's `nodes`) is shared
    too: each side took the whole of it (review of this change, 2026-11-30)."""
    from retrologic import problem
    path = tmp_path / "dup.toml"
    path.write_text('format = "retrologic/1"\n'
                    f'position = {{ fen = "{MANY}" }}\n'
                    'question = { kind = "last-move", duplex = true, nodes = 200 }\n')
    result = problem.solve(problem.load(path))
    nodes = {side: result.details["duplex"][side]["nodes"] for side in ("white", "black")}
    assert nodes["white"] <= 101 and nodes["white"] + nodes["black"] <= 202, nodes
    assert re.search(r"node limit 200\b", result.reason), result.reason


def test_a_side_cut_before_its_candidates_are_listed_says_so():
    from retrologic.lastmove import search
    from retrologic.limits import Budget
    spent = Budget(nodes=None, timeout=1.0)
    spent.deadline = 0.0                      # past: the first check stops the listing
    res = search.solve(Position.from_fen(MANY), 1, search.Limits(budget=spent))
    assert str(res.verdict) == "unknown" and res.candidates == []
    assert res.reason.endswith("before the candidates were all listed")
    half = question._half(Budget(nodes=100))
    assert half.nodes == 50 and not half.nodes_used_up()
    assert half.node_reason() == "node limit 100"      # the user's figure quoted
